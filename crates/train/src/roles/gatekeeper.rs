//! The gatekeeper: plays each new candidate against the best (colours swapped, paired varied
//! openings; a score threshold or an SPRT), records the decision, and on a promotion rewrites
//! the best pointer. The decision records are the source of truth: the pointer always names
//! the newest promoted candidate, and a restart rewrites it if a kill came between the two.

use burn::prelude::Device;
use mancala_arena::{MatchConfig, Sprt, SprtDecision, play_match, write_record};
use mancala_mcts::Agent;
use mancala_nn::neural_agent;
use mancala_rules::AnyGame;

use super::Ctl;
use crate::error::TrainError;
use crate::layout::{self, BestPointer, Candidate, Decision, GatingRecord};
use crate::run::{Run, StoredModel};

/// The pointer the gating records call for: the newest promoted candidate, or generation 0.
/// Rewrites `best.json` when it says otherwise (a kill between record and pointer).
///
/// # Errors
/// A store error or a corrupt record.
pub fn reconcile(run: &Run) -> Result<BestPointer, TrainError> {
    let mut promoted = 0;
    for generation in run.generations(layout::GATING)?.into_iter().rev() {
        let record: GatingRecord = run.read(&layout::gating_key(generation))?;
        if record.decision == Decision::Promoted {
            promoted = generation;
            break;
        }
    }
    let candidate: Candidate = run.read(&layout::candidate_key(promoted))?;
    let want = BestPointer { generation: promoted, model: candidate.model, checksum: candidate.checksum };
    if run.store.get_opt(layout::BEST)?.and_then(|b| serde_json::from_slice::<BestPointer>(&b).ok()).as_ref()
        != Some(&want)
    {
        run.store.put(layout::BEST, &crate::run::json(&want))?;
    }
    Ok(want)
}

/// Published candidates without a decision, oldest first.
///
/// # Errors
/// A store error.
pub fn pending(run: &Run) -> Result<Vec<u64>, TrainError> {
    let decided: std::collections::HashSet<u64> = run.generations(layout::GATING)?.into_iter().collect();
    Ok(run.generations(layout::CANDIDATES)?.into_iter().filter(|g| *g > 0 && !decided.contains(g)).collect())
}

/// Plays `candidate` against `best`; returns the decision and the games as JSON lines. With
/// `gating.games = 0` it promotes without a match (no games, score 0).
///
/// # Errors
/// An arena error.
pub fn gate(
    run: &Run,
    candidate: &StoredModel,
    best: &StoredModel,
    device: &Device,
) -> Result<(GatingRecord, Vec<u8>), TrainError> {
    let g = &run.config.gating;
    if g.games == 0 {
        let record = GatingRecord::without_match(candidate.generation, best.generation, Decision::Promoted);
        return Ok((record, Vec::new()));
    }
    let search = run.config.search_config(g.simulations);
    let (game, device) = (run.game.clone(), device.clone());
    let (cand, best_net) = (candidate.net.clone(), best.net.clone());
    // Both sides search in the run's inference precision, as its self-play does: int8 where
    // the CPU has it makes the matches as much faster as the games.
    let precision = run.config.network.inference_precision;
    let factory = move |spec: &str, seed: u64| -> Result<Box<dyn Agent<AnyGame>>, String> {
        let net = if spec == "candidate" { cand.clone() } else { best_net.clone() };
        Ok(Box::new(neural_agent(&game, net, device.clone(), precision, search.clone(), seed, spec.to_string())))
    };
    let sprt = if g.sprt.is_empty() {
        None
    } else {
        Some(Sprt::parse(&g.sprt).map_err(|e| TrainError::Config(format!("gating.sprt: {e}")))?)
    };
    let config = MatchConfig {
        games: g.games,
        opening_plies: g.opening_plies,
        seed: run.config.run.seed ^ candidate.generation,
        threads: Some(g.threads),
        sprt,
        ..MatchConfig::default()
    };
    let mut games = Vec::new();
    let result = play_match(&run.game, "candidate", "best", &factory, &config, &mut |record| {
        write_record(&mut games, record).map_err(std::io::Error::other)
    })?;
    let score = result.score();
    let promoted = match result.sprt {
        Some(r) => r.decision == SprtDecision::H1,
        None => score >= g.threshold,
    };
    let record = GatingRecord {
        generation: candidate.generation,
        best: best.generation,
        decision: if promoted { Decision::Promoted } else { Decision::Rejected },
        score,
        games: result.total.games(),
        published: layout::now(),
    };
    Ok((record, games))
}

/// Stores a decision (games first, then the record) and, for a promotion, the pointer last.
///
/// # Errors
/// A store error.
pub fn record(run: &Run, record: &GatingRecord, games: &[u8]) -> Result<(), TrainError> {
    run.store.create(&layout::gating_games_key(record.generation), games)?;
    run.create_json(&layout::gating_key(record.generation), record)?;
    if record.decision == Decision::Promoted {
        reconcile(run)?;
    }
    Ok(())
}

/// The gatekeeper's loop: gate the newest pending candidate (older ones are superseded),
/// until told to stop, or to drain and nothing is pending.
///
/// # Errors
/// A store error a retry cannot mend, a corrupt candidate, or an arena error.
pub fn run_gatekeeper(run: &Run, ctl: &Ctl) -> Result<(), TrainError> {
    let device = mancala_nn::inference_device(run.config.network.device.as_str())?;
    let mut best_ptr = ctl.retry("gatekeeper", || reconcile(run))?;
    let mut best =
        ctl.retry("gatekeeper", || run.load_model(best_ptr.generation, &best_ptr.model, &best_ptr.checksum, &device))?;
    loop {
        if ctl.stopped() {
            return Ok(());
        }
        let waiting = ctl.retry("gatekeeper", || pending(run))?;
        let Some(&newest) = waiting.last() else {
            if ctl.draining() {
                return Ok(());
            }
            ctl.idle();
            continue;
        };
        for &old in &waiting[..waiting.len() - 1] {
            let r = GatingRecord::without_match(old, best_ptr.generation, Decision::Superseded);
            ctl.retry("gatekeeper", || record(run, &r, b""))?;
        }
        let c: Candidate = ctl.retry("gatekeeper", || run.read(&layout::candidate_key(newest)))?;
        let candidate = ctl.retry("gatekeeper", || run.load_model(newest, &c.model, &c.checksum, &device))?;
        let (decision, games) = gate(run, &candidate, &best, &device)?;
        if ctl.stopped() {
            return Ok(());
        }
        ctl.retry("gatekeeper", || record(run, &decision, &games))?;
        let verdict = match decision.decision {
            Decision::Promoted => "promoted",
            _ => "rejected",
        };
        if decision.games == 0 {
            ctl.reporter.line(&format!("gating  {newest:>4} | no match (gating.games = 0) | {verdict}"));
        } else {
            ctl.reporter.line(&format!(
                "gating  {:>4} | score {:.2} against generation {} | {verdict}",
                newest, decision.score, best_ptr.generation,
            ));
        }
        if decision.decision == Decision::Promoted {
            best_ptr = BestPointer { generation: newest, model: c.model, checksum: c.checksum };
            best = candidate;
        }
    }
}
