//! One leased clock for every clock of the `guid` crate: started behind
//! the previous holder's horizon, with the lease's checks around every id.
//! [`LeasedClock`](crate::LeasedClock) and
//! [`LeasedFlakeClock`](crate::LeasedFlakeClock) are two of its kinds.

use std::sync::Arc;
use std::time::Duration;

use guid::{IdClock, unix_nanos};

use crate::error::{Error, Result};
use crate::lease::NodeLease;
use crate::validity::Validity;

/// How long [`Leased::pace`] waits for a horizon being stored: about one
/// store round trip.
const HORIZON_WAIT: Duration = Duration::from_millis(1);

/// A clock `C` with a leased node id, started after the previous holder's
/// horizon, that checks the lease before every id.
///
/// Each id costs the clock's own compare-and-swap plus a read of the
/// monotonic clock and four relaxed loads. An id is refused, with a typed
/// error, when the lease is not confirmed within its margin
/// ([`Error::Expired`](crate::Error::Expired), may recover), is gone
/// ([`Error::Lost`](crate::Error::Lost)), or when its time would pass the
/// stored horizon ([`Error::Horizon`](crate::Error::Horizon), brief).
///
/// In a forked child every method returns
/// [`Error::Forked`](crate::Error::Forked) or the leased node: none
/// reaches the clock inside, which refuses there (its node was chosen, by
/// the lease).
#[derive(Debug)]
pub struct Leased<C> {
    pub(crate) clock: C,
    pub(crate) validity: Arc<Validity>,
    /// Kept here so that reading it never reaches the clock.
    node: u32,
}

impl NodeLease {
    /// A clock from `builder` with this lease's node id, started after the
    /// previous holder's horizon (both replace any the builder had). The
    /// horizon is moved past where the clock starts before it is returned,
    /// so a clock whose source runs ahead issues at once. Fails if the
    /// node does not fit the clock's ids, or for an inverse clock, whose
    /// decreasing ids no horizon can bound.
    pub async fn leased<C: IdClock>(&self, builder: C::Builder) -> Result<Leased<C>> {
        // A forked child is refused before anything is built or spent.
        self.check_fork()?;
        let clock = C::resume(builder, u64::from(self.node()), self.not_before())?;
        // Where the clock starts: the time of one id, spent to read it.
        let start = unix_nanos(clock.time_of(clock.next()?)?);
        self.cover(start).await?;
        Ok(Leased {
            clock,
            validity: self.validity().clone(),
            node: self.node(),
        })
    }
}

impl<C: IdClock> Leased<C> {
    /// A new id, if the lease holds and the id's time is within the
    /// horizon.
    #[inline]
    pub fn next(&self) -> Result<C::Id> {
        self.validity.check()?;
        let id = self.clock.next()?;
        self.validity
            .check_time(unix_nanos(self.clock.time_of(id)?))?;
        Ok(id)
    }

    /// Fills `ids` with consecutive ids from one read of the time, if the
    /// lease holds; on an error none of them may be used. Checking the
    /// last id is enough: the ids increase.
    pub fn fill(&self, ids: &mut [C::Id]) -> Result<()> {
        self.validity.check()?;
        self.clock.fill(ids)?;
        match ids.last() {
            Some(&last) => self
                .validity
                .check_time(unix_nanos(self.clock.time_of(last)?)),
            None => Ok(()),
        }
    }

    /// Whether ids may be issued now.
    #[inline]
    pub fn check(&self) -> Result<()> {
        self.validity.check()
    }

    /// How long to wait before [`Leased::fill`] of `n` ids, so that it
    /// neither sleeps nor is refused at the horizon: while the ids would
    /// pass the stored horizon, a short wait for the next one (asked for
    /// at once), else the clock's own [`IdClock::pace`]. Zero when the fill
    /// would be refused for another reason, which it reports.
    pub fn pace(&self, n: usize) -> Duration {
        if n == 0 || self.validity.check().is_err() {
            return Duration::ZERO;
        }
        // The time of the last id if the source is not ahead of the clock.
        let last =
            unix_nanos(self.clock.last_time()).saturating_add(guid::nanos(self.clock.reach(n)));
        match self.validity.check_time(last) {
            Err(Error::Horizon) => HORIZON_WAIT,
            _ => self.clock.pace(n),
        }
    }
}

impl<C> Leased<C> {
    /// The leased node id stamped on the ids.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// The clock inside, for what it reports ([`IdClock::last_time`],
    /// [`IdClock::health`]); ids taken from it directly skip the lease's
    /// checks.
    pub fn clock(&self) -> &C {
        &self.clock
    }
}
