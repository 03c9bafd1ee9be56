//! The loop: self-play with the best model -> train on the replay window -> gate the
//! candidate against the best -> promote -> measure against fixed references -> log ->
//! write the resume point. Each stage leaves its files in the run directory.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use burn::prelude::Device;
use mancala_arena::{play_match, write_record, MatchConfig, MatchResult, Sprt, SprtDecision};
use mancala_mcts::{parse_agent, Agent};
use mancala_nn::{load_model, save_model, Batch, Learner, ModelMeta, Net, neural_agent, NeuralEvaluator};
use mancala_rules::{AnyGame, Game};
use mancala_selfplay::{play_games, read_shard, write_shard, ReplayWindow, ShardHeader};
use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::config::RunConfig;
use crate::error::{io, TrainError};
use crate::metrics::Metrics;
use crate::rundir::{BestPointer, RunDir, RunState};

/// Where the loop reports progress; the CLI draws bars, tests stay quiet.
pub trait Reporter: Sync {
    /// A stage with `total` steps begins.
    fn phase(&self, name: &str, total: u64);
    /// `done` steps of the current stage are finished.
    fn advance(&self, done: u64);
    /// A line for the terminal (summaries, warnings).
    fn line(&self, text: &str);
}

/// Reports nothing.
pub struct Quiet;

impl Reporter for Quiet {
    fn phase(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn line(&self, _: &str) {}
}

/// How a training session ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub iterations: u64,
    pub best_iteration: u64,
    pub promotions: u64,
    /// The last Elo against each reference (difference, best model minus reference).
    pub elo: BTreeMap<String, f64>,
    /// The last endgame accuracy, when a database referees.
    pub endgame: Option<mancala_tablebase::EndgameAccuracy>,
}

/// Starts a new run in `dir` with `config` (its text is copied into the run).
///
/// # Errors
/// A bad config, an existing run, or any failure of the loop.
pub fn start(config_text: &str, dir: &Path, reporter: &dyn Reporter) -> Result<Summary, TrainError> {
    let config = RunConfig::parse(config_text)?;
    let run = RunDir::create(dir)?;
    run.write(&run.config_path(), config_text.as_bytes())?;
    let game = config.game()?;
    let device = mancala_nn::training_device(&config.network.device)?;
    let learner = Learner::new(config.net_config(&game), config.optim_config(), device, config.run.seed);
    let meta = ModelMeta::new(game.rules_string(), config.net_config(&game), 0);
    save_model(&run.model_path(0), &meta, learner.model())?;
    run.write_json(&run.best_path(), &BestPointer { iteration: 0, model: RunDir::model_rel(0) })?;
    let state = RunState::default();
    run.write_json(&run.state_path(), &state)?;
    Session::new(config, game, run, learner, state, reporter)?.run()
}

/// Continues the run in `dir` from its last resume point.
///
/// # Errors
/// A missing or broken resume point, or any failure of the loop.
pub fn resume(dir: &Path, reporter: &dyn Reporter) -> Result<Summary, TrainError> {
    let run = RunDir::new(dir);
    if !run.root.is_dir() {
        return Err(TrainError::Resume { path: run.root.clone(), reason: "no such run directory".into() });
    }
    let text = std::fs::read_to_string(run.config_path()).map_err(io(run.config_path()))?;
    let config = RunConfig::parse(&text)?;
    let state = run.read_state()?;
    run.discard_after(state.iteration);
    let game = config.game()?;
    let device = mancala_nn::training_device(&config.network.device)?;
    let net_config = config.net_config(&game);
    let plain = mancala_nn::inference_device(&config.network.device)?;
    let (_, net) = load_model(&run.model_path(state.iteration), Some(&game.rules_string()), Some(&net_config), &plain)?;
    let mut learner = Learner::from_model(net_config, config.optim_config(), device, net, state.learner_step);
    if state.iteration > 0 {
        let path = run.optim_path(state.iteration);
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        learner.load_optimizer_bytes(bytes)?;
    }
    reporter.line(&format!("resuming {} after iteration {}", run.root.display(), state.iteration));
    Session::new(config, game, run, learner, state, reporter)?.run()
}

