//! What every clock of this crate is to the code that runs it: a lease that
//! fences its ids by time, a server that serves them.

use std::fmt;
use std::time::{Duration, SystemTime};

use crate::error::Result;
use crate::health::Health;

/// A clock that issues strictly increasing ids of one kind and can be
/// built again to resume after a time.
///
/// [`Clock`](crate::Clock) and [`v3::Clock`](crate::v3::Clock) (their
/// global ids) and [`flake::Clock`](crate::flake::Clock) implement it, so
/// one generic wrapper serves or fences any of them: the time of the
/// clock's last id is saved (in a file, in etcd), and a clock built with
/// [`IdClock::resume`] after that time never repeats an id.
///
/// ```
/// use guid::IdClock;
/// use guid::flake::{self, Layout};
///
/// /// Ids of `C` across a restart, as a server with a state file makes them.
/// fn across_a_restart<C: IdClock>(builder: C::Builder) -> guid::Result<(C::Id, C::Id)> {
///     let before = C::resume(builder.clone(), 7, std::time::UNIX_EPOCH)?;
///     let last = before.next()?;
///     let saved = before.last_time();
///     let after = C::resume(builder, 7, saved)?;
///     Ok((last, after.next()?))
/// }
///
/// let (a, b) = across_a_restart::<flake::Clock>(flake::Clock::builder(Layout::NOEQD))?;
/// assert!(b > a);
/// let (a, b) = across_a_restart::<guid::Clock>(guid::Clock::builder())?;
/// assert!(b > a);
/// # Ok::<(), guid::Error>(())
/// ```
pub trait IdClock: Send + Sync + Sized {
    /// The ids it issues.
    type Id: Copy + Ord + Default + Send + Sync + fmt::Debug;
    /// What configures it (all but its node and its start).
    type Builder: Clone + Send + Sync;

    /// The clock `builder` makes, with node id `node` (replacing the
    /// builder's), issuing only ids later than every id at or before
    /// `not_before`. Fails if the node does not fit the ids, if
    /// `not_before` leaves no id to issue, or for an inverse clock, whose
    /// ids decrease ([`ErrorKind::Inverse`](crate::ErrorKind::Inverse)).
    fn resume(builder: Self::Builder, node: u64, not_before: SystemTime) -> Result<Self>;

    /// One new id, later than every id this clock issued before.
    fn next(&self) -> Result<Self::Id> {
        let mut one = [Self::Id::default()];
        self.fill(&mut one)?;
        Ok(one[0])
    }

    /// Fills `ids` with consecutive ids from one read of the time, each
    /// later than every id issued before; untouched on error.
    fn fill(&self, ids: &mut [Self::Id]) -> Result<()>;

    /// One new id: [`IdClock::next`], the verb every clock uses.
    #[deprecated(note = "renamed `next`")]
    fn issue(&self) -> Result<Self::Id> {
        self.next()
    }

    /// Fills `ids`: [`IdClock::fill`], the verb every clock uses.
    #[deprecated(note = "renamed `fill`")]
    fn issue_all(&self, ids: &mut [Self::Id]) -> Result<()> {
        self.fill(ids)
    }

    /// The time `id` carries: the start of its tick or time unit.
    fn time_of(&self, id: Self::Id) -> Result<SystemTime>;

    /// Every id issued so far, and the start bound, is at or before this
    /// time: what to save so that [`IdClock::resume`] never repeats an id.
    fn last_time(&self) -> SystemTime;

    /// How long [`IdClock::fill`] of `n` ids would wait for the time
    /// source if called now; zero for clocks that never wait.
    fn pace(&self, n: usize) -> Duration {
        let _ = n;
        Duration::ZERO
    }

    /// How far past [`IdClock::last_time`] a fill of `n` ids can carry
    /// when the source is not ahead of the clock: one tick or unit more
    /// for each full sequence.
    fn reach(&self, n: usize) -> Duration;

    /// The rare events met so far.
    fn health(&self) -> Health;

    /// The node id stamped on the ids.
    fn node(&self) -> u64;
}

impl IdClock for crate::flake::Clock {
    type Id = u64;
    type Builder = crate::flake::Builder;

    fn resume(builder: Self::Builder, node: u64, not_before: SystemTime) -> Result<Self> {
        builder.node(node).not_before(not_before)?.build()
    }

    #[inline]
    fn next(&self) -> Result<u64> {
        crate::flake::Clock::next(self)
    }

    #[inline]
    fn fill(&self, ids: &mut [u64]) -> Result<()> {
        crate::flake::Clock::fill(self, ids)
    }

    fn time_of(&self, id: u64) -> Result<SystemTime> {
        self.layout().time_of(id)
    }

    fn last_time(&self) -> SystemTime {
        crate::flake::Clock::last_time(self)
    }

    fn pace(&self, n: usize) -> Duration {
        crate::flake::Clock::pace(self, n)
    }

    fn reach(&self, n: usize) -> Duration {
        let layout = self.layout();
        let units = ((n as u64) >> layout.seq_bits()) + 1;
        Duration::from_nanos(units.saturating_mul(crate::nanos(layout.unit())))
    }

    fn health(&self) -> Health {
        crate::flake::Clock::health(self)
    }

    fn node(&self) -> u64 {
        crate::flake::Clock::node(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::MockTime;
    use crate::flake::Layout;
    use std::time::UNIX_EPOCH;

    const T0: u64 = 1_700_000_000_000_000_000;

    /// `last_time` covers every id issued, and a clock resumed after it
    /// issues only later ids, for each clock.
    fn resumes_after_its_last_time<C: IdClock>(builder: C::Builder) {
        let clock = C::resume(builder.clone(), 5, UNIX_EPOCH).unwrap();
        let mut ids = vec![C::Id::default(); 300];
        clock.fill(&mut ids).unwrap();
        let last = *ids.iter().max().unwrap();
        assert!(clock.time_of(last).unwrap() <= clock.last_time());
        assert_eq!(clock.node(), 5);
        let resumed = C::resume(builder, 5, clock.last_time()).unwrap();
        assert!(resumed.next().unwrap() > last);
    }

    #[test]
    fn every_clock_resumes_after_its_last_time() {
        let time = MockTime::new(T0);
        resumes_after_its_last_time::<crate::Clock>(crate::Clock::builder().time(time.clone()));
        resumes_after_its_last_time::<crate::v3::Clock>(
            crate::v3::Clock::builder().time(time.clone()),
        );
        resumes_after_its_last_time::<crate::flake::Clock>(
            crate::flake::Clock::builder(Layout::new(45, 10, 8).unwrap()).time(time),
        );
    }

    #[test]
    fn an_inverse_clock_is_refused() {
        let err =
            <crate::Clock as IdClock>::resume(crate::Clock::builder().inverse(), 1, UNIX_EPOCH)
                .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Inverse);
        let err = <crate::Clock as IdClock>::resume(crate::Clock::builder(), 1 << 32, UNIX_EPOCH)
            .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Part { name: "node", .. }));
    }
}
