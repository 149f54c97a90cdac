//! The clock: a lock-free, strictly monotonic source of ids.

use std::fmt;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::SystemTime;

use crate::drift::Drift;
use crate::error::{Error, ErrorKind, Result};
use crate::fork;
use crate::guid::Guid;
use crate::health::{Health, Watch};
use crate::layout::{self, SEQ_BITS, SEQ_MAX, TICK_MASK, TICK_SHIFT};
use crate::local::Luid;
use crate::node;
use crate::sync::{AtomicU32, AtomicU64};
use crate::time::{Source, unix_nanos};

/// The last state of the tick range: tick `2^47 - 1`, sequence `2^14 - 1`
/// (the year 2554).
const MAX_STATE: u64 = TICK_MASK << SEQ_BITS | SEQ_MAX;

/// The state of an inverse clock that has issued nothing: one above the
/// range, so its first id may be [`MAX_STATE`].
const INVERSE_START: u64 = MAX_STATE + 1;

/// Makes ids: a node id, a drift, a time source and the last id's state.
///
/// The whole state is one word, `tick << 14 | seq`, in one `AtomicU64`. The
/// next id is `max(state + 1, now_tick << 14)`, installed with one
/// compare-and-swap, so:
///
/// | event | what the clock does |
/// |---|---|
/// | many threads at once | each CAS installs a distinct state: no two ids alike, each later than the one before it |
/// | the source steps back | `state + 1` wins the `max`: ids keep increasing from the last one, no wait |
/// | the source stalls | the sequence counts up within the tick |
/// | 16,384 ids in one tick | the carry of `state + 1` moves to the next tick (borrowed ahead); the source catches up |
/// | the source jumps forward | the new tick wins the `max`, sequence 0 |
/// | restart | [`Builder::not_before`] or [`Builder::restore`] start past every id made before |
/// | the process forks | the child draws a new random node before its first id; a clock whose node was chosen refuses (see [Fork](#fork)) |
/// | the tick range ends (year 2554) | `g()` panics rather than wrap (see [Panics](#panics)) |
///
/// Steps back, borrowed ticks and the largest lead are counted off the
/// common path and read with [`Clock::health`].
///
/// An inverse clock ([`Builder::inverse`]) mirrors all of this: it reads
/// `u64::MAX - now`, takes the `min` and counts down, so its ids strictly
/// decrease.
///
/// The clock is aligned to a 64-byte cache line, so its state shares the
/// line with nothing else that threads write.
///
/// # Fork
///
/// A forked child holds a copy of the clock's state and would issue the
/// ids its parent issues next. The clock notices the fork (a
/// `pthread_atfork` handler counts forks; each id compares one word) and,
/// before the child's first id:
///
/// - a clock with a random node ([`Clock::new`], [`crate::CLOCK`] without
///   `CONFIG_GUID_NODE_ID`) draws a new random node, so the child's global
///   ids differ from the parent's with no caller action;
/// - a clock whose node was chosen ([`Builder::node`], or
///   `CONFIG_GUID_NODE_ID`) panics: two processes with one node and one
///   state would repeat ids, and the node was somebody's choice, so the
///   clock neither repeats nor picks another node behind the caller's back.
///   Build the child's clock in the child, with a node of its own.
///
/// Local ids carry no node: they are unique per clock, and a child's local
/// ids, like another process's, may equal the parent's.
///
/// # Panics
///
/// [`Clock::g`], [`Clock::l`] and the fills panic when the clock has used
/// up its 47-bit tick range: the year 2554 for the wall clock, or sooner
/// only if a custom time source reports a time past that range. Go's
/// `G` returns an id, not an error, so a broken source cannot be reported
/// any other way without wrapping around to 1970, which would repeat ids.
/// Every start the builder accepts leaves ids to issue: an out-of-range
/// [`Builder::not_before`] or [`Snapshot`] is an error there.
#[repr(align(64))]
pub struct Clock {
    state: AtomicU64,
    source: Source,
    /// The latest source tick seen and the rare events, on a line of their
    /// own: read by every id, written once per tick or per event.
    watch: Box<Watch>,
    /// Rewritten only in a forked child (for a random node).
    node: AtomicU32,
    /// The fork generation `node` belongs to.
    forks: AtomicU32,
    drift: Drift,
    inverse: bool,
    /// Whether the node was chosen by the caller (explicit or from the
    /// environment) rather than drawn at random.
    chosen: bool,
}

#[cfg(not(loom))]
const _: () = assert!(size_of::<Clock>() == 64);

impl Clock {
    /// A clock with a random node id, the default drift and the wall clock.
    pub fn new() -> Clock {
        Clock::builder().build()
    }

