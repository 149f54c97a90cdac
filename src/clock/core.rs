//! The state machine of every clock in this crate: one word `unit << S |
//! seq` that only ever moves forward, installed with one compare-and-swap
//! (or, while it is at or past the source's unit, advanced with one
//! `fetch_add`),
//! and the node it stamps.
//!
//! [`Core`] is the machine, parameterised by its [`Units`]: how many
//! sequence bits, what a unit of time is, where the range ends, the first
//! sequence of a unit and whether the lead of borrowed units is bounded.
//! The 96-bit clocks ([`Clock`](super::Clock) of each [`Generation`](super::Generation))
//! give it compile-time constants (ticks of 2^17 ns, 14
//! sequence bits, no bound); the flake clock gives it its runtime
//! [`Layout`](crate::flake::Layout) and max lead. Steps back, stalls,
//! borrowing ahead (and waiting past a bounded lead), forks, the end of the
//! range, starts in the future and health are here, once; each clock only
//! reacts in its documented way to what the machine reports (a fork, the
//! end of the range) and packs its states into its ids.
//!
//! The machine counts forward. An inverse clock runs the same machine on
//! the same forward time and issues the mirror of its states, `max_state -
//! state`: the `max` of the forward clock is the inverse clock's `min`.

use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::fork;
use crate::health::{Health, Watch};
use crate::sync::{AtomicBool, AtomicU32, AtomicU64};
use crate::time::Source;

/// The most ids one `fetch_add` takes, and half the room it needs before
/// the end of the range, which it cannot check first: the calls that read
/// "far from the end" before one of them saw otherwise can take no more
/// than this between them (their ids would fill 128 TiB of memory), so the
/// state never runs past the end that way. Nearer the end a load and a CAS
/// take the ids or refuse, leaving the state as it was. (A source jumping
/// to within `2 * FAST_ROOM` states of the end while such calls are in
/// flight may see the clock used up that many states early: never a
/// repeat.)
const FAST_ROOM: u64 = 1 << 44;

/// A clock on a [`Ticker`](crate::Ticker) reads its source itself each
/// time its state crosses a multiple of this (1,024 states): callers that
/// take ids that fast keep the reading fresh and spare the ticker's thread
/// its wake-ups.
const REFRESH: u64 = 1 << 10;

/// The longest single nap of a clock that waits for its source.
#[cfg(not(loom))]
const MAX_NAP: Duration = Duration::from_millis(1);

/// What the state word of a clock means: the only parameters of [`Core`].
/// Units count forward from the clock's epoch; a 96-bit generation answers
/// with constants, the flake clock with its layout.
pub(crate) trait Units {
    /// Whether a clock of these units can be inverse: `false` (the flake
    /// clock) leaves the mirror out of its machine at compile time.
    const CAN_INVERT: bool;
    /// Bits of the sequence, below the unit.
    fn seq_bits(&self) -> u32;
    /// The unit of Unix time `ns`, counted forward (past the range's last
    /// unit, the clock is used up).
    fn unit_of(&self, ns: u64) -> u64;
    /// The start of `unit`, Unix ns (for a wait).
    fn start_of(&self, unit: u64) -> u64;
    /// Nanoseconds per unit (for health).
    fn unit_ns(&self) -> u64;
    /// The last state of the range: its last unit's last sequence.
    fn max_state(&self) -> u64;
    /// The sequence of a forward clock's first id in a unit it has not
    /// issued in.
    fn first_seq(&self) -> u64;
    /// How many units ids may run ahead of the reference (the latest unit
    /// the source has shown, or the not-before bound) before the clock
    /// waits for its source; `None` borrows without bound and never waits.
    fn max_lead(&self) -> Option<u64>;
}

/// The machine's report that the range has no room for the ids asked for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UsedUp {
    /// The unit asked for: the source's, if it is past the range.
    pub(crate) unit: u64,
}

/// The machine's report that this process is a forked child of the one
/// its node belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Forked;

