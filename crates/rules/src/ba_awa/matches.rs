//! Match play (docs/rules.md section 3, rule 6): several games in a row, control of the pits
//! changing hands with the seeds captured.
//!
//! After a game each player controls one pit per 4 seeds captured. Captures come in fours
//! (rule 2 and 3) and rule 4 hands over 8, 4 or 0 seeds, so after an ordinary game both
//! totals are multiples of 4 and the pits add up to 12, as the source text says ("this will
//! be even"). Only the `max_plies` guard, where each player takes the seeds of the pits they
//! control, can leave totals that are not multiples of 4. Then each player gets a pit per
//! full 4 seeds, and the one pit left over (the two remainders add up to 4) goes to the
//! player with the larger remainder, that is, the count is rounded to the nearest pit; when
//! both remainders are 2, it goes to the player who captured more seeds (the totals cannot
//! be equal then: 24 and 24 leave no remainder).

use super::BaAwa;
use super::position::{BaAwaPosition, PITS, ROW, SEEDS_PER_PIT, north_mask};
use crate::game::Game;
use crate::player::{ByPlayer, Player};

/// How many pits each player controls in the next game of a match, given the seeds each
/// captured in the game just finished (48 in all); see the module docs for the rounding.
///
/// ```
/// use mancala_rules::ba_awa::pits_earned;
/// use mancala_rules::ByPlayer;
///
/// assert_eq!(pits_earned(ByPlayer::new(28, 20)), ByPlayer::new(7, 5));
/// // max_plies guard endings: rounded to the nearest pit, a half pit to the bigger capture.
/// assert_eq!(pits_earned(ByPlayer::new(27, 21)), ByPlayer::new(7, 5));
/// assert_eq!(pits_earned(ByPlayer::new(22, 26)), ByPlayer::new(5, 7));
/// ```
pub fn pits_earned(captured: ByPlayer<u16>) -> ByPlayer<u8> {
    let (s, n) = (captured.south, captured.north);
    let full_s = (s / 4).min(PITS as u16);
    let full_n = (n / 4).min(PITS as u16);
    let leftover = (PITS as u16).saturating_sub(full_s + full_n);
    let south = if leftover == 0 {
        full_s.min(PITS as u16 - full_n)
    } else {
        let (rs, rn) = (s % 4, n % 4);
        let south_rounds_up = rs > rn || (rs == rn && s > n);
        // With 48 seeds in all at most one pit is left over; more (a total below 48) all go
        // the same way so that the pits still add up to 12.
        if south_rounds_up { full_s + leftover } else { full_s }
    };
    let south = south as u8;
    ByPlayer::new(south, PITS as u8 - south)
}

/// The controllers of the next game when South gets `earned.south` pits and North the rest:
/// the player with 6 or more controls their own row, then the opponent's row from its first
/// pit on; the other player keeps the rest of their own row.
///
/// ```
/// use mancala_rules::ba_awa::match_layout;
/// use mancala_rules::{ByPlayer, Player};
///
/// let c = match_layout(ByPlayer::new(8, 4));
/// // South: A-F plus a, b; North keeps c-f.
/// let s = Player::South;
/// let n = Player::North;
/// assert_eq!(c, [s, s, s, s, s, s, s, s, n, n, n, n]);
/// ```
pub fn match_layout(earned: ByPlayer<u8>) -> [Player; PITS] {
    let (major, extra) = if earned.south >= ROW as u8 {
        (Player::South, usize::from(earned.south) - ROW)
    } else {
        (Player::North, ROW - usize::from(earned.south))
    };
    let own_start = major.index() * ROW;
    let other_start = (own_start + ROW) % PITS;
    std::array::from_fn(|pit| {
        let on_own_row = (own_start..own_start + ROW).contains(&pit);
        let early_on_other_row = (other_start..other_start + extra).contains(&pit);
        if on_own_row || early_on_other_row { major } else { major.opponent() }
    })
}

