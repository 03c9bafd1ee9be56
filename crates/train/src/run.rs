//! A run in its store: creating one, opening one, and reading and writing its records with
//! errors that name the object.

use burn::prelude::Device;
use mancala_encoding::ENCODING_VERSION;
use mancala_nn::{Learner, ModelMeta, Net, model_bytes, model_from_bytes};
use mancala_rules::{AnyGame, Game};
use mancala_store::{Created, Store};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::config::RunConfig;
use crate::error::TrainError;
use crate::layout::{self, BestPointer, Candidate, RunInfo, STORE_FORMAT};

/// An open run: its store, config and game.
#[derive(Clone, Debug)]
pub struct Run {
    pub store: Store,
    pub config: RunConfig,
    pub game: AnyGame,
}

/// A model read from the store and checked against its checksum.
#[derive(Clone, Debug)]
pub struct StoredModel {
    pub generation: u64,
    pub key: String,
    pub meta: ModelMeta,
    pub net: Net,
}

/// The config a run stores: as given, except that a game named by a description file is
/// written out as its one-line description, so the run stands alone (a resume or a worker on
/// another machine needs no file).
fn standalone_config(text: &str, config: &RunConfig, game: &AnyGame) -> Result<String, TrainError> {
    if !config.game.rules.trim().ends_with(".toml") {
        return Ok(text.to_string());
    }
    let mut table: toml::Table = toml::from_str(text).map_err(|e| TrainError::Config(e.to_string()))?;
    if let Some(toml::Value::Table(section)) = table.get_mut("game") {
        section.insert("rules".to_string(), toml::Value::String(game.rules_string()));
    }
    toml::to_string(&table).map_err(|e| TrainError::Config(e.to_string()))
}

impl Run {
    /// Creates a run in an empty store: the config, the initial network as generation 0 (its
    /// candidate record and the best pointer), and `run.json` last. A store that already
    /// holds a run is refused; one where a creation was killed before `run.json` is created
    /// again (generation 0 depends only on the seed, so its objects come out the same).
    ///
    /// # Errors
    /// A bad config, an existing run, or a store error.
    pub fn create(store: Store, config_text: &str) -> Result<Run, TrainError> {
        let config = RunConfig::parse(config_text)?;
        if store.exists(layout::RUN)? {
            return Err(TrainError::RunExists { url: store.url().to_string() });
        }
        if store.exists("state.json")? {
            return Err(old_layout(&store));
        }
        let game = config.game()?;
        let config_text = standalone_config(config_text, &config, &game)?;
        let device = mancala_nn::training_device(config.network.device.as_str())?;
        // The initial weights before any write, so a refused init_model leaves the store empty.
        let learner = match config.run.init_model.as_str() {
            "" => Learner::new(config.net_config(&game), config.optim_config(), device, config.run.seed),
            path => {
                let net = init_weights(&config, &game, path)?;
                Learner::from_model(config.net_config(&game), config.optim_config(), device, net, 0)
            }
        };
        store.put(layout::CONFIG, config_text.as_bytes())?;
        let meta = ModelMeta::new(game.rules_string(), config.net_config(&game), 0);
        let bytes = model_bytes(&meta, learner.model())?;
        let checksum = layout::checksum(&bytes);
        let model = layout::model_key(0, &checksum);
        store.create(&model, &bytes)?;
        let candidate = Candidate {
            model: model.clone(),
            checksum: checksum.clone(),
            published: layout::now(),
            ..Candidate::default()
        };
        store.put(&layout::candidate_key(0), &json(&candidate))?;
        store.put(layout::BEST, &json(&BestPointer { generation: 0, model, checksum }))?;
        let info = RunInfo {
            format: STORE_FORMAT,
            rules: game.rules_string(),
            iterations: config.run.iterations,
            max_minutes: config.run.max_minutes,
            finished: false,
        };
        if store.create(layout::RUN, &json(&info))? == Created::Existed {
            return Err(TrainError::RunExists { url: store.url().to_string() });
        }
        Ok(Run { store, config, game })
    }

    /// Opens the run in a store.
    ///
    /// # Errors
    /// No run there, a run of another store format, a bad config, or a store error (an
    /// unreachable service, a missing bucket, wrong credentials), each naming the object.
    pub fn open(store: Store) -> Result<Run, TrainError> {
        let info = match store.get_opt(layout::RUN)? {
            Some(bytes) => parse_json::<RunInfo>(&store, layout::RUN, &bytes)?,
            None if store.exists("state.json")? => return Err(old_layout(&store)),
            None => {
                return Err(TrainError::NoRun { url: store.url().to_string() });
            }
        };
        if info.format != STORE_FORMAT {
            return Err(TrainError::Format {
                object: store.describe(layout::RUN),
                found: info.format,
                expected: STORE_FORMAT,
            });
        }
        let text = String::from_utf8(store.get(layout::CONFIG)?).map_err(|_| TrainError::Corrupt {
            object: store.describe(layout::CONFIG),
            reason: "not UTF-8 text".into(),
        })?;
        let config = RunConfig::parse_stored(&text)
            .map_err(|e| TrainError::Corrupt { object: store.describe(layout::CONFIG), reason: e.to_string() })?;
        let game = config.game()?;
        if game.rules_string() != info.rules {
            return Err(TrainError::Corrupt {
                object: store.describe(layout::CONFIG),
                reason: format!("plays '{}' but run.json says '{}'", game.rules_string(), info.rules),
            });
        }
        Ok(Run { store, config, game })
    }

