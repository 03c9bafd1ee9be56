//! The player builder: the settings it refuses, the stop on simulations under a long time, the
//! threads, and that a spec and the builder asked directly play the same moves.

use std::time::Duration;

use burn::prelude::Device;
use mancala_agents::{AgentSpec, Guide, MAX_SIMULATIONS, PlayerError, PlayerSettings, build_player};
use mancala_encoding::layout;
use mancala_mcts::Agent;
use mancala_nn::{ModelMeta, NetConfig, save_model};
use mancala_rules::{AnyGame, Game, Line, parse_rules};

/// A small untrained model for `game`, saved in `dir`.
fn model(dir: &std::path::Path, game: &AnyGame) -> std::path::PathBuf {
    let config = NetConfig::for_layout(&layout(game), game.action_space()).with_width(16).with_blocks(1);
    let path = dir.join(format!("{}.mzm", game.family()));
    save_model(&path, &ModelMeta::new(game.rules_string(), config.clone(), 0), &config.init(&Device::flex())).unwrap();
    path
}

/// The first `plies` moves `agent` plays against itself.
fn moves(agent: &mut dyn Agent<AnyGame>, game: &AnyGame, plies: usize) -> Vec<String> {
    let mut line = Line::new(game.clone());
    let mut out = Vec::new();
    while out.len() < plies && !line.status().is_over() {
        let side = line.side_to_move();
        let action = agent.choose(&line);
        out.push(game.move_label(side, action));
        line.play(action).unwrap();
    }
    out
}

#[test]
fn settings_out_of_range_are_refused_naming_them() {
    let game = parse_rules("kalah").unwrap();
    let refused = |settings: PlayerSettings| {
        build_player(&game, &Guide::Rollouts, None, &settings, 0, "x".into()).err().expect("refused")
    };
    let base = PlayerSettings::rollouts();
    let e = refused(PlayerSettings { simulations: MAX_SIMULATIONS + 1, ..base.clone() });
    assert!(matches!(e, PlayerError::Simulations { .. }));
    assert!(e.to_string().contains("MAX_SIMULATIONS = 1000000"), "{e}");
    assert!(matches!(refused(PlayerSettings { simulations: 0, ..base.clone() }), PlayerError::Simulations { .. }));
    assert!(matches!(refused(PlayerSettings { threads: 0, ..base.clone() }), PlayerError::Threads { asked: 0 }));
    assert!(matches!(refused(PlayerSettings { time: Some(Duration::ZERO), ..base.clone() }), PlayerError::ZeroTime));
    assert!(matches!(refused(PlayerSettings { margin: Some(0.7), ..base }), PlayerError::Margin { .. }));
}

#[test]
fn a_model_for_another_game_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let kalah = parse_rules("kalah").unwrap();
    let oware = parse_rules("oware").unwrap();
    let guide = Guide::model_file(&kalah, &model(dir.path(), &kalah)).unwrap();
    let err = build_player(&oware, &guide, None, &PlayerSettings::network(), 0, "x".into()).err().unwrap();
    assert!(matches!(err, PlayerError::ModelForOtherGame { .. }), "{err:?}");
}

#[test]
fn a_long_time_with_a_simulation_cap_stops_on_the_cap() {
    let game = parse_rules("oware").unwrap();
    let settings =
        PlayerSettings { simulations: 40, time: Some(Duration::from_secs(3600)), ..PlayerSettings::rollouts() };
    let mut player = build_player(&game, &Guide::Rollouts, None, &settings, 3, "x".into()).unwrap();
    let line = Line::new(game.clone());
    assert_eq!(player.analyse(&line).simulations_done(), 40);
}

#[test]
fn a_spec_and_the_builder_play_the_same_moves() {
    let dir = tempfile::tempdir().unwrap();
    let game = parse_rules("kalah").unwrap();
    let path = model(dir.path(), &game);
    for threads in [1, 2] {
        let text = format!("net:{},sims=24,threads={threads}", path.display());
        let mut from_spec = AgentSpec::parse(&text).unwrap().build(&game, 5).unwrap();
        let guide = Guide::model_file(&game, &path).unwrap();
        let settings = PlayerSettings { simulations: 24, threads, ..PlayerSettings::network() };
        let mut built = build_player(&game, &guide, None, &settings, 5, "built".into()).unwrap();
        assert_eq!(built.threads(), threads);
        assert_eq!(moves(from_spec.as_mut(), &game, 10), moves(&mut built, &game, 10), "{text}");
    }
}

#[test]
fn rollouts_replay_a_game_from_its_seed_whatever_came_before() {
    let game = parse_rules("oware").unwrap();
    let mut agent = AgentSpec::parse("mcts:sims=30,threads=2").unwrap().build(&game, 1).unwrap();
    agent.new_game(9);
    let first = moves(agent.as_mut(), &game, 6);
    moves(agent.as_mut(), &game, 3);
    agent.new_game(9);
    assert_eq!(moves(agent.as_mut(), &game, 6), first);
}