/// A clock's state machine: the state word, the time source, the node and
/// the fork generation it belongs to, and the watch of rare events; and
/// `X`, the few bytes the clock keeps beside them (in the padding of the
/// machine's fields, where a field of its own would cost a cache line).
pub(crate) struct Core<U: Units, X = ()> {
    /// The forward state after the last id: `unit << S | seq`. An inverse
    /// clock issues its mirror; `u64::MAX` (one below 0) is a fresh
    /// inverse clock, whose first state may be 0.
    state: StateLine,
    /// Whether the state is known to be far from the end of the range
    /// ([`FAST_ROOM`]): ids are taken with `fetch_add` while it is.
    far: AtomicBool,
    source: Source,
    /// The latest source unit seen and the rare events, on a line of their
    /// own: read by every id, written once per unit or per event.
    watch: Watch,
    /// The node word the clock stamps, as the clock keeps it; rewritten
    /// only by [`Core::renode`].
    node: AtomicU64,
    /// The fork generation `node` belongs to.
    fork: fork::Owner<AtomicU32>,
    inverse: bool,
    units: U,
    /// The clock's own fields.
    pub(crate) own: X,
}

/// The state word, alone on its cache line: every id writes it, and the
/// fields every id reads stay on lines no id writes.
#[repr(align(64))]
struct StateLine(AtomicU64);

impl std::ops::Deref for StateLine {
    type Target = AtomicU64;
    fn deref(&self) -> &AtomicU64 {
        &self.0
    }
}

/// The next step of [`Core::reserve`], in forward states.
enum Plan {
    /// Install `last`; the ids are the states `first..=last`.
    Issue { first: u64, last: u64 },
    /// Wait until the source reaches unit `target`.
    Wait { target: u64 },
    /// The range is used up.
    UsedUp(UsedUp),
}

impl<U: Units, X> Core<U, X> {
    /// A machine on `source` stamping `node`, that issues only states past
    /// the unit `not_before` (which counts as seen) and past the `restore`d
    /// state (as the clock issues it, so mirrored for an inverse clock).
    pub(crate) fn new(
        units: U,
        own: X,
        source: Source,
        node: u64,
        inverse: bool,
        not_before: Option<u64>,
        restore: Option<u64>,
    ) -> Core<U, X> {
        let inverse = inverse && U::CAN_INVERT;
        let max = units.max_state();
        // The last unit of `not_before` counts as used, in either direction.
        let bound = not_before.map(|unit| ((unit + 1) << units.seq_bits()) - 1);
        let saved = restore.map(|s| if inverse { max - s } else { s });
        let fresh = if inverse { u64::MAX } else { 0 };
        let state = bound.max(saved).unwrap_or(fresh);
        // A fresh inverse clock's `u64::MAX` is one below 0: far. A range
        // shorter than the room is never far.
        let far = units.max_state() > 2 * FAST_ROOM
            && state.wrapping_add(1) <= units.max_state() - (2 * FAST_ROOM - 1);
        Core {
            state: StateLine(AtomicU64::new(state)),
            far: AtomicBool::new(far),
            source,
            watch: Watch::new(not_before.unwrap_or(0)),
            node: AtomicU64::new(node),
            fork: fork::Owner::new(),
            inverse,
            units,
            own,
        }
    }

    /// The watch of rare events.
    #[inline]
    fn watch(&self) -> &Watch {
        &self.watch
    }

    /// The units the machine runs on.
    pub(crate) fn units(&self) -> &U {
        &self.units
    }

    /// The time source.
    pub(crate) fn source(&self) -> &Source {
        &self.source
    }

    /// Whether the clock issues mirrored, decreasing states.
    #[inline]
    pub(crate) fn is_inverse(&self) -> bool {
        U::CAN_INVERT && self.inverse
    }

    /// The node word as stored, forked or not.
    pub(crate) fn node_word(&self) -> u64 {
        self.node.load(Relaxed)
    }

    /// The node word, or [`Forked`] in a forked child of the process it
    /// belongs to: one load of the fork generation word per id.
    #[inline]
    pub(crate) fn node(&self) -> core::result::Result<u64, Forked> {
        if self.fork.forked() {
            return Err(Forked);
        }
        Ok(self.node.load(Relaxed))
    }