    pub fn info(&self) -> Result<RunInfo, TrainError> {
        self.read(layout::RUN)
    }

    pub fn write_info(&self, info: &RunInfo) -> Result<(), TrainError> {
        Ok(self.store.put(layout::RUN, &json(info))?)
    }

    pub fn best(&self) -> Result<BestPointer, TrainError> {
        self.read(layout::BEST)
    }

    /// Reads and parses a JSON record.
    ///
    /// # Errors
    /// A store error or [`TrainError::Corrupt`] naming the object.
    pub fn read<T: DeserializeOwned>(&self, key: &str) -> Result<T, TrainError> {
        let bytes = self.store.get(key)?;
        parse_json(&self.store, key, &bytes)
    }

    /// Creates an immutable JSON record; an existing one is kept (a retried write).
    pub fn create_json<T: Serialize>(&self, key: &str, value: &T) -> Result<Created, TrainError> {
        Ok(self.store.create(key, &json(value))?)
    }

    /// Generations that have a `gen-G.json` record in `folder`, ascending.
    pub fn generations(&self, folder: &str) -> Result<Vec<u64>, TrainError> {
        let mut gens: Vec<u64> =
            self.store.list(folder)?.iter().filter_map(|e| layout::generation_of(&e.key)).collect();
        gens.sort_unstable();
        Ok(gens)
    }

    /// The newest published candidate record.
    pub fn newest_candidate(&self) -> Result<Candidate, TrainError> {
        let newest = self.generations(layout::CANDIDATES)?.last().copied().unwrap_or(0);
        self.read(&layout::candidate_key(newest))
    }

    /// Reads a model object, checks it against `checksum`, and builds it on `device`.
    ///
    /// # Errors
    /// [`TrainError::Corrupt`] on a checksum mismatch, [`TrainError::EncodingVersion`] for a
    /// model of another input encoding version than this build's (a run from before it), or
    /// the model file's own errors (truncated, another format, another game), each naming the
    /// object.
    pub fn load_model(
        &self,
        generation: u64,
        key: &str,
        checksum: &str,
        device: &Device,
    ) -> Result<StoredModel, TrainError> {
        let bytes = self.store.get(key)?;
        let found = layout::checksum(&bytes);
        if found != checksum {
            return Err(TrainError::Corrupt {
                object: self.store.describe(key),
                reason: format!("checksum {found}, the record says {checksum}"),
            });
        }
        let name = std::path::PathBuf::from(self.store.describe(key));
        let (meta, net) = model_from_bytes(&name, &bytes, Some(&self.game.rules_string()), device)?;
        // Every role encodes with this build's version (self-play's rows, the trainer's
        // network), so a run of an older version is refused rather than mixed.
        if meta.encoding_version != ENCODING_VERSION {
            return Err(TrainError::EncodingVersion {
                object: self.store.describe(key),
                found: meta.encoding_version,
                expected: ENCODING_VERSION,
            });
        }
        Ok(StoredModel { generation, key: key.to_string(), meta, net })
    }

    /// The models of the `count` newest candidates before generation `before`, oldest first;
    /// fewer where the run has fewer.
    ///
    /// # Errors
    /// As [`Self::load_model`], for any of them.
    pub fn load_candidates(&self, before: u64, count: usize, device: &Device) -> Result<Vec<StoredModel>, TrainError> {
        let gens: Vec<u64> = self.generations(layout::CANDIDATES)?.into_iter().filter(|&g| g < before).collect();
        gens[gens.len().saturating_sub(count)..]
            .iter()
            .map(|&g| {
                let candidate: Candidate = self.read(&layout::candidate_key(g))?;
                self.load_model(g, &candidate.model, &candidate.checksum, device)
            })
            .collect()
    }

    /// Loads the model the best pointer names.
    pub fn load_best(&self, device: &Device) -> Result<StoredModel, TrainError> {
        let best = self.best()?;
        self.load_model(best.generation, &best.model, &best.checksum, device)
    }
}

/// The weights of `run.init_model`: a model file of the run's game with the config's network
/// and this build's input encoding, refused with the key and the file named otherwise.
fn init_weights(config: &RunConfig, game: &AnyGame, path: &str) -> Result<Net, TrainError> {
    let plain = mancala_nn::inference_device(config.network.device.as_str())?;
    let refuse = |reason: String| TrainError::Config(format!("run.init_model = '{path}': {reason}"));
    let net_config = config.net_config(game);
    let (meta, net) =
        mancala_nn::load_model(std::path::Path::new(path), Some(&game.rules_string()), Some(&net_config), &plain)
            .map_err(|e| refuse(e.to_string()))?;
    if meta.encoding_version != ENCODING_VERSION {
        return Err(refuse(format!(
            "it was made with input encoding version {}, this build trains version {ENCODING_VERSION} only",
            meta.encoding_version
        )));
    }
    Ok(net)
}

fn old_layout(store: &Store) -> TrainError {
    TrainError::Format { object: store.describe("state.json"), found: 1, expected: STORE_FORMAT }
}

pub(crate) fn json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec_pretty(value).expect("records serialise")
}

fn parse_json<T: DeserializeOwned>(store: &Store, key: &str, bytes: &[u8]) -> Result<T, TrainError> {
    serde_json::from_slice(bytes)
        .map_err(|e| TrainError::Corrupt { object: store.describe(key), reason: e.to_string() })
}
