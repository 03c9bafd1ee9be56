//! The engine's state and what every protocol command does to it. Each command checks all of
//! its input before it changes anything, so a refused command leaves the engine as it was.

use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use mancala_agents::{Guide, Player, PlayerSettings, build_player};
use mancala_rules::{
    AnyGame, Game, IllegalMove, Line, MAX_ACTIONS, PRESETS, PlayError, Player as Side, Setup, parse_rules,
};

use super::clock::{Clock, MAX_TIME_MS};
use super::guides::Guides;
use super::settings::{KEYS, MAX_SIMULATIONS, Setting, Settings};

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
    "time_settings",
    "time_left",
    "legal_moves",
    "position",
    "showboard",
    "result",
    "analyze",
    "quit",
];

pub const PROTOCOL_VERSION: &str = "1";
pub const ENGINE_NAME: &str = "mancala-zero";

/// A game in progress, the player that picks moves in it, and where its guide comes from.
pub struct Engine {
    /// The game so far; it applies the cycle rule and keeps the moves for `undo`.
    line: Line<AnyGame>,
    guides: Guides,
    /// What guides the player in the current game.
    guide: Guide,
    player: Player<AnyGame>,
    settings: Settings,
    /// `time_settings`: a clock for both sides, which then decides each move's time.
    clock: Option<Clock>,
}

impl Engine {
    /// An engine at the start of `game` with the default settings.
    ///
    /// # Errors
    /// When the guide of `game` cannot be loaded.
    pub fn new(game: AnyGame, guides: Guides) -> anyhow::Result<Engine> {
        Self::with_settings(game, guides, Settings::default())
    }

    /// An engine at the start of `game` with the given settings.
    ///
    /// # Errors
    /// When the guide of `game` cannot be loaded or the settings are out of range.
    pub fn with_settings(game: AnyGame, guides: Guides, settings: Settings) -> anyhow::Result<Engine> {
        let guide = guides.for_game(&game).with_context(|| format!("cannot evaluate {}", game.rules_string()))?;
        let player = new_player(&game, &guide, &settings)?;
        Ok(Engine { line: Line::new(game), guides, guide, player, settings, clock: None })
    }

