//! Flake (snowflake) clocks that stamp a leased node id and issue ids only
//! while the lease holds.

use std::time::{Duration, SystemTime};

use guid::flake::{self, Layout};
use guid::{nanos, unix_nanos};

use crate::error::{Error, Result};
use crate::lease::NodeLease;
use crate::leased::{Fenceable, Leased};

/// How long [`LeasedFlakeClock::pace`] waits for a horizon being stored:
/// about one etcd round trip.
const HORIZON_WAIT: Duration = Duration::from_millis(1);

/// A [`flake::Clock`] with the leased node id as its node (worker) id,
/// started after the previous holder's horizon, that checks the lease
/// before every id (see [`LeasedClock`](crate::LeasedClock) for the
/// errors; in a forked child it returns [`Error::Forked`]).
#[derive(Debug)]
pub struct LeasedFlakeClock {
    leased: Leased<flake::Clock>,
}

impl Fenceable for flake::Clock {
    type Builder = flake::Builder;
    type Id = u64;

    fn build(builder: flake::Builder, node: u32, not_before: SystemTime) -> Result<flake::Clock> {
        Ok(builder
            .node(u64::from(node))
            .not_before(not_before)
            .build()?)
    }

    #[inline]
    fn issue(&self) -> Result<u64> {
        Ok(self.next()?)
    }

    fn issue_all(&self, ids: &mut [u64]) -> Result<()> {
        Ok(self.fill(ids)?)
    }

    /// The start of the id's time unit.
    #[inline]
    fn unix_time(&self, id: u64) -> Result<u64> {
        Ok(unix_nanos(self.layout().time_of(id)?))
    }
}

impl NodeLease {
    /// A [`LeasedFlakeClock`] from `builder` (layout, time source, lead);
    /// the lease sets the node id and a not-before time. The lease's range
    /// must fit the layout's node bits, or this fails with
    /// [`Error::Id`](crate::Error::Id).
    pub async fn flake_clock(&self, builder: flake::Builder) -> Result<LeasedFlakeClock> {
        let leased = self.leased(builder).await?;
        Ok(LeasedFlakeClock { leased })
    }
}

impl LeasedFlakeClock {
    /// A new flake id, if the lease holds.
    #[inline]
    pub fn next(&self) -> Result<u64> {
        self.leased.next()
    }

    /// Fills `ids` with consecutive flake ids from one read of the time,
    /// if the lease holds; on an error none of them may be used.
    pub fn fill(&self, ids: &mut [u64]) -> Result<()> {
        self.leased.fill(ids)
    }

    /// Whether ids may be issued now.
    pub fn check(&self) -> Result<()> {
        self.leased.check()
    }

    /// How long to wait before [`LeasedFlakeClock::fill`] of `n` ids, so
    /// that it neither sleeps nor is refused at the horizon: while the ids
    /// would pass the stored horizon, a short wait for the next one (asked
    /// for at once), else the clock's own [`flake::Clock::pace`]. Zero when
    /// the fill would be refused for another reason, which it reports.
    pub fn pace(&self, n: usize) -> Duration {
        let Leased {
            clock, validity, ..
        } = &self.leased;
        if n == 0 || validity.check().is_err() {
            return Duration::ZERO;
        }
        // The time of the last id if the source is not ahead of the clock:
        // the fill carries from the last id, one unit per full sequence.
        let layout = clock.layout();
        let units = (n as u64 >> layout.seq_bits()) + 1;
        let last = unix_nanos(clock.last_time())
            .saturating_add(units.saturating_mul(nanos(layout.unit())));
        match validity.check_time(last) {
            Err(Error::Horizon) => HORIZON_WAIT,
            _ => clock.pace(n),
        }
    }

    /// The clock inside, for what it reports ([`flake::Clock::last_time`],
    /// [`flake::Clock::health`]); ids taken from it directly skip the
    /// lease's checks.
    pub fn clock(&self) -> &flake::Clock {
        &self.leased.clock
    }

    /// The layout of the ids.
    pub fn layout(&self) -> Layout {
        self.leased.clock.layout()
    }

    /// The leased node id stamped on the ids.
    pub fn node(&self) -> u64 {
        u64::from(self.leased.node)
    }
}
