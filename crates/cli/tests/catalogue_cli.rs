//! The catalogue through the binary: `games` lists the presets and the described games, and
//! a tiny `train` runs on a sample of three catalogue games named only by their names
//! (a relay game of fours, a game with stores, a game sown clockwise).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mancala-zero"))
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

#[test]
fn a_closed_stdout_ends_the_listing_quietly_with_the_sigpipe_status() {
    // The reading end closed before the binary starts, as `| head` closes it once it has its
    // lines: the first write meets a broken pipe, deterministically.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = bin().arg("games").stdout(writer).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn games_lists_presets_and_described_games_with_their_boards() {
    let stdout = ok(&bin().arg("games").output().unwrap());
    for name in mancala_rules::PRESETS.iter().chain(mancala_rules::catalogue::GAMES.iter().map(|(n, _)| n)) {
        assert!(stdout.lines().any(|l| l.starts_with(&format!("{name} "))), "{name} missing:\n{stdout}");
    }
    let hus = stdout.lines().find(|l| l.starts_with("hus ")).unwrap();
    assert!(hus.contains("4x12") && hus.contains(" 64 ") && hus.contains("Namibia"), "{hus}");
    let bohnenspiel = stdout.lines().find(|l| l.starts_with("bohnenspiel ")).unwrap();
    assert!(bohnenspiel.contains("2x6") && bohnenspiel.contains(" 72 "), "{bohnenspiel}");

    let stdout = ok(&bin().args(["games", "borneo"]).output().unwrap());
    assert!(stdout.contains("aw-li-on-nam-ot-tjin") && !stdout.contains("bohnenspiel"), "{stdout}");

    let out = bin().args(["games", "atlantis"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("atlantis"));
}

fn tiny_config(dir: &Path, game: &str) -> PathBuf {
    let tiny = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml")).unwrap();
    let text = tiny.replace("rules = \"kalah:3,2\"", &format!("rules = {game:?}"));
    assert_ne!(text, tiny, "configs/tiny.toml names its game as the test expects");
    let path = dir.join(format!("{game}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_tiny_train_runs_on_a_sample_of_catalogue_games_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for game in ["obridje", "sungka", "vai-lung-thlan"] {
        let config = tiny_config(dir.path(), game);
        let stdout = ok(&bin()
            .args(["train", "--quiet", "--config"])
            .arg(&config)
            .args(["--run", game, "--checkpoints"])
            .arg(dir.path().join("runs"))
            .output()
            .unwrap());
        assert!(stdout.contains("done: 2 iterations"), "{game}: {stdout}");
        // The run carries the game's rules, so it stands without the catalogue's name.
        let stored = std::fs::read_to_string(dir.path().join("runs").join(game).join("config.toml")).unwrap();
        assert!(stored.contains(&format!("\\\"{game}\\\"")) || stored.contains(&format!("\"{game}\"")), "{stored}");
    }
}
