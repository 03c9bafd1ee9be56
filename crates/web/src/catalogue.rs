//! The catalogue: the described games built into the binary (the files of `games/`), and the
//! description files (`*.toml`) in a folder the server is started with (`games/` by default),
//! listed on the page beside the presets. A folder file of a built-in game's name replaces it.
//! A file is read when the list is asked for, so a description added or edited while the
//! server runs shows up at once.

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

/// The built-in games and the catalogue in `dir` (none without a folder, or when it does not
/// exist), in name order.
pub fn read(dir: Option<&Path>) -> Catalogue {
    let mut catalogue = dir.map(read_folder).unwrap_or_default();
    for (name, text) in mancala_rules::catalogue::GAMES {
        if catalogue.games.iter().any(|g| g.name == *name) {
            continue;
        }
        match describe(text) {
            Ok((d, game)) => catalogue.games.push(entry(d, game)),
            Err(e) => catalogue.refused.push(format!("built-in {name}: {e}")),
        }
    }
    catalogue.games.sort_by(|a, b| a.name.cmp(&b.name));
    catalogue
}

/// The description text's game and its rules string.
fn describe(text: &str) -> Result<(Description, String), String> {
    let description = Description::from_toml(text).map_err(|e| e.to_string())?;
    let game = from_description(description.clone()).map_err(|e| e.to_string())?;
    Ok((description, game.rules_string()))
}

fn entry(d: Description, game: String) -> Entry {
    let title = if d.title.is_empty() { d.name.clone() } else { d.title.clone() };
    Entry { name: d.name, title, rules: game.clone(), game }
}

/// The description files in `dir` alone, sorted by file name; a folder that does not exist
/// holds none.
pub fn read_folder(dir: &Path) -> Catalogue {
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
        match read.and_then(|text| describe(&text)) {
            Ok((d, game)) => catalogue.games.push(entry(d, game)),
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
        let c = read_folder(dir.path());
        assert_eq!(c.games.len(), 1);
        assert_eq!((c.games[0].name.as_str(), c.games[0].title.as_str()), ("tiny", "Tiny"));
        let game = mancala_rules::parse_rules(&c.games[0].rules).unwrap();
        assert_eq!(game.rules_string(), c.games[0].game);
        assert_eq!(c.refused.len(), 1);
        assert!(c.refused[0].contains("a-bad.toml") && c.refused[0].contains("house"), "{}", c.refused[0]);
        assert_eq!(read_folder(&dir.path().join("missing")), Catalogue::default());
    }

    /// Every built-in game is listed without a folder; a folder file of a built-in's name
    /// replaces it, and one of a new name is added.
    #[test]
    fn the_built_in_games_are_listed_and_a_folder_file_replaces_one() {
        let dir = tempfile::tempdir().unwrap();
        let builtin = read(Some(&dir.path().join("missing")));
        assert_eq!(builtin, read(None));
        assert_eq!(builtin.games.len(), mancala_rules::catalogue::GAMES.len());
        assert!(builtin.refused.is_empty(), "{:?}", builtin.refused);
        let congkak = builtin.games.iter().find(|g| g.name == "congkak").unwrap().clone();
        let mine = "format = 1\nname = \"congkak\"\ntitle = \"My Congkak\"\n[board]\nhouses = 3\nseeds = 2\n[end]\nmax_plies = 50\n";
        std::fs::write(dir.path().join("congkak.toml"), mine).unwrap();
        let tiny = "format = 1\nname = \"tiny\"\n[board]\nhouses = 2\nseeds = 1\n[end]\nmax_plies = 20\n";
        std::fs::write(dir.path().join("tiny.toml"), tiny).unwrap();
        let c = read(Some(dir.path()));
        assert_eq!(c.games.len(), mancala_rules::catalogue::GAMES.len() + 1);
        let replaced = c.games.iter().find(|g| g.name == "congkak").unwrap();
        assert_eq!(replaced.title, "My Congkak");
        assert_ne!(replaced.rules, congkak.rules);
        assert!(c.games.iter().any(|g| g.name == "tiny"));
        assert!(c.games.windows(2).all(|w| w[0].name < w[1].name), "in name order");
    }
}