    /// Configures a clock.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The node id stamped on global ids (in a forked child, the new one
    /// for a random node; a chosen node is reported as it is, though the
    /// clock refuses to make ids with it there).
    pub fn node(&self) -> u32 {
        if self.chosen {
            return self.node.load(Relaxed);
        }
        self.current_node()
    }

    /// The drift stamped on ids.
    pub fn drift(&self) -> Drift {
        self.drift
    }

    /// Whether ids decrease (an inverse clock).
    pub fn is_inverse(&self) -> bool {
        self.inverse
    }

    /// A new global id.
    ///
    /// Panics only as [the type says](#panics).
    #[inline]
    pub fn g(&self) -> Guid {
        let node = self.current_node();
        Guid::from_state(self.drift, node, self.reserve(1))
    }

    /// A new local id.
    ///
    /// Panics only as [the type says](#panics).
    #[inline]
    pub fn l(&self) -> Luid {
        self.current_node();
        Luid::from_state(self.drift, self.reserve(1))
    }

    /// Fills `ids` with consecutive global ids from one read of the time.
    pub fn fill(&self, ids: &mut [Guid]) {
        let node = self.current_node();
        if let Some(step) = self.reserve_batch(ids.len()) {
            for (id, state) in ids.iter_mut().zip(step) {
                *id = Guid::from_state(self.drift, node, state);
            }
        }
    }

    /// Fills `ids` with consecutive local ids from one read of the time.
    pub fn fill_l(&self, ids: &mut [Luid]) {
        self.current_node();
        if let Some(step) = self.reserve_batch(ids.len()) {
            for (id, state) in ids.iter_mut().zip(step) {
                *id = Luid::from_state(self.drift, state);
            }
        }
    }

    /// The global id of a local id made by this clock (Go's `FromL`).
    pub fn from_l64(&self, local: Luid) -> Guid {
        Guid::from_l64(local, self.current_node())
    }

    /// The state after the last id, to restore after a restart.
    pub fn snapshot(&self) -> Snapshot {
        // A fresh inverse clock sits one above the range: as a snapshot it
        // gives up the topmost state, an inverse id of 1970.
        Snapshot(self.state.load(Relaxed).min(MAX_STATE))
    }

    /// The rare events met so far (units of one tick, 2^17 ns).
    pub fn health(&self) -> Health {
        self.watch.health(1 << layout::TICK_SHIFT)
    }

    /// The node for this process: after a fork, a new random one (or a
    /// panic for a chosen node), drawn before the child's first id.
    #[inline]
    fn current_node(&self) -> u32 {
        let forks = fork::generation();
        if forks != self.forks.load(Acquire) {
            self.forked(forks);
        }
        self.node.load(Relaxed)
    }

    #[cold]
    #[inline(never)]
    fn forked(&self, forks: u32) {
        assert!(
            !self.chosen,
            "guid: a clock with the chosen node {:#010x} was used in a forked child, \
             where it would repeat its parent's ids; build the child's clock in the \
             child, with a node of its own",
            self.node.load(Relaxed)
        );
        // Threads racing here each draw a node: any of them will do, as
        // long as it is stored before the generation that publishes it.
        self.node.store(node::random(), Relaxed);
        self.forks.store(forks, Release);
    }

    /// Reserves `n >= 1` consecutive states and returns the first.
    #[inline]
    fn reserve(&self, n: u64) -> u64 {
        let seen = self.watch.seen();
        let raw = layout::tick(self.source.now());
        self.watch.observe(seen, raw);
        // The tick of `u64::MAX - ns` is exactly `TICK_MASK - tick(ns)`.
        let now_tick = if self.inverse { TICK_MASK - raw } else { raw };
        let now = now_tick << SEQ_BITS;
        let mut cur = self.state.load(Relaxed);
        loop {
            // Forward: past both the last state and the start of this tick.
            // Inverse: below both the last state and the end of this tick.
            // `None` when the range has no room left: never wrap around.
            let next = if self.inverse {
                cur.checked_sub(1)
                    .map(|c| c.min(now | SEQ_MAX))
                    .and_then(|first| Some((first, first.checked_sub(n - 1)?)))
            } else {
                let first = (cur + 1).max(now);
                Some((first, first + (n - 1))).filter(|&(_, last)| last <= MAX_STATE)
            };
            let Some((first, last)) = next else {
                used_up(self.inverse)
            };
            match self
                .state
                .compare_exchange_weak(cur, last, Relaxed, Relaxed)
            {
                Ok(_) => {
                    let (prev, last) = (cur >> SEQ_BITS, last >> SEQ_BITS);
                    // Health counts forward: an inverse tick is mirrored back.
                    if self.inverse && last < now_tick {
                        let forward = |t: u64| TICK_MASK.saturating_sub(t.min(TICK_MASK));
                        self.watch.ran_ahead(forward(prev), raw, forward(last));
                    } else if !self.inverse && last > now_tick {
                        self.watch.ran_ahead(prev, raw, last);
                    }
                    return first;
                }
                Err(seen) => cur = seen,
            }
        }
    }

