//! The 64-bit clock the connections share: a plain flake clock, or the
//! clock of a node id leased from etcd, whose checks every reply passes.
//! Reads of the clock itself (its layout, node, last time, health) reach
//! the flake clock inside either way.

use std::ops::Deref;
#[cfg(feature = "etcd")]
use std::sync::Arc;
use std::time::Duration;

use guid::flake;
#[cfg(feature = "etcd")]
use kguid_etcd::{Error as LeaseError, LeasedFlakeClock, NodeLease};

/// The 64-bit clock; with a lease, the lease is kept until the clock goes.
pub(crate) enum FlakeClock {
    Plain(flake::Clock),
    #[cfg(feature = "etcd")]
    Leased {
        clock: LeasedFlakeClock,
        lease: Arc<NodeLease>,
    },
}

/// Why no 64-bit ids were made.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The clock failed (its layout ran out of time).
    Clock,
    /// The leased node id may not be used now.
    #[cfg(feature = "etcd")]
    Lease,
}

impl FlakeClock {
    /// Fills `ids` if the lease, when there is one, holds.
    #[inline]
    pub(crate) fn fill(&self, ids: &mut [u64]) -> Result<(), Refused> {
        match self {
            FlakeClock::Plain(clock) => clock.fill(ids).map_err(|_| Refused::Clock),
            #[cfg(feature = "etcd")]
            FlakeClock::Leased { clock, .. } => clock.fill(ids).map_err(|e| match e {
                LeaseError::Id(_) => Refused::Clock,
                _ => Refused::Lease,
            }),
        }
    }

    /// The lease of the node id, if it is leased.
    #[cfg(feature = "etcd")]
    pub(crate) fn lease(&self) -> Option<&Arc<NodeLease>> {
        match self {
            FlakeClock::Plain(_) => None,
            FlakeClock::Leased { lease, .. } => Some(lease),
        }
    }

    /// How long to wait before a fill of `n`: for the source, or for the
    /// next horizon to be stored in etcd.
    #[inline]
    pub(crate) fn pace(&self, n: usize) -> Duration {
        match self {
            FlakeClock::Plain(clock) => clock.pace(n),
            #[cfg(feature = "etcd")]
            FlakeClock::Leased { clock, .. } => clock.pace(n),
        }
    }
}

impl Deref for FlakeClock {
    type Target = flake::Clock;

    fn deref(&self) -> &flake::Clock {
        match self {
            FlakeClock::Plain(clock) => clock,
            #[cfg(feature = "etcd")]
            FlakeClock::Leased { clock, .. } => clock.clock(),
        }
    }
}
