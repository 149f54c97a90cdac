//! One error type for the binary: a message that says what was being done.

use std::fmt;

/// What failed, with the cause's own message appended.
#[derive(Debug)]
pub struct Error(String);

impl Error {
    /// An error with this message.
    pub fn msg(message: impl Into<String>) -> Error {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// The binary's result.
pub type Result<T> = std::result::Result<T, Error>;

/// Says what was being done when an error happened.
pub trait Context<T> {
    /// Prefixes the error with `what()`.
    fn context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T>;
}

impl<T, E: std::error::Error> Context<T> for std::result::Result<T, E> {
    fn context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|e| Error(format!("{}: {}", what().into(), chain(&e))))
    }
}

/// An error's message and its sources' (tokio-postgres keeps the server's
/// message and the I/O error in the source).
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}
