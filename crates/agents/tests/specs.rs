//! Every spec kind parses, checks its files and plays a legal move in Oware and Kalah; every
//! bad spec is refused with a typed error that names it.

use std::path::{Path, PathBuf};

use burn::prelude::Device;
use std::time::Duration;

use mancala_agents::{
    AgentKind, AgentSpec, FileError, MAX_SIMULATIONS, MCTS_C_PUCT, NET_C_PUCT, NET_MINIMAX, NET_SOLVER, PlayerSettings,
    SpecError,
};
use mancala_encoding::layout;
use mancala_mcts::FinalPick;
use mancala_mcts::alphabeta::Limit;
use mancala_nn::{ModelMeta, NetConfig, NnError, Precision, save_model};
use mancala_rules::{AnyGame, Game, Line, parse_rules};
use mancala_tablebase::Tablebase;

/// A game with a small untrained model and a small endgame database of its own on disk.
struct Fixture {
    game: AnyGame,
    model: PathBuf,
    db: PathBuf,
}

fn fixture(dir: &Path, rules: &str, seeds: usize) -> Fixture {
    let game = parse_rules(rules).unwrap();
    let tag = game.family();
    let config = NetConfig::for_layout(&layout(&game), game.action_space()).with_width(16).with_blocks(1);
    let model = dir.join(format!("{tag}.mzm"));
    save_model(&model, &ModelMeta::new(game.rules_string(), config.clone(), 0), &config.init(&Device::flex())).unwrap();
    let db = dir.join(format!("{tag}.tb"));
    Tablebase::build(&game, seeds, &|_| {}).unwrap().0.write(&db).unwrap();
    Fixture { game, model, db }
}

fn fixtures(dir: &Path) -> [Fixture; 2] {
    [fixture(dir, "oware", 3), fixture(dir, "kalah", 4)]
}

#[test]
fn every_kind_parses_and_plays_a_legal_move_in_oware_and_kalah() {
    let dir = tempfile::tempdir().unwrap();
    for f in fixtures(dir.path()) {
        let (model, db) = (f.model.display(), f.db.display());
        let specs = [
            "random".to_string(),
            "greedy".to_string(),
            "alphabeta:depth=2".to_string(),
            "ab:ms=5".to_string(),
            "mcts:sims=20,cpuct=2".to_string(),
            format!("net:{model},sims=8"),
            format!("net:{model},sims=8,tb={db}"),
            format!("net:{model},sims=8,tb={db},margin=0.3"),
            format!("net:{model},sims=8,precision=int8"),
            format!("perfect:db={db},depth=2"),
        ];
        for text in &specs {
            let spec = AgentSpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            spec.check(&f.game).unwrap_or_else(|e| panic!("{text}: {e}"));
            let mut agent = spec.build(&f.game, 1).unwrap_or_else(|e| panic!("{text}: {e}"));
            // A few plies of a real game: every choice legal where it is made.
            let mut line = Line::new(f.game.clone());
            for _ in 0..4 {
                if line.status().is_over() {
                    break;
                }
                let action = agent.choose(&line);
                assert!(line.legal_moves().contains(action), "{text} in {}: illegal {action:?}", f.game.rules_string());
                line.play(action).unwrap();
            }
            // The shorthand builds the same kind of agent.
            assert!(mancala_agents::build(&f.game, text, 2).is_ok(), "{text}");
        }
    }
}

/// `pick` reaches the search: the default plays as `pick=value` does, and the most visited
/// move differs somewhere (an untrained network's values disagree with its visits).
#[test]
fn the_final_pick_reaches_the_search() {
    let dir = tempfile::tempdir().unwrap();
    for f in fixtures(dir.path()) {
        let model = f.model.display();
        let moves = |extra: &str| {
            let text = format!("net:{model},sims=64,gather=1{extra}");
            let mut agent = mancala_agents::build(&f.game, &text, 3).unwrap_or_else(|e| panic!("{text}: {e}"));
            let mut line = Line::new(f.game.clone());
            let mut played = Vec::new();
            // One line for all three agents: the first agent's own moves.
            while !line.status().is_over() && played.len() < 24 {
                played.push(agent.choose(&line));
                line.play(played[played.len() - 1]).unwrap();
            }
            played
        };
        let value = moves(",pick=value");
        assert_eq!(moves(""), value, "{}: the default is the value pick", f.game.rules_string());
        assert_ne!(moves(",pick=visits"), value, "{}: the value pick changed no move", f.game.rules_string());
    }
}

