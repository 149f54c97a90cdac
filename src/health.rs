//! The rare events a clock meets, counted off its common path.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::Duration;

use crate::sync::AtomicU64;

/// The rare events a clock has met, read with `health()` on the global
/// [`Clock`](crate::Clock) and the [flake clock](crate::flake::Clock).
///
/// Counting them costs the common path nothing: a counter is written only
/// when its event happens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Health {
    /// How often the source was found behind a time it had shown before (or
    /// behind the clock's not-before bound): the system clock stepped back.
    pub steps_back: u64,
    /// The largest such step.
    pub max_step_back: Duration,
    /// Time units the clock borrowed ahead of its source because the
    /// sequence of a unit ran out.
    pub borrowed: u64,
    /// The largest lead of an issued id's time over the source's, read
    /// again once the id is taken: a thread that waited (preempted)
    /// between reading the source and taking its id, whose id other
    /// threads' readings placed, made no lead.
    pub max_lead: Duration,
    /// Calls that waited for the source because borrowing further would
    /// have passed the clock's bound on its lead (the flake clock only; the
    /// global clock never waits).
    pub waits: u64,
}

/// The latest source unit a clock has seen, and its counters of rare
/// events. Units are the clock's time unit, counted forward.
/// Aligned to a cache line of its own, apart from the clock's state word.
#[repr(align(64))]
pub(crate) struct Watch {
    /// Written once per unit, not per id.
    seen: AtomicU64,
    steps_back: AtomicU64,
    /// The `seen` value of the last step back counted, so that one step is
    /// counted once however many ids are made before the source is back.
    step_mark: AtomicU64,
    max_step: AtomicU64,
    borrowed: AtomicU64,
    max_lead: AtomicU64,
    waits: AtomicU64,
}

impl Watch {
    /// A watch that has seen unit `seen` (a not-before bound).
    pub(crate) fn new(seen: u64) -> Watch {
        let zero = || AtomicU64::new(0);
        Watch {
            seen: AtomicU64::new(seen),
            steps_back: zero(),
            step_mark: zero(),
            max_step: zero(),
            borrowed: zero(),
            max_lead: zero(),
            waits: zero(),
        }
    }

    /// The last unit seen; read before the source, so that a reading
    /// another thread published is never mistaken for a step back.
    #[inline]
    pub(crate) fn seen(&self) -> u64 {
        self.seen.load(Acquire)
    }

    /// Notes the source's unit `now` against `seen` (from [`Watch::seen`]);
    /// true when the source is behind it.
    #[inline]
    pub(crate) fn observe(&self, seen: u64, now: u64) -> bool {
        if now > seen {
            self.seen.fetch_max(now, Release);
        } else if now < seen {
            self.stepped_back(seen, now);
            return true;
        }
        false
    }

    #[cold]
    fn stepped_back(&self, seen: u64, now: u64) {
        if self.step_mark.load(Relaxed) != seen && self.step_mark.swap(seen, Relaxed) != seen {
            self.steps_back.fetch_add(1, Relaxed);
        }
        let step = seen - now;
        if step > self.max_step.load(Relaxed) {
            self.max_step.fetch_max(step, Relaxed);
        }
    }

    /// Whether a lead of `lead` units is recorded already (one no longer).
    #[inline]
    pub(crate) fn led(&self, lead: u64) -> bool {
        lead <= self.max_lead.load(Relaxed)
    }

    /// Records ids issued up to `last_unit`, ahead of the source's `now`:
    /// units borrowed past both the previous id's and the source's, and
    /// the largest lead.
    #[cold]
    pub(crate) fn ran_ahead(&self, prev_unit: u64, now: u64, last_unit: u64) {
        let base = prev_unit.max(now);
        if last_unit > base {
            self.borrowed.fetch_add(last_unit - base, Relaxed);
        }
        let lead = last_unit - now;
        if lead > self.max_lead.load(Relaxed) {
            self.max_lead.fetch_max(lead, Relaxed);
        }
    }

    /// Records a call that waited for the source.
    #[cold]
    pub(crate) fn waited(&self) {
        self.waits.fetch_add(1, Relaxed);
    }

    /// The counters, with units of `unit_ns` nanoseconds.
    pub(crate) fn health(&self, unit_ns: u64) -> Health {
        let span =
            |units: &AtomicU64| Duration::from_nanos(units.load(Relaxed).saturating_mul(unit_ns));
        Health {
            steps_back: self.steps_back.load(Relaxed),
            max_step_back: span(&self.max_step),
            borrowed: self.borrowed.load(Relaxed),
            max_lead: span(&self.max_lead),
            waits: self.waits.load(Relaxed),
        }
    }
}
