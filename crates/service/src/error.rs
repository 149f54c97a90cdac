//! The service's error type.

use std::io;
use std::path::PathBuf;

/// Why the service could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An I/O operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What the service was doing.
        what: String,
        /// The error.
        source: io::Error,
    },
    /// The state file holds something that is not a horizon, or a time the
    /// clocks cannot start after.
    #[error("--state {}: {why}", path.display())]
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A setting is invalid (the message names its `guid serve` flag).
    #[error("{0}")]
    Config(String),
    /// An id could not be laid out (a node id too large for the layout).
    #[error("clock: {0}")]
    Clock(#[from] guid::Error),
}

impl Error {
    pub(crate) fn io(what: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}
