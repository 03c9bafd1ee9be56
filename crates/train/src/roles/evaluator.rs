//! The evaluator: plays each new best model (at most one every `evaluation.every`
//! generations, and the final one) against the fixed references, and the endgame database
//! when one is configured; records Elo and accuracy in `eval/gen-G.json`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use burn::prelude::Device;
use mancala_agents::PlayerSettings;
use mancala_agents::{AgentSpec, SpecError};
use mancala_arena::{MatchConfig, play_match, write_record};
use mancala_mcts::{Agent, Evaluator};
use mancala_nn::{NeuralEvaluator, neural_agent};
use mancala_rules::{AnyGame, Game, Line};
use mancala_tablebase::{ScoredTablebase, Tablebase};

use super::Ctl;
use crate::config::Ends;
use crate::error::TrainError;
use crate::layout::{self, BestPointer, EvalRecord};
use crate::run::{Run, StoredModel};

/// The endgame referee: a database and a fixed sample of its positions, and the values of
/// the game's own end when the run plays to it (`endgame.ends = "own"`).
pub struct Endgames {
    pub tablebase: Tablebase,
    pub sample: Vec<<AnyGame as Game>::Position>,
    pub scored: Option<Arc<ScoredTablebase>>,
}

/// Loads the configured endgame database, if any.
///
/// # Errors
/// [`TrainError::Config`] naming `evaluation.tablebase` when it cannot be read or is for
/// another game.
pub fn endgames(run: &Run) -> Result<Option<Endgames>, TrainError> {
    let e = &run.config.evaluation;
    if e.tablebase.is_empty() {
        return Ok(None);
    }
    let path = Path::new(&e.tablebase);
    let tablebase = Tablebase::read(path)
        .map_err(|err| TrainError::Config(format!("evaluation.tablebase = {}: {err}", path.display())))?;
    tablebase.check_game(&run.game).map_err(|err| TrainError::Config(format!("evaluation.tablebase: {err}")))?;
    let sample = mancala_tablebase::metric::sample_positions(&run.game, &tablebase, e.tablebase_positions, 0xe4d9);
    // A run taught the game's own end is judged by it too: the run's own scored database,
    // which this process's self-play shares when it has built it already.
    let scored = match run.config.endgame.ends {
        Ends::Own => crate::endgame::database(&run.config, &run.game)?.and_then(|built| built.scored),
        Ends::PlayedOut => None,
    };
    Ok(Some(Endgames { tablebase, sample, scored }))
}

/// The run's `evaluation.references`, parsed, with the files they name checked against the
/// run's game (the config's own validation checks only their syntax).
///
/// # Errors
/// [`TrainError::Config`] naming `evaluation.references`, the spec and the problem.
pub fn reference_specs(run: &Run) -> Result<Vec<AgentSpec>, TrainError> {
    let config = |err: SpecError| TrainError::Config(format!("evaluation.references: {err}"));
    run.config
        .evaluation
        .references
        .iter()
        .map(|r| {
            let spec = AgentSpec::parse(r).map_err(config)?;
            spec.check(&run.game).map_err(config)?;
            Ok(spec)
        })
        .collect()
}

/// The best model, when it is due for an evaluation: not yet evaluated, and either promoted
/// past generation 0 and `evaluation.every` generations past the last one evaluated, or the
/// final best at the run's end (`last`), whatever its generation: a run that never promoted
/// still reports where its model stands.
///
/// # Errors
/// A store error.
pub fn due(run: &Run, last: bool) -> Result<Option<BestPointer>, TrainError> {
    let every = run.config.evaluation.every;
    let best = run.best()?;
    if every == 0 || (best.generation == 0 && !last) {
        return Ok(None);
    }
    let evaluated = run.generations(layout::EVAL)?;
    if evaluated.contains(&best.generation) {
        return Ok(None);
    }
    let previous = evaluated.last().copied().unwrap_or(0);
    Ok((last || best.generation >= previous + every).then_some(best))
}

