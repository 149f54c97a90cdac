//! A clock the connections share: any clock of the `guid` crate, plain or
//! with a leased node id (from etcd), whose checks every reply then passes.
//! Reads of the clock itself (its layout, node, last time, health) reach
//! the clock inside either way.

use std::ops::Deref;
#[cfg(feature = "lease")]
use std::sync::Arc;
use std::time::Duration;

use guid::{IdClock, flake};
#[cfg(feature = "lease")]
use kguid_lease::{Error as LeaseError, Leased, NodeLease};

/// A clock; with a lease, the lease is kept until the clock goes.
pub(crate) enum Served<C> {
    Plain(C),
    #[cfg(feature = "lease")]
    Leased {
        clock: Leased<C>,
        lease: Arc<NodeLease>,
    },
}

/// The 64-bit clock.
pub(crate) type FlakeClock = Served<flake::Clock>;

/// Why no ids were made.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The clock failed (its layout ran out of time).
    Clock,
    /// The leased node id may not be used now.
    #[cfg(feature = "lease")]
    Lease,
}

impl<C: IdClock> Served<C> {
    /// Fills `ids` if the lease, when there is one, holds.
    #[inline]
    pub(crate) fn fill(&self, ids: &mut [C::Id]) -> Result<(), Refused> {
        match self {
            Served::Plain(clock) => clock.fill(ids).map_err(|_| Refused::Clock),
            #[cfg(feature = "lease")]
            Served::Leased { clock, .. } => clock.fill(ids).map_err(|e| match e {
                LeaseError::Id(_) => Refused::Clock,
                _ => Refused::Lease,
            }),
        }
    }

    /// The lease of the node id, if it is leased.
    #[cfg(feature = "lease")]
    pub(crate) fn lease(&self) -> Option<&Arc<NodeLease>> {
        match self {
            Served::Plain(_) => None,
            Served::Leased { lease, .. } => Some(lease),
        }
    }

    /// How long to wait before a fill of `n`: for the source, or for the
    /// next horizon to be stored in the lease's store.
    #[inline]
    pub(crate) fn pace(&self, n: usize) -> Duration {
        match self {
            Served::Plain(clock) => clock.pace(n),
            #[cfg(feature = "lease")]
            Served::Leased { clock, .. } => clock.pace(n),
        }
    }
}

impl<C> Deref for Served<C> {
    type Target = C;

    fn deref(&self) -> &C {
        match self {
            Served::Plain(clock) => clock,
            #[cfg(feature = "lease")]
            Served::Leased { clock, .. } => clock.clock(),
        }
    }
}

impl FlakeClock {
    /// The longest a request may wait for ids: with a lease, the max lead
    /// (a horizon not stored by then is the store's trouble, and the
    /// client is better served elsewhere); none for a plain clock, whose
    /// waits at its cap end when its source moves on.
    pub(crate) fn max_wait(&self) -> Option<Duration> {
        match self {
            Served::Plain(_) => None,
            #[cfg(feature = "lease")]
            Served::Leased { clock, .. } => Some(clock.clock().max_lead()),
        }
    }
}
