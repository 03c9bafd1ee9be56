//! Everything a request can be refused for. Each variant knows its HTTP status, and the body
//! is always `{"error": "..."}` with a message that names the bad input.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum WebError {
    /// A body or query that is not what the endpoint reads (bad JSON, a missing field, a
    /// value out of range).
    #[error("{0}")]
    BadRequest(String),
    #[error("no game '{id}': it never existed or expired after {idle_minutes} minutes without a request")]
    NoGame { id: String, idle_minutes: u64 },
    #[error("illegal move {label}: {reason}")]
    IllegalMove { label: String, reason: String },
    /// A request that is well formed but cannot apply now (the game is over, nothing to undo).
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    NotFound(String),
    /// Every engine worker is busy and the queue is full.
    #[error("the engine is busy with {0} other requests; try again in a moment")]
    Busy(usize),
    /// A bug or a failed file read on the server side; the message says which.
    #[error("{0}")]
    Internal(String),
}

impl WebError {
    pub fn status(&self) -> StatusCode {
        match self {
            WebError::BadRequest(_) | WebError::IllegalMove { .. } => StatusCode::BAD_REQUEST,
            WebError::NoGame { .. } | WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::Conflict(_) => StatusCode::CONFLICT,
            WebError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        (self.status(), Json(serde_json::json!({ "error": self.to_string() }))).into_response()
    }
}

impl From<axum::extract::rejection::JsonRejection> for WebError {
    fn from(r: axum::extract::rejection::JsonRejection) -> Self {
        WebError::BadRequest(format!("bad request body: {}", r.body_text()))
    }
}

impl From<axum::extract::rejection::QueryRejection> for WebError {
    fn from(r: axum::extract::rejection::QueryRejection) -> Self {
        WebError::BadRequest(format!("bad query: {}", r.body_text()))
    }
}