#[test]
fn specs_parse_into_typed_kinds_with_their_defaults() {
    let parse = |t: &str| AgentSpec::parse(t).unwrap_or_else(|e| panic!("{t}: {e}")).kind;
    assert_eq!(parse("random"), AgentKind::Random);
    assert_eq!(parse(" Greedy "), AgentKind::Greedy);
    assert_eq!(parse("alphabeta"), AgentKind::AlphaBeta { limit: Limit::Depth(4) });
    assert_eq!(parse("ab:depth=6"), AgentKind::AlphaBeta { limit: Limit::Depth(6) });
    assert_eq!(
        parse("alphabeta:ms=50"),
        AgentKind::AlphaBeta { limit: Limit::Time(std::time::Duration::from_millis(50)) }
    );
    let mcts = |search: PlayerSettings| AgentKind::Mcts { search };
    let rollouts = PlayerSettings::rollouts();
    assert_eq!(rollouts.simulations, 1000);
    assert_eq!(parse("mcts"), mcts(rollouts.clone()));
    assert_eq!(
        parse("mcts:sims=100,cpuct=2"),
        mcts(PlayerSettings { simulations: 100, c_puct: 2.0, ..rollouts.clone() })
    );
    assert_eq!(parse("mcts:solver=true"), mcts(PlayerSettings { solver: true, ..rollouts.clone() }));
    let ms = |n: u64| Some(Duration::from_millis(n));
    assert_eq!(
        parse("mcts:ms=50,threads=2"),
        mcts(PlayerSettings { simulations: MAX_SIMULATIONS, time: ms(50), threads: 2, ..rollouts.clone() }),
        "on time alone the cap bounds the simulations"
    );
    assert_eq!(
        parse("mcts:ms=50,sims=300"),
        mcts(PlayerSettings { simulations: 300, time: ms(50), ..rollouts.clone() })
    );
    let network = PlayerSettings::network();
    assert_eq!(
        (network.simulations, network.gather, network.pick, network.reuse, network.solver, network.minimax),
        (200, 8, FinalPick::IN_PLAY, true, NET_SOLVER, NET_MINIMAX)
    );
    // A network plays with a lower exploration constant than the rollout yardstick keeps
    // (the values measured in docs/experiments.md, "The exploration constant in play").
    assert_eq!((network.c_puct, rollouts.c_puct), (1.0, 1.5));
    assert_eq!((NET_C_PUCT, MCTS_C_PUCT), (1.0, 1.5));
    // First-play urgency stays self-play's in both (measured flat or worse elsewhere).
    assert_eq!((network.fpu, rollouts.fpu), (0.2, 0.2));
    // The settings reach the search they build.
    let search = PlayerSettings { fpu: 0.5, gather: 0, ..network.clone() }.search_config(0.1);
    assert_eq!(
        (search.fpu_reduction, search.c_puct, search.minimax_weight, search.margin_utility, search.leaves_per_gather),
        (0.5, 1.0, NET_MINIMAX, 0.1, 1)
    );
    assert_eq!((search.simulations, search.final_pick, search.solver), (200, FinalPick::IN_PLAY, NET_SOLVER));
    let net = |search: PlayerSettings, tablebase: Option<&str>| AgentKind::Net {
        model: "a.mzm".into(),
        tablebase: tablebase.map(Into::into),
        search,
    };
    assert_eq!(parse("net:a.mzm"), net(network.clone(), None));
    assert_eq!(
        parse("net:a.mzm,sims=50,tb=k.tb"),
        net(PlayerSettings { simulations: 50, ..network.clone() }, Some("k.tb"))
    );
    assert_eq!(parse("net:a.mzm,margin=0.2"), net(PlayerSettings { margin: Some(0.2), ..network.clone() }, None));
    assert_eq!(parse("net:a.mzm,margin=0"), net(PlayerSettings { margin: Some(0.0), ..network.clone() }, None));
    assert_eq!(
        parse("net:a.mzm,cpuct=2.5,gather=1"),
        net(PlayerSettings { c_puct: 2.5, gather: 1, ..network.clone() }, None)
    );
    assert_eq!(
        parse("net:a.mzm,ms=200,threads=4"),
        net(PlayerSettings { simulations: MAX_SIMULATIONS, time: ms(200), threads: 4, ..network.clone() }, None)
    );
    let searched = |text: &str| match parse(text) {
        AgentKind::Net { search, .. } => search,
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(searched("net:a.mzm,pick=visits").pick, FinalPick::Visits);
    assert_eq!(searched("net:a.mzm,pick=value").pick, FinalPick::Value { min_share: 0.5 });
    assert_eq!(searched("net:a.mzm,sims=800,pick=value:0.25").pick, FinalPick::Value { min_share: 0.25 });
    assert!(searched("net:a.mzm,reuse=true").reuse);
    assert!(!searched("net:a.mzm,sims=800,reuse=false").reuse);
    assert!(searched("net:a.mzm,solver=true").solver);
    assert!(!searched("net:a.mzm,sims=800,solver=false").solver);
    assert_eq!(searched("net:a.mzm,minimax=0").minimax, 0.0);
    assert_eq!(searched("net:a.mzm,minimax=1").minimax, 1.0);
    assert_eq!(searched("net:a.mzm,fpu=0").fpu, 0.0);
    assert_eq!(searched("net:a.mzm,sims=50,fpu=1.5").fpu, 1.5);
    assert_eq!(searched("net:a.mzm").precision, Precision::Fp32);
    assert_eq!(searched("net:a.mzm,precision=int8").precision, Precision::Int8);
    assert_eq!(searched("net:a.mzm,sims=50,precision=auto").precision, Precision::Auto);
    assert_eq!(searched("net:a.mzm,precision=fp32").precision, Precision::Fp32);
    assert_eq!(parse("perfect:db=k.tb"), AgentKind::Perfect { db: "k.tb".into(), fallback: Limit::Depth(8) });
    assert_eq!(parse("perfect:db=k.tb,depth=3"), AgentKind::Perfect { db: "k.tb".into(), fallback: Limit::Depth(3) });
    let spec: AgentSpec = "net:a.mzm,sims=50".parse().unwrap();
    assert_eq!(spec.to_string(), "net:a.mzm,sims=50");
}

/// Asserts that `text` is refused by the parser with the error `matches` accepts, and that the
/// message names the spec.
fn refused(text: &str, matches: impl Fn(&SpecError) -> bool) {
    let err = AgentSpec::parse(text).err().unwrap_or_else(|| panic!("{text} parsed"));
    assert!(matches(&err), "{text}: {err:?}");
    assert!(err.to_string().contains(&format!("'{}'", text.trim())), "{text}: {err}");
}

#[test]
fn every_bad_spec_is_refused_by_name() {
    refused("grredy", |e| matches!(e, SpecError::UnknownKind { kind, .. } if kind == "grredy"));
    refused("mcts:sims=10,depth=3", |e| matches!(e, SpecError::UnknownKey { key, .. } if key == "depth"));
    refused("random:seed=3", |e| matches!(e, SpecError::UnknownKey { key, .. } if key == "seed"));
    refused("net:a.mzm,tb=x.tb,depth=2", |e| matches!(e, SpecError::UnknownKey { key, .. } if key == "depth"));
    refused("mcts:sims=10,sims=20", |e| matches!(e, SpecError::DuplicateKey { key, .. } if key == "sims"));
    refused("perfect:db=a.tb,db=b.tb", |e| matches!(e, SpecError::DuplicateKey { key, .. } if key == "db"));
    refused(
        "mcts:sims=abc",
        |e| matches!(e, SpecError::BadNumber { key, value, .. } if key == "sims" && value == "abc"),
    );
    refused("mcts:sims=0", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "sims"));
    refused(
        "net:a.mzm,precision=fp16",
        |e| matches!(e, SpecError::BadNumber { key, value, expected, .. } if key == "precision" && value == "fp16" && expected.contains("int8")),
    );
    refused("mcts:precision=int8", |e| matches!(e, SpecError::UnknownKey { key, .. } if key == "precision"));
    // Absurd budgets stop at the named cap instead of reserving the memory they would need.
    for text in ["mcts:sims=4000000000", "net:a.mzm,sims=1000001", "mcts:ms=100,sims=99999999"] {
        refused(text, |e| matches!(e, SpecError::TooManySimulations { cap, .. } if *cap == MAX_SIMULATIONS));
        let message = AgentSpec::parse(text).unwrap_err().to_string();
        assert!(message.contains("MAX_SIMULATIONS = 1000000"), "{message}");
    }
    refused("mcts:ms=0", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "ms"));
    refused("net:a.mzm,threads=0", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "threads"));
    refused("mcts:threads=257", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "threads"));
    refused("mcts:cpuct=-1", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "cpuct"));
    refused("alphabeta:depth=deep", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "depth"));
    refused("net:a.mzm,sims=-1", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "sims"));
    refused(
        "net:a.mzm,reuse=maybe",
        |e| matches!(e, SpecError::BadNumber { key, value, .. } if key == "reuse" && value == "maybe"),
    );
    refused(
        "net:a.mzm,solver=yes",
        |e| matches!(e, SpecError::BadNumber { key, value, .. } if key == "solver" && value == "yes"),
    );
    refused(
        "net:a.mzm,minimax=1.5",
        |e| matches!(e, SpecError::BadNumber { key, value, .. } if key == "minimax" && value == "1.5"),
    );
    refused("net:a.mzm,minimax=-0.1", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "minimax"));
    refused(
        "net:a.mzm,fpu=2.5",
        |e| matches!(e, SpecError::BadNumber { key, value, .. } if key == "fpu" && value == "2.5"),
    );
    refused("net:a.mzm,fpu=-0.1", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "fpu"));
    refused("net:a.mzm,fpu=nan", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "fpu"));
    refused("mcts:fpu=0", |e| e.to_string().contains("fpu"));
    refused(
        "mcts:solver=1",
        |e| matches!(e, SpecError::BadNumber { key, value, .. } if key == "solver" && value == "1"),
    );
    refused(
        "net:a.mzm,margin=0.6",
        |e| matches!(e, SpecError::BadNumber { key, value, .. } if key == "margin" && value == "0.6"),
    );
    refused("net:a.mzm,margin=-0.1", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "margin"));
    refused("net:a.mzm,margin=nan", |e| matches!(e, SpecError::BadNumber { key, .. } if key == "margin"));
    refused("alphabeta:4", |e| matches!(e, SpecError::NotKeyValue { piece, .. } if piece == "4"));
    refused("net:", |e| matches!(e, SpecError::Missing { what: "a model file", .. }));
    refused("net:sims=5", |e| matches!(e, SpecError::Missing { what: "a model file", .. }));
    refused("perfect:depth=3", |e| matches!(e, SpecError::Missing { what: "db=FILE", .. }));
    refused("alphabeta:depth=3,ms=10", |e| matches!(e, SpecError::DepthAndTime { .. }));
    refused("perfect:db=a.tb,depth=3,ms=10", |e| matches!(e, SpecError::DepthAndTime { .. }));
}

