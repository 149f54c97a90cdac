//! What can go wrong making ids in Redis.

use std::fmt;

/// Ids could not be made.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A Redis request failed: connection, timeout, or a server error
    /// (such as a missing shard id).
    Redis(redis::RedisError),
    /// The server's sequence for the current millisecond is used up.
    Exhausted,
    /// The server's clock is behind a millisecond it already used.
    Behind,
    /// The script answered something it never sends.
    Reply(String),
    /// The id library refused the parts (a shard id or time outside the
    /// layout).
    Id(guid::Error),
    /// The settings cannot work.
    Config(&'static str),
    /// Every attempt failed; the last failure is kept.
    Failed {
        /// How many servers were tried, counting repeats.
        attempts: u32,
        /// Why the last attempt failed.
        last: Box<Error>,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Redis(e) => write!(f, "redis: {e}"),
            Error::Exhausted => f.write_str("sequence of the millisecond used up"),
            Error::Behind => f.write_str("server clock behind a millisecond already used"),
            Error::Reply(why) => write!(f, "unexpected script reply: {why}"),
            Error::Id(e) => write!(f, "id: {e}"),
            Error::Config(why) => write!(f, "invalid settings: {why}"),
            Error::Failed { attempts, last } => {
                write!(f, "no id after {attempts} attempts; last: {last}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Redis(e) => Some(e),
            Error::Id(e) => Some(e),
            Error::Failed { last, .. } => Some(last.as_ref()),
            _ => None,
        }
    }
}

impl From<redis::RedisError> for Error {
    fn from(e: redis::RedisError) -> Self {
        Error::Redis(e)
    }
}

impl From<guid::Error> for Error {
    fn from(e: guid::Error) -> Self {
        Error::Id(e)
    }
}

/// The result of id requests.
pub type Result<T, E = Error> = std::result::Result<T, E>;
