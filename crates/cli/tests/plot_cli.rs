//! `mancala-zero plot RUN` reads a run through its store: a directory, and a real S3 server
//! when `.ci/run` started one (`MZ_TEST_S3_BUCKET` with the `AWS_*` variables; without them
//! that case says so and is skipped, unless `MZ_REQUIRE_S3=1`).

use std::process::{Command, Output};

use mancala_store::Store;
use mancala_train::layout;

fn plot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero")).arg("plot").args(args).output().unwrap()
}

/// A run's config and metrics, as the roles write them (the metrics' last line cut short,
/// as a kill while it is rewritten could leave it).
fn write_run(store: &Store) {
    store.put(layout::CONFIG, b"[game]\nrules = \"kalah\"\n").unwrap();
    let metrics = [
        r#"{"iteration": 1, "loss/policy": 2.0, "elo/random": 10.0}"#,
        r#"{"iteration": 2, "loss/policy": 1.5, "elo/random": 80.0}"#,
        r#"{"iteration": 3, "loss/pol"#,
    ];
    store.put(layout::METRICS, metrics.join("\n").as_bytes()).unwrap();
}

fn assert_png(path: &std::path::Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(bytes.starts_with(b"\x89PNG"), "{} is not a PNG", path.display());
}

#[test]
fn plots_a_run_in_a_directory_beside_it_or_where_asked() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    write_run(&Store::open(run.to_str().unwrap()).unwrap());
    let out = plot(&[run.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped 1 line"));
    assert_png(&run.join("curves.png"));
    let elsewhere = dir.path().join("elsewhere.png");
    let out = plot(&[run.to_str().unwrap(), "--out", elsewhere.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_png(&elsewhere);
}

#[test]
fn a_folder_that_is_no_run_or_has_no_metrics_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = plot(&[dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run at"), "{}", String::from_utf8_lossy(&out.stderr));
    Store::open(dir.path().to_str().unwrap()).unwrap().put(layout::CONFIG, b"[game]\nrules = \"kalah\"\n").unwrap();
    let out = plot(&[dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("metrics.jsonl") && err.contains("no metrics yet"), "{err}");
}

#[test]
fn plots_a_run_on_a_real_s3_server() {
    let bucket = match std::env::var("MZ_TEST_S3_BUCKET") {
        Ok(b) if !b.is_empty() => b,
        _ => {
            assert!(std::env::var("MZ_REQUIRE_S3").is_err(), "MZ_REQUIRE_S3 is set but MZ_TEST_S3_BUCKET is not");
            eprintln!("skipped: no S3 server (set MZ_TEST_S3_BUCKET and AWS_*, as .ci/run does)");
            return;
        }
    };
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let url = format!("s3://{bucket}/plot-{}-{t}", std::process::id());
    write_run(&Store::open(&url).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("curves.png");
    let out = plot(&[&url, "--out", png.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_png(&png);
}
