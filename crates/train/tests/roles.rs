//! The roles over a `memory://` store: each stage function on its own, then all roles as
//! threads on the tiny config with the run's invariants checked at the end.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use burn::prelude::Device;
use mancala_store::{Created, Store};
use mancala_train::layout::{self, BestPointer, Candidate, Decision, GatingRecord};
use mancala_train::roles::{evaluator, gatekeeper, trainer, worker};
use mancala_train::{Ctl, Quiet, Run, RunConfig, TrainError, TrainOptions, start};

fn tiny(iterations: u64) -> String {
    RunConfig::shipped("tiny").unwrap().replace("iterations = 2", &format!("iterations = {iterations}"))
}

fn new_run(name: &str, iterations: u64) -> Run {
    Run::create(Store::open(&format!("memory://{name}")).unwrap(), &tiny(iterations)).unwrap()
}

/// Plays and stores `n` shards as worker `id` with the best model.
fn store_shards(run: &Run, id: &str, n: usize) -> Vec<String> {
    let model = run.load_best(&Device::flex()).unwrap();
    let stop = AtomicBool::new(false);
    let first = worker::next_sequence(run, id).unwrap();
    let mut keys = Vec::new();
    for seq in first..first + n as u64 {
        let shard = worker::play_shard(run, &model, None, 1, seq, &stop).unwrap().unwrap();
        let (key, created) = worker::upload_shard(run, id, seq, &shard.bytes).unwrap();
        assert_eq!(created, Created::New);
        keys.push(key);
    }
    keys
}

#[test]
fn creating_and_opening_a_run() {
    let run = new_run("create", 2);
    let best = run.best().unwrap();
    assert_eq!(best.generation, 0);
    assert!(run.load_best(&Device::flex()).is_ok());
    let info = run.info().unwrap();
    assert_eq!((info.format, info.iterations, info.finished), (layout::STORE_FORMAT, 2, false));
    // A store that holds a run is never overwritten.
    let again = Run::create(run.store.clone(), &tiny(2)).unwrap_err();
    assert!(matches!(again, TrainError::RunExists { .. }), "{again}");
    assert!(again.to_string().contains("--resume memory://create"), "{again}");
    let opened = Run::open(Store::open("memory://create").unwrap()).unwrap();
    assert_eq!(opened.config, run.config);
    let none = Run::open(Store::open("memory://nothing-here").unwrap()).unwrap_err();
    assert!(none.to_string().contains("holds no run"), "{none}");
}

#[test]
fn bad_objects_are_named() {
    let run = new_run("bad-objects", 2);
    let s = &run.store;
    // Another store format.
    let mut info = run.info().unwrap();
    info.format = 99;
    run.write_info(&info).unwrap();
    let e = Run::open(s.clone()).unwrap_err();
    assert!(e.to_string().contains("memory://bad-objects/run.json was written by store format 99"), "{e}");
    info.format = layout::STORE_FORMAT;
    run.write_info(&info).unwrap();
    // A corrupt pointer.
    s.put(layout::BEST, b"{ not json").unwrap();
    let e = run.best().unwrap_err();
    assert!(e.to_string().contains("memory://bad-objects/best.json is corrupt"), "{e}");
    // A model whose bytes do not match the checksum in its name and records.
    let c: Candidate = run.read(&layout::candidate_key(0)).unwrap();
    let mut bytes = s.get(&c.model).unwrap();
    bytes[40] ^= 0xff;
    s.put(&c.model, &bytes).unwrap();
    let e = run.load_model(0, &c.model, &c.checksum, &Device::flex()).unwrap_err();
    assert!(e.to_string().contains(&c.model) && e.to_string().contains("checksum"), "{e}");
    // A pointer to a model that is gone.
    s.put(
        layout::BEST,
        &serde_json::to_vec(&BestPointer { generation: 0, model: "models/none.mzm".into(), checksum: "0".into() })
            .unwrap(),
    )
    .unwrap();
    let e = run.load_best(&Device::flex()).unwrap_err();
    assert!(e.to_string().contains("memory://bad-objects/models/none.mzm does not exist"), "{e}");
    // A config that no longer parses.
    s.put(layout::CONFIG, b"[game]\nrules = \"chess\"\n").unwrap();
    let e = Run::open(s.clone()).unwrap_err();
    assert!(e.to_string().contains("config.toml is corrupt") && e.to_string().contains("chess"), "{e}");
}