struct Session<'a> {
    config: RunConfig,
    game: AnyGame,
    run: RunDir,
    learner: Learner,
    state: RunState,
    best: Net,
    inference: Device,
    window: ReplayWindow,
    metrics: Metrics,
    reporter: &'a dyn Reporter,
    rng: SmallRng,
    last_elo: BTreeMap<String, f64>,
    /// The endgame referee and its fixed sample of positions, when configured.
    endgames: Option<(mancala_tablebase::Tablebase, Vec<<AnyGame as Game>::Position>)>,
    last_endgame: Option<mancala_tablebase::EndgameAccuracy>,
}

impl<'a> Session<'a> {
    fn new(config: RunConfig, game: AnyGame, run: RunDir, learner: Learner, state: RunState, reporter: &'a dyn Reporter) -> Result<Self, TrainError> {
        let inference = mancala_nn::inference_device(&config.network.device)?;
        let best_ptr = run.read_best()?;
        let (_, best) = load_model(&run.root.join(&best_ptr.model), Some(&game.rules_string()), None, &inference)?;
        let metrics = Metrics::open(&run.tb_dir(), run.metrics_path(), config.logging.tensorboard)?;
        let mut window = ReplayWindow::new(config.window_size(state.iteration));
        // Rebuild the window from the newest shards; a bad shard is skipped with a warning.
        let mut loaded = Vec::new();
        let mut rows = 0;
        for it in (1..=state.iteration).rev() {
            if rows >= window.capacity() {
                break;
            }
            match read_shard(&run.shard_path(it), Some(&game.rules_string())) {
                Ok((_, r)) => {
                    rows += r.len();
                    loaded.push(r);
                }
                Err(e) => reporter.line(&format!("warning: skipping shard: {e}")),
            }
        }
        for r in loaded.into_iter().rev() {
            window.extend(r);
        }
        let rng = SmallRng::seed_from_u64(config.run.seed ^ state.iteration.wrapping_mul(0x51_7cc1_b727_220a));
        let endgames = if config.evaluation.tablebase.is_empty() {
            None
        } else {
            let path = Path::new(&config.evaluation.tablebase);
            let tb = mancala_tablebase::Tablebase::read(path)
                .map_err(|e| TrainError::Config(format!("evaluation.tablebase = {}: {e}", path.display())))?;
            tb.check_game(&game).map_err(|e| TrainError::Config(format!("evaluation.tablebase: {e}")))?;
            let sample = mancala_tablebase::metric::sample_positions(&game, &tb, config.evaluation.tablebase_positions, 0xe4d9);
            Some((tb, sample))
        };
        Ok(Session { config, game, run, learner, state, best, inference, window, metrics, reporter, rng, last_elo: BTreeMap::new(), endgames, last_endgame: None })
    }

    fn run(mut self) -> Result<Summary, TrainError> {
        let session_start = Instant::now();
        let elapsed_before = self.state.elapsed_seconds;
        let budget = self.config.run.max_minutes * 60.0;
        let mut evaluated_last = false;
        while self.state.iteration < self.config.run.iterations {
            let spent = elapsed_before + session_start.elapsed().as_secs_f64();
            if budget > 0.0 && spent >= budget {
                self.reporter.line(&format!("time budget of {} minutes reached", self.config.run.max_minutes));
                break;
            }
            evaluated_last = self.iteration(elapsed_before, session_start)?;
        }
        if !evaluated_last && self.config.evaluation.every > 0 && self.state.iteration > 0 {
            let mut scalars = BTreeMap::new();
            self.evaluate(self.state.iteration, &mut scalars)?;
            self.metrics.log(self.state.iteration, &scalars);
        }
        for w in self.metrics.warnings.drain(..) {
            self.reporter.line(&format!("warning: {w}"));
        }
        Ok(Summary {
            iterations: self.state.iteration,
            best_iteration: self.state.best_iteration,
            promotions: self.state.promotions,
            elo: self.last_elo.clone(),
            endgame: self.last_endgame,
        })
    }

