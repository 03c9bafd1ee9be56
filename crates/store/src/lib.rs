//! Where a training run lives: one blocking API over `object_store` for a local directory,
//! any S3-compatible service and memory, so that the same role code runs in unit tests on
//! memory and in a fleet on S3.
//!
//! ```
//! use mancala_store::{Created, Store};
//!
//! let store = Store::open("memory://doc-example").unwrap();
//! assert_eq!(store.create("shards/w1/00000001.shard", b"rows").unwrap(), Created::New);
//! // A retried upload of the same object is harmless: the store keeps the first one.
//! assert_eq!(store.create("shards/w1/00000001.shard", b"rows").unwrap(), Created::Existed);
//! assert_eq!(store.get("shards/w1/00000001.shard").unwrap(), b"rows");
//! assert_eq!(store.list("shards/").unwrap().len(), 1);
//! ```
//!
//! URLs:
//! - a plain path or `file://PATH`: a local directory (created when missing); writes go to a
//!   temporary file that is synced and renamed, so a reader never sees half an object;
//! - `s3://BUCKET/PREFIX`: an S3-compatible service, configured by the standard `AWS_*`
//!   variables as `object_store`'s `AmazonS3Builder::from_env` reads them (`AWS_ENDPOINT`,
//!   `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_ALLOW_HTTP`, ...);
//! - `memory://NAME`: memory shared by every `Store` of this process opened with the same
//!   name (tests run roles as threads over it).

mod error;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use futures_util::TryStreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path as ObjectPath;
use object_store::prefix::PrefixStore;
use object_store::{ClientConfigKey, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig};

pub use error::StoreError;

/// What a conditional create found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    /// The object did not exist and now holds the bytes.
    New,
    /// The object already existed; it was left as it was.
    Existed,
}

/// One listed object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The key relative to the store's root, e.g. `shards/w1/00000001.shard`.
    pub key: String,
    pub size: u64,
    pub modified: SystemTime,
}

/// A run's store. Cloning is cheap (the backend is shared).
#[derive(Clone, Debug)]
pub struct Store {
    backend: Arc<dyn ObjectStore>,
    url: String,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Local,
    S3,
    Memory,
}

/// The runtime the blocking calls run on: one worker thread is enough for a few requests
/// at a time, and it keeps tokio away from the search threads.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("store-io")
            .enable_all()
            .build()
            .expect("a tokio runtime can be built")
    })
}

fn memory_store(name: &str) -> Arc<InMemory> {
    static STORES: OnceLock<Mutex<HashMap<String, Arc<InMemory>>>> = OnceLock::new();
    let mut stores = STORES.get_or_init(Default::default).lock().expect("memory store registry");
    stores.entry(name.to_string()).or_insert_with(|| Arc::new(InMemory::new())).clone()
}

