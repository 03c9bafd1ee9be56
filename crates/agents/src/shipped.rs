//! The small trained models shipped in `checkpoints/shipped/`, built into every program that
//! links this crate (the binary, the Python package) so that each has a real opponent for
//! every preset before anyone trains.

use std::path::Path;

use burn::prelude::Device;
use mancala_nn::{ModelMeta, Net, NnError, model_from_bytes};
use mancala_rules::{AnyGame, Game, parse_rules};

/// (preset or catalogue game, model file bytes).
const SHIPPED: &[(&str, &[u8])] = &[
    ("oware", include_bytes!("../../../checkpoints/shipped/oware.mzm")),
    ("kalah", include_bytes!("../../../checkpoints/shipped/kalah.mzm")),
    ("awale", include_bytes!("../../../checkpoints/shipped/awale.mzm")),
    ("oware-capture-all", include_bytes!("../../../checkpoints/shipped/oware-capture-all.mzm")),
    ("ouril", include_bytes!("../../../checkpoints/shipped/ouril.mzm")),
    ("ba-awa", include_bytes!("../../../checkpoints/shipped/ba-awa.mzm")),
    ("owela", include_bytes!("../../../checkpoints/shipped/owela.mzm")),
    // The catalogue's flagships (docs/games.md, "Flagships"): Toguz Kumalak and games of the
    // seed texts.
    ("toguz-kumalak", include_bytes!("../../../checkpoints/shipped/toguz-kumalak.mzm")),
    ("aw-li-on-nam-ot-tjin", include_bytes!("../../../checkpoints/shipped/aw-li-on-nam-ot-tjin.mzm")),
    ("anywoli", include_bytes!("../../../checkpoints/shipped/anywoli.mzm")),
];

/// The presets and catalogue games that have a shipped model.
pub fn shipped_presets() -> impl Iterator<Item = &'static str> {
    SHIPPED.iter().map(|(preset, _)| *preset)
}

/// The shipped model for exactly these rules, if there is one.
///
/// # Errors
/// A shipped model that does not load (a broken build, not a reason to play without it:
/// the caller reports it instead of quietly switching to random rollouts).
pub fn shipped_model(game: &AnyGame) -> Result<Option<(ModelMeta, Net)>, NnError> {
    from_table(SHIPPED, game)
}

fn from_table(table: &[(&str, &[u8])], game: &AnyGame) -> Result<Option<(ModelMeta, Net)>, NnError> {
    let rules = game.rules_string();
    let Some((preset, bytes)) =
        table.iter().find(|(preset, _)| parse_rules(preset).is_ok_and(|g| g.rules_string() == rules))
    else {
        return Ok(None);
    };
    let name = Path::new("checkpoints/shipped").join(format!("{preset}.mzm"));
    model_from_bytes(&name, bytes, Some(&rules), &Device::flex()).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_model_loads_and_a_broken_one_is_an_error() {
        for (preset, _) in SHIPPED {
            let game = parse_rules(preset).unwrap();
            assert!(shipped_model(&game).unwrap().is_some(), "{preset}");
        }
        // Other rules than a preset's: no model, rather than one trained for another game.
        assert!(shipped_model(&parse_rules("kalah:4,3").unwrap()).unwrap().is_none());
        assert!(shipped_model(&parse_rules("owela columns=6").unwrap()).unwrap().is_none());
        let mut broken = SHIPPED[0].1.to_vec();
        let at = broken.len() / 2;
        broken[at] ^= 0x55;
        let table: &[(&str, &[u8])] = &[(SHIPPED[0].0, &broken)];
        let e = from_table(table, &parse_rules(SHIPPED[0].0).unwrap()).unwrap_err();
        assert!(e.to_string().contains("checkpoints/shipped/oware.mzm"), "{e}");
    }
}
