//! The spec grammar: `KIND` or `KIND:PARAM,PARAM,...`, each parameter `key=value`, except
//! that `net` takes its model file as a first, key-less parameter. Parsed once into an
//! [`AgentSpec`]; nothing is read from disk until [`AgentSpec::check`] or
//! [`AgentSpec::build`].

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use mancala_mcts::alphabeta::Limit;
use mancala_mcts::{FinalPick, MAX_SIMULATIONS};
use mancala_nn::Precision;

use crate::error::SpecError;
use crate::player::{MAX_THREADS, PlayerSettings};

/// Default simulations of `mcts` (rollouts are cheap, so many).
pub const MCTS_SIMULATIONS: u32 = 1000;
/// Default simulations of `net` (each one is a network call).
pub const NET_SIMULATIONS: u32 = 200;
/// Default exploration constant of `mcts` (the yardstick as measured).
pub const MCTS_C_PUCT: f32 = 1.5;
/// Default exploration constant of `net`: lower than self-play's, as a trained prior is worth
/// following ([`mancala_mcts::SearchConfig::IN_PLAY_C_PUCT`]).
pub const NET_C_PUCT: f32 = mancala_mcts::SearchConfig::IN_PLAY_C_PUCT;
/// Default first-play urgency of `mcts`: an unvisited move counts as its parent's value less
/// this (the yardstick as measured).
pub const MCTS_FPU: f32 = mancala_mcts::SearchConfig::FPU_REDUCTION;
/// Default first-play urgency of `net`.
pub const NET_FPU: f32 = mancala_mcts::SearchConfig::FPU_REDUCTION;
/// Default leaves a `net` search gathers for one network call: a batch large enough to pay for
/// the call, small enough that virtual loss barely bends a search of 200 simulations.
pub const NET_GATHER: usize = 8;
/// Most leaves a `net` search may gather for one call.
pub const MAX_NET_GATHER: usize = 256;
/// Whether `net` keeps its tree from move to move by default (tree reuse).
pub const NET_REUSE: bool = true;
/// Whether `net` backs up proven values from finished games in its tree by default (the
/// solver, `mancala_mcts::SearchConfig::solver`).
pub const NET_SOLVER: bool = false;
/// Default weight of the minimax of a `net` search's evaluations beside the mean values
/// (`mancala_mcts::SearchConfig::minimax_weight`).
pub const NET_MINIMAX: f32 = mancala_mcts::SearchConfig::IN_PLAY_MINIMAX_WEIGHT;
/// Default final pick of `net` (see [`FinalPick::IN_PLAY`]).
pub const NET_PICK: FinalPick = FinalPick::IN_PLAY;
/// Default depth of `alphabeta`.
pub const ALPHABETA_DEPTH: u32 = 4;
/// Default depth of the alpha-beta that `perfect` plays outside its database: deeper than
/// `alphabeta`'s, because near the database most lines end inside it and cost one probe.
pub const PERFECT_DEPTH: u32 = 8;

