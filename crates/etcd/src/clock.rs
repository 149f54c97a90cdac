//! Clocks that stamp a leased node id and issue ids only while the lease
//! holds.

use std::time::SystemTime;

use guid::{Builder, Clock, Guid};

use crate::error::{Error, Result};
use crate::lease::NodeLease;
use crate::leased::{Fenceable, Leased};

/// A [`Clock`] with a leased node id, started after the previous holder's
/// horizon, that checks the lease before every id.
///
/// Each id costs the clock's own compare-and-swap plus a read of the
/// monotonic clock and four relaxed loads. An id is refused, with a typed
/// error, when the lease is not confirmed within its margin
/// ([`Error::Expired`], may recover), is gone ([`Error::Lost`]), or when
/// its time would pass the stored horizon ([`Error::Horizon`], brief).
///
/// In a forked child every method returns [`Error::Forked`] or the leased
/// node: none reaches the core clock, which would panic there (its node
/// was chosen, by the lease).
#[derive(Debug)]
pub struct LeasedClock {
    leased: Leased<Clock>,
}

impl Fenceable for Clock {
    type Builder = Builder;
    type Id = Guid;

    fn build(builder: Builder, node: u32, not_before: SystemTime) -> Result<Clock> {
        let clock = builder.node(node).not_before(not_before)?.build();
        // Its ids decrease, so no horizon can bound them.
        if clock.is_inverse() {
            return Err(Error::Config(
                "an inverse clock cannot be fenced by a horizon",
            ));
        }
        Ok(clock)
    }

    #[inline]
    fn issue(&self) -> Result<Guid> {
        Ok(self.g())
    }

    fn issue_all(&self, ids: &mut [Guid]) -> Result<()> {
        self.fill(ids);
        Ok(())
    }

    #[inline]
    fn unix_time(&self, id: Guid) -> Result<u64> {
        Ok(id.time())
    }
}

impl NodeLease {
    /// A wall-clock [`LeasedClock`] with the default drift.
    pub async fn clock(&self) -> Result<LeasedClock> {
        self.clock_with(Clock::builder()).await
    }

    /// A [`LeasedClock`] from `builder` (drift, time source); the lease
    /// sets the node id and the not-before time, replacing any the builder
    /// had. The horizon is moved past where the new clock starts before it
    /// is returned, so a clock whose source runs ahead issues at once.
    pub async fn clock_with(&self, builder: Builder) -> Result<LeasedClock> {
        let leased = self.leased(builder).await?;
        Ok(LeasedClock { leased })
    }
}

impl LeasedClock {
    /// A new global id, if the lease holds.
    #[inline]
    pub fn g(&self) -> Result<Guid> {
        self.leased.next()
    }

    /// Fills `ids` with consecutive global ids from one read of the time,
    /// if the lease holds; on an error none of them may be used.
    pub fn fill(&self, ids: &mut [Guid]) -> Result<()> {
        self.leased.fill(ids)
    }

    /// Whether ids may be issued now.
    pub fn check(&self) -> Result<()> {
        self.leased.check()
    }

    /// The leased node id stamped on the ids.
    pub fn node(&self) -> u32 {
        self.leased.node
    }
}
