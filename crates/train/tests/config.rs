//! The run config: every bad value is refused with its key and what is allowed, the shipped
//! configs (base.toml with a game's file over it) are the configs the seven complete files
//! gave before the split, the enums keep their TOML spelling, and the trainer turns an empty
//! window or a non-finite loss into an error.

use std::sync::atomic::AtomicBool;

use burn::prelude::Device;
use mancala_mcts::RootKind;
use mancala_nn::{Architecture, LrSchedule, Precision};
use mancala_rules::Game;
use mancala_selfplay::SelfPlayConfig;
use mancala_store::Store;
use mancala_train::config::{ArchitectureName, DeviceName, Ends, RootName, ScheduleName, merge};
use mancala_train::layout::Candidate;
use mancala_train::roles::{trainer, worker};
use mancala_train::{Ctl, Quiet, Run, RunConfig, SHIPPED, TrainError};

/// The seven complete files as they were before `configs/base.toml` (`git show`).
const BEFORE: &[(&str, &str)] = &[
    ("oware", include_str!("data/shipped-before/oware.toml")),
    ("ouril", include_str!("data/shipped-before/ouril.toml")),
    ("awale", include_str!("data/shipped-before/awale.toml")),
    ("kalah", include_str!("data/shipped-before/kalah.toml")),
    ("ba-awa", include_str!("data/shipped-before/ba-awa.toml")),
    ("owela", include_str!("data/shipped-before/owela.toml")),
    ("tiny", include_str!("data/shipped-before/tiny.toml")),
];

fn oware() -> &'static str {
    RunConfig::shipped("oware").unwrap()
}

/// The Oware config with `over` merged over it.
fn oware_with(over: &str) -> String {
    merge(oware(), over).unwrap()
}

#[test]
fn shipped_configs_are_the_configs_the_complete_files_gave() {
    // Every complete file of before the split is still shipped and gives the same config,
    // but for what was changed on purpose since, with a measurement (docs/experiments.md): the
    // margin weight, the endgame database of the games it can describe, an iteration limit
    // that leaves the run to max_minutes, the learning rate's decay over the run, int8
    // searches where the CPU has them, Ouril's ring convolution, the longer replay window of
    // Oware, Ouril and Awale, the game's own end for Oware and Awale, and the random openings
    // in self-play of Ouril, Oware, Kalah, Awale, Oware-capture-all and Owela. They name
    // `logging.progress`, removed since, as every run stored before did.
    for (name, old) in BEFORE {
        let old = RunConfig::parse_stored(old).unwrap();
        let mut new = RunConfig::parse(RunConfig::shipped(name).unwrap()).unwrap();
        let margin = if *name == "kalah" { 0.3 } else { 0.1 };
        assert_eq!(new.search.margin_utility, margin, "{name}");
        new.search.margin_utility = old.search.margin_utility;
        let database = ["oware", "awale", "kalah"].contains(name);
        assert_eq!((new.endgame.seeds, new.endgame.feed), if database { (15, 0.25) } else { (0, 0.0) }, "{name}");
        assert!(!new.endgame.adjudicate, "{name}");
        // Oware's and Awale's exact values by their own end, where they stop at a majority.
        let ends = if ["oware", "awale"].contains(name) { Ends::Own } else { Ends::PlayedOut };
        assert_eq!(new.endgame.ends, ends, "{name}");
        new.endgame = old.endgame.clone();
        assert_eq!((new.training.schedule, new.training.schedule_factor), (ScheduleName::CosineRun, 0.1), "{name}");
        new.training.schedule = old.training.schedule;
        // The searches' arithmetic: int8 where the CPU has it, as strong as FP32 and faster.
        assert_eq!(new.network.inference_precision, Precision::Auto, "{name}");
        new.network.inference_precision = old.network.inference_precision;
        // Ouril's network: the ring convolution, which learned more in an hour.
        if *name == "ouril" {
            assert_eq!((new.network.architecture, new.network.width), (ArchitectureName::Conv, 16));
            (new.network.architecture, new.network.width) = (old.network.architecture, old.network.width);
        }
        // Oware's, Ouril's and Awale's replay window, ten times the base's: each played
        // stronger for it.
        if ["oware", "ouril", "awale"].contains(name) {
            assert_eq!((old.training.window_max, new.training.window_max), (150_000, 1_500_000), "{name}");
            new.training.window_max = old.training.window_max;
        }
        // Random openings in self-play: an hour of them played stronger in these games.
        let opening = if ["ouril", "oware", "kalah", "awale", "owela"].contains(name) { 4 } else { 0 };
        assert_eq!(new.selfplay.opening_plies, opening, "{name}");
        new.selfplay.opening_plies = old.selfplay.opening_plies;
        if *name != "tiny" {
            assert_eq!((old.run.iterations, new.run.iterations), (1000, 10_000), "{name}");
            new.run.iterations = old.run.iterations;
        }
        assert_eq!(new, old, "{name}");
    }
    let capture_all = RunConfig::parse(RunConfig::shipped("oware-capture-all").unwrap()).unwrap();
    assert_eq!(capture_all.game.rules, "oware-capture-all");
    assert_eq!((capture_all.endgame.seeds, capture_all.endgame.ends), (15, Ends::Own));
    assert_eq!(capture_all.training.window_max, 1_500_000);
    assert_eq!(capture_all.selfplay.opening_plies, 4);
    assert_eq!(SHIPPED.len(), BEFORE.len() + 1);
}

#[test]
fn a_shipped_text_stands_alone_with_every_key_of_the_base() {
    let base: toml::Table = toml::from_str(mancala_train::BASE_CONFIG).unwrap();
    for (name, _) in SHIPPED {
        let text = RunConfig::shipped(name).unwrap();
        let merged: toml::Table = toml::from_str(text).unwrap();
        for (table, keys) in &base {
            let keys = keys.as_table().unwrap();
            let got = merged[table].as_table().unwrap();
            for key in keys.keys() {
                assert!(got.contains_key(key), "{name}: {table}.{key} missing");
            }
        }
        assert!(merged["game"]["rules"].is_str(), "{name}");
    }
    // Values of the game's file win over the base's.
    let owela = RunConfig::parse(RunConfig::shipped("owela").unwrap()).unwrap();
    assert_eq!(owela.evaluation.references[1..], ["greedy", "alphabeta:depth=2", "mcts:sims=200"]);
    assert_eq!(owela.evaluation.games, 20);
    let err = RunConfig::shipped("chess").unwrap_err().to_string();
    assert!(err.contains("'chess'") && err.contains("oware") && err.contains("tiny"), "{err}");
}

