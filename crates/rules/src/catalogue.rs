//! The described games that ship with the build (the top-level `games/` folder), by name:
//! `--game congkak` works wherever a game is named, with no file at hand.

/// Every catalogue game: its name and its description file's text.
pub const GAMES: &[(&str, &str)] = &[
    ("adidada", include_str!("../../../games/adidada.toml")),
    ("alitev", include_str!("../../../games/alitev.toml")),
    ("anywoli", include_str!("../../../games/anywoli.toml")),
    ("aw-li-on-nam-ot-tjin", include_str!("../../../games/aw-li-on-nam-ot-tjin.toml")),
    ("aw-li-on-nam-ot-tjin-2", include_str!("../../../games/aw-li-on-nam-ot-tjin-2.toml")),
    ("aw-li-on-nam-ot-tjin-4", include_str!("../../../games/aw-li-on-nam-ot-tjin-4.toml")),
    ("aw-li-on-nam-ot-tjin-5", include_str!("../../../games/aw-li-on-nam-ot-tjin-5.toml")),
    ("awari", include_str!("../../../games/awari.toml")),
    ("ayoayo", include_str!("../../../games/ayoayo.toml")),
    ("bohnenspiel", include_str!("../../../games/bohnenspiel.toml")),
    ("chongka", include_str!("../../../games/chongka.toml")),
    ("chonka", include_str!("../../../games/chonka.toml")),
    ("chungcajon", include_str!("../../../games/chungcajon.toml")),
    ("congkak", include_str!("../../../games/congkak.toml")),
    ("dakon", include_str!("../../../games/dakon.toml")),
    ("endodoi", include_str!("../../../games/endodoi.toml")),
    ("endodoi-10", include_str!("../../../games/endodoi-10.toml")),
    ("foji", include_str!("../../../games/foji.toml")),
    ("fondji", include_str!("../../../games/fondji.toml")),
    ("french-wari", include_str!("../../../games/french-wari.toml")),
    ("galatjang", include_str!("../../../games/galatjang.toml")),
    ("halusa", include_str!("../../../games/halusa.toml")),
    ("hus", include_str!("../../../games/hus.toml")),
    ("hus-damara", include_str!("../../../games/hus-damara.toml")),
    ("jodu", include_str!("../../../games/jodu.toml")),
    ("khrour", include_str!("../../../games/khrour.toml")),
    ("khrour-6", include_str!("../../../games/khrour-6.toml")),
    ("kpo", include_str!("../../../games/kpo.toml")),
    ("main-chongkak", include_str!("../../../games/main-chongkak.toml")),
    ("mangala", include_str!("../../../games/mangala.toml")),
    ("mangala-6", include_str!("../../../games/mangala-6.toml")),
    ("mangala-modern", include_str!("../../../games/mangala-modern.toml")),
    ("mankala", include_str!("../../../games/mankala.toml")),
    ("ntyenge", include_str!("../../../games/ntyenge.toml")),
    ("obridje", include_str!("../../../games/obridje.toml")),
    ("ovalhu", include_str!("../../../games/ovalhu.toml")),
    ("sungka", include_str!("../../../games/sungka.toml")),
    ("toguz-kumalak", include_str!("../../../games/toguz_kumalak.toml")),
    ("vai-lung-thlan", include_str!("../../../games/vai-lung-thlan.toml")),
    ("wari-ashanti", include_str!("../../../games/wari-ashanti.toml")),
    ("yovodji", include_str!("../../../games/yovodji.toml")),
];

/// The description text of the catalogue game `name` (any case), if there is one.
pub fn find(name: &str) -> Option<&'static str> {
    GAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name.trim())).map(|(_, text)| *text)
}

/// Where each preset is played and a line on it, for the listing (the presets' rules are
/// hand-written engines; docs/rules.md sections 1 to 4 give them in full).
const PRESET_NOTES: &[(&str, &str, &str)] = &[
    (
        "oware",
        "Ghana (Akan people)",
        "Abapa rules: captures of 2s and 3s in a run, origin skipped, must feed, a grand slam takes nothing.",
    ),
    ("abapa", "Ghana (Akan people)", "Oware's tournament rules under their own name (the same game as oware)."),
    ("ouril", "Cape Verde", "Oware with restricted singletons; a grand slam is taken and the mover moves again."),
    (
        "awale",
        "Côte d'Ivoire, West Africa",
        "Oware with the grand slam forbidden; seeds a player cannot be fed with are not scored.",
    ),
    ("oware-capture-all", "West Africa", "Oware where a grand slam takes every seed it reaches."),
    (
        "kalah",
        "United States (W. J. Champion, 1940)",
        "Stores, an extra move for a last seed in one's store, the capture of the opposite house.",
    ),
    (
        "ba-awa",
        "Ghana (Twi people)",
        "Relay sowing; fours are taken during the sowing; with eight seeds left the starter takes them.",
    ),
    ("owela", "Namibia", "Four ranks; relay sowing round one's own rows; captures of the opposite column sown on."),
];

/// One game of the listing: a preset or a described game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    /// `preset` (a hand-written engine) or `described` (a file of `games/`).
    pub kind: &'static str,
    pub ranks: u8,
    /// Houses a rank.
    pub houses: u8,
    /// Seeds on the board at the start, both players together.
    pub seeds: u16,
    pub origin: String,
    pub about: String,
}

/// Every game `--game NAME` takes by name: the presets first, then the described games in
/// name order.
pub fn entries() -> Vec<Entry> {
    let mut out = Vec::new();
    for &(name, origin, about) in PRESET_NOTES {
        let game = crate::parse_rules(name).expect("every preset reads");
        let d = game.description();
        out.push(Entry {
            name: name.to_string(),
            kind: "preset",
            ranks: d.board.ranks,
            houses: d.board.houses,
            seeds: crate::Game::total_seeds(&game),
            origin: origin.to_string(),
            about: about.to_string(),
        });
    }
    for (name, text) in GAMES {
        let d = crate::sowing::Description::from_toml(text).expect("every catalogue file reads (a test checks)");
        let seeds = d.resolve().expect("every catalogue file resolves (a test checks)").total;
        out.push(Entry {
            name: name.to_string(),
            kind: "described",
            ranks: d.board.ranks,
            houses: d.board.houses,
            seeds,
            origin: d.origin,
            about: d.about,
        });
    }
    out
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
            assert!(!description.origin.is_empty() && !description.about.is_empty(), "{name}: origin and about");
        }
    }

    /// The listing names every preset and every described game once, with its board.
    #[test]
    fn the_listing_holds_presets_and_described_games() {
        let all = entries();
        assert_eq!(all.len(), crate::PRESETS.len() + GAMES.len());
        for preset in crate::PRESETS {
            assert!(all.iter().any(|e| e.name == *preset && e.kind == "preset"), "{preset}");
        }
        let mut names: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "a name listed twice");
        let oware = all.iter().find(|e| e.name == "oware").unwrap();
        assert_eq!((oware.ranks, oware.houses, oware.seeds), (2, 6, 48));
        let hus = all.iter().find(|e| e.name == "hus").unwrap();
        assert_eq!((hus.ranks, hus.houses, hus.seeds), (4, 12, 64));
        // A catalogue name never hides a preset: `--game oware` stays the preset.
        for (name, _) in GAMES {
            assert!(!crate::PRESETS.contains(name), "{name} shadows a preset");
        }
    }
}
