//! What can go wrong making ids in Redis, or keeping node-id leases there.

/// Ids could not be made, or a lease request to Redis failed (inside
/// `kguid_lease::Error::Store`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A Redis request failed: connection, timeout, or a server error
    /// (such as a missing shard id).
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// The server's sequence for the current millisecond is used up.
    #[error("sequence of the millisecond used up")]
    Exhausted,
    /// The server's clock is behind a millisecond it already used.
    #[error("server clock behind a millisecond already used")]
    Behind,
    /// A script answered something it never sends.
    #[error("unexpected script reply: {0}")]
    Reply(String),
    /// The id library refused the parts (a shard id or time outside the
    /// layout).
    #[error("id: {0}")]
    Id(#[from] guid::Error),
    /// A shard id that does not fit the layout's node bits.
    #[error("shard id {shard} does not fit the layout's node bits (at most {max})")]
    Shard {
        /// The shard id asked for.
        shard: u64,
        /// The largest shard id the layout holds.
        max: u64,
    },
    /// A write was not acknowledged by as many replicas as
    /// [`RedisStore::replicas`](crate::RedisStore::replicas) asks for within
    /// the timeout: the lease does not count it as stored.
    #[error("written, but acknowledged by {acked} of {wanted} replicas")]
    Replicas {
        /// Replicas that acknowledged it.
        acked: u64,
        /// Replicas asked for.
        wanted: u32,
    },
    /// The settings cannot work.
    #[error("invalid settings: {0}")]
    Config(&'static str),
    /// Every attempt failed; the last failure is kept.
    #[error("no id after {attempts} attempts; last: {last}")]
    Failed {
        /// How many servers were tried, counting repeats.
        attempts: u32,
        /// Why the last attempt failed.
        #[source]
        last: Box<Error>,
    },
}

/// The result of id requests.
pub type Result<T, E = Error> = std::result::Result<T, E>;
