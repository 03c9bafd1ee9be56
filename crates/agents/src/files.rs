//! Model and database files, loaded once a process and shared: the arena builds an agent for
//! every game it plays, and a round robin or an evaluation builds the same `net:FILE` many
//! times, so reading and checking a file each time would dominate short matches.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use burn::prelude::Device;
use mancala_encoding::layout_for;
use mancala_nn::{ModelMeta, Net, NeuralEvaluator, NnError, load_model};
use mancala_rules::Game;
use mancala_tablebase::{Tablebase, TablebaseError};

use crate::error::FileError;

type Models = Mutex<HashMap<PathBuf, (ModelMeta, Net)>>;
type Tablebases = Mutex<HashMap<PathBuf, Arc<Tablebase>>>;

fn models() -> &'static Models {
    static CACHE: OnceLock<Models> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn tablebases() -> &'static Tablebases {
    static CACHE: OnceLock<Tablebases> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Refuses a path that is not there before a reader says so in its own words, so a typo in a
/// spec is reported as the missing file it is.
fn exists(path: &Path) -> Result<(), FileError> {
    if path.is_file() { Ok(()) } else { Err(FileError::Missing { path: path.to_path_buf() }) }
}

/// The model in `path` for `game` (on the CPU device), read and checked once a process.
///
/// # Errors
/// [`FileError`]: no such file, a model for another game, or any model-file error (not a
/// model, truncated, corrupt, another format or encoding version).
pub fn cached_model<G: Game>(game: &G, path: &Path) -> Result<(ModelMeta, Net), FileError> {
    let rules = game.rules_string();
    let other_game = |found: &str| FileError::ModelForOtherGame {
        path: path.to_path_buf(),
        found: found.to_string(),
        expected: rules.clone(),
    };
    // Held while loading: two threads asking for the same file read it once.
    let mut cache = models().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((meta, net)) = cache.get(path) {
        // The cache is shared by every game of the process; a file loaded for one game is
        // still refused for another.
        if meta.rules != rules {
            return Err(other_game(&meta.rules));
        }
        return Ok((meta.clone(), net.clone()));
    }
    exists(path)?;
    let loaded = load_model(path, Some(&rules), None, &Device::flex()).map_err(|source| match source {
        NnError::WrongGame { found, .. } => other_game(&found),
        source => FileError::Model { path: path.to_path_buf(), source: Box::new(source) },
    })?;
    cache.insert(path.to_path_buf(), loaded.clone());
    Ok(loaded)
}

/// A network evaluator (CPU) for the model in `path`, read once a process, that encodes
/// positions with the model's own input encoding version: a model trained before the
/// current version plays as it was trained.
///
/// # Errors
/// As [`cached_model`].
pub fn model_evaluator<G: Game>(game: &G, path: &Path) -> Result<NeuralEvaluator<G>, FileError> {
    let (meta, net) = cached_model(game, path)?;
    let layout = layout_for(game, meta.encoding_version)
        .map_err(|e| FileError::Model { path: path.to_path_buf(), source: Box::new(e.into()) })?;
    Ok(NeuralEvaluator::with_layout(game, layout, net, Device::flex()))
}

/// The endgame database in `path`, checked to be for `game`, read once a process.
///
/// # Errors
/// [`FileError`]: no such file, a database for another game, or any database-file error.
pub fn cached_tablebase<G: Game>(game: &G, path: &Path) -> Result<Arc<Tablebase>, FileError> {
    let tablebase = {
        let mut cache = tablebases().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match cache.get(path) {
            Some(t) => t.clone(),
            None => {
                exists(path)?;
                let t =
                    Arc::new(Tablebase::read(path).map_err(|source| FileError::Database {
                        path: path.to_path_buf(),
                        source: Box::new(source),
                    })?);
                cache.insert(path.to_path_buf(), t.clone());
                t
            }
        }
    };
    tablebase.check_game(game).map_err(|source| match source {
        TablebaseError::WrongGame { database, game } => {
            FileError::DatabaseForOtherGame { path: path.to_path_buf(), found: database, expected: game }
        }
        source => FileError::Database { path: path.to_path_buf(), source: Box::new(source) },
    })?;
    Ok(tablebase)
}
