//! Two uses of Redis for k-ordered ids:
//!
//! - flake ids made inside Redis ([`Config`], [`Generator`]): a Lua script
//!   takes the server's own time, the shard id stored in the server and a
//!   per-millisecond sequence, and a client round-robins several servers
//!   (each with its own shard id), trying the next one when a server fails;
//! - node ids leased from Redis ([`RedisStore`]): the store of a
//!   `kguid-lease` lease, so that each live process of a fleet stamps a
//!   different node id on ids it makes itself.
//!
//! ```no_run
//! use std::time::{Duration, UNIX_EPOCH};
//! use guid::flake::Layout;
//! use kguid_redis::Config;
//!
//! // 41 bits of ms since 2024-01-01, 10-bit shard, 12-bit sequence.
//! let layout = Layout::redis(UNIX_EPOCH + Duration::from_secs(1_704_067_200));
//! let config = Config::new(layout);
//! config.set_shard("redis://10.0.0.1:6379", 1)?; // once per server
//! config.set_shard("redis://10.0.0.2:6379", 2)?;
//! let ids = config.connect(&["redis://10.0.0.1:6379", "redis://10.0.0.2:6379"])?;
//! let batch = ids.ids(100)?; // 100 ids in one round trip
//! assert_eq!(layout.decompose(batch[0])?.node, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Each server makes ids only from its own clock and shard id, so servers
//! never coordinate: uniqueness rests on shard ids being distinct and on
//! each server never reusing a millisecond's sequence. The script refuses
//! (and the client moves on) when the millisecond's 4,096 sequence numbers
//! are used up or when the server's clock is behind the latest millisecond
//! it used; it never repeats an id.

#![deny(missing_docs)]

mod error;
mod generator;
mod node;
pub mod script;

pub use crate::error::{Error, Result};
pub use crate::generator::{Config, Generator, Stats};
pub use crate::node::RedisStore;
pub use kguid_lease;
pub use redis;

// The README's Rust blocks, compiled (and run unless marked no_run) as
// doctests, so that the README cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
