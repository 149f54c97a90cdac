//! The state machine of every clock in this crate: one word `unit << S |
//! seq` that only ever moves forward, installed with one compare-and-swap
//! (or, while it is at or past the source's unit, advanced with one
//! `fetch_add`),
//! and the node it stamps.
//!
//! [`Core`] is the machine, parameterised by its [`Units`]: how many
//! sequence bits, what a unit of time is, where the range ends, the first
//! sequence of a unit and whether the lead of borrowed units is bounded.
//! The 96-bit clocks ([`crate::Clock`] and [`crate::v3::Clock`], through
//! [`Sequence`]) give it compile-time constants (ticks of 2^17 ns, 14
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

use std::borrow::Borrow;
use std::cell::Cell;
use std::fmt;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{Error, ErrorKind, Result};
use crate::fork;
use crate::health::{Health, Watch};
use crate::layout::{self, SEQ_BITS, SEQ_MAX, TICK_MASK, TICK_SHIFT};
use crate::sync::{AtomicBool, AtomicU32, AtomicU64};
use crate::time::{Source, unix_nanos};

/// The last state of the tick range: tick `2^47 - 1`, sequence `2^14 - 1`
/// (the year 2554).
const MAX_STATE: u64 = TICK_MASK << SEQ_BITS | SEQ_MAX;

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
    /// Where the machine keeps its [`Watch`]: in a box of its own where the
    /// clock's read-mostly fields must fit one cache line, or inline, a
    /// load nearer.
    type WatchSlot: Borrow<Watch> + From<Watch>;
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
    watch: U::WatchSlot,
    /// The node word the clock stamps, as the clock keeps it; rewritten
    /// only by [`Core::renode`].
    node: AtomicU64,
    /// The process's fork generation word ([`fork::word`]).
    fork_word: &'static std::sync::atomic::AtomicU32,
    /// The fork generation `node` belongs to.
    forks: AtomicU32,
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
            watch: Watch::new(not_before.unwrap_or(0)).into(),
            node: AtomicU64::new(node),
            fork_word: fork::word(),
            forks: AtomicU32::new(fork::generation()),
            inverse,
            units,
            own,
        }
    }

    /// The watch of rare events.
    #[inline]
    fn watch(&self) -> &Watch {
        self.watch.borrow()
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
        // 0 after a fork the process has not re-armed: never a generation.
        if self.fork_word.load(Relaxed) != self.forks.load(Acquire) {
            return Err(Forked);
        }
        Ok(self.node.load(Relaxed))
    }

    /// Makes the machine blind to forks, for one in memory its forked
    /// children share: their ids come from its one state word, so a child
    /// keeps the node.
    fn share_with_forks(&mut self) {
        self.fork_word = &fork::SHARED;
        self.forks = AtomicU32::new(fork::SHARED.load(Relaxed));
    }

    /// Gives this process's fork generation the node word `node`.
    #[cold]
    pub(crate) fn renode(&self, node: u64) {
        let forks = fork::generation();
        // Threads racing here each store a node: any of them will do, as
        // long as it is stored before the generation that publishes it.
        self.node.store(node, Relaxed);
        self.forks.store(forks, Release);
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
            self.units.max_state().wrapping_sub(f)
        } else {
            f
        }
    }

    /// Reserves `n >= 1` consecutive states and returns the first, as the
    /// clock issues it: the others follow it (precede it, inverse).
    #[inline]
    pub(crate) fn reserve(&self, n: u64) -> core::result::Result<u64, UsedUp> {
        let s = self.units.seq_bits();
        let mut waited = false;
        loop {
            // `seen` is read before the source, so a reading another thread
            // published is never mistaken for a step back.
            let seen = self.watch().seen();
            let now = self.units.unit_of(self.source.now());
            self.watch().observe(seen, now);
            // The common case under load: the state is at or past the
            // source's unit, so the ids are the next `n` states whatever
            // other threads take meanwhile. One `fetch_add`, with no load
            // before it: the state's line changes hands once an id, where a
            // load and a CAS take it twice and the CAS fails on every race.
            let mut cur = match self.speculate(n, now) {
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
        if n > FAST_ROOM || !self.far.load(Relaxed) {
            return Err(None);
        }
        let s = self.units.seq_bits();
        let prev = self.state.fetch_add(n, Relaxed);
        let (first, last) = (prev.wrapping_add(1), prev.wrapping_add(n));
        if prev > self.far_end() {
            // Near the end (or a fresh inverse clock's `u64::MAX`): the
            // exact path from here on.
            self.far.store(false, Relaxed);
            if prev <= self.units.max_state() && last > self.units.max_state() {
                return Err(Some(last)); // past the end: the plan refuses
            }
        }
        if prev > self.units.max_state() || first >> s < now {
            return Err(Some(last));
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
    #[cold]
    fn ran_ahead(&self, cur: u64, now: u64, last: u64) {
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

/// What a 96-bit generation's clock does its own way, beside the units
/// every generation shares (ticks of 2^17 ns, 14 sequence bits, the 47-bit
/// tick range, no bound on the lead).
pub(crate) trait Generation: Default {
    /// The drift the clock stamps.
    type Drift: Copy + fmt::Debug;
    /// Bits of the node id the clock keeps.
    const NODE_BITS: u32;
    /// The sequence of a forward clock's first id in a tick it has not
    /// issued in: 0 for v2 (this crate's choice), 1 for v3 (as Go's v3).
    const FIRST_SEQ: u64;
    /// A random node id of [`Generation::NODE_BITS`] bits.
    fn random_node() -> u64;
}

/// Every 96-bit generation's units: compile-time constants.
impl<G: Generation> Units for G {
    const CAN_INVERT: bool = true;
    /// Boxed: the clock's read-mostly fields fit one cache line.
    type WatchSlot = Box<Watch>;

    #[inline]
    fn seq_bits(&self) -> u32 {
        SEQ_BITS
    }
    #[inline]
    fn unit_of(&self, ns: u64) -> u64 {
        layout::tick(ns)
    }
    #[inline]
    fn start_of(&self, unit: u64) -> u64 {
        unit << TICK_SHIFT
    }
    #[inline]
    fn unit_ns(&self) -> u64 {
        1 << TICK_SHIFT
    }
    #[inline]
    fn max_state(&self) -> u64 {
        MAX_STATE
    }
    #[inline]
    fn first_seq(&self) -> u64 {
        G::FIRST_SEQ
    }
    /// Go's API returns an id and cannot wait: borrow without bound.
    #[inline]
    fn max_lead(&self) -> Option<u64> {
        None
    }
}

/// A 96-bit clock's state machine, drift and node policy.
///
/// Two 64-byte cache lines: the state word alone, and the fields every id
/// reads.
#[repr(align(64))]
pub(crate) struct Sequence<G: Generation> {
    core: Core<G, Own<G::Drift>>,
}

/// What a 96-bit clock keeps beside its state machine.
struct Own<D> {
    drift: D,
    /// Whether the node was chosen by the caller (explicit or from the
    /// environment) rather than drawn at random.
    chosen: bool,
}

impl<G: Generation> Sequence<G> {
    /// The drift stamped on ids.
    #[inline]
    pub(crate) fn drift(&self) -> G::Drift {
        self.core.own.drift
    }

    /// The node id stamped on ids (in a forked child, the new one for a
    /// random node; a chosen node is reported as it is, though the clock
    /// refuses to make ids with it there).
    pub(crate) fn node(&self) -> u64 {
        if self.core.own.chosen {
            return self.core.node_word();
        }
        self.current_node()
    }

    /// Whether states decrease.
    pub(crate) fn is_inverse(&self) -> bool {
        self.core.is_inverse()
    }

    /// The start of the tick of the last id (or of the not-before bound).
    pub(crate) fn last_time(&self) -> SystemTime {
        self.core.last_time()
    }

    /// The state after the last id, to restore after a restart.
    pub(crate) fn snapshot(&self) -> Snapshot {
        // A fresh inverse clock sits one above the range: as a snapshot it
        // gives up the topmost state, an inverse id of 1970.
        Snapshot(self.core.last().min(MAX_STATE))
    }

    /// The rare events met so far (units of one tick, 2^17 ns).
    pub(crate) fn health(&self) -> Health {
        self.core.health()
    }

    /// The tick of `t` in this clock's direction, for ids of a given time.
    pub(crate) fn tick_at(&self, t: SystemTime) -> u64 {
        let tick = layout::tick(unix_nanos(t));
        if self.is_inverse() {
            TICK_MASK - tick
        } else {
            tick
        }
    }

    /// The node and the state of one new id.
    #[inline]
    pub(crate) fn next(&self) -> (u64, u64) {
        self.take(1)
    }

    /// The node and the first of `n >= 1` consecutive states, as the clock
    /// issues them.
    #[inline]
    fn take(&self, n: u64) -> (u64, u64) {
        let node = self.current_node();
        match self.core.reserve(n) {
            Ok(first) => (node, first),
            Err(_) => used_up(self.is_inverse()),
        }
    }

    /// Fills `ids` with `make(node, state)` of the states from `first` on
    /// (down, inverse).
    #[inline]
    fn spread<T>(&self, ids: &mut [T], node: u64, first: u64, make: impl Fn(u64, u64) -> T) {
        let inverse = self.is_inverse();
        for (i, id) in (0..).zip(ids) {
            *id = make(node, if inverse { first - i } else { first + i });
        }
    }

    /// Fills `ids` with ids made by `make(node, state)` from consecutive
    /// states reserved with one read of the time.
    #[inline]
    pub(crate) fn fill<T>(&self, ids: &mut [T], make: impl Fn(u64, u64) -> T) {
        if ids.is_empty() {
            return;
        }
        let (node, first) = self.take(ids.len() as u64);
        self.spread(ids, node, first, make);
    }

    /// Fills `ids` with the global ids of consecutive states, as
    /// [`Sequence::fill`] with `from_state`. While the states' low bits
    /// (the tick within its window, and the sequence: what the node does
    /// not split) do not wrap, consecutive states are consecutive values
    /// of the id too, so one id is packed and the others counted from it.
    #[inline]
    pub(crate) fn fill_global<T: crate::id::sealed::Layout + crate::Id>(
        &self,
        ids: &mut [T],
        code: u8,
    ) {
        if ids.is_empty() {
            return;
        }
        let n = ids.len() as u64;
        let (node, first) = self.take(n);
        let inverse = self.is_inverse();
        let low = (1u64 << (SEQ_BITS + T::window(code))) - 1;
        let counted = match inverse {
            true => first & low >= n - 1,
            false => (first & low) + (n - 1) <= low,
        };
        if !counted {
            return self.spread(ids, node, first, |node, state| {
                T::from_state(code, node, state)
            });
        }
        // The counted bits (39 at most) are in the low half of the payload:
        // its high half is one value for the batch, and the low half counts
        // (wrapping only past the last id, where the value is not used).
        let p = T::from_state(code, node, first).payload();
        let (high, mut count) = ((p >> 64) as u64, p as u64);
        if inverse {
            for id in ids {
                *id = T::from_halves(high, count);
                count = count.wrapping_sub(1);
            }
        } else {
            for id in ids {
                *id = T::from_halves(high, count);
                count = count.wrapping_add(1);
            }
        }
    }

    /// Reserves `n >= 1` consecutive states for a [`Cursor`]: the node and
    /// the first state in forward order.
    #[inline]
    pub(crate) fn reserve_forward(&self, n: u64) -> (u64, u64) {
        let (node, first) = self.take(n);
        // The mirror is its own inverse.
        (node, self.core.issued(first))
    }

    /// Whether the forward state `f` is in the source's unit or later.
    #[inline(always)]
    pub(crate) fn current(&self, f: u64) -> bool {
        f >> SEQ_BITS >= layout::tick(self.core.source().now())
    }

    /// The state a clock issues for the forward state `f`.
    #[inline]
    pub(crate) fn issued(&self, f: u64) -> u64 {
        self.core.issued(f)
    }

    /// The node for this process: after a fork, a new random one (or a
    /// panic for a chosen node), drawn before the child's first id.
    #[inline]
    pub(crate) fn current_node(&self) -> u64 {
        match self.core.node() {
            Ok(node) => node,
            Err(Forked) => self.forked(),
        }
    }

    #[cold]
    #[inline(never)]
    fn forked(&self) -> u64 {
        assert!(
            !self.core.own.chosen,
            "guid: a clock with the chosen node {:#x} was used in a forked child, \
             where it would repeat its parent's ids; build the child's clock in the \
             child, with a node of its own",
            self.core.node_word()
        );
        self.core.renode(G::random_node());
        self.core.node_word()
    }

    /// The fields of the clock's `Debug`, under the clock's type name.
    pub(crate) fn debug(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = 2 + G::NODE_BITS.div_ceil(4) as usize;
        f.debug_struct(name)
            .field("node", &format_args!("{:#0width$x}", self.core.node_word()))
            .field("drift", &self.drift())
            .field("inverse", &self.is_inverse())
            .field("source", self.core.source())
            .field("state", &self.core.last())
            .finish()
    }
}

#[cold]
#[inline(never)]
fn used_up(inverse: bool) -> ! {
    panic!(
        "guid: the clock has used up its 47-bit tick range ({} end, the year 2554): \
         its time source reports a time past the range, or a restored state was at its end",
        if inverse {
            "the inverse clock's"
        } else {
            "the"
        }
    )
}

/// The state of a clock after its last id (`tick << 14 | seq`), saved so
/// that a restarted clock never goes back into time it already used.
///
/// The state is the same word for both generations (and Go v3's
/// checkpoint value `V`), so a snapshot of a v2 clock restores a v3 clock.
///
/// ```
/// use guid::{Clock, Snapshot};
/// let clock = Clock::new();
/// let last = clock.g();
/// let saved: u64 = clock.snapshot().into();
/// let restarted = Clock::builder()
///     .node(clock.node())
///     .restore(Snapshot::try_from(saved)?)
///     .build();
/// assert!(restarted.g() > last);
/// assert!(Snapshot::try_from(u64::MAX).is_err()); // past the tick range
/// # Ok::<(), guid::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Snapshot(u64);

impl TryFrom<u64> for Snapshot {
    type Error = Error;

    /// A saved state, `tick << 14 | seq` within the 47-bit tick range
    /// (below `2^61`). A forward clock restored from the range's last state
    /// has no id left: its first id panics, as the clock it was saved from.
    fn try_from(state: u64) -> Result<Self> {
        if state > MAX_STATE {
            return Err(Error::new(ErrorKind::Range {
                name: "clock state",
                value: state,
                min: 0,
                max: MAX_STATE,
            }));
        }
        Ok(Snapshot(state))
    }
}

impl From<Snapshot> for u64 {
    fn from(s: Snapshot) -> u64 {
        s.0
    }
}

/// The settings both generations' builders share; each keeps its drift.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) node: Option<u64>,
    pub(crate) inverse: bool,
    pub(crate) source: Source,
    not_before: Option<u64>,
    pub(crate) restore: Option<Snapshot>,
    pub(crate) shared: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            node: None,
            inverse: false,
            source: Source::Wall,
            not_before: None,
            restore: None,
            shared: false,
        }
    }
}

impl Settings {
    /// Raises the not-before bound to `t`; fails past the tick range.
    pub(crate) fn not_before(&mut self, t: SystemTime) -> Result<()> {
        let ns = unix_nanos(t);
        if layout::tick(ns) >= TICK_MASK {
            return Err(Error::new(ErrorKind::Range {
                name: "not-before time (Unix ns)",
                value: ns,
                min: 0,
                max: (TICK_MASK << TICK_SHIFT) - 1,
            }));
        }
        self.not_before = Some(self.not_before.map_or(ns, |prev| prev.max(ns)));
        Ok(())
    }

    /// The clock's state machine.
    pub(crate) fn build<G: Generation>(self, drift: G::Drift) -> Sequence<G> {
        let node = self.node.unwrap_or_else(G::random_node);
        let mut core = Core::new(
            G::default(),
            Own {
                drift,
                chosen: self.node.is_some(),
            },
            self.source,
            node,
            self.inverse,
            self.not_before.map(layout::tick),
            self.restore.map(u64::from),
        );
        if self.shared {
            core.share_with_forks();
        }
        Sequence { core }
    }
}

/// The methods both generations' clocks share, for a `Clock` that keeps
/// its [`Sequence`] in a `seq` field: `$guid` and `$local` are its ids,
/// `$node` the type of its node.
macro_rules! clock_methods {
    (guid: $guid:ty, local: $local:ty, node: $node:ty, drift: $drift:ty, debug: $debug:literal) => {
        // Two cache lines: the state word, and what every id reads.
        #[cfg(not(loom))]
        const _: () = assert!(size_of::<Clock>() == 128);

        impl Clock {
            /// A clock with a random node id, the default drift and the
            /// wall clock.
            pub fn new() -> Clock {
                Clock::builder().build()
            }

            /// Configures a clock.
            pub fn builder() -> Builder {
                Builder::default()
            }

            /// The node id stamped on ids; global ids carry its low 32 bits
            /// (in a forked child, the new one for a random node; a chosen
            /// node is reported as it is, though the clock refuses to make
            /// ids with it there).
            pub fn node(&self) -> $node {
                self.seq.node() as $node
            }

            /// The drift stamped on ids.
            pub fn drift(&self) -> $drift {
                self.seq.drift()
            }

            /// Whether ids decrease (an inverse clock).
            pub fn is_inverse(&self) -> bool {
                self.seq.is_inverse()
            }

            /// A new global id (Go's `G`).
            ///
            /// Panics only as [the type says](#panics).
            #[inline]
            pub fn g(&self) -> $guid {
                let (node, state) = self.seq.next();
                $crate::id::sealed::Layout::from_state(self.seq.drift().code(), node, state)
            }

            /// A new local id (Go's `L`).
            ///
            /// Panics only as [the type says](#panics).
            #[inline]
            pub fn l(&self) -> $local {
                let (_, state) = self.seq.next();
                $crate::id::sealed::Layout::from_state(self.seq.drift().code(), 0, state)
            }

            /// A handle that hands out this clock's ids from blocks of
            /// `block` states (1 to 16,384) reserved at once: a `&mut`
            /// call costs no atomic read-modify-write, for one thread
            /// (see [`Reserved`] for what it gives up).
            pub fn reserved(&self, block: u16) -> Reserved<'_> {
                Reserved {
                    clock: self,
                    cursor: $crate::sequence::Cursor::new(block),
                }
            }

            /// Fills `ids` with consecutive global ids from one read of the
            /// time.
            pub fn fill(&self, ids: &mut [$guid]) {
                self.seq.fill_global(ids, self.seq.drift().code());
            }

            /// Fills `ids` with consecutive local ids from one read of the
            /// time.
            pub fn fill_l(&self, ids: &mut [$local]) {
                let drift = self.seq.drift();
                self.seq.fill(ids, |_, state| {
                    $crate::id::sealed::Layout::from_state(drift.code(), 0, state)
                });
            }

            /// The global id of a local id made by this clock (Go's `FromL`).
            pub fn from_l64(&self, local: $local) -> $guid {
                <$guid>::from_l64(local, self.seq.current_node() as u32)
            }

            /// The state after the last id, to restore after a restart.
            pub fn snapshot(&self) -> $crate::Snapshot {
                self.seq.snapshot()
            }

            /// The rare events met so far (units of one tick, 2^17 ns).
            pub fn health(&self) -> $crate::Health {
                self.seq.health()
            }

            /// The start of the tick of the last id (or of the not-before
            /// bound): every id so far was made at or before it, so a
            /// clock started [`not_before`](Builder::not_before) it issues
            /// none of them again.
            pub fn last_time(&self) -> ::std::time::SystemTime {
                self.seq.last_time()
            }
        }

        impl Default for Clock {
            fn default() -> Self {
                Clock::new()
            }
        }

        impl ::std::fmt::Debug for Clock {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                self.seq.debug($debug, f)
            }
        }

        /// Ids of a [`Clock`] handed out from blocks reserved at once, for
        /// one thread at a time (it is `Send`, not `Sync`; keep one in a
        /// `thread_local!`): made by [`Clock::reserved`].
        ///
        /// Each block is taken from the clock with one atomic
        /// read-modify-write, and ids are handed out from it with a load of
        /// the time source and of the fork word, so with
        /// [`Builder::ticker`] an id costs a few nanoseconds.
        ///
        /// What holds: every id is distinct from every other id of the
        /// clock, through any handle or the clock itself, in any thread,
        /// across forks (a child's handle reserves anew, as the clock
        /// does); the ids of one handle strictly increase; no id is older
        /// than the clock's tick when it is handed out (a block left
        /// behind by the time is dropped). What is given up: ids of
        /// different handles, or of a handle and the clock, may be out of
        /// order within one tick (2^17 ns, 131 µs) — an id handed out now
        /// can be smaller than one another handle handed out before it.
        /// Unused states of a dropped block are never issued.
        ///
        /// ```
        /// use guid::Clock;
        /// let clock = Clock::builder().ticker().build();
        /// let ids = clock.reserved(64);
        /// let (a, b) = (ids.g(), ids.g());
        /// assert!(a < b);
        /// assert_ne!(clock.g(), a);
        /// ```
        pub struct Reserved<'c> {
            clock: &'c Clock,
            cursor: $crate::sequence::Cursor,
        }

        impl Reserved<'_> {
            /// A new global id.
            #[inline]
            pub fn g(&self) -> $guid {
                let seq = &self.clock.seq;
                let (node, state) = self.cursor.next(seq);
                $crate::id::sealed::Layout::from_state(seq.drift().code(), node, state)
            }

            /// A new local id.
            #[inline]
            pub fn l(&self) -> $local {
                let seq = &self.clock.seq;
                let (_, state) = self.cursor.next(seq);
                $crate::id::sealed::Layout::from_state(seq.drift().code(), 0, state)
            }
        }

        impl ::std::fmt::Debug for Reserved<'_> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct("Reserved")
                    .field("clock", self.clock)
                    .field("cursor", &self.cursor)
                    .finish()
            }
        }
    };
}