/// What kind of agent a spec names, with its parameters (defaults filled in).
#[derive(Clone, Debug, PartialEq)]
pub enum AgentKind {
    /// `random`: uniformly random legal moves.
    Random,
    /// `greedy`: the largest immediate capture, ties at random.
    Greedy,
    /// `alphabeta:depth=D` or `alphabeta:ms=M` (`ab` for short).
    AlphaBeta { limit: Limit },
    /// `mcts:sims=N[,ms=T][,threads=N][,cpuct=C][,solver=B]`: MCTS with random rollouts,
    /// searched with [`PlayerSettings::rollouts`] changed by the parameters. `solver=true`
    /// backs up proven values from finished games in the tree (off by default: the yardstick).
    Mcts { search: PlayerSettings },
    /// `net:FILE[,sims=N][,ms=T][,threads=N][,tb=DB][,margin=W][,cpuct=C][,gather=G][,pick=P][,reuse=B][,minimax=W][,fpu=F][,solver=B][,precision=P]`:
    /// a trained model guiding MCTS ([`PlayerSettings::network`] changed by the parameters),
    /// with exact values from an endgame database at the leaves inside it when `tb` is given.
    /// `sims` is the simulations a move; `ms` a time a move instead (with `sims` too, whichever
    /// ends first; alone, at most [`MAX_SIMULATIONS`]); `threads` the threads that evaluate
    /// each batch of leaves. `margin` weighs the seed margin in the value its search
    /// maximises (without it, the weight the model's run searched with, which its file names;
    /// 0 for older files). `cpuct` is the exploration constant (by default [`NET_C_PUCT`]),
    /// `gather` the leaves gathered (under virtual loss) for one network call on each thread:
    /// 1 is the plain serial search, slower per move. `pick` is the move a finished search plays: `visits` (the most
    /// visited), `value` or `value:S` (the best mean value among the moves with at least S of
    /// the top visits, S one half for `value`). `reuse` (`true`, the default, or `false`):
    /// whether a search keeps the subtree of the moves played since the agent's last search.
    /// `solver` (by default [`NET_SOLVER`]): whether the search backs up proven values from
    /// finished games in its tree. `minimax` (0 to 1, by default [`NET_MINIMAX`]): the weight
    /// of the minimax of the search's evaluations beside their mean. `fpu` (0 to 2, by default
    /// [`NET_FPU`]): how far below its parent's value an unvisited move counts. `precision` (`fp32`, the
    /// default, `int8` or `auto`): the arithmetic of the network on the CPU (see
    /// [`mancala_nn::Precision`]).
    Net { model: PathBuf, tablebase: Option<PathBuf>, search: PlayerSettings },
    /// `perfect:db=FILE[,depth=D|ms=M]`: the database's best moves inside it, alpha-beta
    /// outside it.
    Perfect { db: PathBuf, fallback: Limit },
}

/// A parsed and validated spec: its text (the agent's name in tables and records) and kind.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    pub text: String,
    pub kind: AgentKind,
}