    /// One iteration; returns whether it measured Elo.
    fn iteration(&mut self, elapsed_before: f64, session_start: Instant) -> Result<bool, TrainError> {
        let it = self.state.iteration + 1;
        let mut scalars: BTreeMap<String, f64> = BTreeMap::new();

        // 1. Self-play with the current best.
        let sp = &self.config.selfplay;
        self.reporter.phase(&format!("iteration {it}: self-play"), sp.games_per_iteration as u64);
        let search = self.config.search_config(sp.simulations);
        let best = self.best.clone();
        let (game, device) = (self.game.clone(), self.inference.clone());
        let reporter = self.reporter;
        let out = play_games(
            &self.game,
            sp,
            &search,
            sp.games_per_iteration,
            self.config.run.seed ^ it.wrapping_mul(0x9e37_79b9),
            |_| NeuralEvaluator::new(&game, best.clone(), device.clone()).cached(16),
            &|done| reporter.advance(done as u64),
        );
        let rows: Vec<_> = out.games.iter().flat_map(|g| g.rows.iter().cloned()).collect();
        let header = ShardHeader {
            rules: self.game.rules_string(),
            inputs: mancala_nn::layout(&self.game).inputs(),
            actions: self.game.action_space(),
            rows: rows.len(),
            games: out.games.len(),
            iteration: it,
        };
        write_shard(&self.run.shard_path(it), &header, &rows)?;
        let new_rows = rows.len();
        self.window.set_capacity(self.config.window_size(it));
        self.window.extend(rows);
        let wins = out.games.iter().filter(|g| g.result.starts_with("south")).count();
        let draws = out.games.iter().filter(|g| g.result == "draw").count();
        scalars.insert("selfplay/games_per_s".into(), out.games.len() as f64 / out.seconds.max(1e-9));
        scalars.insert("selfplay/positions_per_s".into(), out.moves as f64 / out.seconds.max(1e-9));
        scalars.insert("selfplay/simulations_per_s".into(), out.simulations as f64 / out.seconds.max(1e-9));
        scalars.insert("selfplay/rows".into(), new_rows as f64);
        scalars.insert("selfplay/plies_per_game".into(), out.moves as f64 / out.games.len().max(1) as f64);
        scalars.insert("selfplay/south_win_share".into(), wins as f64 / out.games.len().max(1) as f64);
        scalars.insert("selfplay/draw_share".into(), draws as f64 / out.games.len().max(1) as f64);
        scalars.insert("replay/window_rows".into(), self.window.len() as f64);

        // 2. Train on the window.
        let t = &self.config.training;
        let steps = ((new_rows as f64 * t.samples_per_row / t.batch_size as f64).ceil() as u64).clamp(t.min_steps, t.max_steps);
        self.reporter.phase(&format!("iteration {it}: training"), steps);
        let train_start = Instant::now();
        let mut batch = Batch::default();
        let mut sums = [0.0f64; 6];
        let mut lr = 0.0;
        for s in 0..steps {
            self.window.sample(t.batch_size, &mut self.rng, &mut batch);
            let l = self.learner.train_step(&batch);
            for (acc, v) in sums.iter_mut().zip([l.policy, l.value, l.margin, l.total, l.policy_entropy, l.value_accuracy]) {
                *acc += f64::from(v);
            }
            lr = l.learning_rate;
            self.reporter.advance(s + 1);
        }
        let n = steps.max(1) as f64;
        for (k, name) in ["policy", "value", "margin", "total"].iter().enumerate() {
            scalars.insert(format!("loss/{name}"), sums[k] / n);
        }
        scalars.insert("train/policy_entropy".into(), sums[4] / n);
        scalars.insert("train/value_accuracy".into(), sums[5] / n);
        scalars.insert("train/learning_rate".into(), lr);
        scalars.insert("train/steps_per_s".into(), steps as f64 / train_start.elapsed().as_secs_f64().max(1e-9));

        // 3. Save the candidate and the optimiser state.
        let candidate = self.learner.inference_model(&self.inference);
        let mut meta = ModelMeta::new(self.game.rules_string(), self.learner.net_config.clone(), self.learner.step());
        meta.extra.insert("iteration".into(), it.to_string());
        save_model(&self.run.model_path(it), &meta, &candidate)?;
        self.run.write(&self.run.optim_path(it), &self.learner.optimizer_bytes()?)?;
        if it >= 3 {
            let _ = std::fs::remove_file(self.run.optim_path(it - 2));
        }

        // 4. Gate it against the best.
        let gate = self.gate(it, &candidate)?;
        let score = gate.score();
        let promoted = match gate.sprt {
            Some(r) => r.decision == SprtDecision::H1,
            None => score >= self.config.gating.threshold,
        };
        scalars.insert("gating/score".into(), score);
        scalars.insert("gating/promoted".into(), if promoted { 1.0 } else { 0.0 });
        if promoted {
            self.best = candidate;
            self.state.best_iteration = it;
            self.state.promotions += 1;
            self.run.write_json(&self.run.best_path(), &BestPointer { iteration: it, model: RunDir::model_rel(it) })?;
        }
        scalars.insert("gating/promotions".into(), self.state.promotions as f64);
        scalars.insert("gating/best_iteration".into(), self.state.best_iteration as f64);

        // 5. Elo against fixed references every few iterations.
        let every = self.config.evaluation.every;
        let evaluated = every > 0 && it % every == 0;
        if evaluated {
            self.evaluate(it, &mut scalars)?;
        }

        // 6. Log, then write the resume point last.
        self.state.iteration = it;
        self.state.learner_step = self.learner.step();
        self.state.elapsed_seconds = elapsed_before + session_start.elapsed().as_secs_f64();
        scalars.insert("time/minutes".into(), self.state.elapsed_seconds / 60.0);
        self.metrics.log(it, &scalars);
        self.run.write_json(&self.run.state_path(), &self.state)?;
        self.reporter.line(&summary_line(it, &scalars, promoted, &self.last_elo, evaluated));
        for w in self.metrics.warnings.drain(..) {
            self.reporter.line(&format!("warning: {w}"));
        }
        Ok(evaluated)
    }