#[test]
fn tiny_toml_alone_is_the_shipped_tiny() {
    // The CLI tests pass configs/tiny.toml itself to `train --config`.
    let alone = RunConfig::parse(include_str!("../../../configs/tiny.toml")).unwrap();
    assert_eq!(alone, RunConfig::parse(RunConfig::shipped("tiny").unwrap()).unwrap());
}

#[test]
fn a_users_config_is_complete_on_its_own_with_serde_defaults() {
    let c = RunConfig::parse("[game]\nrules = \"kalah\"\n").unwrap();
    assert_eq!(c.selfplay, SelfPlayConfig::default());
    assert_eq!(c.network.architecture, ArchitectureName::Mlp);
    assert_eq!(c.network.device, DeviceName::Flex);
    assert_eq!(c.search.root, RootName::Puct);
    assert_eq!(c.training.schedule, ScheduleName::CosineRun);
}

#[test]
fn the_feed_draw_is_uniform_unless_asked_by_seeds() {
    use mancala_train::config::FeedDraw;
    assert_eq!(RunConfig::parse(oware()).unwrap().endgame.feed_draw, FeedDraw::Uniform);
    let by_seeds = RunConfig::parse(&oware_with("[endgame]\nfeed_draw = \"by-seeds\"")).unwrap();
    assert_eq!(by_seeds.endgame.feed_draw, FeedDraw::BySeeds);
    assert_eq!(mancala_tablebase::SeedDraw::from(FeedDraw::BySeeds), mancala_tablebase::SeedDraw::BySeeds);
}

#[test]
fn every_bad_value_is_refused_with_its_key_and_what_is_allowed() {
    RunConfig::parse(oware()).unwrap();
    // (override merged over Oware, key the error names, what it says is allowed)
    let cases: &[(&str, &str, &str)] = &[
        ("[run]\niterations = 0", "run.iterations", "at least 1"),
        ("[run]\nseed = -1", "run.seed", "u64"),
        ("[run]\nmax_minutes = -1", "run.max_minutes", "at least 0"),
        ("[run]\nmax_minutes = nan", "run.max_minutes", "finite"),
        ("[game]\nrules = \"chess\"", "game.rules", ""),
        ("[network]\narchitecture = \"transformer\"", "network.architecture", "expected mlp or conv"),
        ("[network]\narchitecture = \"MLP\"", "network.architecture", "expected mlp or conv"),
        ("[network]\ndevice = \"tpu\"", "network.device", "expected one of flex, cuda, wgpu"),
        ("[network]\nwidth = 0", "network.width", "1 to 4096"),
        ("[network]\nwidth = -8", "network.width", "usize"),
        ("[network]\nblocks = 65", "network.blocks", "1 to 64"),
        ("[network]\nmargin_bins = 1", "network.margin_bins", "0 (the tanh head) or 2 to 1025"),
        ("[network]\nmargin_bins = 2000", "network.margin_bins", "0 (the tanh head) or 2 to 1025"),
        ("[network]\ndepth = 3", "network.depth", "unknown field"),
        ("[search]\nroot = \"alphazero\"", "search.root", "expected puct or gumbel"),
        ("[search]\nroot = 1", "search.root", "string"),
        ("[search]\nc_puct = 0.0", "search.c_puct", "above 0"),
        ("[search]\nc_puct = inf", "search.c_puct", "finite"),
        ("[search]\nfpu_reduction = nan", "search.fpu_reduction", "finite"),
        ("[search]\nfpu_reduction = -inf", "search.fpu_reduction", "finite"),
        ("[search]\ndirichlet_alpha_total = -1.0", "search.dirichlet_alpha_total", "above 0"),
        ("[search]\ndirichlet_fraction = 1.5", "search.dirichlet_fraction", "0 to 1"),
        ("[search]\ndirichlet_fraction = nan", "search.dirichlet_fraction", "0 to 1"),
        ("[search]\ngumbel_actions = 0", "search.gumbel_actions", "at least 1"),
        ("[search]\nmargin_utility = 0.6", "search.margin_utility", "0 to 0.5"),
        ("[search]\nmargin_utility = -0.1", "search.margin_utility", "0 to 0.5"),
        ("[search]\nmargin_utility = nan", "search.margin_utility", "0 to 0.5"),
        ("[endgame]\nseeds = 12\nfeed = 0.7", "endgame.feed", "0 to 0.5"),
        ("[endgame]\nseeds = 12\nfeed = nan", "endgame.feed", "0 to 0.5"),
        ("[endgame]\nseeds = 0\nfeed = 0.1", "endgame.feed", "while endgame.seeds is 0"),
        ("[endgame]\nseeds = 12\nfeed = 0.1\npretrain_steps = 1000001", "endgame.pretrain_steps", "at most 1000000"),
        ("[endgame]\nseeds = 12\nfeed = 0\npretrain_steps = 10", "endgame.pretrain_steps", "while endgame.feed is 0"),
        ("[endgame]\nseeds = 12\nfeed = 0.1\npretrain_steps = -5", "endgame.pretrain_steps", "u64"),
        ("[endgame]\nadjudicate = 1", "endgame.adjudicate", "bool"),
        ("[endgame]\nfeed_draw = \"seeds\"", "endgame.feed_draw", "expected uniform or by-seeds"),
        ("[selfplay]\nthreads = 0", "selfplay.threads", "at least 1"),
        ("[selfplay]\ngames_per_shard = -2", "selfplay.games_per_shard", "usize"),
        ("[selfplay]\nsimulations = 0", "selfplay.simulations", "at least 1"),
        ("[selfplay]\nfull_search_share = nan", "selfplay.full_search_share", "(0, 1]"),
        ("[selfplay]\ntemperature = nan", "selfplay.temperature", "[0, 10]"),
        ("[training]\nbatch_size = 0", "training.batch_size", "at least 1"),
        ("[training]\nsamples_per_row = inf", "training.samples_per_row", "finite"),
        ("[training]\nmax_steps = 0\nmin_steps = 0", "training.max_steps", "at least 1"),
        ("[training]\nmin_steps = 500", "training.min_steps", "at most training.max_steps"),
        ("[training]\nwindow_min = 0", "training.window_min", "1 to training.window_max"),
        ("[training]\nwindow_min = 2000000", "training.window_min", "1 to training.window_max"),
        ("[training]\nwindow_max = -5", "training.window_max", "usize"),
        ("[training]\nlearning_rate = 0.0", "training.learning_rate", "(0, 1)"),
        ("[training]\nlearning_rate = nan", "training.learning_rate", "(0, 1)"),
        ("[training]\nweight_decay = -0.1", "training.weight_decay", "at least 0"),
        (
            "[training]\nschedule = \"linear\"",
            "training.schedule",
            "expected one of constant, cosine, step, cosine-run",
        ),
        ("[training]\nschedule_steps = 0", "training.schedule_steps", "at least 1"),
        ("[training]\nschedule_factor = 2.0", "training.schedule_factor", "0 to 1"),
        ("[training]\nschedule = \"step\"\nschedule_factor = 0.0", "training.schedule_factor", "(0, 1]"),
        ("[training]\ngrad_clip = nan", "training.grad_clip", "finite"),
        ("[training]\nmargin_weight = -1.0", "training.margin_weight", "at least 0"),
        ("[training]\nvalue_from_search = 1.5", "training.value_from_search", "0 to 1"),
        ("[training]\nvalue_from_search = nan", "training.value_from_search", "0 to 1"),
        ("[training]\naverage_steps = 1000001", "training.average_steps", "0 to 1000000"),
        ("[gating]\ngames = 3", "gating.games", "even"),
        ("[gating]\ngames = 0\nsprt = \"0,10\"", "gating.games", "sprt"),
        ("[gating]\nsimulations = 0", "gating.simulations", "at least 1"),
        ("[gating]\nthreads = 0", "gating.threads", "at least 1"),
        ("[gating]\nthreads = -1", "gating.threads", "usize"),
        ("[gating]\nthreshold = 1.1", "gating.threshold", "0 to 1"),
        ("[gating]\nthreshold = nan", "gating.threshold", "0 to 1"),
        ("[gating]\nsprt = \"fast\"", "gating.sprt", ""),
        ("[evaluation]\nsimulations = 0", "evaluation.simulations", "at least 1"),
        ("[evaluation]\ngames = 0", "evaluation.games", "even"),
        ("[evaluation]\nthreads = 0", "evaluation.threads", "at least 1"),
        ("[evaluation]\nreferences = []", "evaluation.references", "at least one agent"),
        ("[evaluation]\nreferences = [\"oracle\"]", "evaluation.references", ""),
        (
            "[evaluation]\ntablebase = \"kalah.mzt\"\ntablebase_positions = 0",
            "evaluation.tablebase_positions",
            "at least 1",
        ),
        ("[logging]\ncolour = true", "logging.colour", "unknown field"),
        ("[replay]\nsize = 3", "replay", "unknown field"),
    ];
    for (over, key, allowed) in cases {
        let err = match RunConfig::parse(&oware_with(over)) {
            Ok(_) => panic!("{over:?} was accepted"),
            Err(e) => e,
        };
        assert!(matches!(err, TrainError::Config(_)), "{over:?}: {err:?}");
        let err = err.to_string();
        assert!(err.contains(key) && err.contains(allowed), "{over:?} (want {key}, {allowed}): {err}");
    }
}

