//! Helpers shared by the web crate's tests: a server in this process, a model file and a run
//! folder to point it at.

#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use burn::prelude::Device;
use mancala_encoding::layout;
use mancala_nn::{ModelMeta, NetConfig, save_model};
use mancala_rules::{Game, parse_rules};
use mancala_web::{App, ServerConfig};

/// A server config for tests: rollouts only (no shipped networks in the library).
pub fn config() -> ServerConfig {
    ServerConfig { engine_threads: 2, ..ServerConfig::default() }
}

pub fn app(config: ServerConfig) -> Arc<App> {
    App::new(config).expect("test server config")
}

/// Writes a small untrained model for `rules` to `path`.
pub fn write_model(rules: &str, path: &Path) {
    let game = parse_rules(rules).unwrap();
    let net_config = NetConfig::for_layout(&layout(&game), game.action_space()).with_width(16).with_blocks(1);
    let net = net_config.init(&Device::flex());
    let meta = ModelMeta::new(game.rules_string(), net_config, 10);
    save_model(path, &meta, &net).unwrap();
}

/// A run folder `dir/name` as training writes it: config, metrics (one line lacking keys and
/// one cut short), two checkpoints and the best pointer.
pub fn write_run(dir: &Path, name: &str, rules: &str) {
    let run = dir.join(name);
    std::fs::create_dir_all(run.join("models")).unwrap();
    std::fs::write(run.join("config.toml"), format!("[run]\nseed = 1\n\n[game]\nrules = \"{rules}\"\n")).unwrap();
    let metrics = [
        r#"{"iteration": 1, "loss/policy": 2.0, "loss/value": 1.0}"#,
        r#"{"iteration": 2, "loss/policy": 1.5, "loss/value": 0.8, "elo/random": 120.5}"#,
        r#"{"iteration": 3, "loss/policy": 1.25}"#,
        r#"{"iteration": 4, "loss/pol"#,
    ];
    std::fs::write(run.join("metrics.jsonl"), metrics.join("\n")).unwrap();
    write_model(rules, &run.join("models/iter-0001.mzm"));
    write_model(rules, &run.join("models/iter-0002.mzm"));
    std::fs::write(run.join("best.json"), r#"{"model": "models/iter-0002.mzm", "iteration": 2}"#).unwrap();
}