/// The parameters after `KIND:`, split and checked against the keys the kind allows.
struct Params<'a> {
    spec: &'a str,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Params<'a> {
    fn split(
        spec: &'a str,
        pieces: impl Iterator<Item = &'a str>,
        kind: &'static str,
        allowed: &'static [&'static str],
    ) -> Result<Self, SpecError> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for piece in pieces {
            let (key, value) = piece
                .split_once('=')
                .ok_or_else(|| SpecError::NotKeyValue { spec: spec.to_string(), piece: piece.to_string() })?;
            let (key, value) = (key.trim(), value.trim());
            if !allowed.contains(&key) {
                return Err(SpecError::UnknownKey {
                    spec: spec.to_string(),
                    kind,
                    key: key.to_string(),
                    allowed: if allowed.is_empty() { "none" } else { allowed_list(kind) },
                });
            }
            // A second value would silently win or lose depending on the reader; refuse it.
            if pairs.iter().any(|(k, _)| *k == key) {
                return Err(SpecError::DuplicateKey { spec: spec.to_string(), key: key.to_string() });
            }
            pairs.push((key, value));
        }
        Ok(Params { spec, pairs })
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    fn number<T: FromStr + PartialOrd>(
        &self,
        key: &str,
        default: T,
        least: T,
        expected: &'static str,
    ) -> Result<T, SpecError> {
        let Some(value) = self.get(key) else {
            return Ok(default);
        };
        value.parse::<T>().ok().filter(|n| *n >= least).ok_or_else(|| SpecError::BadNumber {
            spec: self.spec.to_string(),
            key: key.to_string(),
            value: value.to_string(),
            expected,
        })
    }

    /// `key=true` or `key=false`, `default` without the key.
    fn boolean(&self, key: &str, default: bool) -> Result<bool, SpecError> {
        match self.get(key) {
            None => Ok(default),
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(text) => Err(SpecError::BadNumber {
                spec: self.spec.to_string(),
                key: key.to_string(),
                value: text.to_string(),
                expected: "true or false",
            }),
        }
    }

    /// `key=value` with `least <= value <= most`, `default` without the key.
    fn bounded<T: FromStr + PartialOrd>(
        &self,
        key: &str,
        default: T,
        least: T,
        most: T,
        expected: &'static str,
    ) -> Result<T, SpecError> {
        let n = self.number(key, default, least, expected)?;
        if n > most {
            return Err(self.bad(key, expected));
        }
        Ok(n)
    }

    fn bad(&self, key: &str, expected: &'static str) -> SpecError {
        SpecError::BadNumber {
            spec: self.spec.to_string(),
            key: key.to_string(),
            value: self.get(key).unwrap_or_default().to_string(),
            expected,
        }
    }

    /// The keys `mcts` and `net` share: the budget (`sims`, `ms`), `threads`, `cpuct` and
    /// `solver`, over `defaults`.
    fn search(&self, defaults: PlayerSettings) -> Result<PlayerSettings, SpecError> {
        let time = match self.get("ms") {
            None => None,
            Some(_) => Some(Duration::from_millis(self.number("ms", 100u64, 1, "a time of at least 1 ms")?)),
        };
        // On time alone, the cap bounds the simulations; with `sims` too, whichever ends first.
        let default_sims = if time.is_some() { MAX_SIMULATIONS } else { defaults.simulations };
        let simulations = self.number("sims", u64::from(default_sims), 1, "a whole number of at least 1")?;
        let simulations = u32::try_from(simulations).ok().filter(|n| *n <= MAX_SIMULATIONS).ok_or_else(|| {
            SpecError::TooManySimulations {
                spec: self.spec.to_string(),
                value: simulations.to_string(),
                cap: MAX_SIMULATIONS,
            }
        })?;
        let threads = self.bounded("threads", 1, 1, MAX_THREADS, "a whole number from 1 to 256")?;
        Ok(PlayerSettings {
            simulations,
            time,
            threads,
            c_puct: self.number("cpuct", defaults.c_puct, 0.0, "a number of at least 0")?,
            solver: self.boolean("solver", defaults.solver)?,
            ..defaults
        })
    }

    /// `margin=W` (0 to one half), `None` without the key.
    fn margin(&self) -> Result<Option<f32>, SpecError> {
        const MARGIN: &str = "a number from 0 to 0.5";
        if self.get("margin").is_none() {
            return Ok(None);
        }
        let weight = self.number("margin", 0.0, 0.0, MARGIN)?;
        if !mancala_mcts::valid_margin_utility(weight) {
            return Err(self.bad("margin", MARGIN));
        }
        Ok(Some(weight))
    }

    /// `precision=P`: `fp32` (without the key), `int8` or `auto`.
    fn precision(&self) -> Result<Precision, SpecError> {
        match self.get("precision") {
            None => Ok(Precision::Fp32),
            Some(text) => text.parse().map_err(|_| self.bad("precision", "fp32, int8 or auto")),
        }
    }

    /// `pick=P`, [`NET_PICK`] without the key.
    fn pick(&self) -> Result<FinalPick, SpecError> {
        match self.get("pick") {
            None => Ok(NET_PICK),
            Some(text) => FinalPick::parse(text).ok_or_else(|| self.bad("pick", FinalPick::FORMS)),
        }
    }

    /// `depth=D` or `ms=M`, not both; depth is clamped to what alpha-beta can search.
    fn limit(&self, default_depth: u32) -> Result<Limit, SpecError> {
        match (self.get("depth"), self.get("ms")) {
            (Some(_), Some(_)) => Err(SpecError::DepthAndTime { spec: self.spec.to_string() }),
            (_, Some(_)) => {
                Ok(Limit::Time(Duration::from_millis(self.number("ms", 100u64, 1, "a time of at least 1 ms")?)))
            }
            _ => Ok(Limit::Depth(self.number("depth", default_depth, 0, "a whole number")?.clamp(1, 64))),
        }
    }
}

/// The keys each kind allows, as error messages list them.
fn allowed_list(kind: &str) -> &'static str {
    match kind {
        "alphabeta" => "depth, ms",
        "mcts" => "sims, ms, threads, cpuct, solver",
        "net" => "sims, ms, threads, tb, margin, cpuct, gather, pick, reuse, solver, minimax, fpu, precision",
        "perfect" => "db, depth, ms",
        _ => "none",
    }
}

impl AgentSpec {
    /// Parses a spec and checks its parameters; files are not touched.
    ///
    /// # Errors
    /// [`SpecError`] naming the spec and what is wrong: an unknown kind, an unknown or
    /// repeated key, a piece that is not `key=value`, a bad number, a missing required part.
    pub fn parse(text: &str) -> Result<AgentSpec, SpecError> {
        let spec = text.trim();
        let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let kind = kind.trim().to_ascii_lowercase();
        let pieces = rest.split(',').map(str::trim).filter(|p| !p.is_empty());
        let parsed = match kind.as_str() {
            "random" => {
                Params::split(spec, pieces, "random", &[])?;
                AgentKind::Random
            }
            "greedy" => {
                Params::split(spec, pieces, "greedy", &[])?;
                AgentKind::Greedy
            }
            "alphabeta" | "ab" => {
                let p = Params::split(spec, pieces, "alphabeta", &["depth", "ms"])?;
                AgentKind::AlphaBeta { limit: p.limit(ALPHABETA_DEPTH)? }
            }
            "mcts" => parse_mcts(spec, pieces)?,
            "net" => parse_net(spec, pieces)?,
            "perfect" => parse_perfect(spec, pieces)?,
            _ => return Err(SpecError::UnknownKind { spec: spec.to_string(), kind }),
        };
        Ok(AgentSpec { text: spec.to_string(), kind: parsed })
    }

