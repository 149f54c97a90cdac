//! What both leased clocks share: how a clock is started behind the
//! previous holder's horizon, and the checks around every id it issues.
//! [`LeasedClock`](crate::LeasedClock) and
//! [`LeasedFlakeClock`](crate::LeasedFlakeClock) only adapt their inner
//! clock to [`Fenceable`] and name their methods.

use std::sync::Arc;
use std::time::SystemTime;

use crate::error::Result;
use crate::lease::NodeLease;
use crate::validity::Validity;

/// A clock that a lease can fence: built with the leased node id and a
/// not-before time, and able to tell the time of the ids it issues, which
/// the horizon bounds.
pub(crate) trait Fenceable: Sized {
    /// What configures the clock.
    type Builder;
    /// What the clock issues.
    type Id: Copy;

    /// The clock from `builder`, with `node` and `not_before` replacing
    /// any the builder had, or why it cannot be fenced.
    fn build(builder: Self::Builder, node: u32, not_before: SystemTime) -> Result<Self>;

    /// One id, without the lease's checks.
    fn issue(&self) -> Result<Self::Id>;

    /// Consecutive ids from one read of the time, without the lease's
    /// checks.
    fn issue_all(&self, ids: &mut [Self::Id]) -> Result<()>;

    /// The time of `id`, Unix ns.
    fn unix_time(&self, id: Self::Id) -> Result<u64>;
}

/// A clock with a leased node id that checks the lease around every id.
#[derive(Debug)]
pub(crate) struct Leased<C> {
    pub(crate) clock: C,
    pub(crate) validity: Arc<Validity>,
    /// Kept here so that reading it never reaches the clock, which in a
    /// forked child refuses to run with a chosen node.
    pub(crate) node: u32,
}

impl NodeLease {
    /// A clock from `builder` with this lease's node id, started after the
    /// previous holder's horizon. The horizon is moved past where the
    /// clock starts before it is returned, so a clock whose source runs
    /// ahead issues at once.
    pub(crate) async fn leased<C: Fenceable>(&self, builder: C::Builder) -> Result<Leased<C>> {
        // A forked child is refused before anything is built or spent.
        self.check_fork()?;
        let clock = C::build(builder, self.node(), self.not_before())?;
        // Where the clock starts: the time of one id, spent to read it.
        let start = clock.unix_time(clock.issue()?)?;
        self.cover(start).await?;
        Ok(Leased {
            clock,
            validity: self.validity().clone(),
            node: self.node(),
        })
    }
}

impl<C: Fenceable> Leased<C> {
    /// A new id, if the lease holds and the id's time is within the
    /// horizon.
    #[inline]
    pub(crate) fn next(&self) -> Result<C::Id> {
        self.validity.check()?;
        let id = self.clock.issue()?;
        self.validity.check_time(self.clock.unix_time(id)?)?;
        Ok(id)
    }

    /// Fills `ids` from one read of the time, if the lease holds; on an
    /// error none of them may be used. Checking the last id is enough:
    /// the ids increase.
    pub(crate) fn fill(&self, ids: &mut [C::Id]) -> Result<()> {
        self.validity.check()?;
        self.clock.issue_all(ids)?;
        match ids.last() {
            Some(&last) => self.validity.check_time(self.clock.unix_time(last)?),
            None => Ok(()),
        }
    }

    /// Whether ids may be issued now.
    #[inline]
    pub(crate) fn check(&self) -> Result<()> {
        self.validity.check()
    }
}
