//! The engine's state and what every protocol command does to it. Each command checks all of
//! its input before it changes anything, so a refused command leaves the engine as it was.

use anyhow::{Context, anyhow, bail};
use mancala_mcts::{Evaluator, Search, SearchConfig};
use mancala_rules::{AnyGame, Game, IllegalMove, Line, MAX_ACTIONS, PRESETS, PlayError, parse_rules};

use super::evaluators::EvaluatorSource;
use super::settings::{KEYS, Setting, Settings};

/// Every command, in the order `list_commands` answers them.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "list_commands",
    "game",
    "clear_board",
    "play",
    "undo",
    "genmove",
    "set",
    "legal_moves",
    "position",
    "showboard",
    "result",
    "analyze",
    "quit",
];

pub const PROTOCOL_VERSION: &str = "1";
pub const ENGINE_NAME: &str = "mancala-zero";

/// A game in progress, the search that picks moves in it, and where that search's
/// evaluator comes from.
pub struct Engine {
    /// The game so far; it applies the cycle rule and keeps the moves for `undo`.
    line: Line<AnyGame>,
    search: Search<AnyGame>,
    source: Box<dyn EvaluatorSource>,
    evaluator: Box<dyn Evaluator<AnyGame>>,
    settings: Settings,
}

impl Engine {
    /// An engine at the start of `game` with the default settings.
    ///
    /// # Errors
    /// When `source` cannot judge `game`.
    pub fn new(game: AnyGame, source: Box<dyn EvaluatorSource>) -> anyhow::Result<Engine> {
        Self::with_settings(game, source, Settings::default())
    }

    /// An engine at the start of `game` with the given settings.
    ///
    /// # Errors
    /// When `source` cannot judge `game`.
    pub fn with_settings(
        game: AnyGame,
        mut source: Box<dyn EvaluatorSource>,
        settings: Settings,
    ) -> anyhow::Result<Engine> {
        let evaluator = source
            .for_game(&game, settings.seed)
            .with_context(|| format!("cannot evaluate {}", game.rules_string()))?;
        let search = Search::new(game.clone(), search_config(&settings, source.network()), settings.seed);
        Ok(Engine { line: Line::new(game), search, source, evaluator, settings })
    }

    /// The game, the evaluator and the budget, in one line.
    pub fn describe(&self) -> String {
        format!(
            "{}, {}, {} simulations a move",
            self.line.game().rules_string(),
            self.source.describe(),
            self.settings.simulations
        )
    }

    // Tests look inside; the protocol answers through `position` and friends.
    #[cfg(test)]
    pub fn line(&self) -> &Line<AnyGame> {
        &self.line
    }

    #[cfg(test)]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Runs one command (the quit command is the protocol loop's) and returns its result.
    pub(super) fn execute(&mut self, name: &str, args: &[&str]) -> anyhow::Result<String> {
        match name {
            "game" => return self.new_game(args),
            "play" => return self.play(args),
            "set" => return self.set(args),
            _ => {}
        }
        if !args.is_empty() && COMMANDS.contains(&name) {
            bail!("{name} takes no arguments, got '{}'", args.join(" "));
        }
        let game = self.line.game();
        let pos = self.line.position();
        Ok(match name {
            "protocol_version" => PROTOCOL_VERSION.to_string(),
            "name" => ENGINE_NAME.to_string(),
            "version" => env!("CARGO_PKG_VERSION").to_string(),
            "list_commands" => COMMANDS.join("\n"),
            "clear_board" => {
                self.line.reset();
                String::new()
            }
            "undo" => {
                if !self.line.undo() {
                    bail!("nothing to undo: no move has been played since the game started");
                }
                String::new()
            }
            "genmove" => self.genmove()?,
            "legal_moves" => {
                let side = self.line.side_to_move();
                let labels: Vec<String> = self.line.legal_moves().iter().map(|a| game.move_label(side, a)).collect();
                labels.join(" ")
            }
            "position" => {
                let mut setup = game.to_setup(pos);
                // The line's status is the truth (it includes the cycle rule's ending).
                setup.status = self.line.status().to_string();
                setup.to_string()
            }
            // The board starts on the line after `=`, so that its rows line up.
            "showboard" => format!("\n{}", game.display(pos)),
            "result" => self.line.status().to_string(),
            "analyze" => self.analyze(),
            _ => bail!("unknown command '{name}' (list_commands lists the commands)"),
        })
    }