#[test]
fn a_removed_key_is_refused_in_a_new_config_and_dropped_from_a_stored_one() {
    // `[logging] progress` was never read: a config naming it is refused with the reason, so
    // nobody keeps setting it, but every run stored before it went named it and still opens.
    let text = oware_with("[logging]\nprogress = true");
    let err = RunConfig::parse(&text).unwrap_err().to_string();
    assert!(err.contains("logging.progress") && err.contains("never read"), "{err}");
    assert_eq!(RunConfig::parse_stored(&text).unwrap(), RunConfig::parse(oware()).unwrap());
    // Stored configs are checked like any other.
    let err = RunConfig::parse_stored(&oware_with("[logging]\nprogress = true\n[run]\niterations = 0")).unwrap_err();
    assert!(err.to_string().contains("run.iterations"), "{err}");

    let store = Store::open("memory://stored-before-progress-went").unwrap();
    Run::create(store.clone(), RunConfig::shipped("tiny").unwrap()).unwrap();
    let (_, before) = BEFORE.iter().find(|(name, _)| *name == "tiny").unwrap();
    assert!(before.contains("progress"));
    store.put("config.toml", before.as_bytes()).unwrap();
    let run = Run::open(store).unwrap();
    assert_eq!(run.config, RunConfig::parse_stored(before).unwrap());
}

#[test]
fn a_missing_game_table_is_named() {
    let err = RunConfig::parse("[run]\nseed = 1\n").unwrap_err().to_string();
    assert!(err.contains("missing field `game`"), "{err}");
}

#[test]
fn evaluation_off_still_checks_its_counts_but_needs_no_references() {
    RunConfig::parse(&oware_with("[evaluation]\nevery = 0\nreferences = []")).unwrap();
    let err = RunConfig::parse(&oware_with("[evaluation]\nevery = 0\nsimulations = 0")).unwrap_err().to_string();
    assert!(err.contains("evaluation.simulations"), "{err}");
}