    /// Makes the machine blind to forks, for one in memory its forked
    /// children share: their ids come from its one state word, so a child
    /// keeps the node.
    pub(crate) fn share_with_forks(&mut self) {
        self.fork = fork::Owner::shared();
    }

    /// Gives this process's fork generation the node word `node`.
    #[cold]
    pub(crate) fn renode(&self, node: u64) {
        // Threads racing here each store a node: any of them will do, as
        // long as it is stored before the generation that publishes it.
        self.node.store(node, Relaxed);
        self.fork.adopt();
    }

    /// The state after the last id, as the clock issues it (for a fresh
    /// inverse clock, one past the range).
    pub(crate) fn last(&self) -> u64 {
        let (state, max) = (self.state.load(Relaxed), self.units.max_state());
        // Past the end only when used up by a `fetch_add` (or a fresh
        // inverse clock's `u64::MAX`, kept).
        self.issued(if state > max && state != u64::MAX {
            max
        } else {
            state
        })
    }

    /// The start of the unit of the last id (or of the not-before bound),
    /// in forward time: every id issued so far was made at or before it.
    pub(crate) fn last_time(&self) -> SystemTime {
        let forward = self.state.load(Relaxed).min(self.units.max_state());
        let unit = forward >> self.units.seq_bits();
        UNIX_EPOCH + Duration::from_nanos(self.units.start_of(unit))
    }

    /// The rare events met so far.
    pub(crate) fn health(&self) -> Health {
        self.watch().health(self.units.unit_ns())
    }

    /// The state the clock issues for the forward state `f`.
    #[inline]
    pub(crate) fn issued(&self, f: u64) -> u64 {
        if self.is_inverse() {
            return self.mirrored(f);
        }
        f
    }

    /// [`Core::issued`] for an inverse clock: apart, so that a forward
    /// clock's ids wait for no select between the two.
    #[cold]
    #[inline(never)]
    fn mirrored(&self, f: u64) -> u64 {
        self.units.max_state().wrapping_sub(f)
    }

    /// Reserves `n >= 1` consecutive states and returns the first, as the
    /// clock issues it: the others follow it (precede it, inverse).
    #[inline(always)]
    pub(crate) fn reserve(&self, n: u64) -> core::result::Result<u64, UsedUp> {
        // `seen` is read before the source, so a reading another thread
        // published is never mistaken for a step back.
        let seen = self.watch().seen();
        let now = self.units.unit_of(self.source.now());
        // The common case under load: the source shows the unit it showed
        // before (nothing to observe), and the state is far from the end of
        // the range, so the ids are the next `n` states whatever other
        // threads take meanwhile. One `fetch_add`, with no load before it:
        // the state's line changes hands once an id, where a load and a
        // CAS take it twice and the CAS fails on every race.
        if now == seen && self.may_speculate(n) {
            let prev = self.state.fetch_add(n, Relaxed);
            if self.in_step(prev, n, now) {
                if (prev ^ prev.wrapping_add(n)) >= REFRESH {
                    self.source.refresh();
                }
                return Ok(self.issued(prev.wrapping_add(1)));
            }
            return self.reserve_slow(n, seen, now, Some(prev));
        }
        self.reserve_slow(n, seen, now, None)
    }

    /// Whether `n` states may be taken with `fetch_add` before they are
    /// checked: few enough, with the state far from the end of the range.
    #[inline(always)]
    fn may_speculate(&self, n: u64) -> bool {
        n <= FAST_ROOM && self.far.load(Relaxed)
    }

    /// Whether the states after `prev`, taken with `fetch_add` while the
    /// source is at unit `now` and the state far from the end, need nothing
    /// more: they are at or past `now`, and either in it, or in the unit of
    /// `prev` with a lead already recorded and within the bound.
    #[inline(always)]
    fn in_step(&self, prev: u64, n: u64, now: u64) -> bool {
        let s = self.units.seq_bits();
        let (first, last) = (prev.wrapping_add(1) >> s, prev.wrapping_add(n) >> s);
        prev <= self.far_end()
            && first >= now
            && (last == now
                || (last == prev >> s
                    && self.watch().led(last - now)
                    && self.units.max_lead().is_none_or(|lead| last - now <= lead)))
    }