    /// `game PRESET [key=value ...]`: a new game under new rules.
    fn new_game(&mut self, args: &[&str]) -> anyhow::Result<String> {
        if args.is_empty() {
            bail!(
                "game expects a preset then key=value options, e.g. 'game kalah:6,6'; presets: {}",
                PRESETS.join(", ")
            );
        }
        let game = parse_rules(&args.join(" "))?;
        let evaluator = self
            .source
            .for_game(&game, self.settings.seed)
            .with_context(|| format!("cannot evaluate {}", game.rules_string()))?;
        self.search =
            Search::new(game.clone(), search_config(&self.settings, self.source.network()), self.settings.seed);
        self.evaluator = evaluator;
        self.line = Line::new(game);
        Ok(self.line.game().rules_string())
    }

    /// `play MOVE`: a pit label for the side to move.
    fn play(&mut self, args: &[&str]) -> anyhow::Result<String> {
        let [label] = args else {
            bail!("play expects one move label, e.g. 'play D', got '{}'", args.join(" "));
        };
        self.line.play_label(label).map_err(|e| anyhow!("illegal move: {}", why_refused(&e)))?;
        Ok(String::new())
    }

    /// `set KEY VALUE`.
    fn set(&mut self, args: &[&str]) -> anyhow::Result<String> {
        let [key, value] = args else {
            bail!("set expects KEY VALUE with KEY one of {KEYS}, got '{}'", args.join(" "));
        };
        let setting = Setting::parse(key, value)?;
        match setting {
            Setting::Seed(seed) => {
                // A new seed restarts every random stream, so the same seed and the same
                // commands afterwards give the same moves.
                let evaluator = self.source.for_game(self.line.game(), seed)?;
                self.evaluator = evaluator;
                self.search.reseed(seed);
            }
            Setting::Simulations(n) => self.search.config_mut().simulations = n,
            Setting::Temperature(_) | Setting::Threads(_) => {}
        }
        self.settings.apply(setting);
        Ok(String::new())
    }

    /// Searches the current position (which must be ongoing) with the current budget.
    fn search(&mut self) {
        self.search.set_root_line(&self.line);
        self.search.run(&mut self.evaluator);
    }

    /// `genmove`: searches, plays the chosen move and answers its label.
    fn genmove(&mut self) -> anyhow::Result<String> {
        if let Some(outcome) = self.line.status().outcome() {
            bail!("game is over ({outcome})");
        }
        self.search();
        let action = self.search.select_action(self.settings.temperature).expect("an ongoing game has a legal move");
        let label = self.line.game().move_label(self.line.side_to_move(), action);
        self.line.play(action).expect("the search picks among the legal moves");
        Ok(label)
    }

    /// `analyze`: `value V policy L1:P1 ...` for the side to move, from a search that plays
    /// nothing. A finished game has its exact value and no moves.
    fn analyze(&mut self) -> String {
        let side = self.line.side_to_move();
        if let Some(outcome) = self.line.status().outcome() {
            return format!("value {} policy", three_decimals(outcome.value_for(side)));
        }
        self.search();
        let game = self.line.game();
        let mut policy = [0.0f32; MAX_ACTIONS];
        self.search.policy_target(&mut policy[..game.action_space()]);
        let mut out = format!("value {} policy", three_decimals(self.search.root_value().clamp(-1.0, 1.0)));
        for a in self.line.legal_moves() {
            out.push_str(&format!(" {}:{}", game.move_label(side, a), three_decimals(policy[usize::from(a)])));
        }
        out
    }
}

