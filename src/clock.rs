//! The clock: a lock-free, strictly monotonic source of ids.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::SystemTime;

use crate::drift::Drift;
use crate::guid::Guid;
use crate::health::{Health, Watch};
use crate::layout::{self, SEQ_BITS, SEQ_MAX, TICK_MASK};
use crate::local::Luid;
use crate::node;
use crate::time::{Source, TimeSource, unix_nanos};

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
#[repr(align(64))]
pub struct Clock {
    state: AtomicU64,
    source: Source,
    /// The latest source tick seen and the rare events, on a line of their
    /// own: read by every id, written once per tick or per event.
    watch: Box<Watch>,
    node: u32,
    drift: Drift,
    inverse: bool,
}

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

    /// The node id stamped on global ids.
    pub fn node(&self) -> u32 {
        self.node
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
    #[inline]
    pub fn g(&self) -> Guid {
        Guid::from_state(self.drift, self.node, self.reserve(1))
    }

    /// A new local id.
    #[inline]
    pub fn l(&self) -> Luid {
        Luid::from_state(self.drift, self.reserve(1))
    }

    /// Fills `ids` with consecutive global ids from one read of the time.
    pub fn fill(&self, ids: &mut [Guid]) {
        if let Some(step) = self.reserve_batch(ids.len()) {
            for (id, state) in ids.iter_mut().zip(step) {
                *id = Guid::from_state(self.drift, self.node, state);
            }
        }
    }

    /// Fills `ids` with consecutive local ids from one read of the time.
    pub fn fill_l(&self, ids: &mut [Luid]) {
        if let Some(step) = self.reserve_batch(ids.len()) {
            for (id, state) in ids.iter_mut().zip(step) {
                *id = Luid::from_state(self.drift, state);
            }
        }
    }

    /// The global id of a local id made by this clock (Go's `FromL`).
    pub fn from_l64(&self, local: Luid) -> Guid {
        Guid::from_l64(local, self.node)
    }

    /// The state after the last id, to restore after a restart.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot(self.state.load(Relaxed))
    }

    /// The rare events met so far (units of one tick, 2^17 ns).
    pub fn health(&self) -> Health {
        self.watch.health(1 << layout::TICK_SHIFT)
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
            let (first, last) = if self.inverse {
                let first = cur.wrapping_sub(1).min(now | SEQ_MAX);
                (first, first.wrapping_sub(n - 1))
            } else {
                let first = cur.wrapping_add(1).max(now);
                (first, first.wrapping_add(n - 1))
            };
            match self
                .state
                .compare_exchange_weak(cur, last, Relaxed, Relaxed)
            {
                Ok(_) => {
                    let (prev, last) = (cur >> SEQ_BITS, last >> SEQ_BITS);
                    // Health counts forward: an inverse tick is mirrored back.
                    if self.inverse && last < now_tick {
                        let forward = |t: u64| TICK_MASK.saturating_sub(t);
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
        Some((0..n).map(move |i| {
            if inverse {
                first.wrapping_sub(i)
            } else {
                first.wrapping_add(i)
            }
        }))
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock")
            .field("node", &format_args!("{:#010x}", self.node))
            .field("drift", &self.drift)
            .field("inverse", &self.inverse)
            .field("wall", &self.source.is_wall())
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
/// let restarted = Clock::builder().node(clock.node()).restore(Snapshot::from(saved)).build();
/// assert!(restarted.g() > last);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Snapshot(u64);

impl From<u64> for Snapshot {
    fn from(state: u64) -> Self {
        Snapshot(state)
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

    /// Reads time from `source` instead of the wall clock.
    pub fn time(mut self, source: impl TimeSource + 'static) -> Builder {
        self.source = Source::custom(source);
        self
    }

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
    pub fn not_before(mut self, t: SystemTime) -> Builder {
        let ns = unix_nanos(t);
        self.not_before = Some(self.not_before.map_or(ns, |prev| prev.max(ns)));
        self
    }

    /// Continues after a [`Snapshot`] of a clock of the same direction.
    pub fn restore(mut self, snapshot: Snapshot) -> Builder {
        self.restore = Some(snapshot);
        self
    }

    /// The clock.
    pub fn build(self) -> Clock {
        let mut state = if self.inverse { u64::MAX } else { 0 };
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
            node: self.node.unwrap_or_else(node::random),
            drift: self.drift,
            inverse: self.inverse,
        }
    }
}
