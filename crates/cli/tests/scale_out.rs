//! A fleet on one machine: `train --workers 0` (trainer, gatekeeper, evaluator) and three
//! `worker` processes on one store, a local directory and a real S3 server. One worker is
//! SIGKILLed in the middle of its games and restarted under its id; the trainer process is
//! killed once and resumed. At the end every worker's shards were ingested, none twice, the
//! pointer names a checked model, and the workers that ran to the end use the newest model.
//!
//! The S3 case needs a server: `.ci/run` starts SeaweedFS and sets `MZ_TEST_S3_BUCKET` with the
//! `AWS_*` variables; without them the case says so and is skipped, unless `MZ_REQUIRE_S3=1`.

use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use burn::prelude::Device;
use mancala_store::Store;
use mancala_train::Run;
use mancala_train::layout::{self, WorkerBeat};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
}

fn config(dir: &std::path::Path) -> std::path::PathBuf {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml"))
            .unwrap()
            .replace("iterations = 2", "iterations = 8")
            .replace("tensorboard = true", "tensorboard = false");
    let path = dir.join("fleet.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn worker(url: &str, id: &str) -> Child {
    bin()
        .args(["worker", "--quiet", "--threads", "1", "--store", url, "--id", id])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn finish(mut child: Child, what: &str, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{what} did not stop within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{what} failed: {text}");
    text
}

fn fleet(url: &str, scratch: &std::path::Path) {
    let store = || Store::open(url).unwrap();
    let mut trainer = bin()
        .args(["train", "--quiet", "--workers", "0", "--config"])
        .arg(config(scratch))
        .args(["--store", url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("the run to be created", Duration::from_secs(60), || store().exists(layout::RUN).unwrap_or(false));
    let mut workers: Vec<Child> = ["w1", "w2", "w3"].iter().map(|id| worker(url, id)).collect();

    // w1 stores a shard, then is killed while it plays the next (or uploads it).
    let shards_of = |id: &str| store().list(&format!("shards/{id}/")).map(|l| l.len()).unwrap_or(0);
    wait_until("w1's first shard", Duration::from_secs(60), || shards_of("w1") >= 1);
    std::thread::sleep(Duration::from_millis(30));
    workers[0].kill().unwrap();
    workers[0].wait().unwrap();
    let w1_before = shards_of("w1");
    workers[0] = worker(url, "w1");

    // The trainer is killed once it has published a candidate, and resumed.
    let run = Run::open(store()).unwrap();
    wait_until("a candidate", Duration::from_secs(120), || {
        run.generations(layout::CANDIDATES).map(|g| g.len() >= 2).unwrap_or(false)
    });
    trainer.kill().unwrap();
    trainer.wait().unwrap();
    let trainer = bin()
        .args(["train", "--workers", "0", "--resume", url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish(trainer, "the resumed trainer", Duration::from_secs(240));
    assert!(out.contains("done: 8 iterations"), "{out}");
    // Workers stop by themselves once the run is finished.
    for (w, id) in workers.into_iter().zip(["w1", "w2", "w3"]) {
        let out = finish(w, id, Duration::from_secs(120));
        assert!(out.contains(&format!("worker {id}: stored")), "{out}");
    }

    let run = Run::open(store()).unwrap();
    assert!(run.info().unwrap().finished);
    let dev = Device::flex();
    let best = run.best().unwrap();
    run.load_best(&dev).unwrap();
    let newest = run.newest_candidate().unwrap();
    assert_eq!(newest.generation, 8);
    let ingested: HashSet<&String> = newest.ingested.iter().collect();
    assert_eq!(ingested.len(), newest.ingested.len(), "a shard ingested twice");
    let stored: HashSet<String> = run.store.list(layout::SHARDS).unwrap().into_iter().map(|e| e.key).collect();
    for key in &newest.ingested {
        assert!(stored.contains(key), "{key} ingested but not stored");
    }
    for id in ["w1", "w2", "w3"] {
        assert!(newest.ingested.iter().any(|k| k.starts_with(&format!("shards/{id}/"))), "no shard of {id} ingested");
    }
    // The restarted w1 continued its numbering: no gap, no number twice.
    let w1: Vec<u64> =
        stored.iter().filter_map(|k| layout::shard_of(k)).filter(|(w, _)| *w == "w1").map(|(_, s)| s).collect();
    assert!(w1.len() >= w1_before);
    let mut sorted = w1.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=w1.len() as u64).collect::<Vec<_>>());
    // The workers that ran to the end play with the newest model.
    for id in ["w1", "w2", "w3"] {
        let beat: WorkerBeat = run.read(&layout::worker_key(id)).unwrap();
        assert_eq!(beat.model_generation, best.generation, "{id} plays with generation {}", beat.model_generation);
    }
    let status = bin().args(["status", "--store", url]).output().unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(status.status.success() && text.contains("trainer: candidate 8") && text.contains("w3"), "{text}");
}

#[test]
fn a_fleet_on_a_local_directory() {
    let dir = tempfile::tempdir().unwrap();
    fleet(&dir.path().join("run").display().to_string(), dir.path());
}

/// The bucket of the S3 server `.ci/run` started, when there is one.
fn s3_bucket() -> Option<String> {
    match std::env::var("MZ_TEST_S3_BUCKET") {
        Ok(b) if !b.is_empty() => Some(b),
        _ => {
            assert!(std::env::var("MZ_REQUIRE_S3").is_err(), "MZ_REQUIRE_S3 is set but MZ_TEST_S3_BUCKET is not");
            eprintln!("skipped: no S3 server (set MZ_TEST_S3_BUCKET and AWS_*, as .ci/run does)");
            None
        }
    }
}

fn unique(name: &str) -> String {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{}-{t}", std::process::id())
}

#[test]
fn a_fleet_on_a_real_s3_server() {
    let Some(bucket) = s3_bucket() else { return };
    let dir = tempfile::tempdir().unwrap();
    fleet(&format!("s3://{bucket}/{}", unique("fleet")), dir.path());
}

#[test]
fn s3_errors_name_the_object() {
    let Some(bucket) = s3_bucket() else { return };
    let status = |url: &str, env: &[(&str, &str)]| {
        let mut cmd = bin();
        cmd.args(["status", "--store", url]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let url = format!("s3://{bucket}/{}", unique("errors"));
    let e = status(&url, &[]);
    assert!(e.contains(&format!("{url} holds no run")), "{e}");
    let e = status(&url, &[("AWS_SECRET_ACCESS_KEY", "wrong")]);
    assert!(e.contains(&format!("{url}/run.json: access denied")), "{e}");
    let e = status("s3://no-such-bucket-mz/run", &[]);
    assert!(e.contains("bucket 'no-such-bucket-mz' does not exist"), "{e}");
    let e = status(&url, &[("AWS_ENDPOINT", "http://127.0.0.1:9")]);
    assert!(e.contains(&format!("cannot read {url}/run.json")) && e.contains("Connection refused"), "{e}");

    // The store contract on the real server: a conditional create keeps the first object.
    let store = Store::open(&url).unwrap();
    assert_eq!(store.create("shards/w/00000001.shard", b"first").unwrap(), mancala_store::Created::New);
    assert_eq!(store.create("shards/w/00000001.shard", b"second").unwrap(), mancala_store::Created::Existed);
    assert_eq!(store.get("shards/w/00000001.shard").unwrap(), b"first");
    assert_eq!(store.list("shards/").unwrap().len(), 1);
    // A corrupt pointer in a real run is named.
    let run_url = format!("s3://{bucket}/{}", unique("corrupt"));
    let scratch = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(config(scratch.path())).unwrap();
    let run = Run::create(Store::open(&run_url).unwrap(), &text).unwrap();
    run.store.put(layout::BEST, b"garbage").unwrap();
    let out = bin().args(["worker", "--store", &run_url, "--id", "x"]).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains(&format!("{run_url}/best.json is corrupt")), "{e}");
}

/// A loopback TCP forwarder that can be cut and restored, to make a store unreachable for a
/// while without touching the server.
struct Proxy {
    port: u16,
    up: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Proxy {
    fn start(target: std::net::SocketAddr) -> Proxy {
        use std::net::{Shutdown, TcpListener, TcpStream};
        use std::sync::atomic::Ordering;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let flag = up.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if !flag.load(Ordering::Relaxed) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(target) else { continue };
                for (mut from, mut to) in [(client.try_clone().unwrap(), server.try_clone().unwrap()), (server, client)]
                {
                    let flag = flag.clone();
                    std::thread::spawn(move || {
                        let mut buf = [0u8; 16384];
                        while flag.load(Ordering::Relaxed) {
                            match std::io::Read::read(&mut from, &mut buf) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => {
                                    if std::io::Write::write_all(&mut to, &buf[..n]).is_err() {
                                        break;
                                    }
                                }
                            }
                        }
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        Proxy { port, up }
    }

    fn set(&self, up: bool) {
        self.up.store(up, std::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn a_worker_rides_out_an_unreachable_store() {
    let Some(bucket) = s3_bucket() else { return };
    let endpoint = std::env::var("AWS_ENDPOINT").unwrap();
    let target: std::net::SocketAddr = endpoint.trim_start_matches("http://").parse().unwrap();
    let proxy = Proxy::start(target);
    let url = format!("s3://{bucket}/{}", unique("outage"));
    let scratch = tempfile::tempdir().unwrap();
    let run =
        Run::create(Store::open(&url).unwrap(), &std::fs::read_to_string(config(scratch.path())).unwrap()).unwrap();
    let child = bin()
        .args(["worker", "--threads", "1", "--id", "w", "--store", &url])
        .env("AWS_ENDPOINT", format!("http://127.0.0.1:{}", proxy.port))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It stores shards up to its lead on the (absent) trainer, then waits, polling the store.
    wait_until("the worker's first shards", Duration::from_secs(60), || {
        run.store.list("shards/w/").map(|l| l.len() >= 2).unwrap_or(false)
    });
    proxy.set(false);
    std::thread::sleep(Duration::from_secs(4));
    proxy.set(true);
    // Back online, it sees the run end and stops by itself, having kept running throughout.
    std::thread::sleep(Duration::from_secs(2));
    let mut info = run.info().unwrap();
    info.finished = true;
    run.write_info(&info).unwrap();
    let out = finish(child, "the worker", Duration::from_secs(90));
    assert!(out.contains("warning: worker w:") && out.contains("retrying in"), "{out}");
    assert!(out.contains("worker w: stored"), "{out}");
}