#[test]
fn a_worker_continues_its_sequence_and_never_writes_a_shard_twice() {
    let run = new_run("worker-seq", 2);
    assert_eq!(worker::next_sequence(&run, "w").unwrap(), 1);
    let keys = store_shards(&run, "w", 2);
    assert_eq!(keys, ["shards/w/00000001.shard", "shards/w/00000002.shard"]);
    // A restarted worker continues after its newest shard.
    assert_eq!(worker::next_sequence(&run, "w").unwrap(), 3);
    assert_eq!(worker::next_sequence(&run, "other").unwrap(), 1);
    // A retried upload under a used number is refused by the store and keeps the first.
    let first = run.store.get(&keys[0]).unwrap();
    let (_, created) = worker::upload_shard(&run, "w", 1, b"different bytes").unwrap();
    assert_eq!(created, Created::Existed);
    assert_eq!(run.store.get(&keys[0]).unwrap(), first);
    assert!(layout::check_worker_id("bad/id").is_err() && layout::check_worker_id("host-1.a_b").is_ok());
    // The worker's own pace: it stops once it is this far ahead of the trainer.
    assert_eq!(worker::Lead::default().shards_ahead(&run, "w").unwrap(), 2);
    assert_eq!(worker::max_ahead(&run), 3);
}

#[test]
fn the_trainer_ingests_each_shard_once_skips_corrupt_ones_and_restores() {
    let run = new_run("trainer", 5);
    let ctl = Ctl::new(&Quiet);
    let mut keys = store_shards(&run, "a", 2);
    keys.extend(store_shards(&run, "b", 1));
    run.store.create("shards/b/00000002.shard", b"MZSHARD\0 truncated").unwrap();
    let mut state = trainer::restore(&run, &ctl).unwrap();
    let found = trainer::ingest(&run, &mut state).unwrap();
    assert_eq!(found.shards, 3);
    assert_eq!(found.games, 3 * run.config.selfplay.games_per_shard);
    assert_eq!(found.skipped.len(), 1);
    assert!(
        found.skipped[0].0.ends_with("b/00000002.shard")
            && found.skipped[0].1.contains("memory://trainer/shards/b/00000002.shard"),
        "{:?}",
        found.skipped
    );
    assert_eq!(state.window.len(), found.rows);
    // Nothing new: nothing counted again.
    assert_eq!(trainer::ingest(&run, &mut state).unwrap(), trainer::Ingested::default());
    assert!(trainer::ready(&run, &state), "{} games", state.pending_games);
    let steps = trainer::steps_for(&run, state.pending_rows);
    let t = &run.config.training;
    assert!((t.min_steps..=t.max_steps).contains(&steps));
    let scalars = trainer::train(&run, &mut state, steps, &ctl).unwrap().unwrap();
    assert!(scalars["loss/total"].is_finite());
    let c = trainer::publish(&run, &mut state, scalars).unwrap();
    assert_eq!((c.generation, c.step), (1, steps));
    assert_eq!(c.ingested, keys);
    assert_eq!(c.skipped, ["shards/b/00000002.shard"]);
    // A shard that arrives after the candidate, then a restart: the restored trainer has
    // exactly the candidate's shards and ingests the new one once.
    let late = store_shards(&run, "a", 1);
    trainer::ingest(&run, &mut state).unwrap();
    let mut restored = trainer::restore(&run, &ctl).unwrap();
    assert_eq!(restored.ingested, keys);
    assert_eq!(restored.learner.step(), steps);
    assert_eq!(restored.window.len(), c.scalars["replay/window_rows"] as usize);
    let found = trainer::ingest(&run, &mut restored).unwrap();
    assert_eq!(found.shards, 1);
    assert_eq!(restored.ingested.last(), late.last());
    assert_eq!(restored.rows_ingested, state.rows_ingested);
}

#[test]
fn the_gatekeeper_decides_and_the_pointer_follows_the_records() {
    let run = new_run("gatekeeper", 5);
    let ctl = Ctl::new(&Quiet);
    store_shards(&run, "a", 2);
    let mut state = trainer::restore(&run, &ctl).unwrap();
    for _ in 0..2 {
        trainer::ingest(&run, &mut state).unwrap();
        let s = trainer::train(&run, &mut state, 2, &ctl).unwrap().unwrap();
        trainer::publish(&run, &mut state, s).unwrap();
    }
    assert_eq!(gatekeeper::pending(&run).unwrap(), [1, 2]);
    let dev = Device::flex();
    let best = run.load_best(&dev).unwrap();
    let c2: Candidate = run.read(&layout::candidate_key(2)).unwrap();
    let cand = run.load_model(2, &c2.model, &c2.checksum, &dev).unwrap();
    let (record, games) = gatekeeper::gate(&run, &cand, &best, &dev).unwrap();
    assert_eq!(record.games, run.config.gating.games);
    assert_eq!(String::from_utf8(games.clone()).unwrap().lines().count(), run.config.gating.games as usize);
    // Whatever the match said, record a promotion, as a kill right after the decision
    // (before the pointer) would leave it.
    let promoted = GatingRecord { decision: Decision::Promoted, ..record };
    run.create_json(&layout::gating_key(2), &promoted).unwrap();
    assert_eq!(run.best().unwrap().generation, 0);
    // Generation 0 is measured only as the final best of a run that never promoted.
    assert_eq!(evaluator::due(&run, false).unwrap(), None);
    assert_eq!(evaluator::due(&run, true).unwrap().map(|b| b.generation), Some(0));
    assert_eq!(gatekeeper::pending(&run).unwrap(), [1]);
    let ptr = gatekeeper::reconcile(&run).unwrap();
    assert_eq!((ptr.generation, &ptr.model, &ptr.checksum), (2, &c2.model, &c2.checksum));
    assert_eq!(run.best().unwrap(), ptr);
    // The evaluator sees it due once (tiny evaluates every 2 generations).
    assert_eq!(evaluator::due(&run, false).unwrap().map(|b| b.generation), Some(2));
}

