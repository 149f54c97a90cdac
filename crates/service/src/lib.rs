//! `guid serve`: a tiny TCP id service that speaks noeqd's wire protocol
//! unchanged, for 64-bit flake ids and 96-bit global ids, and a client that
//! fails over across addresses.
//!
//! A client sends one byte `N` (1..=255) and reads `N` ids back, 8 bytes
//! each, big-endian (12 bytes each on the global-id listener); see
//! [`protocol`]. The [`Client`] asks several servers in turn:
//!
//! ```no_run
//! use kguid_service::Client;
//!
//! let mut ids = Client::connect(["10.0.0.1:4444", "10.0.0.2:4444"], Some(b"s3cret"))?;
//! let one: u64 = ids.next()?;
//! let many: Vec<u64> = ids.next_n(1_000)?; // four requests, pipelined
//! # Ok::<(), kguid_service::ClientError>(())
//! ```
//!
//! The server is a single-threaded event loop that keeps a small input
//! buffer per connection (and, for a client that stops reading, at most
//! 35 KB of replies): `run` serves on listeners the caller opened (tests bind port 0 and
//! really shut it down), and `serve_main` is `guid serve` with its flags. Its guarantees, next to noeqd's, are in the crate's
//! README; its metrics, health checks and logs in docs/metrics.md.
//!
//! # Features
//!
//! | feature | adds | needs |
//! |---|---|---|
//! | (none) | [`Client`], [`Prefetch`] (ids fetched ahead by a thread), [`protocol`] | |
//! | `session` | `session`: one connection's protocol state without I/O | subtle |
//! | `server` | `run`, `Config` (its groups and `Config::check`, which gives the `Checked` settings `run` serves), `Report`, `Error`: the service, its events through `tracing` and its metrics | tokio, tracing, prometheus-client, `session` |
//! | `cli` (default) | `ServeArgs`, `serve_main` and the `guid-serve` binary, which prints the events | clap, tracing-subscriber, `server` |
//! | `etcd` (default) | [`LeaseStore::Etcd`] honoured: node ids leased from etcd, over its JSON gateway | `server` |
//! | `redis` (default) | [`LeaseStore::Redis`] honoured: node ids leased from Redis | `server` |
//! | `hazelcast` (default) | [`LeaseStore::Hazelcast`] honoured: node ids leased from a Hazelcast cluster | `server` |

#![deny(missing_docs)]

#[cfg(feature = "cli")]
mod args;
#[cfg(feature = "server")]
mod bounds;
#[cfg(feature = "server")]
mod busy_poll;
mod client;
#[cfg(feature = "server")]
mod clock;
#[cfg(feature = "server")]
mod code_pages;
#[cfg(feature = "server")]
mod config;
#[cfg(feature = "server")]
mod connection;
#[cfg(feature = "server")]
mod error;
#[cfg(feature = "server")]
mod flag_file;
#[cfg(feature = "server")]
mod gate;
#[cfg(feature = "server")]
mod horizon;
#[cfg(feature = "server")]
mod housekeeping;
#[cfg(feature = "server")]
mod http;
#[cfg(feature = "server")]
mod issue;
#[cfg(feature = "lease")]
mod lease;
#[cfg(feature = "server")]
mod log;
#[cfg(feature = "server")]
mod metrics;
mod prefetch;
pub mod protocol;
#[cfg(feature = "server")]
mod rlimit;
#[cfg(feature = "server")]
mod server;
#[cfg(feature = "session")]
pub mod session;
#[cfg(feature = "server")]
mod shared;
#[cfg(feature = "server")]
mod sno;
#[cfg(feature = "server")]
mod start;

#[cfg(feature = "cli")]
pub use crate::args::{LogFormat, ServeArgs, serve_main};
pub use crate::client::{Client, ClientError, WireId};
#[cfg(feature = "server")]
pub use crate::config::{
    Config, ConnConfig, IdConfig, LeaseConfig, LeaseStore, Listeners, ProcessConfig, TimeConfig,
};
#[cfg(feature = "server")]
pub use crate::error::Error;
pub use crate::prefetch::Prefetch;
#[cfg(feature = "server")]
pub use crate::server::run;
#[cfg(feature = "server")]
pub use crate::shared::Report;
#[cfg(feature = "server")]
pub use crate::start::Checked;

/// The README's examples, run as doctests.
#[cfg(all(doctest, feature = "server"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