/// Where a [`Reserved`](crate::Reserved) handle stands in its block: the
/// node, the process's fork generation it was reserved in and the forward
/// states `next..end` left. Cells: a handle is for one thread at a time.
///
/// The generation is the process's, not the clock's: a handle is private
/// memory even when its clock is shared with forked children, so a
/// child's copy of a block is never handed out.
#[derive(Debug)]
pub(crate) struct Cursor {
    node: Cell<u64>,
    /// The process's fork generation word ([`fork::word`]).
    word: &'static std::sync::atomic::AtomicU32,
    forks: Cell<u32>,
    next: Cell<u64>,
    end: Cell<u64>,
    block: u64,
}

impl Cursor {
    /// An empty cursor that reserves `block` states at a time.
    pub(crate) fn new(block: u16) -> Cursor {
        Cursor {
            node: Cell::new(0),
            word: fork::word(),
            forks: Cell::new(0),
            next: Cell::new(0),
            end: Cell::new(0),
            block: u64::from(block).clamp(1, SEQ_MAX + 1),
        }
    }

    /// The node and the state of the next id, from the block if it is
    /// still current, else from a new one.
    #[inline(always)]
    pub(crate) fn next<G: Generation>(&self, seq: &Sequence<G>) -> (u64, u64) {
        let f = self.next.get();
        // 0, a wiped word, is never a generation.
        let same = self.word.load(Relaxed) == self.forks.get();
        if f < self.end.get() && same && seq.current(f) {
            self.next.set(f + 1);
            return (self.node.get(), seq.issued(f));
        }
        self.refill(seq)
    }

