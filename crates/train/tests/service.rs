//! A run whose workers play through the inference service (`selfplay.inference =
//! "service"`), on the tiny config over a `memory://` store, and the new keys' validation.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use burn::prelude::Device;
use mancala_store::Store;
use mancala_train::roles::worker;
use mancala_train::{Quiet, Run, RunConfig, TrainOptions, start};

/// The tiny config with the service (small batches, so requests are split and merged).
fn tiny_served() -> String {
    RunConfig::shipped("tiny").unwrap().replace(
        "leaves_per_gather = 2",
        "leaves_per_gather = 2\ninference = \"service\"\nservice_batch = 3\nservice_flush_us = 100",
    )
}

#[test]
fn a_tiny_run_through_the_service_completes() {
    let store = Store::open("memory://served-run").unwrap();
    let options = TrainOptions { workers: 2, tensorboard: None, poll: Duration::from_millis(20) };
    let text = tiny_served();
    let summary = start(store.clone(), &text, &options, &Quiet).unwrap();
    assert!(summary.finished);
    assert_eq!(summary.iterations, 2);
    assert!(summary.workers.iter().all(|w| !w.stored.is_empty()));
    let run = Run::open(store).unwrap();
    assert_eq!(run.config.selfplay.inference, mancala_selfplay::Inference::Service);
}

#[test]
fn a_worker_shard_through_the_service_has_its_games() {
    let run = Run::create(Store::open("memory://served-shard").unwrap(), &tiny_served()).unwrap();
    let model = run.load_best(&Device::flex()).unwrap();
    let shard = worker::play_shard(&run, &model, None, 2, 1, &AtomicBool::new(false)).unwrap().unwrap();
    assert_eq!(shard.games, run.config.selfplay.games_per_shard);
    assert!(shard.positions > 0);
    // Told to stop before the first move, it returns without a shard and without hanging.
    assert!(worker::play_shard(&run, &model, None, 2, 2, &AtomicBool::new(true)).unwrap().is_none());
}

#[test]
fn bad_service_keys_are_refused_by_name() {
    let tiny = RunConfig::shipped("tiny").unwrap();
    for (line, key) in [
        ("inference = \"gpu\"", "inference"),
        ("service_batch = 0", "selfplay.service_batch"),
        ("service_flush_us = 5000000", "selfplay.service_flush_us"),
    ] {
        let text = tiny.replace("leaves_per_gather = 2", &format!("leaves_per_gather = 2\n{line}"));
        let err = RunConfig::parse(&text).unwrap_err().to_string();
        assert!(err.contains(key), "{line}: {err}");
    }
    let err = RunConfig::parse(&tiny.replace("leaves_per_gather = 2", "leaves_per_gather = 2\ninference = \"gpu\""))
        .unwrap_err()
        .to_string();
    assert!(err.contains("direct") && err.contains("service"), "{err}");
    // The default stays the direct path.
    assert_eq!(RunConfig::parse(tiny).unwrap().selfplay.inference, mancala_selfplay::Inference::Direct);
}
