//! The state machine of both generations' clocks: one word `tick << 14 |
//! seq` that only ever moves forward (backward for an inverse clock),
//! installed with one compare-and-swap, and the node it stamps.
//!
//! [`crate::Clock`] (v2) and [`crate::v3::Clock`] wrap a [`Sequence`] of
//! their [`Generation`] and pack its states into their ids; everything
//! else (steps back, stalls, borrowing ahead, forks, the end of the range,
//! restarts, health) is here, once.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::fork;
use crate::health::{Health, Watch};
use crate::layout::{self, SEQ_BITS, SEQ_MAX, TICK_MASK, TICK_SHIFT};
use crate::sync::{AtomicU32, AtomicU64};
use crate::time::{Source, unix_nanos};

/// The last state of the tick range: tick `2^47 - 1`, sequence `2^14 - 1`
/// (the year 2554).
const MAX_STATE: u64 = TICK_MASK << SEQ_BITS | SEQ_MAX;

/// The state of an inverse clock that has issued nothing: one above the
/// range, so its first id may be [`MAX_STATE`].
const INVERSE_START: u64 = MAX_STATE + 1;

/// What a generation's clock does its own way: the only parameters of the
/// shared state machine.
pub(crate) trait Generation {
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

/// A clock's state, node and settings.
///
/// Aligned to a 64-byte cache line, so its state shares the line with
/// nothing else that threads write.
#[repr(align(64))]
pub(crate) struct Sequence<G: Generation> {
    state: AtomicU64,
    source: Source,
    /// The latest source tick seen and the rare events, on a line of their
    /// own: read by every id, written once per tick or per event.
    watch: Box<Watch>,
    /// Rewritten only in a forked child (for a random node).
    node: AtomicU64,
    /// The process's fork generation word ([`fork::word`]).
    fork_word: &'static std::sync::atomic::AtomicU32,
    /// The fork generation `node` belongs to.
    forks: AtomicU32,
    pub(crate) drift: G::Drift,
    inverse: bool,
    /// Whether the node was chosen by the caller (explicit or from the
    /// environment) rather than drawn at random.
    chosen: bool,
    generation: PhantomData<fn() -> G>,
}

impl<G: Generation> Sequence<G> {
    /// The node id stamped on ids (in a forked child, the new one for a
    /// random node; a chosen node is reported as it is, though the clock
    /// refuses to make ids with it there).
    pub(crate) fn node(&self) -> u64 {
        if self.chosen {
            return self.node.load(Relaxed);
        }
        self.current_node()
    }

    /// Whether states decrease.
    pub(crate) fn is_inverse(&self) -> bool {
        self.inverse
    }

    /// The state after the last id, to restore after a restart.
    pub(crate) fn snapshot(&self) -> Snapshot {
        // A fresh inverse clock sits one above the range: as a snapshot it
        // gives up the topmost state, an inverse id of 1970.
        Snapshot(self.state.load(Relaxed).min(MAX_STATE))
    }

    /// The rare events met so far (units of one tick, 2^17 ns).
    pub(crate) fn health(&self) -> Health {
        self.watch.health(1 << TICK_SHIFT)
    }

    /// The tick of `t` in this clock's direction, for ids of a given time.
    pub(crate) fn tick_at(&self, t: SystemTime) -> u64 {
        let tick = layout::tick(unix_nanos(t));
        if self.inverse { TICK_MASK - tick } else { tick }
    }

    /// The node and the state of one new id.
    #[inline]
    pub(crate) fn next(&self) -> (u64, u64) {
        let node = self.current_node();
        (node, self.reserve(1))
    }

    /// Fills `ids` with ids made by `make(node, state)` from consecutive
    /// states reserved with one read of the time.
    #[inline]
    pub(crate) fn fill<T>(&self, ids: &mut [T], make: impl Fn(u64, u64) -> T) {
        let node = self.current_node();
        let n = ids.len() as u64;
        if n == 0 {
            return;
        }
        let first = self.reserve(n);
        for (i, id) in (0..n).zip(ids) {
            *id = make(node, if self.inverse { first - i } else { first + i });
        }
    }