    #[cold]
    #[inline(never)]
    fn refill<G: Generation>(&self, seq: &Sequence<G>) -> (u64, u64) {
        let (node, first) = seq.reserve_forward(self.block);
        self.node.set(node);
        self.forks.set(fork::generation());
        self.next.set(first + 1);
        self.end.set(first + self.block);
        (node, seq.issued(first))
    }
}

pub(crate) use clock_methods;

/// Go's functions `G(clock)` and `L(clock)`, at the root of a generation.
macro_rules! go_functions {
    ($clock:ty, $guid:ty, $local:ty) => {
        /// A new global id from `clock` (Go's `G`).
        #[inline]
        pub fn g(clock: &$clock) -> $guid {
            clock.g()
        }

        /// A new local id from `clock` (Go's `L`).
        #[inline]
        pub fn l(clock: &$clock) -> $local {
            clock.l()
        }
    };
}

pub(crate) use go_functions;

/// The builder methods both generations' clocks share, for a `Builder`
/// that keeps [`Settings`] in a `settings` field and its drift in `drift`.
macro_rules! settings_methods {
    (drift: $drift:ty) => {
        /// Stamps this drift (default: its `DEFAULT`).
        pub fn drift(mut self, drift: $drift) -> Builder {
            self.drift = drift;
            self
        }

        /// The clock.
        pub fn build(self) -> Clock {
            Clock {
                seq: self.settings.build(self.drift),
            }
        }

        $crate::time::source_methods!(settings.source);

        /// Makes strictly decreasing ids from inverse time `u64::MAX - now`
        /// (Go's `WithClockInverse` in v2, its `Unclock` in v3): the newest
        /// id sorts first.
        pub fn inverse(mut self) -> Builder {
            self.settings.inverse = true;
            self
        }

        /// Issues only ids later than every id made at or before `t` (for an
        /// inverse clock: smaller), whatever the source says: the restart guard
        /// for a process that kept its node id (noeqd's `-t`). The latest of
        /// several calls wins.
        ///
        /// Fails when `t` is in the last tick of the range or past it (the
        /// year 2554), where no later id exists: a time in the wrong unit
        /// (microseconds read as milliseconds) ends here, not in ids from 1970.
        pub fn not_before(mut self, t: ::std::time::SystemTime) -> $crate::Result<Builder> {
            self.settings.not_before(t)?;
            Ok(self)
        }

        /// For a clock placed in memory that the processes forked after it
        /// share with it (`mmap` with `MAP_SHARED`, a database server's
        /// shared memory): every process takes its ids from the one state
        /// word, so they are distinct and strictly increasing across the
        /// processes, and a fork is no reason to change the node. The clock
        /// then ignores forks: a child keeps the node, chosen or random.
        ///
        /// Only for such memory: a clock in private memory built with this
        /// repeats its ids in every forked child. [`Health`](crate::Health)
        /// counts the events of the process that reads it (they are kept
        /// beside the clock, in its own memory). [`Reserved`] handles are
        /// private to a process and still reserve anew in a child.
        pub fn shared_with_forks(mut self) -> Builder {
            self.settings.shared = true;
            self
        }

        /// Continues after a [`Snapshot`](crate::Snapshot) of a clock of
        /// the same direction (of either generation: the state is the same
        /// word).
        pub fn restore(mut self, snapshot: $crate::Snapshot) -> Builder {
            self.settings.restore = Some(snapshot);
            self
        }
    };
}

pub(crate) use settings_methods;