    /// The game, the guide and the budget, in one line.
    pub fn describe(&self) -> String {
        format!(
            "{}, {}, {} simulations a move",
            self.line.game().rules_string(),
            self.guides.describe(&self.guide),
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

    #[cfg(test)]
    pub fn player(&self) -> &Player<AnyGame> {
        &self.player
    }

    /// Runs one command (the quit command is the protocol loop's) and returns its result.
    pub(super) fn execute(&mut self, name: &str, args: &[&str]) -> anyhow::Result<String> {
        match name {
            "game" => return self.new_game(args),
            "play" => return self.play(args),
            "set" => return self.set(args),
            "position" if !args.is_empty() => return self.set_position(args),
            "time_settings" => return self.time_settings(args),
            "time_left" => return self.time_left(args),
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
        let guide = self.guides.for_game(&game).with_context(|| format!("cannot evaluate {}", game.rules_string()))?;
        self.player = new_player(&game, &guide, &self.settings)?;
        self.guide = guide;
        self.line = Line::new(game);
        Ok(self.line.game().rules_string())
    }

    /// `position LINE`: the game goes on from the position the line describes (in the
    /// format `position` prints), with no history before it.
    fn set_position(&mut self, args: &[&str]) -> anyhow::Result<String> {
        let text = args.join(" ");
        let setup: Setup = text.parse().map_err(|e| anyhow!("not a position line: {e}"))?;
        let game = self.line.game();
        let pos = game.from_setup(&setup).map_err(|e| anyhow!("not a position of {}: {e}", game.rules_string()))?;
        self.line = Line::from_position(game.clone(), pos);
        Ok(String::new())
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
        let mut settings = self.settings.clone();
        settings.apply(setting);
        match setting {
            // A new seed restarts every random stream, so the same seed and the same commands
            // afterwards give the same moves; threads change the evaluators.
            Setting::Seed(_) | Setting::Threads(_) => {
                self.player = new_player(self.line.game(), &self.guide, &settings)?;
            }
            Setting::Simulations(n) => self.player.search_mut().config_mut().simulations = n,
            Setting::MoveTime(_) | Setting::Temperature(_) => {}
        }
        self.settings = settings;
        Ok(String::new())
    }

    /// `time_settings MAIN_MS INCREMENT_MS`: a clock for both sides (0 0: no clock).
    fn time_settings(&mut self, args: &[&str]) -> anyhow::Result<String> {
        let [main, increment] = args else {
            bail!(
                "time_settings expects MAIN_MS INCREMENT_MS, e.g. 'time_settings 60000 1000', got '{}'",
                args.join(" ")
            );
        };
        let (main, increment) = (milliseconds("main time", main)?, milliseconds("increment", increment)?);
        self.clock = (main > Duration::ZERO).then(|| Clock::new(main, increment));
        Ok(String::new())
    }

    /// `time_left SIDE MS`: the time `SIDE` has left on the clock, as the driver counts it.
    fn time_left(&mut self, args: &[&str]) -> anyhow::Result<String> {
        let [side, left] = args else {
            bail!("time_left expects SIDE MS, e.g. 'time_left south 30000', got '{}'", args.join(" "));
        };
        let side = Side::parse(side).ok_or_else(|| anyhow!("time_left: '{side}' is not south or north"))?;
        let left = milliseconds("time left", left)?;
        let clock = self.clock.as_mut().context("time_left needs a clock: send time_settings first")?;
        clock.left[side] = left;
        Ok(String::new())
    }

    /// Searches the current position (which must be ongoing) within the budget: the clock's
    /// share of the time left, else the fixed time a move, else the simulations.
    fn search(&mut self) {
        let side = self.line.side_to_move();
        let time = match (&self.clock, self.settings.movetime) {
            (Some(clock), _) => Some(clock.think_time(side)),
            (None, 0) => None,
            (None, ms) => Some(Duration::from_millis(ms)),
        };
        let simulations = if time.is_some() { MAX_SIMULATIONS } else { self.settings.simulations };
        self.player.search_mut().config_mut().simulations = simulations;
        self.player.analyse_until(&self.line, time.map(|t| Instant::now() + t));
    }

    /// `genmove`: searches, plays the chosen move and answers its label.
    fn genmove(&mut self) -> anyhow::Result<String> {
        if let Some(outcome) = self.line.status().outcome() {
            bail!("game is over ({outcome})");
        }
        let (side, started) = (self.line.side_to_move(), Instant::now());
        self.search();
        let action = self.player.pick(self.settings.temperature).context("the search found no move")?;
        if let Some(clock) = &mut self.clock {
            clock.spend(side, started.elapsed());
        }
        let label = self.line.game().move_label(side, action);
        self.line.play(action).context("the search picks among the legal moves")?;
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
        let search = self.player.search();
        let mut policy = [0.0f32; MAX_ACTIONS];
        search.policy_target(&mut policy[..game.action_space()]);
        let mut out = format!("value {} policy", three_decimals(search.root_value().clamp(-1.0, 1.0)));
        for a in self.line.legal_moves() {
            out.push_str(&format!(" {}:{}", game.move_label(side, a), three_decimals(policy[usize::from(a)])));
        }
        out
    }
}

/// The engine's player for `game`: the guide's play-time search with the engine's
/// simulations, threads and seed.
fn new_player(game: &AnyGame, guide: &Guide, settings: &Settings) -> anyhow::Result<Player<AnyGame>> {
    let play = PlayerSettings {
        simulations: settings.simulations,
        threads: settings.threads as usize,
        ..PlayerSettings::for_guide(guide)
    };
    Ok(build_player(game, guide, None, &play, settings.seed, ENGINE_NAME.to_string())?)
}

/// A whole number of milliseconds up to [`MAX_TIME_MS`].
fn milliseconds(what: &str, text: &str) -> anyhow::Result<Duration> {
    match text.parse::<u64>() {
        Ok(ms) if ms <= MAX_TIME_MS => Ok(Duration::from_millis(ms)),
        _ => bail!("bad {what} '{text}': expected milliseconds from 0 to {MAX_TIME_MS}"),
    }
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
    use mancala_mcts::{FinalPick, SearchConfig};

    fn engine(rules: &str) -> Engine {
        Engine::new(parse_rules(rules).unwrap(), Guides::rollouts()).unwrap()
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
            "set simulations 1000001",
            "set seed x",
            "set colour red",
            "set simulations",
            "set threads 0",
            "set movetime soon",
            "time_settings 1000",
            "time_settings 1000 x",
            "time_left south 500",
            "genmove now",
            "undo 2",
            "position south | 0 0 | 4 4",
            "position north | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 5 | ongoing",
            "position | | |",
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
        let play_out = |seed: u64, threads: u32| {
            let mut e = engine("kalah");
            ok(&mut e, "set simulations 30");
            ok(&mut e, "set temperature 1");
            ok(&mut e, &format!("set threads {threads}"));
            ok(&mut e, &format!("set seed {seed}"));
            (0..8).map(|_| ok(&mut e, "genmove")).collect::<Vec<_>>()
        };
        assert_eq!(play_out(5, 1), play_out(5, 1));
        assert_eq!(play_out(5, 3), play_out(5, 3), "threads do not make the moves depend on timing");
    }

    #[test]
    fn threads_are_the_players_evaluators() {
        let mut e = engine("oware");
        assert_eq!(e.player().threads(), 1);
        ok(&mut e, "set threads 3");
        assert_eq!(e.player().threads(), 3);
        ok(&mut e, "game kalah");
        assert_eq!(e.player().threads(), 3, "a new game keeps the setting");
    }

    #[test]
    fn the_search_plays_as_its_guide_says() {
        // Shipped networks guide their games with the play-time settings of every front-end.
        let mut e = Engine::new(parse_rules("kalah").unwrap(), Guides::default()).unwrap();
        let config = |e: &Engine| e.player().search().config().clone();
        assert_eq!(config(&e).final_pick, FinalPick::IN_PLAY);
        assert_eq!(config(&e).minimax_weight, SearchConfig::IN_PLAY_MINIMAX_WEIGHT);
        assert_eq!(config(&e).leaves_per_gather, mancala_agents::NET_GATHER);
        ok(&mut e, "set simulations 30");
        assert_eq!(config(&e).final_pick, FinalPick::IN_PLAY, "a setting keeps the pick");
        ok(&mut e, "game kalah:4,3");
        assert_eq!(config(&e).final_pick, FinalPick::Visits, "no shipped network: rollouts");
        assert_eq!(config(&e).minimax_weight, 0.0);
        ok(&mut e, "game kalah");
        assert_eq!(config(&e).final_pick, FinalPick::IN_PLAY);
        assert_eq!(config(&engine("oware")).final_pick, FinalPick::Visits, "--no-model");
    }

    #[test]
    fn a_position_line_sets_the_game_where_it_says() {
        let mut donor = engine("oware");
        for label in ["C", "d", "F", "a"] {
            ok(&mut donor, &format!("play {label}"));
        }
        let printed = ok(&mut donor, "position");
        let mut e = engine("oware");
        ok(&mut e, &format!("position {printed}"));
        assert_eq!(ok(&mut e, "position"), printed);
        assert_eq!(ok(&mut e, "legal_moves"), ok(&mut donor, "legal_moves"));
        assert_eq!(e.line().len(), 0, "no history before a position set up");
        let label = ok(&mut e, "genmove");
        assert!(ok(&mut donor, "legal_moves").split(' ').any(|l| l == label));
        // A finished position is taken too, and then refuses moves.
        ok(&mut e, "position south | 24 24 | 0 0 0 0 0 0 0 0 0 0 0 0 | draw");
        assert_eq!(ok(&mut e, "result"), "draw");
        assert!(err(&mut e, "genmove").contains("game is over"));
    }

    #[test]
    fn a_position_that_is_not_one_of_the_game_is_refused_with_the_reason() {
        let mut e = engine("kalah");
        let message = err(&mut e, "position south | 0 0 | 4 4 4 | ongoing");
        assert!(message.contains("not a position of"), "{message}");
        let message = err(&mut e, "position south | 0 0 | 9 4 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing");
        assert!(message.contains("not a position of"), "{message}");
        let message = err(&mut e, "position sideways");
        assert!(message.contains("not a position line"), "{message}");
    }

    #[test]
    fn time_budgets_always_give_a_legal_move() {
        let mut e = engine("kalah");
        ok(&mut e, "set movetime 1");
        let label = ok(&mut e, "genmove");
        assert!(!label.is_empty());
        ok(&mut e, "set movetime 0");
        ok(&mut e, "time_settings 1 0");
        ok(&mut e, "time_left north 1");
        ok(&mut e, "genmove");
        ok(&mut e, "analyze");
        ok(&mut e, "time_settings 0 0");
        assert!(err(&mut e, "time_left south 10").contains("send time_settings first"));
    }

    #[test]
    fn three_decimals_never_writes_minus_zero() {
        assert_eq!(three_decimals(-0.0001), "0.000");
        assert_eq!(three_decimals(-0.25), "-0.250");
        assert_eq!(three_decimals(1.0), "1.000");
    }
}