#[test]
fn all_roles_as_threads_keep_the_invariants() {
    let store = Store::open("memory://all-roles").unwrap();
    let options = TrainOptions { workers: 2, tensorboard: None, poll: Duration::from_millis(20) };
    let summary = start(store.clone(), &tiny(4), &options, &Quiet).unwrap();
    assert!(summary.finished);
    assert_eq!(summary.iterations, 4);
    let run = Run::open(store).unwrap();
    assert!(run.info().unwrap().finished);

    // Every published model loads and matches its checksum.
    let dev = Device::flex();
    for g in run.generations(layout::CANDIDATES).unwrap() {
        let c: Candidate = run.read(&layout::candidate_key(g)).unwrap();
        assert_eq!(c.generation, g);
        run.load_model(g, &c.model, &c.checksum, &dev).unwrap();
    }
    // The pointer names a model that exists: the newest promotion.
    let best = run.best().unwrap();
    run.load_best(&dev).unwrap();
    let newest_promotion = run
        .generations(layout::GATING)
        .unwrap()
        .into_iter()
        .filter(|g| run.read::<GatingRecord>(&layout::gating_key(*g)).unwrap().decision == Decision::Promoted)
        .max()
        .unwrap_or(0);
    assert_eq!(best.generation, newest_promotion);
    assert_eq!(summary.best_iteration, best.generation);

    // Every shard a worker was told is stored is in the store, from both workers; the
    // trainer counted each at most once, and one more ingest pass takes the rest exactly once.
    let told: Vec<String> = summary.workers.iter().flat_map(|w| w.stored.iter().cloned()).collect();
    assert_eq!(summary.workers.len(), 2);
    assert!(summary.workers.iter().all(|w| !w.stored.is_empty()));
    let stored: HashSet<String> = run.store.list(layout::SHARDS).unwrap().into_iter().map(|e| e.key).collect();
    assert_eq!(told.iter().cloned().collect::<HashSet<_>>(), stored);
    let ctl = Ctl::new(&Quiet);
    let mut state = trainer::restore(&run, &ctl).unwrap();
    let before = state.ingested.len();
    assert_eq!(state.ingested.iter().collect::<HashSet<_>>().len(), before, "a shard ingested twice");
    trainer::ingest(&run, &mut state).unwrap();
    let mut all = state.ingested.clone();
    all.sort();
    let mut want: Vec<String> = stored.into_iter().collect();
    want.sort();
    assert_eq!(all, want);

    // The metrics view: one line per candidate and per decision, Elo at the end.
    let text = String::from_utf8(run.store.get(layout::METRICS).unwrap()).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let count = |record: &str| lines.iter().filter(|l| l["record"] == record).count();
    assert_eq!(count("candidate"), 4);
    let decided = run
        .generations(layout::GATING)
        .unwrap()
        .into_iter()
        .filter(|g| run.read::<GatingRecord>(&layout::gating_key(*g)).unwrap().decision != Decision::Superseded)
        .count();
    assert_eq!(count("gating"), decided);
    assert!(count("eval") >= 1 && summary.elo.contains_key("random"), "{text}");
    // The first candidate's line (a run that never promoted has its final evaluation, of
    // generation 0, first).
    let first = lines.iter().find(|l| l["record"] == "candidate").unwrap();
    for key in ["loss/policy", "loss/value", "train/value_accuracy", "selfplay/positions_per_s", "replay/window_rows"] {
        assert!(first[key].is_number(), "metrics lack {key}: {first}");
    }
}

