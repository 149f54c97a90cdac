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

impl<T, E: fmt::Display> Context<T> for std::result::Result<T, E> {
    fn context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|e| Error(format!("{}: {e}", what().into())))
    }
}
