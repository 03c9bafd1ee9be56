//! The described games that ship with the build (the top-level `games/` folder), by name:
//! `--game congkak` works wherever a game is named, with no file at hand.

/// Every catalogue game: its name and its description file's text.
pub const GAMES: &[(&str, &str)] = &[
    ("congkak", include_str!("../../../games/congkak.toml")),
    ("toguz-kumalak", include_str!("../../../games/toguz_kumalak.toml")),
];

/// The description text of the catalogue game `name` (any case), if there is one.
pub fn find(name: &str) -> Option<&'static str> {
    GAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name.trim())).map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sowing::Description;

    /// Every catalogue file reads, is valid, and is named as the catalogue names it.
    #[test]
    fn every_catalogue_game_reads_under_its_name() {
        for (name, text) in GAMES {
            let description = Description::from_toml(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(description.name, *name);
            assert!(!description.sources.is_empty(), "{name} names no source");
        }
    }
}
