//! Node ids leased from etcd, so that every live process of a fleet stamps
//! a different node id on its ids, with fencing so that a node id reused
//! after a crash never repeats a time.
//!
//! This crate is etcd's [`Store`](kguid_lease::Store) for
//! [`kguid_lease`], over etcd's v3 JSON gateway (HTTP/1.1): [`Client`].
//! It needs no protoc and no gRPC stack. The lease itself (its renewals,
//! horizon and clocks) is `kguid_lease`'s, re-exported here.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use kguid_etcd::{Client, NodeLease};
//!
//! let client = Client::connect(["http://127.0.0.1:2379"], None).await?;
//! // A flake layout with 10 node bits: ids 0..1024.
//! let lease = NodeLease::acquire(client, "/guid/fleet", 0..1024, Duration::from_secs(10)).await?;
//! let clock = lease.clock().await?;
//! let id = clock.g()?; // refused with a typed error once the lease is in doubt
//! # let _ = id;
//! lease.release().await?;
//! # Ok(()) }
//! ```
//!
//! # How it works
//!
//! - **Claim**: an etcd lease of the TTL is granted, then a transaction
//!   creates `<prefix>/claim/<id>` for the lowest free id in the range,
//!   only if it does not exist, bound to that lease. The same transaction
//!   reads `<prefix>/fence/<id>`, the horizon the previous holder left.
//! - **Keep**: a background task sends a keep-alive every interval and
//!   stores a new horizon, `ahead` past the latest id time, in both keys
//!   (only while the claim is still bound to this lease), and sooner when
//!   ids near the horizon. One write at a time, each only if the fence key
//!   is unchanged since this holder last saw it (its modification
//!   revision), so a write that timed out here but reaches etcd later
//!   cannot lower the fence; clocks use a new horizon only once etcd
//!   holds it.
//! - **Fence**: the new holder's clock starts after the previous horizon,
//!   and no holder issues an id later than its own stored horizon; so the
//!   ids of two holders of one node id never overlap in time, whatever
//!   their wall clocks say.
//! - **Stop in time**: a holder issues ids only until the send time of its
//!   last confirmed keep-alive (or of its claim) plus the TTL, less a
//!   safety margin. etcd cannot expire the lease before that send time
//!   plus the TTL, so the holder has stopped before anyone else can be
//!   granted the node id.
//! - **Wait**: with [`WhenFull::Wait`], a full range is watched for a
//!   claim to go, from the revision it was seen full at.
//! - **Release** revokes the lease (snowcast's detach); a new acquire may
//!   get another id.
//! - **Fork**: a forked child holds a copy of the lease but not its
//!   keep-alive; there the lease and its clocks refuse with
//!   [`Error::Forked`] (never a panic), and release leaves the parent's
//!   lease alone. Acquire a lease in the child.
//!
//! ```text
//!  holder A  |--keep-alive--keep-alive--X (etcd unreachable or A dies)
//!  horizon A |----H1---------H2---------H3 stored in <prefix>/fence/<id>
//!  A's ids   |==============================|  stops at last confirmed send + TTL - margin
//!  etcd      |                                   | lease expires >= last send + TTL
//!  holder B  |                                    |claim, reads H3|== ids after H3 ==>
//! ```
//!
//! # Errors
//!
//! A failed etcd request is [`Error::Store`] holding a [`ClientError`]
//! (`e.source()` and `downcast_ref` reach it); a reply that is malformed
//! or truncated is [`ClientError::Reply`], never a panic.

#![deny(missing_docs)]

mod client;
mod gateway;
mod keys;
mod store;

pub use crate::client::{Client, ClientError, ConnectOptions};
pub use kguid_lease::{
    Error, Leased, LeasedClock, LeasedFlakeClock, NodeLease, Options, Result, WhenFull,
};

// The README's Rust blocks, compiled (and run unless marked no_run) as
// doctests, so that the README cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
