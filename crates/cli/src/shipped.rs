//! The small trained models shipped in `checkpoints/shipped/`, built into the binary so that
//! `play` and `engine` have a real opponent for Oware and Kalah before anyone trains.

use std::path::Path;

use burn::prelude::Device;
use mancala_nn::{model_from_bytes, ModelMeta, Net};
use mancala_rules::{parse_rules, AnyGame, Game};

/// (preset, model file bytes).
const SHIPPED: &[(&str, &[u8])] = &[
    ("oware", include_bytes!("../../../checkpoints/shipped/oware.mzm")),
    ("kalah", include_bytes!("../../../checkpoints/shipped/kalah.mzm")),
];

/// The shipped model for exactly these rules, if there is one.
pub fn shipped_model(game: &AnyGame) -> Option<(ModelMeta, Net)> {
    let rules = game.rules_string();
    SHIPPED.iter().find_map(|(preset, bytes)| {
        let preset_rules = parse_rules(preset).ok()?.rules_string();
        if preset_rules != rules {
            return None;
        }
        let name = Path::new("checkpoints/shipped").join(format!("{preset}.mzm"));
        model_from_bytes(&name, bytes, Some(&rules), &Device::flex()).ok()
    })
}
