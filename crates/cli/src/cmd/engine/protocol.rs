//! Framing of the engine protocol (docs/protocol.md), modelled on GTP: one command a line,
//! `[id] name [args...]`; answers `=[id] result` or `?[id] message`, each ended by one empty
//! line. Blank lines and `#` lines are ignored; only `quit` or the end of input ends the loop.

use std::fmt;
use std::io::{self, BufRead, Write};
use std::panic::AssertUnwindSafe;

use super::commands::Engine;

/// The answer to one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The command's id, echoed as given (digits only).
    pub id: Option<String>,
    /// The result text on success, the message on failure.
    pub result: Result<String, String>,
    /// True after `quit`: the loop ends once this answer is written.
    pub quit: bool,
}

impl Response {
    fn new(id: Option<&str>, result: Result<String, String>) -> Response {
        Response { id: id.map(str::to_string), result, quit: false }
    }

    pub fn is_success(&self) -> bool {
        self.result.is_ok()
    }

    /// The result or message text.
    pub fn text(&self) -> &str {
        match &self.result {
            Ok(text) | Err(text) => text,
        }
    }
}

impl fmt::Display for Response {
    /// `=[id] first line`, the further lines, then the empty line that ends the answer. Empty
    /// lines inside a result are left out: the first empty line must be the answer's end. A
    /// result that starts with a line break (a board) begins on the line after `=[id]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_success() { "=" } else { "?" })?;
        if let Some(id) = &self.id {
            f.write_str(id)?;
        }
        let mut lines = self.text().lines();
        if let Some(first) = lines.next().map(str::trim_end).filter(|l| !l.is_empty()) {
            write!(f, " {first}")?;
        }
        f.write_str("\n")?;
        for line in lines.map(str::trim_end).filter(|l| !l.is_empty()) {
            writeln!(f, "{line}")?;
        }
        f.write_str("\n")
    }
}

impl Engine {
    /// Answers one input line; `None` for a blank or `#` line, which gets no answer.
    pub fn handle(&mut self, line: &str) -> Option<Response> {
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            return None;
        }
        let mut tokens = text.split_whitespace();
        let first = tokens.next()?;
        let (id, name) = if first.bytes().all(|b| b.is_ascii_digit()) {
            match tokens.next() {
                Some(name) => (Some(first), name),
                None => return Some(Response::new(Some(first), Err("missing command name after the id".into()))),
            }
        } else {
            (None, first)
        };
        let args: Vec<&str> = tokens.collect();
        if name == "quit" {
            let result = if args.is_empty() { Ok(String::new()) } else { Err("quit takes no arguments".into()) };
            let quit = result.is_ok();
            return Some(Response { quit, ..Response::new(id, result) });
        }
        // `{:#}` writes the whole cause chain on one line. A panic is a bug, but the driver's
        // game should not die of it: it is answered as a failed command.
        let result = match std::panic::catch_unwind(AssertUnwindSafe(|| self.execute(name, &args))) {
            Ok(result) => result.map_err(|e| format!("{e:#}")),
            Err(panic) => Err(format!("internal error in '{name}': {}", panic_text(panic.as_ref()))),
        };
        Some(Response::new(id, result))
    }
}

/// The message a panic carried, if it is text.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}

/// Reads commands until `quit` or the end of input, answering each and flushing after every
/// answer so that a driver waiting on a pipe sees it at once. Input that is not UTF-8 is read
/// with replacement characters (and then refused as an unknown command or move), never fatal.
///
/// # Errors
/// Only reading or writing failing (a closed output pipe).
pub fn serve<R: BufRead, W: Write>(mut engine: Engine, mut input: R, output: &mut W) -> io::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = String::from_utf8_lossy(&buf);
        if let Some(response) = engine.handle(&line) {
            write!(output, "{response}")?;
            output.flush()?;
            if response.quit {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(id: Option<&str>, result: Result<&str, &str>) -> Response {
        Response::new(id, result.map(str::to_string).map_err(str::to_string))
    }

    #[test]
    fn frames_answers_with_ids_and_an_empty_line() {
        assert_eq!(response(Some("7"), Ok("1")).to_string(), "=7 1\n\n");
        assert_eq!(response(None, Ok("")).to_string(), "=\n\n");
        assert_eq!(response(Some("3"), Err("unknown command 'x'")).to_string(), "?3 unknown command 'x'\n\n");
    }

    #[test]
    fn multi_line_results_never_contain_the_end_marker() {
        assert_eq!(response(None, Ok("a\n\nb  \n")).to_string(), "= a\nb\n\n");
        assert_eq!(response(Some("2"), Ok("\n  row one\n\n  row two")).to_string(), "=2\n  row one\n  row two\n\n");
    }
}
