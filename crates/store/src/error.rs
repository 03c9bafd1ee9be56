//! Store errors: every variant names the object (as `URL/KEY`) and says whether a retry can
//! mend it.

use thiserror::Error;

use crate::Store;

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("bad store URL '{url}': {reason}")]
    Url { url: String, reason: String },
    #[error("{object} does not exist")]
    NotFound { object: String },
    #[error("{object}: bucket '{bucket}' does not exist (create it first)")]
    NoBucket { object: String, bucket: String },
    #[error("{object}: access denied; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY ({detail})")]
    Denied { object: String, detail: String },
    #[error("cannot {operation} {object}: {source}")]
    Backend {
        object: String,
        operation: &'static str,
        #[source]
        source: object_store::Error,
    },
}

impl StoreError {
    pub(crate) fn from_backend(
        store: &Store,
        key: &str,
        operation: &'static str,
        e: object_store::Error,
    ) -> StoreError {
        let object = store.describe(key);
        let text = e.to_string();
        if text.contains("NoSuchBucket") || text.contains("specified bucket does not exist") {
            let bucket = store.url.strip_prefix("s3://").and_then(|r| r.split('/').next()).unwrap_or("").to_string();
            return StoreError::NoBucket { object, bucket };
        }
        match e {
            object_store::Error::NotFound { .. } => StoreError::NotFound { object },
            object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. } => {
                StoreError::Denied { object, detail: text }
            }
            e if text.contains("InvalidAccessKeyId")
                || text.contains("SignatureDoesNotMatch")
                || text.contains("AccessDenied") =>
            {
                StoreError::Denied { object, detail: e.to_string() }
            }
            source => StoreError::Backend { object, operation, source },
        }
    }

    /// Whether trying again later may succeed: network failures and server errors, not a
    /// missing object, bucket or permission.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Backend { source, .. } => {
                matches!(source, object_store::Error::Generic { .. } | object_store::Error::JoinError { .. })
            }
            _ => false,
        }
    }
}