    fn gate(&self, it: u64, candidate: &Net) -> Result<MatchResult, TrainError> {
        let g = &self.config.gating;
        let search = self.config.search_config(g.simulations);
        let (game, device) = (self.game.clone(), self.inference.clone());
        let (cand, best) = (candidate.clone(), self.best.clone());
        let factory = move |spec: &str, seed: u64| -> Result<Box<dyn Agent<AnyGame>>, String> {
            let net = if spec == "candidate" { cand.clone() } else { best.clone() };
            Ok(Box::new(neural_agent(&game, net, device.clone(), search.clone(), seed, spec.to_string())))
        };
        let sprt = if g.sprt.is_empty() { None } else { Sprt::parse(&g.sprt).ok() };
        let config = MatchConfig {
            games: g.games,
            opening_plies: g.opening_plies,
            seed: self.config.run.seed ^ it,
            threads: Some(g.threads),
            sprt,
            ..MatchConfig::default()
        };
        self.reporter.phase(&format!("iteration {it}: gating"), u64::from(g.games));
        let path = self.run.arena_path("gating", it);
        let result = self.arena(&path, "candidate", "best", &factory, &config)?;
        Ok(result)
    }

    fn arena(
        &self,
        path: &Path,
        a: &str,
        b: &str,
        factory: &dyn mancala_arena::AgentFactory<AnyGame>,
        config: &MatchConfig,
    ) -> Result<MatchResult, TrainError> {
        let mut out = Vec::new();
        let mut done = 0u64;
        let reporter = self.reporter;
        let result = play_match(&self.game, a, b, factory, config, &mut |record| {
            done += 1;
            reporter.advance(done);
            write_record(&mut out, record).map_err(std::io::Error::other)
        })?;
        self.run.write(path, &out)?;
        Ok(result)
    }