/// The message alone says what to fix: the bad kind, key, value or piece, and what is allowed
/// instead, so a config key or a command-line flag can be corrected without reading code.
#[test]
fn refusals_name_the_bad_part_and_what_is_allowed() {
    for (text, says) in [
        ("nobody", "unknown kind 'nobody', expected one of random, greedy"),
        ("mcts:sims=0", "sims=0 is not a whole number of at least 1"),
        ("mcts:sims=lots", "sims=lots is not a whole number"),
        ("mcts:depth=3", "unknown parameter 'depth' for mcts, allowed: sims, ms, threads, cpuct"),
        ("random:seed=3", "unknown parameter 'seed' for random, allowed: none"),
        ("alphabeta:depth", "'depth' is not key=value"),
        ("alphabeta:depth=3,ms=10", "give depth or ms, not both"),
        ("net:a.mzm,margin=2", "margin=2 is not a number from 0 to 0.5"),
        ("net:a.mzm,depth=2", "allowed: sims, ms, threads, tb, margin, cpuct, gather, pick"),
        ("net:a.mzm,pick=best", "pick=best is not visits, value or value:S with S above 0 and at most 1"),
        ("net:a.mzm,pick=value:0", "pick=value:0 is not visits, value or value:S"),
        ("net:a.mzm,pick=value:2", "pick=value:2 is not visits, value or value:S"),
        ("net:a.mzm,gather=0", "gather=0 is not a whole number from 1 to 256"),
        ("net:a.mzm,gather=257", "gather=257 is not a whole number from 1 to 256"),
        ("net:a.mzm,cpuct=-1", "cpuct=-1 is not a number of at least 0"),
    ] {
        let err = AgentSpec::parse(text).err().unwrap_or_else(|| panic!("{text} parsed")).to_string();
        assert!(err.contains(says), "{text}: '{err}' should say '{says}'");
    }
}

