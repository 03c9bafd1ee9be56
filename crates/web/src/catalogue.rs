//! The catalogue: the game description files (`*.toml`) in a folder the server is started
//! with (`games/` by default), listed on the page beside the presets. A file is read when the
//! list is asked for, so a description added while the server runs shows up at once.

use std::path::Path;

use mancala_rules::sowing::Description;
use mancala_rules::{Game, from_description};
use serde::Serialize;

/// One described game of the catalogue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The description's short name.
    pub name: String,
    /// Its full name (the short name when it gives none).
    pub title: String,
    /// The rules string that starts it: the description's one-line form (`sowing {...}`), as a
    /// request gives it (a request never names a file), or a preset's rules string.
    pub rules: String,
    /// The rules string of the game it starts (`sowing {...}`, or a preset's when the
    /// description is a preset's), as a game's view names it.
    pub game: String,
}

/// What the folder holds: the games, sorted by file name, and the files that are not a
/// playable description, each with the reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Catalogue {
    pub games: Vec<Entry>,
    pub refused: Vec<String>,
}

/// Reads the catalogue in `dir`; a folder that does not exist is an empty catalogue.
pub fn read(dir: &Path) -> Catalogue {
    let mut catalogue = Catalogue::default();
    let Ok(entries) = std::fs::read_dir(dir) else { return catalogue };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for path in files {
        let file = path.display().to_string();
        let read = std::fs::read_to_string(&path).map_err(|e| e.to_string());
        let described = read.and_then(|text| {
            let description = Description::from_toml(&text).map_err(|e| e.to_string())?;
            let game = from_description(description.clone()).map_err(|e| e.to_string())?;
            Ok((description, game.rules_string()))
        });
        match described {
            Ok((d, game)) => {
                let title = if d.title.is_empty() { d.name.clone() } else { d.title.clone() };
                catalogue.games.push(Entry { name: d.name, title, rules: game.clone(), game });
            }
            Err(e) => catalogue.refused.push(format!("{file}: {e}")),
        }
    }
    catalogue
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_descriptions_and_names_the_bad_ones() {
        let dir = tempfile::tempdir().unwrap();
        let good =
            "format = 1\nname = \"tiny\"\ntitle = \"Tiny\"\n[board]\nhouses = 3\nseeds = 2\n[end]\nmax_plies = 50\n";
        std::fs::write(dir.path().join("b-tiny.toml"), good).unwrap();
        std::fs::write(dir.path().join("a-bad.toml"), "format = 1\nname = \"bad\"\n[board]\nhouse = 3\n").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a game").unwrap();
        let c = read(dir.path());
        assert_eq!(c.games.len(), 1);
        assert_eq!((c.games[0].name.as_str(), c.games[0].title.as_str()), ("tiny", "Tiny"));
        let game = mancala_rules::parse_rules(&c.games[0].rules).unwrap();
        assert_eq!(game.rules_string(), c.games[0].game);
        assert_eq!(c.refused.len(), 1);
        assert!(c.refused[0].contains("a-bad.toml") && c.refused[0].contains("house"), "{}", c.refused[0]);
        assert_eq!(read(&dir.path().join("missing")), Catalogue::default());
    }
}
