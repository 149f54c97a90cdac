//! What can go wrong with a lease, each case typed so that callers can tell
//! "wait and retry" from "acquire again".

/// A lease could not be taken, kept or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store failed: its own error (connection, transport, server, or
    /// a reply it could not read). The store's crate names its type, for
    /// [`downcast_ref`](std::error::Error#method.downcast_ref).
    #[error("store request failed: {0}")]
    Store(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A store request got no answer within the request timeout.
    #[error("store request timed out")]
    Timeout,
    /// Every node id in the range is held (and waiting was not asked for,
    /// or the wait ran out).
    #[error("every node id in {first}..={last} is leased")]
    Full {
        /// The lowest id of the range.
        first: u32,
        /// The highest id of the range.
        last: u32,
    },
    /// The lease was not confirmed by the store within the TTL less the
    /// safety margin: ids are held back until a renewal gets through,
    /// since the store may soon hand the node id to another process.
    #[error("lease not confirmed within its safety margin")]
    Expired,
    /// The store found no fence for the node id and could not vouch that
    /// no earlier holder it forgot still issues ids
    /// ([`Claimed::quiet`](crate::store::Claimed::quiet)): ids are held
    /// back until such a holder must have stopped.
    #[error(
        "ids wait {left:?} more: the store may have forgotten an earlier holder of the node id"
    )]
    Unfenced {
        /// How much longer ids are held back.
        left: std::time::Duration,
    },
    /// Ids have reached the reserved time horizon and the next reservation
    /// has not been stored yet: retry shortly.
    #[error("ids reached the reserved horizon")]
    Horizon,
    /// The lease is gone (released, dropped, or expired in the store):
    /// acquire a new one.
    #[error("lease lost")]
    Lost,
    /// Used in a forked child: the lease, its node id and its keep-alive
    /// belong to the parent process. Acquire a lease in the child.
    #[error("lease used in a forked child of its holder")]
    Forked,
    /// A stored record holds something no lease wrote.
    #[error("unreadable value at key {key}")]
    Corrupt {
        /// The record's key.
        key: String,
    },
    /// The settings cannot work together.
    #[error("invalid lease settings: {0}")]
    Config(&'static str),
    /// The id library refused: a node id that does not fit the flake
    /// layout, or a layout whose time has run out.
    #[error("id: {0}")]
    Id(#[from] guid::Error),
}

impl Error {
    /// A store's own error, as [`Error::Store`].
    pub fn store(error: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::Store(Box::new(error))
    }
}

/// The result of lease operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;
