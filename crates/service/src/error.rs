//! The service's error type.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why the service could not start or stopped with an error.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An I/O operation failed.
    Io {
        /// What the service was doing.
        what: String,
        /// The error.
        source: io::Error,
    },
    /// The state file holds something that is not a horizon, or a time the
    /// clocks cannot start after.
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A setting is invalid (the message names its `guid serve` flag).
    Config(String),
    /// An id could not be laid out (a node id too large for the layout).
    Clock(guid::Error),
}

impl Error {
    pub(crate) fn io(what: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { what, source } => write!(f, "{what}: {source}"),
            Error::State { path, why } => write!(f, "--state {}: {why}", path.display()),
            Error::Config(why) => f.write_str(why),
            Error::Clock(e) => write!(f, "clock: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Clock(e) => Some(e),
            _ => None,
        }
    }
}

impl From<guid::Error> for Error {
    fn from(e: guid::Error) -> Self {
        Error::Clock(e)
    }
}