/// Asserts that `text` parses but is refused for `game` with the file error `matches` accepts,
/// by `check` and by `build` alike, naming the spec.
fn unusable(game: &AnyGame, text: &str, matches: impl Fn(&FileError) -> bool) {
    let spec = AgentSpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    for err in [spec.check(game).err(), spec.build(game, 0).err()] {
        let err = err.unwrap_or_else(|| panic!("{text} was accepted for {}", game.rules_string()));
        match &err {
            SpecError::File { spec, source } => {
                assert_eq!(spec, text);
                assert!(matches(source), "{text}: {source:?}");
            }
            other => panic!("{text}: not a file error: {other:?}"),
        }
        assert!(err.to_string().contains(&format!("'{text}'")), "{err}");
    }
}

#[test]
fn files_that_cannot_be_used_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let [oware, kalah] = fixtures(dir.path());
    let missing = dir.path().join("nothing-here.mzm");
    let (m, d) = (missing.display(), kalah.db.display());
    unusable(&oware.game, &format!("net:{m}"), |e| matches!(e, FileError::Missing { path } if path == &missing));
    unusable(&oware.game, &format!("perfect:db={m}"), |e| matches!(e, FileError::Missing { .. }));
    unusable(&kalah.game, &format!("net:{},tb={m}", kalah.model.display()), |e| matches!(e, FileError::Missing { .. }));

    // A model for another game, read fresh and then from the shared cache.
    let kalah_model = format!("net:{}", kalah.model.display());
    AgentSpec::parse(&kalah_model).unwrap().check(&kalah.game).unwrap();
    let (kalah_rules, oware_rules) = (kalah.game.rules_string(), oware.game.rules_string());
    unusable(
        &oware.game,
        &kalah_model,
        |e| matches!(e, FileError::ModelForOtherGame { found, expected, .. } if *found == kalah_rules && *expected == oware_rules),
    );
    let oware_model = format!("net:{}", oware.model.display());
    unusable(&kalah.game, &oware_model, |e| matches!(e, FileError::ModelForOtherGame { .. }));

    // A database for another game, alone and behind a network.
    unusable(
        &oware.game,
        &format!("perfect:db={d}"),
        |e| matches!(e, FileError::DatabaseForOtherGame { found, expected, .. } if *found == kalah_rules && *expected == oware_rules),
    );
    unusable(&oware.game, &format!("{oware_model},tb={d}"), |e| matches!(e, FileError::DatabaseForOtherGame { .. }));

    // Files of the wrong kind keep the reader's own words.
    unusable(
        &kalah.game,
        &format!("net:{d}"),
        |e| matches!(e, FileError::Model { source, .. } if matches!(&**source, NnError::File(c) if c.to_string().ends_with("it is a tablebase"))),
    );
    unusable(&kalah.game, &format!("perfect:db={}", kalah.model.display()), |e| {
        matches!(e, FileError::Database { .. })
    });
}

/// A model file of an older input encoding (the Oware network shipped before version 2) plays
/// through `net:FILE`, encoded with its own version, with or without an endgame database.
#[test]
fn a_version_1_model_file_plays() {
    let dir = tempfile::tempdir().unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nn/tests/data/oware-v1.mzm");
    let game = parse_rules("oware").unwrap();
    let (meta, _) = mancala_agents::cached_model(&game, &shipped).unwrap();
    assert_eq!(meta.encoding_version, 1);
    let db = dir.path().join("oware.tb");
    Tablebase::build(&game, 3, &|_| {}).unwrap().0.write(&db).unwrap();
    for text in
        [format!("net:{},sims=16", shipped.display()), format!("net:{},sims=16,tb={}", shipped.display(), db.display())]
    {
        let mut agent = AgentSpec::parse(&text).unwrap().build(&game, 1).unwrap();
        let mut line = Line::new(game.clone());
        for _ in 0..4 {
            let action = agent.choose(&line);
            assert!(line.legal_moves().contains(action), "{text}");
            line.play(action).unwrap();
        }
    }
}