/// Plays `best` against every reference; returns the record and the games as JSON lines.
///
/// # Errors
/// An arena error.
pub fn evaluate(
    run: &Run,
    best: &StoredModel,
    endgames: Option<&Endgames>,
    device: &Device,
) -> Result<(EvalRecord, Vec<u8>), TrainError> {
    let e = &run.config.evaluation;
    // The model as the arena's `net` agent plays it (its defaults: the exploration constant,
    // the minimax, the final pick, tree reuse), at the evaluation's simulations and with the
    // seed margin the run searches with: the run's figures are those a user measures.
    // Built here rather than by `mancala_agents::build_player`, which plays on the CPU: the
    // evaluator keeps the run's device.
    let play = PlayerSettings { simulations: e.simulations, ..PlayerSettings::network() };
    let search = play.search_config(run.config.search.margin_utility);
    let references = reference_specs(run)?;
    let (game, dev, net, in_match) = (run.game.clone(), device.clone(), best.net.clone(), search.clone());
    // The run's inference precision, as in its self-play and gating.
    let precision = run.config.network.inference_precision;
    // "net" is the model under test; a reference is any spec (a saved model `net:FILE`, a
    // database player `perfect:db=FILE`, ...), built by the same registry as the CLI's.
    let factory = move |spec: &str, seed: u64| -> Result<Box<dyn Agent<AnyGame>>, SpecError> {
        if spec == "net" {
            Ok(Box::new(
                neural_agent(&game, net.clone(), dev.clone(), precision, in_match.clone(), seed, "net".into())
                    .with_reuse(play.reuse),
            ))
        } else {
            match references.iter().find(|r| r.text == spec) {
                Some(reference) => reference.build(&game, seed),
                None => mancala_agents::build(&game, spec, seed),
            }
        }
    };
    let mut games = Vec::new();
    let mut elo = BTreeMap::new();
    let mut scalars = BTreeMap::new();
    for (k, reference) in e.references.iter().enumerate() {
        let config = MatchConfig {
            games: e.games,
            opening_plies: e.opening_plies,
            seed: run.config.run.seed ^ (1000 + k as u64),
            threads: Some(e.threads),
            ..MatchConfig::default()
        };
        let result = play_match(&run.game, "net", reference, &factory, &config, &mut |record| {
            write_record(&mut games, record).map_err(std::io::Error::other)
        })?;
        let (d, lo, hi) = result.elo();
        scalars.insert(format!("elo/{reference}"), d);
        scalars.insert(format!("elo_low/{reference}"), lo);
        scalars.insert(format!("elo_high/{reference}"), hi);
        scalars.insert(format!("score/{reference}"), result.score());
        elo.insert(reference.clone(), d);
    }
    if let Some(eg) = endgames {
        let mut value_net = NeuralEvaluator::new(&run.game, best.net.clone(), device.clone()).with_precision(precision);
        // The same player, as `tablebase accuracy` judges it: each position a game of its own.
        let mut agent = neural_agent(
            &run.game,
            best.net.clone(),
            device.clone(),
            precision,
            search.clone(),
            run.config.run.seed,
            "net".into(),
        );
        let a = run.game.action_space();
        let (mut policy, mut value) = (vec![0.0; a], [0.0f32]);
        let mut played = Vec::with_capacity(eg.sample.len());
        let judged = mancala_tablebase::endgame_judgements(&run.game, &eg.tablebase, &eg.sample, |pos| {
            value_net.evaluate(&run.game, std::slice::from_ref(pos), &mut policy, &mut value);
            let action = agent.choose(&Line::from_position(run.game.clone(), *pos));
            played.push((*pos, action));
            (value[0], action)
        });
        let acc = mancala_tablebase::EndgameAccuracy::of(&judged);
        if let Some(scored) = &eg.scored {
            let real = mancala_tablebase::real_end_judgements(&run.game, &eg.tablebase, scored, &played);
            scalars.insert("endgame/best_move_own".into(), mancala_tablebase::RealEndJudgement::best_move(&real));
            scalars.insert("endgame/positions_own".into(), real.len() as f64);
        }
        scalars.insert("endgame/value_sign".into(), acc.value_sign);
        scalars.insert("endgame/best_move".into(), acc.best_move);
        scalars.insert("endgame/result_kept".into(), acc.result_kept);
        scalars.insert("endgame/seeds_given".into(), acc.seeds_given);
        scalars.insert("endgame/positions".into(), acc.positions as f64);
    }
    let record = EvalRecord { generation: best.generation, elo, scalars, published: layout::now() };
    Ok((record, games))
}

/// The evaluator's loop: evaluate the best model when it is due; when draining, evaluate the
/// final best and stop.
///
/// # Errors
/// A store error a retry cannot mend, a bad database, or an arena error.
pub fn run_evaluator(run: &Run, ctl: &Ctl) -> Result<(), TrainError> {
    let device = mancala_nn::inference_device(run.config.network.device.as_str())?;
    let endgames = endgames(run)?;
    // A reference file that is missing or for another game stops the evaluator now, not
    // after the first promotion.
    if run.config.evaluation.every > 0 {
        reference_specs(run)?;
    }
    loop {
        if ctl.stopped() {
            return Ok(());
        }
        let draining = ctl.draining();
        let Some(best) = ctl.retry("evaluator", || due(run, draining))? else {
            if draining {
                return Ok(());
            }
            ctl.idle();
            continue;
        };
        let model = ctl.retry("evaluator", || run.load_model(best.generation, &best.model, &best.checksum, &device))?;
        let (record, games) = evaluate(run, &model, endgames.as_ref(), &device)?;
        if ctl.stopped() {
            return Ok(());
        }
        ctl.retry("evaluator", || {
            run.store.create(&layout::eval_games_key(record.generation), &games)?;
            run.create_json(&layout::eval_key(record.generation), &record)
        })?;
        let elo: Vec<String> = record.elo.iter().map(|(r, e)| format!("{r} {e:+.0}")).collect();
        ctl.reporter.line(&format!("elo     {:>4} | {}", record.generation, elo.join(" | ")));
    }
}