    /// Reserves states for a batch, as an iterator in issue order.
    fn reserve_batch(&self, n: usize) -> Option<impl Iterator<Item = u64>> {
        let n = n as u64;
        if n == 0 {
            return None;
        }
        let first = self.reserve(n);
        let inverse = self.inverse;
        Some((0..n).map(move |i| if inverse { first - i } else { first + i }))
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

impl Default for Clock {
    fn default() -> Self {
        Clock::new()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock")
            .field("node", &format_args!("{:#010x}", self.node.load(Relaxed)))
            .field("drift", &self.drift)
            .field("inverse", &self.inverse)
            .field("source", &self.source)
            .field("state", &self.state.load(Relaxed))
            .finish()
    }
}

/// The state of a clock after its last id (`tick << 14 | seq`), saved so
/// that a restarted clock never goes back into time it already used.
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
            return Err(Error(ErrorKind::Range {
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

/// Settings of a [`Clock`].
#[derive(Clone)]
pub struct Builder {
    node: Option<u32>,
    drift: Drift,
    inverse: bool,
    source: Source,
    not_before: Option<u64>,
    restore: Option<Snapshot>,
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("node", &self.node)
            .field("drift", &self.drift)
            .field("inverse", &self.inverse)
            .field("source", &self.source)
            .field("not_before", &self.not_before)
            .field("restore", &self.restore)
            .finish()
    }
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            node: None,
            drift: Drift::DEFAULT,
            inverse: false,
            source: Source::Wall,
            not_before: None,
            restore: None,
        }
    }
}

impl Builder {
    /// Stamps this node id (default: random, see [`node::random`]).
    pub fn node(mut self, node: u32) -> Builder {
        self.node = Some(node);
        self
    }

    /// Stamps the node id named by `CONFIG_GUID_NODE_ID` if it is set
    /// ([`node::from_env`]); otherwise keeps the node chosen so far.
    pub fn node_from_env(mut self) -> Builder {
        if let Some(node) = node::from_env() {
            self.node = Some(node);
        }
        self
    }

    /// Stamps this drift (default [`Drift::DEFAULT`]).
    pub fn drift(mut self, drift: Drift) -> Builder {
        self.drift = drift;
        self
    }

    crate::time::source_methods!();

    /// Makes strictly decreasing ids from inverse time `u64::MAX - now`
    /// (Go's `WithClockInverse`): the newest id sorts first.
    pub fn inverse(mut self) -> Builder {
        self.inverse = true;
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
    pub fn not_before(mut self, t: SystemTime) -> Result<Builder> {
        let ns = unix_nanos(t);
        if layout::tick(ns) >= TICK_MASK {
            return Err(Error(ErrorKind::Range {
                name: "not-before time (Unix ns)",
                value: ns,
                min: 0,
                max: (TICK_MASK << TICK_SHIFT) - 1,
            }));
        }
        self.not_before = Some(self.not_before.map_or(ns, |prev| prev.max(ns)));
        Ok(self)
    }

    /// Continues after a [`Snapshot`] of a clock of the same direction.
    pub fn restore(mut self, snapshot: Snapshot) -> Builder {
        self.restore = Some(snapshot);
        self
    }

    /// The clock.
    pub fn build(self) -> Clock {
        fork::watch();
        let mut state = if self.inverse { INVERSE_START } else { 0 };
        if let Some(ns) = self.not_before {
            state = if self.inverse {
                state.min(layout::tick(u64::MAX - ns) << SEQ_BITS)
            } else {
                state.max(((layout::tick(ns) + 1) << SEQ_BITS) - 1)
            };
        }
        if let Some(Snapshot(saved)) = self.restore {
            state = if self.inverse {
                state.min(saved)
            } else {
                state.max(saved)
            };
        }
        Clock {
            state: AtomicU64::new(state),
            source: self.source,
            watch: Box::new(Watch::new(self.not_before.map_or(0, layout::tick))),
            node: AtomicU32::new(self.node.unwrap_or_else(node::random)),
            forks: AtomicU32::new(fork::generation()),
            drift: self.drift,
            inverse: self.inverse,
            chosen: self.node.is_some(),
        }
    }
}