    /// [`Core::reserve`] off its common path: the source moved (or the
    /// states were not taken, or those taken need a record or a wait), with
    /// `seen` and `now` as read, and `taken` the `fetch_add` already made.
    #[cold]
    #[inline(never)]
    fn reserve_slow(
        &self,
        n: u64,
        mut seen: u64,
        mut now: u64,
        mut taken: Option<u64>,
    ) -> core::result::Result<u64, UsedUp> {
        let s = self.units.seq_bits();
        let mut waited = false;
        loop {
            let speculated = match taken.take() {
                Some(prev) => self.speculated(prev, n, now).map_err(Some),
                None => {
                    self.watch().observe(seen, now);
                    self.speculate(n, now)
                }
            };
            let mut cur = match speculated {
                Ok(first) => return Ok(first),
                Err(Some(cur)) => cur,
                Err(None) => self.state.load(Relaxed),
            };
            loop {
                let (first, last) = match self.plan(cur, now, seen, n) {
                    Plan::Issue { first, last } => (first, last),
                    Plan::UsedUp(used_up) => return Err(used_up),
                    Plan::Wait { target } => {
                        if !waited {
                            waited = true;
                            self.watch().waited();
                        }
                        self.nap(target);
                        break;
                    }
                };
                if last > self.far_end() && self.far.load(Relaxed) {
                    self.far.store(false, Relaxed);
                }
                match self
                    .state
                    .compare_exchange_weak(cur, last, Relaxed, Relaxed)
                {
                    Ok(_) => {
                        if last >> s > now {
                            self.ran_ahead(cur, now, last >> s);
                        }
                        return Ok(self.issued(first));
                    }
                    Err(seen) => cur = seen,
                }
            }
            seen = self.watch().seen();
            now = self.units.unit_of(self.source.now());
        }
    }

    /// The last state `fetch_add` may take from (see [`FAST_ROOM`]).
    #[inline]
    fn far_end(&self) -> u64 {
        self.units.max_state().saturating_sub(2 * FAST_ROOM)
    }

    /// Takes the next `n` states with one `fetch_add`, if the state is far
    /// from the end of the range: the first as issued if they are at or
    /// past the source's unit `now`; else `Err(Some(state))`, the states
    /// taken lost (behind the time, a fresh inverse clock's wrap), or
    /// `Err(None)` when it did not try.
    #[inline]
    fn speculate(&self, n: u64, now: u64) -> core::result::Result<u64, Option<u64>> {
        if !self.may_speculate(n) {
            return Err(None);
        }
        let prev = self.state.fetch_add(n, Relaxed);
        self.speculated(prev, n, now).map_err(Some)
    }

    /// What [`Core::speculate`] makes of the states after `prev` it took:
    /// the first as issued, or `Err(state)`.
    fn speculated(&self, prev: u64, n: u64, now: u64) -> core::result::Result<u64, u64> {
        let s = self.units.seq_bits();
        let (first, last) = (prev.wrapping_add(1), prev.wrapping_add(n));
        if prev > self.far_end() {
            // Near the end (or a fresh inverse clock's `u64::MAX`): the
            // exact path from here on.
            self.far.store(false, Relaxed);
            if prev <= self.units.max_state() && last > self.units.max_state() {
                return Err(last); // past the end: the plan refuses
            }
        }
        if prev > self.units.max_state() || first >> s < now {
            return Err(last);
        }
        if last >> s > now {
            self.ran_ahead(prev, now, last >> s);
            if let Some(lead) = self.units.max_lead() {
                self.await_lead(first >> s, last >> s, lead);
            }
        }
        Ok(self.issued(first))
    }

    /// Waits until ids of the units `first..=last`, already taken, are
    /// within `lead` of the source, as [`Core::plan`] would have waited
    /// before taking them.
    #[cold]
    fn await_lead(&self, first: u64, last: u64, lead: u64) {
        let mut waited = false;
        loop {
            let seen = self.watch().seen();
            let now = self.units.unit_of(self.source.now());
            self.watch().observe(seen, now);
            let reference = now.max(seen);
            if first <= reference || last <= reference.saturating_add(lead) {
                return;
            }
            if !waited {
                waited = true;
                self.watch().waited();
            }
            self.nap(first.min(last - lead));
        }
    }