    /// The files the spec names (model, database), for messages and checks.
    pub fn files(&self) -> Vec<&std::path::Path> {
        match &self.kind {
            AgentKind::Net { model, tablebase, .. } => {
                std::iter::once(model.as_path()).chain(tablebase.as_deref()).collect()
            }
            AgentKind::Perfect { db, .. } => vec![db.as_path()],
            _ => Vec::new(),
        }
    }
}

/// The keys `mcts` takes.
const MCTS_KEYS: &[&str] = &["sims", "ms", "threads", "cpuct", "solver"];
/// The keys `net` takes after its model file.
const NET_KEYS: &[&str] = &[
    "sims",
    "ms",
    "threads",
    "tb",
    "margin",
    "cpuct",
    "gather",
    "pick",
    "reuse",
    "solver",
    "minimax",
    "fpu",
    "precision",
];
/// The form of a `net` spec, for the message when its model file is missing.
const NET_FORM: &str = "net:FILE[,sims=N][,ms=T][,threads=N][,tb=DB][,margin=W][,cpuct=C][,gather=G][,pick=P][,reuse=B][,minimax=W][,fpu=F][,solver=B][,precision=P]";

/// `mcts:...`: the rollout settings changed by the parameters.
fn parse_mcts<'a>(spec: &'a str, pieces: impl Iterator<Item = &'a str>) -> Result<AgentKind, SpecError> {
    let p = Params::split(spec, pieces, "mcts", MCTS_KEYS)?;
    Ok(AgentKind::Mcts { search: p.search(PlayerSettings::rollouts())? })
}

/// `net:FILE,...`: the model file first, then the network settings changed by the parameters.
fn parse_net<'a>(spec: &'a str, mut pieces: impl Iterator<Item = &'a str>) -> Result<AgentKind, SpecError> {
    // The model file comes first and has no key, so that `net:FILE` stays short.
    let missing = || SpecError::Missing { spec: spec.to_string(), what: "a model file", form: NET_FORM };
    let model = pieces.next().filter(|f| !f.contains('=')).ok_or_else(missing)?;
    let p = Params::split(spec, pieces, "net", NET_KEYS)?;
    let mut search = p.search(PlayerSettings::network())?;
    search.margin = p.margin()?;
    search.gather = p.bounded("gather", NET_GATHER, 1, MAX_NET_GATHER, "a whole number from 1 to 256")?;
    search.pick = p.pick()?;
    search.reuse = p.boolean("reuse", NET_REUSE)?;
    search.minimax = p.bounded("minimax", NET_MINIMAX, 0.0, 1.0, "a number from 0 to 1")?;
    search.fpu = p.bounded("fpu", NET_FPU, 0.0, 2.0, "a number from 0 to 2")?;
    search.precision = p.precision()?;
    Ok(AgentKind::Net { model: PathBuf::from(model), tablebase: p.get("tb").map(PathBuf::from), search })
}

/// `perfect:db=FILE[,depth=D|ms=M]`.
fn parse_perfect<'a>(spec: &'a str, pieces: impl Iterator<Item = &'a str>) -> Result<AgentKind, SpecError> {
    let p = Params::split(spec, pieces, "perfect", &["db", "depth", "ms"])?;
    let db = p.get("db").filter(|d| !d.is_empty()).ok_or_else(|| SpecError::Missing {
        spec: spec.to_string(),
        what: "db=FILE",
        form: "perfect:db=FILE[,depth=D|ms=M]",
    })?;
    Ok(AgentKind::Perfect { db: PathBuf::from(db), fallback: p.limit(PERFECT_DEPTH)? })
}

impl FromStr for AgentSpec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AgentSpec::parse(s)
    }
}

impl std::fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}
