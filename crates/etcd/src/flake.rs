//! Flake (snowflake) clocks that stamp a leased node id and issue ids only
//! while the lease holds.

use std::sync::Arc;
use std::time::Duration;

use guid::flake::{self, Layout};

use crate::error::{Error, Result};
use crate::lease::NodeLease;
use crate::validity::{Validity, nanos, unix_nanos};

/// How long [`LeasedFlakeClock::pace`] waits for a horizon being stored:
/// about one etcd round trip.
const HORIZON_WAIT: Duration = Duration::from_millis(1);

/// A [`flake::Clock`] with the leased node id as its node (worker) id,
/// started after the previous holder's horizon, that checks the lease
/// before every id (see [`LeasedClock`](crate::LeasedClock) for the
/// errors; in a forked child it returns [`Error::Forked`]).
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
        self.check_fork()?;
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

    /// How long to wait before [`LeasedFlakeClock::fill`] of `n` ids, so
    /// that it neither sleeps nor is refused at the horizon: while the ids
    /// would pass the stored horizon, a short wait for the next one (asked
    /// for at once), else the clock's own [`flake::Clock::pace`]. Zero when
    /// the fill would be refused for another reason, which it reports.
    pub fn pace(&self, n: usize) -> Duration {
        if n == 0 || self.validity.check().is_err() {
            return Duration::ZERO;
        }
        // The time of the last id if the source is not ahead of the clock:
        // the fill carries from the last id, one unit per full sequence.
        let layout = self.clock.layout();
        let units = (n as u64 >> layout.seq_bits()) + 1;
        let last = unix_nanos(self.clock.last_time())
            .saturating_add(units.saturating_mul(nanos(layout.unit())));
        match self.validity.check_time(last) {
            Err(Error::Horizon) => HORIZON_WAIT,
            _ => self.clock.pace(n),
        }
    }

    /// The clock inside, for what it reports ([`flake::Clock::last_time`],
    /// [`flake::Clock::health`]); ids taken from it directly skip the
    /// lease's checks.
    pub fn clock(&self) -> &flake::Clock {
        &self.clock
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