    /// Plays the best model against each reference; records Elo differences.
    fn evaluate(&mut self, it: u64, scalars: &mut BTreeMap<String, f64>) -> Result<(), TrainError> {
        let e = self.config.evaluation.clone();
        let search = self.config.search_config(e.simulations);
        let (game, device, best) = (self.game.clone(), self.inference.clone(), self.best.clone());
        let factory = move |spec: &str, seed: u64| -> Result<Box<dyn Agent<AnyGame>>, String> {
            if spec == "net" {
                Ok(Box::new(neural_agent(&game, best.clone(), device.clone(), search.clone(), seed, "net".into())))
            } else {
                parse_agent(&game, spec, seed).map_err(|e| e.to_string())
            }
        };
        let mut records = Vec::new();
        for (k, reference) in e.references.iter().enumerate() {
            let config = MatchConfig {
                games: e.games,
                opening_plies: e.opening_plies,
                seed: self.config.run.seed ^ (1000 + k as u64),
                threads: Some(e.threads),
                ..MatchConfig::default()
            };
            self.reporter.phase(&format!("iteration {it}: net vs {reference}"), u64::from(e.games));
            let mut done = 0u64;
            let reporter = self.reporter;
            let result = play_match(&self.game, "net", reference, &factory, &config, &mut |record| {
                done += 1;
                reporter.advance(done);
                write_record(&mut records, record).map_err(std::io::Error::other)
            })?;
            let (elo, lo, hi) = result.elo();
            scalars.insert(format!("elo/{reference}"), elo);
            scalars.insert(format!("elo_low/{reference}"), lo);
            scalars.insert(format!("elo_high/{reference}"), hi);
            scalars.insert(format!("score/{reference}"), result.score());
            self.last_elo.insert(reference.clone(), elo);
        }
        self.run.write(&self.run.arena_path("eval", it), &records)?;
        if let Some((tb, sample)) = &self.endgames {
            self.reporter.phase(&format!("iteration {it}: endgame accuracy"), sample.len() as u64);
            let mut net = NeuralEvaluator::new(&self.game, self.best.clone(), self.inference.clone());
            let mut agent = neural_agent(
                &self.game,
                self.best.clone(),
                self.inference.clone(),
                self.config.search_config(self.config.gating.simulations),
                self.config.run.seed,
                "net".into(),
            );
            let a = self.game.action_space();
            let (mut policy, mut value) = (vec![0.0; a], [0.0f32]);
            let acc = mancala_tablebase::metric::endgame_accuracy(&self.game, tb, sample, |pos| {
                use mancala_mcts::Evaluator;
                net.evaluate(&self.game, std::slice::from_ref(pos), &mut policy, &mut value);
                let line = mancala_rules::Line::from_position(self.game.clone(), *pos);
                (value[0], agent.choose(&line))
            });
            scalars.insert("endgame/value_sign".into(), acc.value_sign);
            scalars.insert("endgame/best_move".into(), acc.best_move);
            self.last_endgame = Some(acc);
        }
        Ok(())
    }
}

fn summary_line(it: u64, s: &BTreeMap<String, f64>, promoted: bool, elo: &BTreeMap<String, f64>, evaluated: bool) -> String {
    let get = |k: &str| s.get(k).copied().unwrap_or(f64::NAN);
    let mut line = format!(
        "iter {it:>4} | {:>5.1} games/s {:>6.0} pos/s | loss p {:.3} v {:.3} m {:.3} | vacc {:.2} | gate {:.2}{} | {:.1} min",
        get("selfplay/games_per_s"),
        get("selfplay/positions_per_s"),
        get("loss/policy"),
        get("loss/value"),
        get("loss/margin"),
        get("train/value_accuracy"),
        get("gating/score"),
        if promoted { " promoted" } else { "" },
        get("time/minutes"),
    );
    if evaluated {
        for (r, e) in elo {
            line.push_str(&format!(" | {r} {e:+.0}"));
        }
    }
    line
}