    /// What to do for `n` ids after the forward state `cur`, with the
    /// source at unit `now` and `seen` the latest unit it had shown (or the
    /// not-before bound) before.
    ///
    /// The first state is `max(cur + 1, now << S | first_seq)`: a stall
    /// counts the sequence, a full unit carries into the next one
    /// (borrowed), a step back loses the `max` and ids go on from the last
    /// one. With a bounded lead, ids that would start past the reference
    /// `max(now, seen)` and end more than the lead past it wait instead.
    #[inline]
    fn plan(&self, cur: u64, now: u64, seen: u64, n: u64) -> Plan {
        let units = &self.units;
        let (s, max) = (units.seq_bits(), units.max_state());
        // An inverse unit starts at its largest sequence: forward, at 0.
        let first_seq = if self.is_inverse() {
            0
        } else {
            units.first_seq()
        };
        let past = now > max >> s;
        let floor = if past { u64::MAX } else { now << s | first_seq };
        // `cur` is at most `max`, or a fresh inverse clock's `u64::MAX`.
        let first = cur.wrapping_add(1).max(floor);
        let last = first.saturating_add(n - 1);
        if last > max {
            let unit = if past { now } else { last >> s };
            return Plan::UsedUp(UsedUp { unit });
        }
        if let Some(lead) = units.max_lead() {
            let (first_unit, last_unit) = (first >> s, last >> s);
            // The lead is bounded over the latest unit the source has shown
            // (or the not-before bound), not over `now`.
            let reference = now.max(seen);
            if first_unit > reference && last_unit > reference.saturating_add(lead) {
                // A batch starts within the lead; it may end past it by its
                // length. The reference is at least `now` and below
                // `target`, so the source itself has to reach `target`.
                return Plan::Wait {
                    target: first_unit.min(last_unit - lead),
                };
            }
        }
        Plan::Issue { first, last }
    }

    /// Records ids issued up to unit `last`, ahead of the source's `now`,
    /// after the forward state `cur`.
    ///
    /// `now` was read before the ids were taken: a thread preempted in
    /// between finds ids that other threads' readings put there, not
    /// borrowed ones. So the source is read again, and only a lead over
    /// that reading counts.
    #[cold]
    fn ran_ahead(&self, cur: u64, now: u64, last: u64) {
        let now = now.max(self.units.unit_of(self.source.now()));
        if last <= now {
            return;
        }
        // A fresh inverse clock has issued nothing: no unit before `now`.
        let prev = if cur > self.units.max_state() {
            0
        } else {
            cur >> self.units.seq_bits()
        };
        self.watch().ran_ahead(prev, now, last);
    }

    /// How long [`Core::reserve`] of `n` ids would wait for the source if
    /// called now: zero when it would not wait. Nothing is issued or
    /// counted.
    pub(crate) fn pace(&self, n: u64) -> Duration {
        if n == 0 {
            return Duration::ZERO;
        }
        let seen = self.watch().seen();
        let ns = self.source.now();
        let now = self.units.unit_of(ns);
        match self.plan(self.state.load(Relaxed), now, seen, n) {
            Plan::Wait { target } => {
                Duration::from_nanos(self.units.start_of(target).saturating_sub(ns).max(1))
            }
            Plan::Issue { .. } | Plan::UsedUp(_) => Duration::ZERO,
        }
    }

    /// Sleeps until the source may have reached unit `target`, at most
    /// [`MAX_NAP`] at a time.
    #[cold]
    fn nap(&self, target: u64) {
        // The model checker schedules its threads itself: yield to them.
        #[cfg(loom)]
        {
            let _ = target;
            loom::thread::yield_now();
        }
        #[cfg(not(loom))]
        {
            let left = self
                .units
                .start_of(target)
                .saturating_sub(self.source.now());
            if left == 0 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_nanos(left).min(MAX_NAP));
            }
        }
    }
}
