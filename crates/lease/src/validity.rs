//! When a lease holder may issue ids: the lock-free state that the
//! keep-alive task writes and every id check reads.
//!
//! Two independent guards, so that either alone keeps ids unique:
//!
//! - the **deadline** (monotonic): the send time of the last renewal (or
//!   claim) that the store confirmed, plus the TTL, less the safety
//!   margin. The store cannot expire the lease (and so cannot grant the
//!   node id to anyone else) before the send time plus the TTL; the holder
//!   stops at the margin before that.
//! - the **quiet** (monotonic): when the store found no fence and could
//!   not vouch for the node id, no id before the claim's answer plus the
//!   store's [`quiet`](crate::store::Claimed::quiet), by when any holder
//!   the store forgot has reached its deadline.
//! - the **horizon** (Unix time): the latest time stored in the fence
//!   while this holder owned the claim. The next holder of the node id
//!   starts after it, so an id is issued only if its time is not past it.
//!   It is raised only once the store holds a fence at least as high.
//!
//! In a forked child the lease is the parent's: every check refuses.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use guid::nanos;
use guid_horizon::Rule;
use tokio::sync::Notify;

use crate::error::{Error, Result};

const LIVE: u8 = 0;
const LOST: u8 = 1;
const RELEASED: u8 = 2;

/// The shared state of one lease.
#[derive(Debug)]
pub(crate) struct Validity {
    base: Instant,
    /// Nanoseconds after `base` from which ids are held back.
    deadline: AtomicU64,
    /// Nanoseconds after `base` before which ids are held back.
    quiet: u64,
    /// Unix ns: no id may carry a later time; the store's fence is at least this.
    horizon: AtomicU64,
    /// Unix ns: the latest time a clock of this lease wanted near the horizon.
    wanted: AtomicU64,
    ended: AtomicU8,
    /// How far ahead of the ids the horizon is kept, and when it moves: a
    /// span of 0, for every id's own time is checked against the horizon
    /// ([`Validity::check_time`]) before it goes out.
    rule: Rule,
    /// Wakes the keep-alive task early when ids near the horizon.
    pub(crate) nudge: Notify,
    /// The process that holds the lease.
    forks: guid::ForkGuard,
}

impl Validity {
    /// A lease valid from `quiet` until `deadline` with `horizon` stored.
    pub(crate) fn new(
        quiet: Instant,
        deadline: Instant,
        horizon: u64,
        ahead: Duration,
    ) -> Validity {
        let base = Instant::now();
        let v = Validity {
            base,
            deadline: AtomicU64::new(0),
            quiet: nanos(quiet.saturating_duration_since(base)),
            horizon: AtomicU64::new(horizon),
            wanted: AtomicU64::new(0),
            ended: AtomicU8::new(LIVE),
            rule: Rule::new(0, nanos(ahead)),
            nudge: Notify::new(),
            forks: guid::ForkGuard::new(),
        };
        v.extend(deadline);
        v
    }

    /// Moves the deadline to `deadline` if that is later.
    pub(crate) fn extend(&self, deadline: Instant) {
        let ns = nanos(deadline.saturating_duration_since(self.base));
        self.deadline.fetch_max(ns, Relaxed);
    }

    /// The instant from which ids are held back.
    pub(crate) fn deadline(&self) -> Instant {
        self.base + Duration::from_nanos(self.deadline.load(Relaxed))
    }

    /// Records a horizon that the store holds (never one it does not).
    pub(crate) fn store_horizon(&self, ns: u64) {
        self.horizon.fetch_max(ns, Relaxed);
    }

    /// The stored horizon, Unix ns.
    pub(crate) fn horizon(&self) -> u64 {
        self.horizon.load(Relaxed)
    }

    /// Whether a clock starting at `start` should have the horizon moved
    /// first: the stored one is less than half the reserve past it.
    pub(crate) fn due(&self, start: u64) -> bool {
        self.rule.due(self.horizon(), start)
    }

    /// The horizon to ask for next: `ahead` past both `now` and the latest
    /// time a clock wanted, never below the one stored.
    pub(crate) fn next_horizon(&self, now: u64) -> u64 {
        self.rule
            .next(self.horizon(), now.max(self.wanted.load(Relaxed)))
    }

    /// How much of the quiet is left, if any.
    pub(crate) fn quiet_left(&self) -> Option<Duration> {
        let elapsed = nanos(self.base.elapsed());
        (elapsed < self.quiet).then(|| Duration::from_nanos(self.quiet - elapsed))
    }

    /// Marks the lease lost in the store; final.
    pub(crate) fn lose(&self) {
        let _ = self.ended.compare_exchange(LIVE, LOST, Relaxed, Relaxed);
        self.nudge.notify_one();
    }

    /// Marks the lease given up by its holder; final.
    pub(crate) fn release(&self) {
        let _ = self
            .ended
            .compare_exchange(LIVE, RELEASED, Relaxed, Relaxed);
        self.nudge.notify_one();
    }

    /// Whether the lease has ended (lost or released).
    pub(crate) fn ended(&self) -> bool {
        self.ended.load(Relaxed) != LIVE
    }