    /// The node for this process: after a fork, a new random one (or a
    /// panic for a chosen node), drawn before the child's first id.
    #[inline]
    pub(crate) fn current_node(&self) -> u64 {
        // 0 after a fork the process has not re-armed: never a generation.
        if self.fork_word.load(Relaxed) != self.forks.load(Acquire) {
            self.forked();
        }
        self.node.load(Relaxed)
    }

    #[cold]
    #[inline(never)]
    fn forked(&self) {
        let forks = fork::generation();
        assert!(
            !self.chosen,
            "guid: a clock with the chosen node {:#x} was used in a forked child, \
             where it would repeat its parent's ids; build the child's clock in the \
             child, with a node of its own",
            self.node.load(Relaxed)
        );
        // Threads racing here each draw a node: any of them will do, as
        // long as it is stored before the generation that publishes it.
        self.node.store(G::random_node(), Relaxed);
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
                let first = (cur + 1).max(now | G::FIRST_SEQ);
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

    /// The fields of the clock's `Debug`, under the clock's type name.
    pub(crate) fn debug(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = 2 + G::NODE_BITS.div_ceil(4) as usize;
        f.debug_struct(name)
            .field(
                "node",
                &format_args!("{:#0width$x}", self.node.load(Relaxed)),
            )
            .field("drift", &self.drift)
            .field("inverse", &self.inverse)
            .field("source", &self.source)
            .field("state", &self.state.load(Relaxed))
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

/// The settings both generations' builders share; each keeps its drift.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) node: Option<u64>,
    pub(crate) inverse: bool,
    pub(crate) source: Source,
    not_before: Option<u64>,
    pub(crate) restore: Option<Snapshot>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            node: None,
            inverse: false,
            source: Source::Wall,
            not_before: None,
            restore: None,
        }
    }
}

impl Settings {
    /// Raises the not-before bound to `t`; fails past the tick range.
    pub(crate) fn not_before(&mut self, t: SystemTime) -> Result<()> {
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
        Ok(())
    }

    /// The clock's state machine.
    pub(crate) fn build<G: Generation>(self, drift: G::Drift) -> Sequence<G> {
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
        Sequence {
            state: AtomicU64::new(state),
            source: self.source,
            watch: Box::new(Watch::new(self.not_before.map_or(0, layout::tick))),
            node: AtomicU64::new(self.node.unwrap_or_else(G::random_node)),
            fork_word: fork::word(),
            forks: AtomicU32::new(fork::generation()),
            drift,
            inverse: self.inverse,
            chosen: self.node.is_some(),
            generation: PhantomData,
        }
    }
}

/// The methods both generations' clocks share, for a `Clock` that keeps
/// its [`Sequence`] in a `seq` field: `$guid` and `$local` are its ids,
/// `$node` the type of its node.
macro_rules! clock_methods {
    (guid: $guid:ty, local: $local:ty, node: $node:ty, drift: $drift:ty, debug: $debug:literal) => {
        // One cache line: the state word and what every id reads.
        #[cfg(not(loom))]
        const _: () = assert!(size_of::<Clock>() == 64);

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
                self.seq.drift
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
                <$guid>::from_state(self.seq.drift, node as u32, state)
            }

            /// A new local id (Go's `L`).
            ///
            /// Panics only as [the type says](#panics).
            #[inline]
            pub fn l(&self) -> $local {
                let (_, state) = self.seq.next();
                <$local>::from_state(self.seq.drift, state)
            }

            /// Fills `ids` with consecutive global ids from one read of the
            /// time.
            pub fn fill(&self, ids: &mut [$guid]) {
                let drift = self.seq.drift;
                self.seq.fill(ids, |node, state| {
                    <$guid>::from_state(drift, node as u32, state)
                });
            }

            /// Fills `ids` with consecutive local ids from one read of the
            /// time.
            pub fn fill_l(&self, ids: &mut [$local]) {
                let drift = self.seq.drift;
                self.seq
                    .fill(ids, |_, state| <$local>::from_state(drift, state));
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
    };
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