/// With `gating.games = 0` every candidate is promoted without a match: the whole run's
/// decisions are promotions with no games, and the pointer ends on the newest candidate.
#[test]
fn without_gating_games_every_candidate_is_promoted() {
    let store = Store::open("memory://no-gating").unwrap();
    let config = tiny(3).replace("[gating]\ngames = 4", "[gating]\ngames = 0");
    assert!(config.contains("games = 0"));
    let options = TrainOptions { workers: 1, tensorboard: None, poll: Duration::from_millis(20) };
    let summary = start(store.clone(), &config, &options, &Quiet).unwrap();
    assert!(summary.finished);
    let run = Run::open(store).unwrap();
    assert_eq!(run.config.gating.games, 0);
    let mut promoted = 0;
    for g in run.generations(layout::GATING).unwrap() {
        let record: GatingRecord = run.read(&layout::gating_key(g)).unwrap();
        match record.decision {
            Decision::Promoted => {
                assert_eq!(record.games, 0);
                assert!(run.store.get(&layout::gating_games_key(g)).unwrap().is_empty());
                promoted += 1;
            }
            Decision::Superseded => {}
            Decision::Rejected => panic!("generation {g} was rejected without a match"),
        }
    }
    assert!(promoted >= 1);
    assert_eq!(run.best().unwrap().generation, 3);
    assert_eq!(summary.best_iteration, 3);
    // The metrics view carries no match score for a decision without games.
    let text = String::from_utf8(run.store.get(layout::METRICS).unwrap()).unwrap();
    let gating: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["record"] == "gating")
        .collect();
    assert_eq!(gating.len(), promoted);
    assert!(gating.iter().all(|l| l["gating/promoted"] == 1.0 && l.get("gating/score").is_none()), "{text}");
}

/// The evaluator judges the model as the arena's `net` agent plays it (the play-time
/// exploration constant, minimax and final pick, at the evaluation's simulations): its endgame
/// figure is that player's, not the self-play search's.
#[test]
fn the_evaluator_judges_endgames_as_the_net_agent_plays() {
    use mancala_mcts::{Agent, Evaluator, FinalPick, SearchConfig};
    use mancala_rules::{Game, Line};
    let run = new_run("evaluator-pick", 2);
    let device = Device::flex();
    let best = run.load_best(&device).unwrap();
    let (tablebase, _) = mancala_tablebase::Tablebase::build(&run.game, 12, &|_| {}).unwrap();
    let sample = mancala_tablebase::metric::sample_positions(&run.game, &tablebase, 300, 5);
    let accuracy = |agent: &mut dyn Agent<mancala_rules::AnyGame>| {
        let mut value_net = mancala_nn::NeuralEvaluator::new(&run.game, best.net.clone(), device.clone());
        let (mut policy, mut value) = (vec![0.0; run.game.action_space()], [0.0f32]);
        mancala_tablebase::endgame_accuracy(&run.game, &tablebase, &sample, |pos| {
            value_net.evaluate(&run.game, std::slice::from_ref(pos), &mut policy, &mut value);
            (value[0], agent.choose(&Line::from_position(run.game.clone(), *pos)))
        })
        .best_move
    };
    // The `net` agent as every front-end builds it, one position a game.
    let settings = mancala_agents::PlayerSettings {
        simulations: run.config.evaluation.simulations,
        margin: Some(run.config.search.margin_utility),
        precision: run.config.network.inference_precision,
        reuse: false,
        ..mancala_agents::PlayerSettings::network()
    };
    let guide = mancala_agents::Guide::network(best.meta.clone(), best.net.clone(), "net");
    let mut net_agent =
        mancala_agents::build_player(&run.game, &guide, None, &settings, run.config.run.seed, "net".into()).unwrap();
    let in_play = accuracy(&mut net_agent);
    // The self-play search, most visited move.
    let config =
        SearchConfig { final_pick: FinalPick::Visits, ..run.config.search_config(run.config.gating.simulations) };
    let mut self_play = mancala_nn::neural_agent(
        &run.game,
        best.net.clone(),
        device.clone(),
        run.config.network.inference_precision,
        config,
        run.config.run.seed,
        "net".into(),
    );
    assert_ne!(in_play, accuracy(&mut self_play), "the sample does not tell the two players apart");
    let endgames = evaluator::Endgames { tablebase, sample, scored: None };
    let (record, _) = evaluator::evaluate(&run, &best, Some(&endgames), &device).unwrap();
    assert_eq!(record.scalars["endgame/best_move"], in_play);
    // A best move keeps the result and gives nothing away, so these bound it.
    assert!(record.scalars["endgame/result_kept"] >= in_play, "{:?}", record.scalars);
    assert!(record.scalars["endgame/seeds_given"] >= 0.0, "{:?}", record.scalars);
    assert_eq!(record.scalars["endgame/seeds_given"] == 0.0, in_play == 1.0, "{:?}", record.scalars);
    // Kalah plays out to the end: no figure of the game's own end.
    assert!(!record.scalars.contains_key("endgame/best_move_own"), "{:?}", record.scalars);
}
