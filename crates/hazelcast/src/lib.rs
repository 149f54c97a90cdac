//! Node ids leased from a Hazelcast cluster, for `kguid-lease`: a store
//! ([`HazelcastStore`]) kept in one map of the cluster, through a small
//! client ([`Client`]) of Hazelcast's open binary client protocol (the
//! 5.x line), which speaks only what the lease needs.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use kguid_hazelcast::{Client, Config, HazelcastStore};
//! use kguid_lease::NodeLease;
//!
//! let mut config = Config::new(["127.0.0.1:5701"]);
//! config.cluster = "prod".into();
//! let client = Client::new(config)?;
//! client.connect().await?; // a wrong address or cluster name shows here
//! let lease = NodeLease::acquire(HazelcastStore::new(client), "guid/fleet", 0..1024, Duration::from_secs(10)).await?;
//! let clock = lease.clock().await?;
//! println!("{}", clock.g()?);
//! # Ok(()) }
//! ```
//!
//! The protocol subset: `Client.Authentication`, `Client.AddClusterViewListener`
//! (the members and partition table, to send each key to its owner),
//! `Client.Ping`, and `Map.Get`, `Map.PutIfAbsent`, `Map.ReplaceIfSame`,
//! `Map.RemoveIfSame`, `Map.SetTtl`.

#![deny(missing_docs)]

mod client;
mod codec;
mod data;
mod error;
pub mod message;
mod store;

pub use crate::client::{Client, Config};
pub use crate::error::{Error, Result};
pub use crate::store::{HazelcastStore, MAP};

/// Reads `bytes` as a member's message the way the client does, every
/// reader this client has run over it: for fuzzing. Never panics.
#[doc(hidden)]
pub fn read_any(bytes: &[u8]) {
    if let Ok((message, _)) = message::Message::parse(bytes) {
        let _ = codec::authenticated(&message);
        let _ = codec::view(&message);
        let _ = codec::value(&message);
        let _ = codec::boolean(&message);
        let _ = codec::error(&message);
        let _ = message.correlation();
        if let Ok(Some(v)) = codec::value(&message) {
            let _ = data::read_string(&v);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// Any bytes, and any bytes after a valid message's header, read
        /// without a panic.
        #[test]
        fn any_bytes_read_without_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            super::read_any(&bytes);
            let mut framed = crate::message::Request::new(0x0101, 0).finish(1);
            framed.truncate(6);
            framed.extend_from_slice(&bytes);
            super::read_any(&framed);
        }
    }
}

// The README's Rust blocks, compiled as doctests, so that the README
// cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
