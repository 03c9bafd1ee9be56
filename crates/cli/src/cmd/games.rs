//! `mancala-zero games`: the games `--game NAME` takes by name, the presets and the
//! described games of the catalogue (`games/`, docs/games.md), one line each.

use mancala_rules::catalogue::{Entry, entries};

/// Arguments of `mancala-zero games`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only the games whose name, origin or line contains this text (any case).
    pub filter: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let all = entries();
    let wanted = |e: &Entry| match &args.filter {
        None => true,
        Some(f) => {
            let f = f.to_lowercase();
            [&e.name, &e.origin, &e.about].iter().any(|t| t.to_lowercase().contains(&f))
        }
    };
    let shown: Vec<&Entry> = all.iter().filter(|e| wanted(e)).collect();
    if shown.is_empty() {
        anyhow::bail!(
            "no game matches '{}'; `mancala-zero games` lists all {}",
            args.filter.unwrap_or_default(),
            all.len()
        );
    }
    let width = shown.iter().map(|e| e.name.len()).max().unwrap_or(4).max(4);
    // Characters, not bytes: origins carry accents (Côte d'Ivoire).
    let place = shown.iter().map(|e| e.origin.chars().count()).max().unwrap_or(6).max(6);
    println!("{:<width$}  {:<9}  {:>5}  {:>5}  {:<place$}  about", "game", "kind", "board", "seeds", "origin");
    for e in &shown {
        let board = format!("{}x{}", e.ranks, e.houses);
        println!("{:<width$}  {:<9}  {board:>5}  {:>5}  {:<place$}  {}", e.name, e.kind, e.seeds, e.origin, e.about);
    }
    let described = shown.iter().filter(|e| e.kind == "described").count();
    println!(
        "{} games ({} presets, {described} described); `--game NAME` takes any of them, docs/games.md gives their rules and sources",
        shown.len(),
        shown.len() - described
    );
    Ok(())
}
