//! PLACEHOLDER: replaced by the real module. Compiles so the crate builds meanwhile.
#![allow(unused_variables)]

use crate::error::{MoveParseError, RulesError, SetupError};
use crate::game::{Game, Sowing};
use crate::moves::{Action, MoveMask};
use crate::options::RulesSpec;
use crate::outcome::Status;
use crate::player::{ByPlayer, Player};
use crate::setup::Setup;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Oware {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwarePosition {}

impl Oware {
    pub fn from_spec(spec: &RulesSpec<'_>) -> Result<Self, RulesError> {
        todo!()
    }
}

impl Game for Oware {
    type Position = OwarePosition;
    fn rules_string(&self) -> String { todo!() }
    fn start(&self) -> Self::Position { todo!() }
    fn action_space(&self) -> usize { todo!() }
    fn total_seeds(&self) -> u16 { todo!() }
    fn side_to_move(&self, pos: &Self::Position) -> Player { todo!() }
    fn legal_moves(&self, pos: &Self::Position) -> MoveMask { todo!() }
    fn play_unchecked(&self, pos: &mut Self::Position, action: Action) -> Sowing { todo!() }
    fn why_illegal(&self, pos: &Self::Position, action: Action) -> String { todo!() }
    fn status(&self, pos: &Self::Position) -> Status { todo!() }
    fn hash(&self, pos: &Self::Position) -> u64 { todo!() }
    fn scores(&self, pos: &Self::Position) -> ByPlayer<u16> { todo!() }
    fn pits<'a>(&self, pos: &'a Self::Position) -> &'a [u8] { todo!() }
    fn controller(&self, pos: &Self::Position, pit: usize) -> Player { todo!() }
    fn action_pit(&self, side: Player, action: Action) -> usize { todo!() }
    fn move_label(&self, side: Player, action: Action) -> String { todo!() }
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Action, MoveParseError> { todo!() }
    fn to_setup(&self, pos: &Self::Position) -> Setup { todo!() }
    fn from_setup(&self, setup: &Setup) -> Result<Self::Position, SetupError> { todo!() }
    fn display(&self, pos: &Self::Position) -> String { todo!() }
}