impl BaAwa {
    /// The start of a game with the given controllers (in pit index order) and first player:
    /// 4 seeds in every pit, nothing captured. If `starter` controls no pit the game is over
    /// at once (rule 4: the opponent takes every seed).
    ///
    /// ```
    /// use mancala_rules::ba_awa::BaAwa;
    /// use mancala_rules::{parse_rules, AnyGame, Game, Player};
    ///
    /// let AnyGame::BaAwa(game) = parse_rules("ba-awa").unwrap() else { unreachable!() };
    /// let start = game.start_with([Player::South; 12], Player::North);
    /// assert!(game.status(&start).is_over());
    /// ```
    pub fn start_with(&self, controllers: [Player; PITS], starter: Player) -> BaAwaPosition {
        let mut pos = BaAwaPosition {
            pits: [SEEDS_PER_PIT; PITS],
            scores: ByPlayer::new(0, 0),
            north_controls: north_mask(&controllers),
            side: starter,
            starter,
            plies: 0,
        };
        pos.settle_if_stuck();
        pos
    }

    /// Pits each player would control in the next game after `finished` (see
    /// [`pits_earned`]), or `None` while `finished` is still going on.
    pub fn next_game_pits(&self, finished: &BaAwaPosition) -> Option<ByPlayer<u8>> {
        self.status(finished).is_over().then(|| pits_earned(finished.scores))
    }

    /// Whether the match is over after the finished game `finished`: a player would control
    /// at least `match_target` pits (or all twelve). Without `match=true` a match is one game.
    /// False while `finished` is still going on.
    pub fn match_over(&self, finished: &BaAwaPosition) -> bool {
        match self.next_game_pits(finished) {
            None => false,
            Some(_) if !self.match_play => true,
            Some(pits) => {
                let most = pits.south.max(pits.north);
                most >= self.match_target || usize::from(most) == PITS
            }
        }
    }

    /// The winner of the match once [`BaAwa::match_over`] holds: the player who controls more
    /// pits for the next game (with `match=false`: the winner of the game). `None` while the
    /// match goes on, or for a drawn one (6 pits each, possible only with `match_target` 6
    /// or less; a drawn single game).
    pub fn match_winner(&self, finished: &BaAwaPosition) -> Option<Player> {
        if !self.match_over(finished) {
            return None;
        }
        if !self.match_play {
            return self.status(finished).outcome().and_then(|o| o.winner);
        }
        let pits = self.next_game_pits(finished)?;
        match pits.south.cmp(&pits.north) {
            std::cmp::Ordering::Greater => Some(Player::South),
            std::cmp::Ordering::Less => Some(Player::North),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// The start of the next game of the match after the finished game `finished` (rule 6):
    /// 4 seeds a pit, control as [`pits_earned`] and [`match_layout`] say, and the other
    /// player begins. `None` when the match is over, when `match=false` (a match is one game)
    /// or while `finished` is still going on.
    ///
    /// ```
    /// use mancala_rules::ba_awa::BaAwa;
    /// use mancala_rules::{parse_rules, AnyGame, Game, Player, Setup};
    ///
    /// let AnyGame::BaAwa(game) = parse_rules("ba-awa match=true").unwrap() else { unreachable!() };
    /// // A finished game: South captured 28 seeds, North 20; South began.
    /// let line = "north | 28 20 | 0 0 0 0 0 0 0 0 0 0 0 0 | south+8 | s s s s s s n n n n n n";
    /// let finished = game.from_setup(&line.parse::<Setup>().unwrap()).unwrap();
    /// let next = game.next_game(&finished).unwrap();
    /// // North begins the next game, and the line says so.
    /// assert_eq!(
    ///     game.to_setup(&next).to_string(),
    ///     "north | 0 0 | 4 4 4 4 4 4 4 4 4 4 4 4 | ongoing | s s s s s s s n n n n n | starter=north"
    /// );
    /// ```
    pub fn next_game(&self, finished: &BaAwaPosition) -> Option<BaAwaPosition> {
        if !self.match_play || self.match_over(finished) {
            return None;
        }
        let pits = self.next_game_pits(finished)?;
        Some(self.start_with(match_layout(pits), finished.starter.opponent()))
    }
}