#[test]
fn enums_keep_their_toml_spelling_and_map_to_the_library_types() {
    let game = RunConfig::parse(oware()).unwrap().game().unwrap();
    for (arch, text, lib) in
        [(ArchitectureName::Mlp, "mlp", Architecture::Mlp), (ArchitectureName::Conv, "conv", Architecture::Conv)]
    {
        let c = RunConfig::parse(&oware_with(&format!("[network]\narchitecture = \"{text}\""))).unwrap();
        assert_eq!(c.network.architecture, arch);
        assert_eq!(c.net_config(&game).architecture, lib);
        round_trip(&c, &format!("architecture = \"{text}\""));
    }
    for (root, text, lib) in [(RootName::Puct, "puct", RootKind::Puct), (RootName::Gumbel, "gumbel", RootKind::Gumbel)]
    {
        let c = RunConfig::parse(&oware_with(&format!("[search]\nroot = \"{text}\""))).unwrap();
        assert_eq!(c.search.root, root);
        assert_eq!(c.search_config(10).root, lib);
        round_trip(&c, &format!("root = \"{text}\""));
    }
    for (schedule, text) in [
        (ScheduleName::Constant, "constant"),
        (ScheduleName::Cosine, "cosine"),
        (ScheduleName::Step, "step"),
        (ScheduleName::CosineRun, "cosine-run"),
    ] {
        let c = RunConfig::parse(&oware_with(&format!(
            "[training]\nschedule = \"{text}\"\nschedule_steps = 300\nschedule_factor = 0.5"
        )))
        .unwrap();
        assert_eq!(c.training.schedule, schedule);
        let want = match schedule {
            ScheduleName::Constant => LrSchedule::Constant,
            ScheduleName::Cosine => LrSchedule::Cosine { total_steps: 300, min_factor: 0.5 },
            ScheduleName::Step => LrSchedule::Step { every: 300, gamma: 0.5 },
            ScheduleName::CosineRun => LrSchedule::CosineOverRun { min_factor: 0.5 },
        };
        assert_eq!(c.optim_config().schedule, want);
        round_trip(&c, &format!("schedule = \"{text}\""));
    }
    // Only the CPU device is built in a default build; its name is what mancala_nn takes.
    let c = RunConfig::parse(&oware_with("[network]\ndevice = \"flex\"")).unwrap();
    round_trip(&c, "device = \"flex\"");
    for (device, text) in [(DeviceName::Flex, "flex"), (DeviceName::Cuda, "cuda"), (DeviceName::Wgpu, "wgpu")] {
        assert_eq!(device.as_str(), text);
        let written = toml::to_string(&mancala_train::config::NetworkSection { device, ..Default::default() }).unwrap();
        assert!(written.contains(&format!("device = \"{text}\"")), "{written}");
        let back: mancala_train::config::NetworkSection = toml::from_str(&written).unwrap();
        assert_eq!(back.device, device);
    }
}

/// `config` written as TOML holds `line` and reads back the same.
fn round_trip(config: &RunConfig, line: &str) {
    let text = toml::to_string(config).unwrap();
    assert!(text.contains(line), "{line} not in\n{text}");
    assert_eq!(&RunConfig::parse(&text).unwrap(), config);
}

fn tiny_run(name: &str) -> Run {
    Run::create(Store::open(&format!("memory://{name}")).unwrap(), RunConfig::shipped("tiny").unwrap()).unwrap()
}

/// A run in memory of the tiny config with `over` merged into it.
fn tiny_run_with(name: &str, over: &str) -> Run {
    let text = merge(RunConfig::shipped("tiny").unwrap(), over).unwrap();
    Run::create(Store::open(&format!("memory://{name}")).unwrap(), &text).unwrap()
}

/// The trainer restored, with one shard of self-play in its window; and that shard's rows.
fn trainer_with_a_shard(run: &Run, ctl: &Ctl) -> (trainer::TrainerState, Vec<mancala_selfplay::Row>) {
    let rows = one_shard_of_rows(run);
    let mut state = trainer::restore(run, ctl).unwrap();
    state.window.extend(rows.clone());
    (state, rows)
}

/// `n` candidates published by `state`, a step of training each.
fn publish_candidates(run: &Run, state: &mut trainer::TrainerState, ctl: &Ctl, n: usize) -> Vec<Candidate> {
    (0..n)
        .map(|_| {
            let scalars = trainer::train(run, state, 1, ctl).unwrap().unwrap();
            trainer::publish(run, state, scalars).unwrap()
        })
        .collect()
}

/// The training rows of one shard of self-play by the run's best model.
fn one_shard_of_rows(run: &Run) -> Vec<mancala_selfplay::Row> {
    let model = run.load_best(&Device::flex()).unwrap();
    let shard = worker::play_shard(run, &model, None, 1, 0, &AtomicBool::new(false)).unwrap().unwrap();
    mancala_selfplay::parse_shard(std::path::Path::new("shard"), &shard.bytes, None).unwrap().1
}

