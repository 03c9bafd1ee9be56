//! The trainer takes every spec as a reference: a tiny run evaluates its best model against a
//! saved model (`net:FILE`) and records that reference's Elo; a reference file that cannot be
//! used is refused by name before any evaluation.

use std::path::Path;
use std::time::Duration;

use burn::prelude::Device;
use mancala_encoding::layout;
use mancala_nn::{ModelMeta, NetConfig, save_model};
use mancala_rules::{Game, parse_rules};
use mancala_store::Store;
use mancala_train::layout::{self as keys, EvalRecord};
use mancala_train::roles::evaluator;
use mancala_train::{Quiet, Run, RunConfig, TrainError, TrainOptions, start};

/// The tiny config with these references, and every candidate promoted (threshold 0), so
/// that a best model past generation 0 exists to evaluate whatever the games' outcome.
fn tiny_with(references: &str) -> String {
    let text = RunConfig::shipped("tiny").unwrap();
    let (old_refs, old_threshold) = (r#"references = ["random", "greedy"]"#, "threshold = 0.5");
    assert!(text.contains(old_refs) && text.contains(old_threshold), "configs/tiny.toml changed:\n{text}");
    text.replace(old_refs, &format!("references = {references}")).replace(old_threshold, "threshold = 0.0")
}

/// Saves an untrained model of the tiny config's game to `path`.
fn save_reference(path: &Path) {
    let game = parse_rules("kalah:3,2").unwrap();
    let config = NetConfig::for_layout(&layout(&game), game.action_space()).with_width(16).with_blocks(1);
    let meta = ModelMeta::new(game.rules_string(), config.clone(), 0);
    save_model(path, &meta, &config.init(&Device::flex())).unwrap();
}

#[test]
fn a_run_evaluates_against_a_saved_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("reference.mzm");
    save_reference(&model);
    let reference = format!("net:{},sims=8", model.display());
    let store = Store::open("memory://agents-net-reference").unwrap();
    let options = TrainOptions { workers: 1, tensorboard: None, poll: Duration::from_millis(20) };
    let config = tiny_with(&format!(r#"["random", "{reference}"]"#));
    let summary = start(store.clone(), &config, &options, &Quiet).unwrap();
    assert!(summary.finished);

    let run = Run::open(store).unwrap();
    let evaluated = run.generations(keys::EVAL).unwrap();
    let last = *evaluated.last().expect("the final best is evaluated");
    let record: EvalRecord = run.read(&keys::eval_key(last)).unwrap();
    let elo = record.elo.get(&reference).unwrap_or_else(|| panic!("no Elo for {reference}: {:?}", record.elo));
    assert!(elo.is_finite(), "{elo}");
    assert!(record.elo.contains_key("random"), "{:?}", record.elo);
    assert!(record.scalars.contains_key(&format!("score/{reference}")), "{:?}", record.scalars);
}

#[test]
fn unusable_references_are_refused_by_name() {
    // Syntax: refused with the config, before a run exists.
    let err = RunConfig::parse(&tiny_with(r#"["random", "net:"]"#)).unwrap_err();
    assert!(matches!(err, TrainError::Config(_)), "{err}");
    assert!(err.to_string().contains("evaluation.references") && err.to_string().contains("'net:'"), "{err}");
    let err = RunConfig::parse(&tiny_with(r#"["mcts:sims=10,sims=20"]"#)).unwrap_err();
    assert!(err.to_string().contains("given twice"), "{err}");

    // Files: refused by the evaluator, naming the spec and the file.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.mzm");
    let spec = format!("net:{}", missing.display());
    let store = Store::open("memory://agents-missing-reference").unwrap();
    let run = Run::create(store, &tiny_with(&format!(r#"["{spec}"]"#))).unwrap();
    let err = evaluator::reference_specs(&run).unwrap_err().to_string();
    assert!(err.contains("evaluation.references") && err.contains(&format!("'{spec}'")), "{err}");

    // A model of another game.
    let oware = parse_rules("oware").unwrap();
    let config = NetConfig::for_layout(&layout(&oware), oware.action_space()).with_width(16).with_blocks(1);
    let other = dir.path().join("oware.mzm");
    save_model(&other, &ModelMeta::new(oware.rules_string(), config.clone(), 0), &config.init(&Device::flex()))
        .unwrap();
    let store = Store::open("memory://agents-other-game-reference").unwrap();
    let run = Run::create(store, &tiny_with(&format!(r#"["net:{}"]"#, other.display()))).unwrap();
    let err = evaluator::reference_specs(&run).unwrap_err().to_string();
    assert!(err.contains("is a model for 'oware"), "{err}");
}
