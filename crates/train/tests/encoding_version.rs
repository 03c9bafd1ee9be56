//! A run keeps one input encoding version, this build's: a run whose models are of another
//! (one started before version 2) is refused when any role loads them, with an error that
//! names the model and says what to do, instead of training or playing on mixed inputs.

use burn::prelude::Device;
use mancala_encoding::{ENCODING_VERSION, layout_for};
use mancala_nn::{ModelMeta, NetConfig, model_bytes};
use mancala_rules::Game;
use mancala_store::Store;
use mancala_train::layout::{self, BestPointer, Candidate};
use mancala_train::roles::trainer;
use mancala_train::{Ctl, Quiet, Run, RunConfig, TrainError};

#[test]
fn a_run_of_an_older_encoding_version_is_refused() {
    let run = Run::create(Store::open("memory://old-encoding").unwrap(), RunConfig::shipped("tiny").unwrap()).unwrap();
    let game = run.game.clone();
    // Generation 0 replaced by a network of version 1, as a run from before version 2 has.
    let config = NetConfig::for_layout(&layout_for(&game, 1).unwrap(), game.action_space()).with_width(16);
    let mut meta = ModelMeta::new(game.rules_string(), config.clone(), 0);
    meta.encoding_version = 1;
    let bytes = model_bytes(&meta, &config.init(&Device::flex())).unwrap();
    let checksum = layout::checksum(&bytes);
    let key = layout::model_key(0, &checksum);
    run.store.put(&key, &bytes).unwrap();
    let mut c: Candidate = run.read(&layout::candidate_key(0)).unwrap();
    (c.model, c.checksum) = (key.clone(), checksum.clone());
    run.store.put(&layout::candidate_key(0), &serde_json::to_vec(&c).unwrap()).unwrap();
    let best = BestPointer { generation: 0, model: key.clone(), checksum };
    run.store.put(layout::BEST, &serde_json::to_vec(&best).unwrap()).unwrap();

    // The trainer's restart and every role that loads the best model (workers, gatekeeper,
    // evaluator) stop with the same error.
    let restored = trainer::restore(&run, &Ctl::new(&Quiet));
    let Err(e) = restored else { panic!("a version-1 run was restored") };
    assert!(matches!(e, TrainError::EncodingVersion { found: 1, expected: ENCODING_VERSION, .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains(&format!("memory://old-encoding/{key}")) && text.contains("start a new run"), "{text}");
    let e = run.load_best(&Device::flex()).unwrap_err();
    assert!(matches!(e, TrainError::EncodingVersion { found: 1, .. }), "{e}");
}
