//! Flake (snowflake) clocks that stamp a leased node id and issue ids only
//! while the lease holds.

use std::sync::Arc;

use guid::flake::{self, Layout};

use crate::error::Result;
use crate::lease::NodeLease;
use crate::validity::{Validity, unix_nanos};

/// A [`flake::Clock`] with the leased node id as its node (worker) id,
/// started after the previous holder's horizon, that checks the lease
/// before every id (see [`LeasedClock`](crate::LeasedClock) for the
/// errors).
#[derive(Debug)]
pub struct LeasedFlakeClock {
    clock: flake::Clock,
    validity: Arc<Validity>,
}

impl NodeLease {
    /// A [`LeasedFlakeClock`] from `builder` (layout, time source, lead);
    /// the lease sets the node id and a not-before time. The lease's range
    /// must fit the layout's node bits, or this fails with
    /// [`Error::Id`](crate::Error::Id).
    pub async fn flake_clock(&self, builder: flake::Builder) -> Result<LeasedFlakeClock> {
        let clock = builder
            .node(u64::from(self.node()))
            .not_before(self.not_before())
            .build()?;
        // Where the clock starts: the time of one id, spent to read it.
        let start = unix_nanos(clock.layout().time_of(clock.next()?)?);
        self.cover(start).await?;
        Ok(LeasedFlakeClock {
            clock,
            validity: self.validity().clone(),
        })
    }
}

impl LeasedFlakeClock {
    /// A new flake id, if the lease holds.
    #[inline]
    pub fn next(&self) -> Result<u64> {
        self.validity.check()?;
        let id = self.clock.next()?;
        self.validity.check_time(self.time_of(id)?)?;
        Ok(id)
    }

    /// Fills `ids` with consecutive flake ids from one read of the time,
    /// if the lease holds; on an error none of them may be used.
    pub fn fill(&self, ids: &mut [u64]) -> Result<()> {
        self.validity.check()?;
        self.clock.fill(ids)?;
        match ids.last() {
            Some(&last) => self.validity.check_time(self.time_of(last)?),
            None => Ok(()),
        }
    }

    /// Whether ids may be issued now.
    pub fn check(&self) -> Result<()> {
        self.validity.check()
    }

    /// The layout of the ids.
    pub fn layout(&self) -> Layout {
        self.clock.layout()
    }

    /// The leased node id stamped on the ids.
    pub fn node(&self) -> u64 {
        self.clock.node()
    }

    /// Unix ns of the start of the id's time unit.
    fn time_of(&self, id: u64) -> Result<u64> {
        Ok(unix_nanos(self.clock.layout().time_of(id)?))
    }
}
