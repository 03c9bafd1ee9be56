//! The Rust libraries' errors as Python exceptions: `ValueError` for a bad rules string, spec
//! or position line, [`IllegalMoveError`] (a `ValueError`) for a refused move,
//! `FileNotFoundError` for a file that is not there, `ValueError` for one that cannot be used.

use mancala_rules::{IllegalMove, MoveParseError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pyo3::create_exception!(
    mancala_zero,
    IllegalMoveError,
    PyValueError,
    "A move the rules refuse. `label` is the move as written (a pit label or an action \
     number), `reason` the rules' reason in words."
);

/// An [`IllegalMoveError`] with its `label` and `reason` attributes set.
pub fn illegal(py: Python<'_>, message: String, label: String, reason: String) -> PyErr {
    let err = IllegalMoveError::new_err(message);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail short of memory; if it
    // does, the message alone still says everything.
    let _ = value.setattr("label", label);
    let _ = value.setattr("reason", reason);
    err
}

/// A move `play` refused.
pub fn illegal_move(py: Python<'_>, e: &IllegalMove) -> PyErr {
    let (label, reason) = match e {
        IllegalMove::GameOver { label } => (label.clone(), "the game is over".to_string()),
        IllegalMove::NotLegal { label, reason } => (label.clone(), reason.clone()),
        IllegalMove::OutOfRange { action, space } => {
            (action.to_string(), format!("outside the action space 0..{space}"))
        }
    };
    illegal(py, e.to_string(), label, reason)
}

/// A label that names no pit the side to move may sow.
pub fn bad_label(py: Python<'_>, text: &str, e: &MoveParseError) -> PyErr {
    illegal(py, format!("illegal move {text}: {e}"), text.to_string(), e.to_string())
}

/// Any library error whose message names the bad input, as a `ValueError`.
pub fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A `ValueError` whose message is the whole chain of causes, for the errors that wrap the
/// reader's own (a spec naming a corrupt model file).
pub fn value_error_chain(e: &(dyn std::error::Error + 'static)) -> PyErr {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    PyValueError::new_err(message)
}