    /// Whether this process is a forked child of the lease's holder.
    #[inline]
    pub(crate) fn forked(&self) -> bool {
        self.forks.forked()
    }

    /// May ids be issued at `now`?
    #[inline]
    pub(crate) fn check_at(&self, now: Instant) -> Result<()> {
        if self.forked() {
            return Err(Error::Forked);
        }
        if self.ended() {
            return Err(Error::Lost);
        }
        let elapsed = nanos(now.saturating_duration_since(self.base));
        if elapsed >= self.deadline.load(Relaxed) {
            return Err(Error::Expired);
        }
        if elapsed < self.quiet {
            let left = Duration::from_nanos(self.quiet - elapsed);
            return Err(Error::Unfenced { left });
        }
        Ok(())
    }

    /// May ids be issued now?
    #[inline]
    pub(crate) fn check(&self) -> Result<()> {
        self.check_at(Instant::now())
    }

    /// May an id carrying time `t` (Unix ns) be issued? Ids past half the
    /// look-ahead ask the keep-alive task to move the horizon early.
    #[inline]
    pub(crate) fn check_time(&self, t: u64) -> Result<()> {
        let horizon = self.horizon();
        if self.rule.due(horizon, t) {
            self.want(t);
        }
        if !self.rule.covers(horizon, t) {
            return Err(Error::Horizon);
        }
        Ok(())
    }

    /// Asks for a horizon past `t`.
    pub(crate) fn want(&self, t: u64) {
        if self.wanted.fetch_max(t, Relaxed) < t {
            self.nudge.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn ids_stop_at_the_deadline_and_resume_when_it_moves() {
        let start = Instant::now();
        let v = Validity::new(start, start + 100 * MS, 0, MS);
        assert!(v.check_at(start).is_ok());
        assert!(v.check_at(start + 99 * MS).is_ok());
        assert!(matches!(v.check_at(start + 100 * MS), Err(Error::Expired)));
        v.extend(start + 50 * MS); // an older confirmation never shortens it
        assert!(v.check_at(start + 99 * MS).is_ok());
        v.extend(start + 300 * MS);
        assert!(v.check_at(start + 250 * MS).is_ok());
        assert_eq!(v.deadline(), start + 300 * MS);
    }

    #[test]
    fn an_unfenced_claim_issues_nothing_until_its_quiet_ends() {
        let start = Instant::now();
        let v = Validity::new(start + 40 * MS, start + 100 * MS, 0, MS);
        match v.check_at(start + 10 * MS) {
            Err(Error::Unfenced { left }) => assert_eq!(left, 30 * MS),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            v.check_at(start + 40 * MS - Duration::from_nanos(1)),
            Err(Error::Unfenced { .. })
        ));
        assert!(v.check_at(start + 40 * MS).is_ok());
        // A quiet longer than the lease: the deadline is reported first.
        let w = Validity::new(start + 200 * MS, start + 100 * MS, 0, MS);
        assert!(matches!(w.check_at(start + 150 * MS), Err(Error::Expired)));
    }

    #[test]
    fn an_ended_lease_never_issues_again() {
        let start = Instant::now();
        let v = Validity::new(start, start + Duration::from_secs(60), 0, MS);
        v.lose();
        v.extend(start + Duration::from_secs(600));
        assert!(matches!(v.check_at(start), Err(Error::Lost)));
        let r = Validity::new(start, start + Duration::from_secs(60), 0, MS);
        r.release();
        assert!(matches!(r.check(), Err(Error::Lost)));
    }

    #[test]
    fn ids_past_the_horizon_are_refused_and_ask_for_more() {
        let ahead = Duration::from_secs(1);
        let now = Instant::now();
        let v = Validity::new(now, now + ahead, 10_000_000_000, ahead);
        assert!(v.check_time(9_000_000_000).is_ok());
        assert_eq!(v.next_horizon(1_000), 10_000_000_000, "never lowered");
        assert!(v.check_time(10_000_000_000).is_ok());
        assert!(matches!(v.check_time(10_000_000_001), Err(Error::Horizon)));
        // The refused time is asked for, one look-ahead past it.
        assert_eq!(v.next_horizon(1_000), 11_000_000_001);
        v.store_horizon(11_000_000_001);
        v.store_horizon(5); // a stale store never lowers it
        assert!(v.check_time(10_000_000_001).is_ok());
        assert_eq!(v.horizon(), 11_000_000_001);
    }

    /// An id within half the look-ahead of the horizon asks for a new one;
    /// one before does not.
    #[test]
    fn ids_ask_for_more_from_half_the_look_ahead() {
        let ahead = Duration::from_secs(1);
        let now = Instant::now();
        let v = Validity::new(now, now + ahead, 10_000_000_000, ahead);
        assert!(v.check_time(9_500_000_000).is_ok());
        assert_eq!(v.wanted.load(Relaxed), 0);
        assert!(v.check_time(9_500_000_001).is_ok());
        assert_eq!(v.wanted.load(Relaxed), 9_500_000_001);
        assert_eq!(v.next_horizon(1_000), 10_500_000_001);
    }
}