#[test]
fn the_trainer_refuses_an_empty_window() {
    let run = tiny_run("config-empty-window");
    let ctl = Ctl::new(&Quiet);
    let mut state = trainer::restore(&run, &ctl).unwrap();
    assert!(state.window.is_empty());
    match trainer::train(&run, &mut state, 4, &ctl) {
        Err(TrainError::Run(m)) => assert!(m.contains("replay window is empty"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_trainer_refuses_a_non_finite_loss() {
    let run = tiny_run("config-nan-loss");
    let ctl = Ctl::new(&Quiet);
    let mut rows = one_shard_of_rows(&run);
    // Inputs no network can turn into a finite loss.
    for row in &mut rows {
        row.inputs.iter_mut().for_each(|x| *x = f32::NAN);
    }
    let mut state = trainer::restore(&run, &ctl).unwrap();
    state.window.extend(rows);
    match trainer::train(&run, &mut state, 4, &ctl) {
        Err(TrainError::Run(m)) => {
            assert!(m.contains("loss is NaN") && m.contains("training.learning_rate"), "{m}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn endgame_seeds_are_checked_against_the_game() {
    let with = |rules: &str, seeds: usize| {
        let mut config = RunConfig::parse(RunConfig::shipped("tiny").unwrap()).unwrap();
        config.game.rules = rules.to_string();
        config.endgame.seeds = seeds;
        config.validate()
    };
    assert!(with("kalah:3,2", 6).is_ok());
    assert!(with("oware", 12).is_ok());
    assert!(with("ouril", 0).is_ok(), "no database, nothing to check");
    for (rules, seeds, says) in [
        ("ouril", 12, "extra-turn"),
        ("ba-awa", 12, "controller"),
        ("owela", 4, "Owela"),
        ("kalah:3,2", 13, "0 (none) to 12"),
        ("oware", 19, "0 (none) to 18"),
    ] {
        let e = with(rules, seeds).unwrap_err().to_string();
        assert!(e.contains("endgame.seeds") && e.contains(says), "{rules} {seeds}: {e}");
    }
    let e = merge(RunConfig::shipped("tiny").unwrap(), "[endgame]\nseeds = -1\n")
        .and_then(|text| RunConfig::parse(&text).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("seeds"), "{e}");
}

#[test]
fn a_worker_with_the_endgame_database_ends_games_at_its_door() {
    use mancala_rules::Game;
    let text = merge(
        RunConfig::shipped("tiny").unwrap(),
        "[game]\nrules = \"kalah:3,3\"\n[endgame]\nseeds = 8\nadjudicate = true\n",
    )
    .unwrap();
    let run = Run::create(Store::open("memory://config-endgame").unwrap(), &text).unwrap();
    let model = run.load_best(&Device::flex()).unwrap();
    let exact = mancala_train::endgame::database(&run.config, &run.game).unwrap().unwrap().exact();
    let tb = exact.tablebase.clone();
    assert_eq!(tb.max_seeds(), 8);
    // A second call in the same process gets the same database, not a second build.
    let again = mancala_train::endgame::database(&run.config, &run.game).unwrap().unwrap();
    assert!(std::sync::Arc::ptr_eq(&tb, &again.tablebase) && again.seconds == 0.0);
    // The rows of the positions inside the database (8 seeds or fewer left in the houses):
    // Kalah's houses only ever lose seeds, so a game that ends at the door records exactly
    // one, its last, with the database's exact result as both value and outcome.
    let layout = mancala_encoding::layout(&run.game);
    let total = f32::from(run.game.total_seeds());
    let inside = |endgame| {
        let shard = worker::play_shard(&run, &model, endgame, 1, 3, &AtomicBool::new(false)).unwrap().unwrap();
        let (header, rows) = mancala_selfplay::parse_shard(std::path::Path::new("s"), &shard.bytes, None).unwrap();
        assert_eq!(header.games, 4);
        assert!(!rows.is_empty());
        let seeds = |row: &mancala_selfplay::Row| {
            (row.inputs[..layout.pits].iter().sum::<f32>() * total / layout.pits as f32).round() as u32
        };
        rows.into_iter().filter(|row| seeds(row) <= 8).collect::<Vec<_>>()
    };
    let at_the_door = inside(Some(&exact));
    assert!((1..=4).contains(&at_the_door.len()), "{} rows inside the database", at_the_door.len());
    for row in &at_the_door {
        assert!([-1.0, 0.0, 1.0].contains(&row.search_value), "an exact result: {}", row.search_value);
        assert_eq!(row.outcome, row.search_value, "the game's outcome is the database's");
    }
    // Without the database the games play on through the door to the rules' end.
    let played_on = inside(None);
    assert!(
        played_on.iter().any(|row| ![-1.0, 0.0, 1.0].contains(&row.search_value)),
        "the search's own values past the door"
    );
}

#[test]
fn the_worker_adjudicates_only_when_asked() {
    // With `adjudicate = false` the database answers the search's leaves but the games play
    // on, longer than when they end at the door.
    let over = "[game]\nrules = \"kalah:3,3\"\n[endgame]\nseeds = 8\nadjudicate = false\n";
    let run = tiny_run_with("config-no-adjudication", over);
    let model = run.load_best(&Device::flex()).unwrap();
    let tb = mancala_train::endgame::database(&run.config, &run.game).unwrap().unwrap().exact();
    let shard = worker::play_shard(&run, &model, Some(&tb), 1, 3, &AtomicBool::new(false)).unwrap().unwrap();
    let adjudicated = {
        let text = merge(
            RunConfig::shipped("tiny").unwrap(),
            "[game]\nrules = \"kalah:3,3\"\n[endgame]\nseeds = 8\nadjudicate = true\n",
        )
        .unwrap();
        let run = Run::create(Store::open("memory://config-adjudication").unwrap(), &text).unwrap();
        worker::play_shard(&run, &model, Some(&tb), 1, 3, &AtomicBool::new(false)).unwrap().unwrap().positions
    };
    assert!(adjudicated < shard.positions, "{adjudicated} positions adjudicated, {} played on", shard.positions);
}

#[test]
fn the_endgame_feed_fills_its_share_of_every_batch() {
    let over = "[game]\nrules = \"kalah:3,3\"\n[endgame]\nseeds = 8\nfeed = 0.25\n[training]\nbatch_size = 64\n[search]\nmargin_utility = 0.2\n";
    let run = tiny_run_with("config-feed", over);
    let ctl = Ctl::new(&Quiet);
    let (mut state, rows) = trainer_with_a_shard(&run, &ctl);
    let scalars = trainer::train(&run, &mut state, 3, &ctl).unwrap().unwrap();
    assert_eq!(scalars["train/endgame_feed_rows"], 16.0, "a quarter of 64");
    assert!(scalars["loss/total"].is_finite());
    // The candidate's file names the margin weight its run searched with.
    let candidate = trainer::publish(&run, &mut state, scalars).unwrap();
    let model = run.load_model(candidate.generation, &candidate.model, &candidate.checksum, &Device::flex()).unwrap();
    assert_eq!(model.meta.margin_utility(), 0.2);
    // The same run without the feed trains on the window alone.
    let run = tiny_run_with("config-no-feed", "[game]\nrules = \"kalah:3,3\"\n");
    let mut state = trainer::restore(&run, &ctl).unwrap();
    state.window.extend(rows);
    let scalars = trainer::train(&run, &mut state, 1, &ctl).unwrap().unwrap();
    assert_eq!(scalars["train/endgame_feed_rows"], 0.0);
}

/// The share of `sample` where the network's prior (no search) puts most on a best move.
fn prior_best_move(
    run: &Run,
    net: mancala_nn::Net,
    tb: &mancala_tablebase::Tablebase,
    sample: &[<mancala_rules::AnyGame as mancala_rules::Game>::Position],
) -> f64 {
    use mancala_mcts::Evaluator;
    use mancala_rules::Game;
    let game = &run.game;
    let mut eval = mancala_nn::NeuralEvaluator::new(game, net, Device::flex());
    let a = game.action_space();
    let (mut policy, mut value) = (vec![0.0; a], [0.0f32]);
    mancala_tablebase::endgame_accuracy(game, tb, sample, |pos| {
        eval.evaluate(game, std::slice::from_ref(pos), &mut policy, &mut value);
        let legal = game.legal_moves(pos);
        let best = legal.iter().max_by(|x, y| policy[usize::from(*x)].total_cmp(&policy[usize::from(*y)])).unwrap();
        (value[0], best)
    })
    .best_move
}

#[test]
fn pretraining_on_the_database_makes_the_first_candidate_and_teaches_the_endgame() {
    let over = "[game]\nrules = \"kalah:3,3\"\n[run]\niterations = 1\nmax_minutes = 0\n[endgame]\nseeds = 8\nfeed = 0.25\npretrain_steps = 300\n[training]\nbatch_size = 64\nwarmup_steps = 0\n";
    let run = tiny_run_with("config-pretrain", over);
    let fresh = run.load_best(&Device::flex()).unwrap();
    // The trainer pretrains before its first candidate; with one candidate the run's limit,
    // that is all it does (no self-play has been played: the window is empty).
    let ctl = Ctl::new(&Quiet);
    assert!(matches!(trainer::run_trainer(&run, &ctl).unwrap(), trainer::TrainerEnd::Done));
    let first = run.newest_candidate().unwrap();
    assert_eq!((first.generation, first.step), (1, 300));
    assert_eq!(first.scalars["train/pretrain"], 1.0);
    assert_eq!(first.scalars["train/endgame_feed_rows"], 64.0, "every row of the batch from the database");
    assert_eq!(first.rows_ingested, 0);
    let pretrained = run.load_model(1, &first.model, &first.checksum, &Device::flex()).unwrap();
    let tb = mancala_train::endgame::database(&run.config, &run.game).unwrap().unwrap().tablebase;
    let sample = mancala_tablebase::sample_positions(&run.game, &tb, 400, 7);
    let before = prior_best_move(&run, fresh.net, &tb, &sample);
    let after = prior_best_move(&run, pretrained.net, &tb, &sample);
    // A fresh prior already finds the best move where an endgame leaves one or two choices,
    // so the gain is read on the misses: pretraining at least takes away 40% of them.
    assert!(1.0 - after <= 0.6 * (1.0 - before), "the prior's best move went from {before:.3} to {after:.3}");
    // A restart after the first candidate does not pretrain again.
    let state = trainer::restore(&run, &ctl).unwrap();
    assert_eq!(state.generation(), 1);
}

#[test]
fn the_run_schedule_decays_the_rate_as_the_run_nears_its_limit() {
    let over = "[game]\nrules = \"kalah:3,3\"\n[run]\niterations = 4\nmax_minutes = 0\n[training]\nlearning_rate = 0.01\nwarmup_steps = 0\nschedule = \"cosine-run\"\nschedule_factor = 0.1\n";
    let run = tiny_run_with("config-cosine-run", over);
    let ctl = Ctl::new(&Quiet);
    let (mut state, _) = trainer_with_a_shard(&run, &ctl);
    // The limits come from run.json: 4 candidates, no time limit.
    assert_eq!(state.limits, (4, 0.0));
    let rate = |state: &mut trainer::TrainerState| trainer::train(&run, state, 1, &ctl).unwrap().unwrap()["train/learning_rate"];
    assert!((rate(&mut state) - 0.01).abs() < 1e-9, "the full rate at the run's start");
    // One candidate of four: a quarter of the way down the cosine.
    let scalars = trainer::train(&run, &mut state, 1, &ctl).unwrap().unwrap();
    trainer::publish(&run, &mut state, scalars).unwrap();
    let quarter = 0.01 * (0.1 + 0.9 * 0.5 * (1.0 + (std::f64::consts::PI / 4.0).cos()));
    assert!((rate(&mut state) - quarter).abs() < 1e-9);
    // A run at its limit trains at the floor.
    state.limits = (1, 0.0);
    assert!((rate(&mut state) - 0.001).abs() < 1e-9);
    // The nearer limit decides: time here, candidates there, and no time limit at 0.
    assert_eq!(trainer::run_progress(1, 30.0, (4, 60.0)), 0.5);
    assert_eq!(trainer::run_progress(3, 30.0, (4, 600.0)), 0.75);
    assert_eq!(trainer::run_progress(1, 1e9, (4, 0.0)), 0.25);
    assert_eq!(trainer::run_progress(8, 90.0, (4, 60.0)), 2.0);
}

#[test]
fn only_the_newest_candidate_keeps_its_optimiser_state() {
    let run = tiny_run_with("config-optim-pruned", "[game]\nrules = \"kalah:3,3\"\n");
    let ctl = Ctl::new(&Quiet);
    let (mut state, _) = trainer_with_a_shard(&run, &ctl);
    let published = publish_candidates(&run, &mut state, &ctl, 3);
    let mut optims: Vec<String> = run.store.list("optim/").unwrap().into_iter().map(|e| e.key).collect();
    optims.sort();
    let mut newest = vec![published[2].optim.clone(), published[2].weights.clone()];
    newest.sort();
    assert_eq!(optims, newest, "the older candidates' states are gone");
    // Every model stays, and the newest candidate restores with its optimiser state.
    for c in &published {
        assert!(run.store.exists(&c.model).unwrap(), "{}", c.model);
    }
    let restored = trainer::restore(&run, &ctl).unwrap();
    assert_eq!(restored.learner.step(), published[2].step);
}

#[test]
fn with_an_average_the_candidate_is_the_average_and_a_restart_goes_on_from_the_weights() {
    let over = "[game]\nrules = \"kalah:3,3\"\n[training]\naverage_steps = 20\n";
    let run = tiny_run_with("config-average", over);
    let ctl = Ctl::new(&Quiet);
    let (mut state, rows) = trainer_with_a_shard(&run, &ctl);
    let published = publish_candidates(&run, &mut state, &ctl, 3);
    let last = published.last().unwrap();
    let plain = Device::flex();
    let flat = |net: &mancala_nn::Net| mancala_nn::flat_weights(net);
    // The model object is the average, the weights object the learner's own weights.
    let candidate = run.load_model(3, &last.model, &last.checksum, &plain).unwrap();
    assert_eq!(flat(&candidate.net), flat(&state.learner.published_model(&plain)));
    assert!(last.weights.starts_with("optim/gen-000003-"), "{}", last.weights);
    let bytes = run.store.get(&last.weights).unwrap();
    let (_, own) = mancala_nn::model_from_bytes(std::path::Path::new("w"), &bytes, None, &plain).unwrap();
    assert_eq!(flat(&own), flat(&state.learner.inference_model(&plain)));
    assert_ne!(flat(&own), flat(&candidate.net));
    // Only the newest candidate's restart state stays.
    let mut kept: Vec<String> = run.store.list("optim/").unwrap().into_iter().map(|e| e.key).collect();
    kept.sort();
    let mut newest = vec![last.optim.clone(), last.weights.clone()];
    newest.sort();
    assert_eq!(kept, newest);
    // A restart goes on from the weights with the average it had, and trains as before.
    let mut restored = trainer::restore(&run, &ctl).unwrap();
    assert_eq!(flat(&restored.learner.inference_model(&plain)), flat(&own));
    assert_eq!(flat(&restored.learner.published_model(&plain)), flat(&candidate.net));
    restored.window.extend(rows);
    trainer::train(&run, &mut restored, 1, &ctl).unwrap().unwrap();
    let d = restored.learner.average().unwrap().decay(restored.learner.step());
    let expected: Vec<f32> = flat(&candidate.net)
        .iter()
        .zip(flat(&restored.learner.inference_model(&plain)))
        .map(|(avg, w)| d * avg + (1.0 - d) * w)
        .collect();
    let moved = flat(&restored.learner.published_model(&plain));
    let off = moved.iter().zip(&expected).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(off < 1e-5, "the average went on from the stored one, off by {off}");
    // A corrupt weights object is named.
    run.store.put(&last.weights, b"not a model").unwrap();
    let err = trainer::restore(&run, &ctl).err().expect("a corrupt restart point is refused").to_string();
    assert!(err.contains(&last.weights) && err.contains("checksum"), "{err}");
}

/// The bytes of a model's weights under one fixed header, so two networks compare by weights.
fn weight_bytes(run: &Run, net: &mancala_nn::Net) -> Vec<u8> {
    let meta = mancala_nn::ModelMeta::new(run.game.rules_string(), run.config.net_config(&run.game), 0);
    mancala_nn::model_bytes(&meta, net).unwrap()
}

#[test]
fn a_run_started_from_a_model_file_has_its_weights_as_generation_0() {
    let device = Device::flex();
    // A model of another seed than the run's own, written to a file.
    let source = tiny_run_with("init-source", "[run]\nseed = 99");
    let source_net = source.load_best(&device).unwrap().net;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("start.mzm");
    let meta = mancala_nn::ModelMeta::new(source.game.rules_string(), source.config.net_config(&source.game), 0);
    mancala_nn::save_model(&path, &meta, &source_net).unwrap();

    let fresh = tiny_run("init-none");
    let started = tiny_run_with("init-from-file", &format!("[run]\ninit_model = {:?}", path.display().to_string()));
    let fresh_net = fresh.load_best(&device).unwrap().net;
    let started_net = started.load_best(&device).unwrap().net;
    // Without the key, the run's own seed gives other weights; with it, the file's are kept.
    assert_ne!(weight_bytes(&fresh, &fresh_net), weight_bytes(&source, &source_net));
    assert_eq!(weight_bytes(&started, &started_net), weight_bytes(&source, &source_net));
    // The stored config keeps the key, and the run opens and restores its trainer from it.
    let reopened = Run::open(started.store.clone()).unwrap();
    assert_eq!(reopened.config.run.init_model, path.display().to_string());
    let ctl = Ctl::new(&Quiet);
    trainer::restore(&reopened, &ctl).unwrap();

    // Bad files are refused with the key, the file and what is wrong.
    let cases = [
        (dir.path().join("missing.mzm").display().to_string(), "", "missing.mzm"),
        (path.display().to_string(), "[network]\nwidth = 24", "width = 16"),
        (path.display().to_string(), "[game]\nrules = \"kalah:4,2\"", "kalah"),
    ];
    for (i, (file, over, says)) in cases.iter().enumerate() {
        let text =
            merge(RunConfig::shipped("tiny").unwrap(), &format!("{over}\n[run]\ninit_model = {file:?}")).unwrap();
        let store = Store::open(&format!("memory://init-bad-{i}")).unwrap();
        let err = Run::create(store.clone(), &text).unwrap_err().to_string();
        assert!(err.contains("run.init_model") && err.contains(file.as_str()) && err.contains(says), "{err}");
        assert!(store.list("").unwrap().is_empty(), "a refused start writes nothing");
    }
}

#[test]
fn the_games_own_end_is_refused_where_it_cannot_differ_or_be_built() {
    let with = |rules: &str, endgame: &str| {
        merge(RunConfig::shipped("tiny").unwrap(), &format!("[game]\nrules = \"{rules}\"\n[endgame]\n{endgame}\n"))
            .and_then(|text| RunConfig::parse(&text).map(|_| ()))
    };
    assert!(with("oware", "seeds = 6\nends = \"own\"").is_ok());
    assert!(with("kalah:3,3", "seeds = 8\nends = \"played-out\"").is_ok());
    for (rules, endgame, says) in [
        ("kalah:3,3", "seeds = 8\nends = \"own\"", "does not stop at a majority"),
        ("oware", "seeds = 0\nends = \"own\"", "endgame.seeds is 0"),
        ("oware", "seeds = 6\nends = \"own\"\nadjudicate = true", "endgame.adjudicate"),
        ("chonka", "seeds = 18\nends = \"own\"", "GiB to build"),
        ("oware", "seeds = 6\nends = \"sideways\"", "ends"),
    ] {
        let e = with(rules, endgame).unwrap_err().to_string();
        assert!(e.contains("ends") && e.contains(says), "{rules} {endgame}: {e}");
    }
}

#[test]
fn a_run_on_the_games_own_end_reads_the_scored_values_at_its_leaves() {
    use mancala_mcts::{Evaluator, UniformEvaluator, utility};
    let run = tiny_run_with("config-own-end", "[game]\nrules = \"oware\"\n[endgame]\nseeds = 6\nends = \"own\"\n");
    let game = &run.game;
    let built = mancala_train::endgame::database(&run.config, game).unwrap().unwrap();
    let scored = built.scored.clone().expect("a scored database for the game's own end");
    assert_eq!(scored.max_seeds(), 6);
    // The played-out run of the same rules and seeds shares the database, with no scored one.
    let played = tiny_run_with("config-played-out", "[game]\nrules = \"oware\"\n[endgame]\nseeds = 6\n");
    let played = mancala_train::endgame::database(&played.config, &played.game).unwrap().unwrap();
    assert!(std::sync::Arc::ptr_eq(&built.tablebase, &played.tablebase) && played.scored.is_none());

    // The search's leaves inside the database get the scored values and best moves, weighed
    // with the run's margin utility; the played-out run's get the database's.
    let margin = 0.3;
    let sample = mancala_tablebase::sample_positions(game, &built.tablebase, 3000, 11);
    let leaves = |exact: &mancala_train::endgame::Exact| {
        let mut eval = mancala_train::endgame::leaves(game, Some(exact), margin, UniformEvaluator);
        let a = game.action_space();
        let (mut policies, mut values) = (vec![0.0; a * sample.len()], vec![0.0; sample.len()]);
        eval.evaluate(game, &sample, &mut policies, &mut values);
        assert_eq!(eval.hits, sample.len() as u64, "every sampled position is inside the database");
        (policies, values)
    };
    let (own_policies, own_values) = leaves(&built.exact());
    let (played_policies, _) = leaves(&played.exact());
    let a = game.action_space();
    let mut differ = 0;
    for (i, pos) in sample.iter().enumerate() {
        let probe = scored.probe(game, pos).unwrap();
        assert_eq!(built.exact().probe(game, pos), Some(probe));
        let mut best = vec![0.0; a];
        probe.best_policy(&mut best);
        assert_eq!(&own_policies[i * a..(i + 1) * a], &best[..], "{pos:?}");
        let value = utility(probe.result(), game.margin_share(probe.final_margin), margin);
        assert_eq!(own_values[i], value, "{pos:?}");
        differ += usize::from(own_policies[i * a..(i + 1) * a] != played_policies[i * a..(i + 1) * a]);
    }
    assert!(differ > 0, "the game's own end changes some best moves of the sample");
}

/// A run on the game's own end is judged by it too: beside the played-out figures, the
/// evaluator gives the share of the same player's moves that are best by the game's own end.
#[test]
fn the_evaluator_judges_a_run_on_the_games_own_end_by_it() {
    use mancala_agents::{Guide, PlayerSettings, build_player};
    use mancala_mcts::Agent;
    use mancala_rules::Line;
    use mancala_train::roles::evaluator;
    let over = "[game]\nrules = \"oware\"\n[endgame]\nseeds = 6\nends = \"own\"\n";
    let run = tiny_run_with("evaluator-own-end", over);
    let game = &run.game;
    let device = Device::flex();
    let best = run.load_best(&device).unwrap();
    let built = mancala_train::endgame::database(&run.config, game).unwrap().unwrap();
    let scored = built.scored.clone().expect("a scored database for the game's own end");
    let (tablebase, _) = mancala_tablebase::Tablebase::build(game, 6, &|_| {}).unwrap();
    let sample = mancala_tablebase::sample_positions(game, &tablebase, 400, 3);

    // The same player's moves, judged by the scored database.
    let settings = PlayerSettings {
        simulations: run.config.evaluation.simulations,
        margin: Some(run.config.search.margin_utility),
        precision: run.config.network.inference_precision,
        reuse: false,
        ..PlayerSettings::network()
    };
    let guide = Guide::network(best.meta.clone(), best.net.clone(), "net");
    let mut player = build_player(game, &guide, None, &settings, run.config.run.seed, "net".into()).unwrap();
    let played: Vec<_> =
        sample.iter().map(|pos| (*pos, player.choose(&Line::from_position(game.clone(), *pos)))).collect();
    let real = mancala_tablebase::real_end_judgements(game, &tablebase, &scored, &played);
    assert!(real.len() > 300, "most of the sample has a best move by the game's own end: {}", real.len());
    let right = real.iter().filter(|j| j.move_right).count() as f64 / real.len() as f64;
    let played_out = mancala_tablebase::endgame_judgements(game, &tablebase, &sample, |pos| {
        (0.0, played[sample.iter().position(|p| p == pos).unwrap()].1)
    });
    let played_out = mancala_tablebase::EndgameAccuracy::of(&played_out).best_move;

    let endgames = evaluator::Endgames { tablebase, sample, scored: Some(scored) };
    let (record, _) = evaluator::evaluate(&run, &best, Some(&endgames), &device).unwrap();
    assert_eq!(record.scalars["endgame/best_move"], played_out, "{:?}", record.scalars);
    assert_eq!(record.scalars["endgame/best_move_own"], right, "{:?}", record.scalars);
    assert_eq!(record.scalars["endgame/positions_own"], real.len() as f64);
    assert_ne!(right, played_out, "the two ends judge the sample's moves alike");

    // `endgames` hands the evaluator the run's own scored database.
    let path = std::env::temp_dir().join(format!("mz-evaluator-own-end-{}.tb", std::process::id()));
    endgames.tablebase.write(&path).unwrap();
    let over = format!("{over}[evaluation]\ntablebase = {:?}\ntablebase_positions = 50\n", path.display().to_string());
    let run = tiny_run_with("evaluator-own-end-file", &over);
    let loaded = evaluator::endgames(&run).unwrap().unwrap();
    assert!(std::sync::Arc::ptr_eq(loaded.scored.as_ref().unwrap(), built.scored.as_ref().unwrap()));
    std::fs::remove_file(&path).ok();
}

#[test]
fn the_endgame_feed_on_the_games_own_end_fills_its_share() {
    let over =
        "[game]\nrules = \"oware\"\n[endgame]\nseeds = 6\nfeed = 0.25\nends = \"own\"\n[training]\nbatch_size = 64\n";
    let run = tiny_run_with("config-feed-own-end", over);
    let ctl = Ctl::new(&Quiet);
    let (mut state, _) = trainer_with_a_shard(&run, &ctl);
    let scalars = trainer::train(&run, &mut state, 3, &ctl).unwrap().unwrap();
    assert_eq!(scalars["train/endgame_feed_rows"], 16.0, "a quarter of 64");
    assert!(scalars["loss/total"].is_finite());
}
