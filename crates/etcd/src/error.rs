//! What can go wrong with a lease, each case typed so that callers can tell
//! "wait and retry" from "acquire again".

use std::fmt;

/// A lease could not be taken, kept or used.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An etcd request failed (connection, transport or server error).
    Etcd(etcd_client::Error),
    /// An etcd request got no answer within the request timeout.
    Timeout,
    /// Every node id in the range is held (and waiting was not asked for,
    /// or the wait ran out).
    Full {
        /// The lowest id of the range.
        first: u32,
        /// The highest id of the range.
        last: u32,
    },
    /// The lease was not confirmed by etcd within the TTL less the safety
    /// margin: ids are held back until a keep-alive gets through, since
    /// etcd may soon hand the node id to another process.
    Expired,
    /// Ids have reached the reserved time horizon and the next reservation
    /// has not been stored yet: retry shortly.
    Horizon,
    /// The lease is gone (released, dropped, or expired in etcd): acquire
    /// a new one.
    Lost,
    /// Used in a forked child: the lease, its node id and its keep-alive
    /// belong to the parent process. Acquire a lease in the child.
    Forked,
    /// A stored key holds something this crate did not write.
    Corrupt {
        /// The key.
        key: String,
    },
    /// The settings cannot work together.
    Config(&'static str),
    /// The id library refused: a node id that does not fit the flake
    /// layout, or a layout whose time has run out.
    Id(guid::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Etcd(e) => write!(f, "etcd request failed: {e}"),
            Error::Timeout => f.write_str("etcd request timed out"),
            Error::Full { first, last } => write!(f, "every node id in {first}..={last} is leased"),
            Error::Expired => f.write_str("lease not confirmed within its safety margin"),
            Error::Horizon => f.write_str("ids reached the reserved horizon"),
            Error::Lost => f.write_str("lease lost"),
            Error::Forked => f.write_str("lease used in a forked child of its holder"),
            Error::Corrupt { key } => write!(f, "unreadable value at key {key}"),
            Error::Config(why) => write!(f, "invalid lease settings: {why}"),
            Error::Id(e) => write!(f, "id: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Etcd(e) => Some(e),
            Error::Id(e) => Some(e),
            _ => None,
        }
    }
}

impl From<etcd_client::Error> for Error {
    fn from(e: etcd_client::Error) -> Self {
        Error::Etcd(e)
    }
}

impl From<guid::Error> for Error {
    fn from(e: guid::Error) -> Self {
        Error::Id(e)
    }
}

/// The result of lease operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;