impl Store {
    /// Opens the store a URL names (see the crate docs). Opening does not contact a remote
    /// service; the first request does.
    ///
    /// # Errors
    /// [`StoreError::Url`] for an unknown scheme, an S3 URL without a bucket, or a local
    /// directory that cannot be created.
    pub fn open(url: &str) -> Result<Store, StoreError> {
        let bad = |reason: String| StoreError::Url { url: url.to_string(), reason };
        if let Some(name) = url.strip_prefix("memory://") {
            return Ok(Store { backend: memory_store(name), url: url.to_string(), kind: Kind::Memory });
        }
        if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(bad("no bucket: expected s3://BUCKET/PREFIX".into()));
            }
            // Few, quick retries inside a request: a role retries whole steps itself, and an
            // unreachable endpoint should be reported in seconds, not minutes.
            let retry =
                RetryConfig { max_retries: 2, retry_timeout: Duration::from_secs(20), ..RetryConfig::default() };
            install_crypto();
            // Timeouts as config keys: replacing the client options would drop what
            // from_env read into them (AWS_ALLOW_HTTP among others).
            let s3 = AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .with_retry(retry)
                .with_config(AmazonS3ConfigKey::Client(ClientConfigKey::ConnectTimeout), "5 seconds")
                .with_config(AmazonS3ConfigKey::Client(ClientConfigKey::Timeout), "60 seconds")
                .build()
                .map_err(|e| {
                    bad(format!("{e} (set AWS_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)"))
                })?;
            let backend: Arc<dyn ObjectStore> = match prefix.trim_matches('/') {
                "" => Arc::new(s3),
                p => Arc::new(PrefixStore::new(s3, p)),
            };
            return Ok(Store { backend, url: url.trim_end_matches('/').to_string(), kind: Kind::S3 });
        }
        let path = url.strip_prefix("file://").unwrap_or(url);
        if path.is_empty() || url.contains("://") && !url.starts_with("file://") {
            return Err(bad("expected a directory, file://DIR, s3://BUCKET/PREFIX or memory://NAME".into()));
        }
        std::fs::create_dir_all(path).map_err(|e| bad(format!("cannot create the directory: {e}")))?;
        let local = LocalFileSystem::new_with_prefix(path).map_err(|e| bad(e.to_string()))?.with_fsync(true);
        Ok(Store { backend: Arc::new(local), url: path.trim_end_matches('/').to_string(), kind: Kind::Local })
    }

    /// The URL (or directory) the store was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The local directory behind the store, when it is one.
    pub fn local_dir(&self) -> Option<std::path::PathBuf> {
        (self.kind == Kind::Local).then(|| std::path::PathBuf::from(&self.url))
    }

    /// Where an object is, for messages: `URL/KEY`.
    pub fn describe(&self, key: &str) -> String {
        format!("{}/{key}", self.url)
    }

    fn path(&self, key: &str) -> Result<ObjectPath, StoreError> {
        ObjectPath::parse(key).map_err(|e| StoreError::Url { url: self.describe(key), reason: e.to_string() })
    }

    /// Reads a whole object.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when it does not exist, or the backend's error naming it.
    pub fn get(&self, key: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.path(key)?;
        runtime()
            .block_on(async {
                let got = self.backend.get(&path).await?;
                got.bytes().await
            })
            .map(|b| b.to_vec())
            .map_err(|e| StoreError::from_backend(self, key, "read", e))
    }

    /// Reads a whole object, `None` when it does not exist.
    ///
    /// # Errors
    /// The backend's error naming the object.
    pub fn get_opt(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self.get(key) {
            Ok(b) => Ok(Some(b)),
            Err(StoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes an object, replacing it: readers see the old bytes or the new ones, never a
    /// mix. Used only for pointers and reports; everything else is [`Store::create`]d.
    ///
    /// # Errors
    /// The backend's error naming the object.
    pub fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path(key)?;
        let payload = PutPayload::from(bytes.to_vec());
        runtime()
            .block_on(self.backend.put(&path, payload))
            .map(|_| ())
            .map_err(|e| StoreError::from_backend(self, key, "write", e))
    }

    /// Writes an object only if it does not exist yet (a conditional create), so a retried
    /// upload of an immutable object is harmless.
    ///
    /// # Errors
    /// The backend's error naming the object.
    pub fn create(&self, key: &str, bytes: &[u8]) -> Result<Created, StoreError> {
        let path = self.path(key)?;
        let payload = PutPayload::from(bytes.to_vec());
        let options = PutOptions { mode: PutMode::Create, ..PutOptions::default() };
        match runtime().block_on(self.backend.put_opts(&path, payload, options)) {
            Ok(_) => Ok(Created::New),
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => {
                Ok(Created::Existed)
            }
            // A service without conditional writes: look first. Objects created this way are
            // named by their one writer, so the window between the two calls is not shared.
            Err(object_store::Error::NotImplemented { .. } | object_store::Error::NotSupported { .. }) => {
                if self.exists(key)? { Ok(Created::Existed) } else { self.put(key, bytes).map(|()| Created::New) }
            }
            Err(e) => Err(StoreError::from_backend(self, key, "create", e)),
        }
    }

    /// Whether an object exists.
    ///
    /// # Errors
    /// The backend's error naming the object.
    pub fn exists(&self, key: &str) -> Result<bool, StoreError> {
        let path = self.path(key)?;
        match runtime().block_on(self.backend.head(&path)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(StoreError::from_backend(self, key, "look up", e)),
        }
    }

    /// Every object whose key starts with the folder `prefix` (`shards/` or `shards/w1/`),
    /// sorted by key.
    ///
    /// # Errors
    /// The backend's error naming the folder.
    pub fn list(&self, prefix: &str) -> Result<Vec<Entry>, StoreError> {
        let path = self.path(prefix.trim_end_matches('/'))?;
        let listed: Result<Vec<_>, _> = runtime().block_on(self.backend.list(Some(&path)).try_collect());
        let mut entries: Vec<Entry> = listed
            .map_err(|e| StoreError::from_backend(self, prefix, "list", e))?
            .into_iter()
            .map(|m| Entry { key: m.location.to_string(), size: m.size, modified: m.last_modified.into() })
            .collect();
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(entries)
    }

    /// The names of the folders directly under the folder `prefix` (`""` for the root),
    /// sorted; one listing request, so a folder's own contents (a run's shards) are not read.
    ///
    /// # Errors
    /// The backend's error naming the folder.
    pub fn folders(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let prefix = prefix.trim_matches('/');
        let path = self.path(prefix)?;
        let listed = runtime()
            .block_on(self.backend.list_with_delimiter((!prefix.is_empty()).then_some(&path)))
            .map_err(|e| StoreError::from_backend(self, prefix, "list", e))?;
        let mut names: Vec<String> =
            listed.common_prefixes.iter().filter_map(|p| p.filename().map(str::to_string)).collect();
        names.sort();
        Ok(names)
    }

    /// The store of the folder `name` inside this one, as if opened at `URL/name`: a run
    /// among the runs of a store (`serve --runs URL`). A memory store's folder shares its
    /// memory, where `memory://NAME/FOLDER` would open another.
    ///
    /// # Errors
    /// [`StoreError::Url`] for a name that is not one plain folder name.
    pub fn folder(&self, name: &str) -> Result<Store, StoreError> {
        let url = self.describe(name);
        let plain = !name.is_empty() && !name.contains(['/', '\\']) && name != "." && name != "..";
        if !plain {
            return Err(StoreError::Url { url, reason: "expected one folder name".into() });
        }
        let path = self.path(name)?;
        let backend: Arc<dyn ObjectStore> = Arc::new(PrefixStore::new(self.backend.clone(), path));
        Ok(Store { backend, url, kind: self.kind })
    }

    /// Deletes an object; one that is already gone is not an error.
    ///
    /// # Errors
    /// The backend's error naming the object.
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path(key)?;
        match runtime().block_on(self.backend.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(StoreError::from_backend(self, key, "delete", e)),
        }
    }
}

/// rustls is built without a bundled crypto provider (see the workspace manifest): install
/// ring's once, before the first S3 client is built.
fn install_crypto() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        // Err only means another provider was installed first, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Runs `op` until it succeeds or fails for a reason a retry cannot mend, waiting between
/// tries with exponential backoff (1 s doubling to `max_wait`). `on_retry` hears each
/// transient failure (to log it); `keep_going` is asked before every wait so a stopping role
/// does not hang.
///
/// # Errors
/// The first permanent error, or the last transient one when `keep_going` says stop.
pub fn retry_transient<T>(
    max_wait: Duration,
    keep_going: &dyn Fn() -> bool,
    on_retry: &dyn Fn(&StoreError, Duration),
    mut op: impl FnMut() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let mut wait = Duration::from_secs(1);
    loop {
        match op() {
            Ok(v) => return Ok(v),
            Err(e) if e.is_transient() && keep_going() => {
                on_retry(&e, wait);
                std::thread::sleep(wait);
                wait = (wait * 2).min(max_wait);
            }
            Err(e) => return Err(e),
        }
    }
}