fn search_config(settings: &Settings, network: bool) -> SearchConfig {
    SearchConfig { simulations: settings.simulations, ..SearchConfig::in_play(network) }
}

/// Why `play` refused a move, without the rules crate's own "illegal move LABEL" prefix (the
/// protocol's message starts with "illegal move: ").
fn why_refused(e: &PlayError) -> String {
    match e {
        PlayError::Illegal(IllegalMove::NotLegal { reason, .. }) => reason.clone(),
        PlayError::Illegal(IllegalMove::GameOver { .. }) => "the game is over".to_string(),
        other => other.to_string(),
    }
}

/// `x` with three decimals, and never `-0.000`.
fn three_decimals(x: f32) -> String {
    // Adding +0.0 turns a rounded -0.0 into +0.0.
    format!("{:.3}", (x * 1000.0).round() / 1000.0 + 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::engine::RolloutSource;
    use mancala_mcts::FinalPick;
    use mancala_rules::{Action, Player};

    fn engine(rules: &str) -> Engine {
        Engine::new(parse_rules(rules).unwrap(), Box::new(RolloutSource)).unwrap()
    }

    /// The result text, failing the test if the command failed.
    fn ok(engine: &mut Engine, line: &str) -> String {
        let r = engine.handle(line).unwrap_or_else(|| panic!("no answer to '{line}'"));
        assert!(r.is_success(), "'{line}' failed: {}", r.text());
        r.text().to_string()
    }

    fn err(engine: &mut Engine, line: &str) -> String {
        let r = engine.handle(line).unwrap_or_else(|| panic!("no answer to '{line}'"));
        assert!(!r.is_success(), "'{line}' succeeded: {}", r.text());
        r.text().to_string()
    }

    /// The position line, which covers the board, the captures, the mover and the status.
    fn state(engine: &mut Engine) -> (String, usize) {
        (ok(engine, "position"), engine.line().len())
    }

    #[test]
    fn refused_commands_change_nothing() {
        let mut e = engine("kalah");
        ok(&mut e, "play C");
        let before = state(&mut e);
        let settings = e.settings().clone();
        for line in [
            "play C",
            "play Z",
            "play a",
            "play",
            "play D E",
            "game nonsense",
            "game kalah houses=99",
            "set simulations 0",
            "set seed x",
            "set colour red",
            "set simulations",
            "genmove now",
            "undo 2",
            "frobnicate",
        ] {
            err(&mut e, line);
            assert_eq!(state(&mut e), before, "after '{line}'");
            assert_eq!(e.settings(), &settings, "after '{line}'");
            assert_eq!(e.line().game().rules_string(), parse_rules("kalah").unwrap().rules_string());
        }
    }

    #[test]
    fn undo_takes_back_exactly_one_move() {
        let mut e = engine("kalah");
        let start = state(&mut e);
        ok(&mut e, "play D");
        let after_one = state(&mut e);
        ok(&mut e, "genmove");
        ok(&mut e, "undo");
        assert_eq!(state(&mut e), after_one);
        ok(&mut e, "undo");
        assert_eq!(state(&mut e), start);
        assert!(err(&mut e, "undo").contains("nothing to undo"));
    }

    #[test]
    fn the_same_seed_gives_the_same_moves() {
        let play_out = |seed: u64| {
            let mut e = engine("kalah");
            ok(&mut e, "set simulations 30");
            ok(&mut e, "set temperature 1");
            ok(&mut e, &format!("set seed {seed}"));
            (0..8).map(|_| ok(&mut e, "genmove")).collect::<Vec<_>>()
        };
        assert_eq!(play_out(5), play_out(5));
    }

    /// A source whose evaluator puts all the prior on the last legal action: search at a
    /// neutral value then visits only that move, so `genmove` shows which evaluator ran.
    struct LastMoveSource {
        refuse: &'static str,
    }

    struct LastMove;

    impl Evaluator<AnyGame> for LastMove {
        fn evaluate(
            &mut self,
            game: &AnyGame,
            positions: &[<AnyGame as Game>::Position],
            p: &mut [f32],
            v: &mut [f32],
        ) {
            let a = game.action_space();
            for (i, pos) in positions.iter().enumerate() {
                let out = &mut p[i * a..(i + 1) * a];
                out.fill(0.0);
                let last: Action = game.legal_moves(pos).iter().last().expect("evaluated positions are ongoing");
                out[usize::from(last)] = 1.0;
                v[i] = 0.0;
            }
        }
    }

    impl EvaluatorSource for LastMoveSource {
        fn describe(&self) -> String {
            "last legal move".into()
        }
        fn for_game(&mut self, game: &AnyGame, _seed: u64) -> anyhow::Result<Box<dyn Evaluator<AnyGame>>> {
            if game.family() == self.refuse {
                bail!("this source cannot play {}", game.family());
            }
            Ok(Box::new(LastMove))
        }
    }

    #[test]
    fn the_evaluator_comes_from_the_source() {
        let source = Box::new(LastMoveSource { refuse: "owela" });
        let mut e = Engine::new(parse_rules("kalah").unwrap(), source).unwrap();
        assert!(e.describe().contains("last legal move"));
        ok(&mut e, "set simulations 40");
        assert_eq!(ok(&mut e, "genmove"), "F");
        assert_eq!(e.line().side_to_move(), Player::North);
        assert_eq!(ok(&mut e, "genmove"), "f");
        let legal = ok(&mut e, "legal_moves");
        let last = legal.split_whitespace().last().unwrap();
        let analysis = ok(&mut e, "analyze");
        assert!(analysis.ends_with(&format!(" {last}:1.000")), "{analysis}");
        // A game the source refuses is refused as a whole: the kalah game goes on.
        let before = state(&mut e);
        let message = err(&mut e, "game owela");
        assert!(message.contains("cannot play owela"), "{message}");
        assert_eq!(state(&mut e), before);
    }

    /// A source that says its evaluator is a network for some families only.
    struct PickSource {
        network_for: &'static str,
        last_network: bool,
    }

    impl EvaluatorSource for PickSource {
        fn describe(&self) -> String {
            "pick source".into()
        }
        fn for_game(&mut self, game: &AnyGame, _seed: u64) -> anyhow::Result<Box<dyn Evaluator<AnyGame>>> {
            self.last_network = game.family() == self.network_for;
            Ok(Box::new(LastMove))
        }
        fn network(&self) -> bool {
            self.last_network
        }
    }

    #[test]
    fn the_search_picks_as_its_source_says() {
        let source = Box::new(PickSource { network_for: "kalah", last_network: false });
        let mut e = Engine::new(parse_rules("kalah").unwrap(), source).unwrap();
        assert_eq!(e.search.config().final_pick, FinalPick::IN_PLAY);
        assert_eq!(e.search.config().minimax_weight, SearchConfig::IN_PLAY_MINIMAX_WEIGHT);
        ok(&mut e, "set simulations 30");
        assert_eq!(e.search.config().final_pick, FinalPick::IN_PLAY, "a setting keeps the pick");
        ok(&mut e, "game oware");
        assert_eq!(e.search.config().final_pick, FinalPick::Visits, "a game the source plays by rollouts");
        assert_eq!(e.search.config().minimax_weight, 0.0);
        ok(&mut e, "game kalah");
        assert_eq!(e.search.config().final_pick, FinalPick::IN_PLAY);
        // Rollouts, as the engine's plain source, keep the most visited move.
        assert_eq!(engine("oware").search.config().final_pick, FinalPick::Visits);
    }

    #[test]
    fn three_decimals_never_writes_minus_zero() {
        assert_eq!(three_decimals(-0.0001), "0.000");
        assert_eq!(three_decimals(-0.25), "-0.250");
        assert_eq!(three_decimals(1.0), "1.000");
    }
}
