//! One harness for every hand-built rules case: the files in `tests/data/*.txt`.
//!
//! A file is a list of cases separated by blank lines. Each case is a list of `key: value`
//! lines run in order (`#` starts a comment):
//!
//! ```text
//! name: what rule and option this checks (required, first)
//! rules: oware grand_slam=capture-all        the game (required, before any position)
//! position: south | 0 0 | 4 4 ... | ongoing  start from this position line (default: start)
//! legal: A B F                               the legal moves' labels, in index order ('-': none)
//! play: D e                                  plays these moves in order (must be legal)
//! illegal: A ~ empty                         this move is refused; the error contains 'empty'
//! expect: north | 0 0 | 4 4 ... | ongoing    the current position line (the ply count, `plies=N`,
//!                                            only when the line gives one)
//! result: south+4                            the current status (ongoing, draw, south+N, north+N)
//! side: north                                the side to move
//! ```
//!
//! Moves are played through [`Line`], so the cycle rule applies as in real games.

use std::fs;
use std::path::Path;

use mancala_rules::{AnyGame, Game, Line, Setup, parse_rules};

struct Case {
    file: String,
    line_no: usize,
    name: String,
    steps: Vec<(usize, String, String)>,
}

fn read_cases(path: &Path) -> Vec<Case> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.split_once('#').map_or(raw, |(l, _)| l).trim();
        if line.is_empty() {
            if raw.trim().is_empty() {
                cases.extend(current.take());
            }
            continue;
        }
        let (key, value) =
            line.split_once(':').unwrap_or_else(|| panic!("{file}:{line_no}: expected 'key: value', got '{line}'"));
        let (key, value) = (key.trim().to_string(), value.trim().to_string());
        if key == "name" {
            cases.extend(current.take());
            current = Some(Case { file: file.clone(), line_no, name: value, steps: Vec::new() });
        } else {
            let case = current.as_mut().unwrap_or_else(|| panic!("{file}:{line_no}: a case must start with 'name:'"));
            case.steps.push((line_no, key, value));
        }
    }
    cases.extend(current);
    cases
}

fn run_case(case: &Case) -> Result<(), String> {
    let mut line: Option<Line<AnyGame>> = None;
    let mut game: Option<AnyGame> = None;
    for (line_no, key, value) in &case.steps {
        let at = format!("{}:{} ({})", case.file, line_no, case.name);
        let need_line = |line: &mut Option<Line<AnyGame>>, game: &Option<AnyGame>| -> Result<(), String> {
            if line.is_none() {
                let g = game.clone().ok_or_else(|| format!("{at}: 'rules:' must come first"))?;
                *line = Some(Line::new(g));
            }
            Ok(())
        };
        match key.as_str() {
            "rules" => {
                game = Some(parse_rules(value).map_err(|e| format!("{at}: rules: {e}"))?);
                line = None;
            }
            "position" => {
                let g = game.clone().ok_or_else(|| format!("{at}: 'rules:' must come first"))?;
                let setup: Setup = value.parse().map_err(|e| format!("{at}: {e}"))?;
                let pos = g.from_setup(&setup).map_err(|e| format!("{at}: {e}"))?;
                line = Some(Line::from_position(g, pos));
            }
            "legal" => {
                need_line(&mut line, &game)?;
                let l = line.as_ref().unwrap();
                let side = l.side_to_move();
                let got: Vec<String> = l.legal_moves().iter().map(|a| l.game().move_label(side, a)).collect();
                let want: Vec<String> =
                    if value == "-" { Vec::new() } else { value.split_whitespace().map(String::from).collect() };
                if got != want {
                    return Err(format!("{at}: legal moves {got:?}, expected {want:?}"));
                }
            }
            "play" => {
                need_line(&mut line, &game)?;
                let l = line.as_mut().unwrap();
                for label in value.split_whitespace() {
                    l.play_label(label).map_err(|e| format!("{at}: play {label}: {e}"))?;
                }
            }
            "illegal" => {
                need_line(&mut line, &game)?;
                let l = line.as_mut().unwrap();
                let (label, needle) = match value.split_once('~') {
                    Some((a, b)) => (a.trim(), Some(b.trim())),
                    None => (value.as_str(), None),
                };
                let before = l.game().to_setup(l.position());
                match l.play_label(label) {
                    Ok(_) => return Err(format!("{at}: {label} was accepted, expected a refusal")),
                    Err(e) => {
                        let msg = e.to_string();
                        if let Some(n) = needle
                            && !msg.contains(n)
                        {
                            return Err(format!("{at}: error '{msg}' does not contain '{n}'"));
                        }
                    }
                }
                if l.game().to_setup(l.position()) != before {
                    return Err(format!("{at}: a refused move changed the position"));
                }
            }
            "expect" => {
                need_line(&mut line, &game)?;
                let l = line.as_ref().unwrap();
                let mut got = l.game().to_setup(l.position());
                let want: Setup = value.parse().map_err(|e| format!("{at}: {e}"))?;
                // A line worked out by hand is about the board; the ply count is only the
                // moves played since the set-up, checked where a case is about it.
                if want.plies == 0 {
                    got.plies = 0;
                }
                if got.to_string() != want.to_string() {
                    return Err(format!("{at}:\n   got {got}\n  want {want}"));
                }
            }
            "result" => {
                need_line(&mut line, &game)?;
                let got = line.as_ref().unwrap().status().to_string();
                if &got != value {
                    return Err(format!("{at}: result {got}, expected {value}"));
                }
            }
            "side" => {
                need_line(&mut line, &game)?;
                let got = line.as_ref().unwrap().side_to_move().name();
                if got != value {
                    return Err(format!("{at}: side to move {got}, expected {value}"));
                }
            }
            other => return Err(format!("{at}: unknown key '{other}'")),
        }
    }
    Ok(())
}

#[test]
fn hand_built_positions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for f in &files {
        for case in read_cases(f) {
            count += 1;
            if let Err(e) = run_case(&case) {
                failures.push(format!("{} (line {}): {e}", case.name, case.line_no));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {count} cases failed:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{count} hand-built cases passed");
}
