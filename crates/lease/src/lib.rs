//! Node ids leased from a store (etcd, Redis, or any [`Store`]), so that
//! every live process of a fleet stamps a different node id on its ids,
//! with fencing so that a node id reused after a crash never repeats a
//! time.
//!
//! The store's crate gives the store (`kguid_etcd::Client` for etcd);
//! this crate does the rest: the claim, the renewals, the horizon, the
//! clocks that check them.
//!
//! ```no_run
//! # async fn run(store: impl kguid_lease::Store) -> Result<(), kguid_lease::Error> {
//! use std::time::Duration;
//! use kguid_lease::NodeLease;
//!
//! // A flake layout with 10 node bits: ids 0..1024.
//! let lease = NodeLease::acquire(store, "/guid/fleet", 0..1024, Duration::from_secs(10)).await?;
//! let clock = lease.clock().await?;
//! let id = clock.g()?; // refused with a typed error once the lease is in doubt
//! # let _ = id;
//! lease.release().await?;
//! # Ok(()) }
//! ```
//!
//! # How it works
//!
//! - **Claim**: the store takes the lowest free id in the range, only if
//!   no one holds it, for a lease of the TTL, and in the same atomic step
//!   reads the fence: the horizon the previous holder left
//!   ([`Store::claim`]).
//! - **Keep**: a background task renews the lease every interval
//!   ([`Store::renew`]) and stores a new horizon, `ahead` past the latest
//!   id time, as the fence (only while the claim is still this holder's),
//!   and sooner when ids near the horizon. One write at a time, each only
//!   if the fence is unchanged since this holder last saw it
//!   ([`Store::fence`]), so a write that timed out here but reaches the
//!   store later cannot lower the fence; clocks use a new horizon only
//!   once the store holds it.
//! - **Fence**: the new holder's clock starts after the previous horizon
//!   (built once the wall clock reaches it, so that horizons stay a
//!   look-ahead past the wall clock), and no holder issues an id later
//!   than its own stored horizon; so the ids of two holders of one node id
//!   never overlap in time, whatever their wall clocks say.
//! - **Quiet**: a store that may have lost a holder's records (a wiped
//!   Redis) and finds no fence asks for a quiet
//!   ([`Claimed::quiet`](store::Claimed::quiet)): no id and no horizon
//!   until it has passed since the claim's answer, and ids after the wall
//!   clock then. Ids never repeat while the clocks agree within the quiet
//!   less the look-ahead and the ids' lead; `tests/model.rs` checks it.
//! - **Stop in time**: a holder issues ids only until the send time of its
//!   last confirmed renewal (or of its claim) plus the TTL, less a safety
//!   margin. The store cannot expire the lease before that send time plus
//!   the TTL, so the holder has stopped before anyone else can be granted
//!   the node id.
//! - **Release** frees the node id at once ([`Store::release`]); dropping
//!   the lease stops its clocks and lets the store expire it after the
//!   TTL. A new acquire may get another id.
//! - **Fork**: a forked child holds a copy of the lease but not its
//!   renewals; there the lease and its clocks refuse with
//!   [`Error::Forked`] (never a panic), and release leaves the parent's
//!   lease alone. Acquire a lease in the child.
//!
//! ```text
//!  holder A  |--renew------renew-------X (store unreachable or A dies)
//!  horizon A |----H1---------H2---------H3 stored as the fence of <id>
//!  A's ids   |==============================|  stops at last confirmed send + TTL - margin
//!  store     |                                   | lease expires >= last send + TTL
//!  holder B  |                                    |claim, reads H3|== ids after H3 ==>
//! ```
//!
//! # A store
//!
//! [`Store`] is five operations, each with its contract; [`AnyStore`]
//! keeps stores of any type behind one handle.

#![deny(missing_docs)]

mod clock;
mod error;
mod flake;
mod lease;
mod leased;
mod options;
pub mod store;
mod validity;

pub use crate::clock::LeasedClock;
pub use crate::error::{Error, Result};
pub use crate::flake::LeasedFlakeClock;
pub use crate::lease::NodeLease;
pub use crate::leased::Leased;
pub use crate::options::{Options, WhenFull};
pub use crate::store::{AnyStore, Store};

// The README's Rust blocks, compiled (and run unless marked no_run) as
// doctests, so that the README cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
