//! A role that fails ends the run with an error naming what failed; the other roles stop,
//! what was stored stays, and a resume goes on. A shard that does not fit the run is skipped
//! by name, never trained on.

use std::collections::HashSet;
use std::time::Duration;

use mancala_rules::Game;
use mancala_selfplay::{Row, ShardHeader, shard_bytes};
use mancala_store::Store;
use mancala_train::layout::{self, Candidate};
use mancala_train::roles::trainer;
use mancala_train::{Ctl, Extend, Quiet, Run, RunConfig, TrainError, TrainOptions, resume};

fn tiny(iterations: u64) -> String {
    RunConfig::shipped("tiny").unwrap().replace("iterations = 2", &format!("iterations = {iterations}"))
}

fn options() -> TrainOptions {
    TrainOptions { workers: 1, tensorboard: None, poll: Duration::from_millis(20) }
}

fn shards(run: &Run) -> HashSet<String> {
    run.store.list(layout::SHARDS).unwrap().into_iter().map(|e| e.key).collect()
}

/// The gatekeeper meets a corrupt decision record: the run stops with an error naming it,
/// unfinished, with every stored object kept; once the record is removed, a resume runs the
/// run to its end and every shard stored before the failure is taken in.
fn a_failing_role_stops_the_run_by_name_and_a_resume_goes_on(url: &str) {
    let store = Store::open(url).unwrap();
    let run = Run::create(store.clone(), &tiny(2)).unwrap();
    let bad = layout::gating_key(1);
    run.store.put(&bad, b"{ not a decision").unwrap();

    let err = mancala_train::train(&run, &options(), &Quiet).unwrap_err();
    assert!(matches!(err, TrainError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains(&run.store.describe(&bad)), "{err}");
    assert!(!run.info().unwrap().finished);
    let stored_before = shards(&run);
    let candidates_before = run.generations(layout::CANDIDATES).unwrap();

    run.store.delete(&bad).unwrap();
    let summary = resume(store, Extend::default(), &options(), &Quiet).unwrap();
    assert!(summary.finished);
    assert_eq!(summary.iterations, 2);
    // Nothing stored before the failure was lost: every candidate is still there, and every
    // shard is in the window of the last candidate or still to be taken in.
    let candidates = run.generations(layout::CANDIDATES).unwrap();
    assert!(candidates_before.iter().all(|g| candidates.contains(g)), "{candidates_before:?} {candidates:?}");
    let last: Candidate = run.read(&layout::candidate_key(*candidates.last().unwrap())).unwrap();
    let mut state = trainer::restore(&run, &Ctl::new(&Quiet)).unwrap();
    trainer::ingest(&run, &mut state).unwrap();
    let taken: HashSet<String> = state.ingested.iter().chain(&state.skipped).cloned().collect();
    assert!(stored_before.iter().all(|k| taken.contains(k)), "{stored_before:?} {taken:?}");
    assert!(last.skipped.is_empty(), "{:?}", last.skipped);
}

#[test]
fn a_failing_role_stops_a_run_in_memory_by_name_and_a_resume_goes_on() {
    a_failing_role_stops_the_run_by_name_and_a_resume_goes_on("memory://role-fails");
}

#[test]
fn a_failing_role_stops_a_run_in_a_directory_by_name_and_a_resume_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    a_failing_role_stops_the_run_by_name_and_a_resume_goes_on(dir.path().join("run").to_str().unwrap());
}

/// A model object cut in half stops the run with an error naming it; put back whole, the
/// run resumes to its end.
#[test]
fn a_run_whose_model_is_corrupt_fails_naming_it() {
    let store = Store::open("memory://model-corrupt").unwrap();
    let run = Run::create(store.clone(), &tiny(1)).unwrap();
    let best = run.best().unwrap();
    let whole = run.store.get(&best.model).unwrap();
    run.store.put(&best.model, &whole[..whole.len() / 2]).unwrap();
    let err = mancala_train::train(&run, &options(), &Quiet).unwrap_err();
    assert!(err.to_string().contains(&run.store.describe(&best.model)), "{err}");
    run.store.put(&best.model, &whole).unwrap();
    let summary = resume(store, Extend::default(), &options(), &Quiet).unwrap();
    assert!(summary.finished);
    assert_eq!(summary.iterations, 1);
}

/// A shard of the run's game whose rows have another width is skipped, its reason naming
/// it (the trainer's loop reports it as a warning), and never trained on.
#[test]
fn a_shard_of_another_shape_is_skipped_by_name() {
    let run = Run::create(Store::open("memory://wrong-shape").unwrap(), &tiny(3)).unwrap();
    let inputs = mancala_encoding::layout(&run.game).inputs() + 2;
    let actions = run.game.action_space();
    let rows: Vec<Row> = (0..4)
        .map(|_| Row {
            inputs: vec![0.0; inputs],
            legal: 1,
            policy: vec![1.0 / actions as f32; actions],
            search_value: 0.0,
            outcome: 1.0,
            margin: 0.0,
        })
        .collect();
    let header = ShardHeader { rules: run.game.rules_string(), inputs, actions, rows: 4, games: 2, iteration: 0 };
    let key = layout::shard_key("odd", 1);
    run.store.create(&key, &shard_bytes(&header, &rows)).unwrap();

    let ctl = Ctl::new(&Quiet);
    let mut state = trainer::restore(&run, &ctl).unwrap();
    let found = trainer::ingest(&run, &mut state).unwrap();
    assert_eq!((found.shards, found.rows), (0, 0));
    assert_eq!(found.skipped.len(), 1, "{:?}", found.skipped);
    let (skipped, why) = &found.skipped[0];
    assert_eq!(skipped, &key);
    assert!(why.contains(&run.store.describe(&key)) && why.contains(&format!("{inputs} inputs")), "{why}");
    assert!(state.window.is_empty());
    // The trainer refuses to train on nothing rather than on rows it cannot take.
    let err = trainer::train(&run, &mut state, 1, &ctl).unwrap_err();
    assert!(err.to_string().contains("window is empty"), "{err}");
}
