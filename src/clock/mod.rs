//! The 96-bit clocks: one lock-free, strictly monotonic clock, generic over
//! the generation of ids it makes.
//!
//! [`Clock<G>`] runs the crate's one state machine (one word `tick << 14 |
//! seq`, one atomic read-modify-write per id) and packs its states into the
//! ids of its [`Generation`]: [`V2`] (fogfish/guid v2, [`crate::Clock`]) or
//! [`V3`] (Go's v3, [`crate::v3::Clock`]). The aliases are the names to use;
//! the generic type is for code that serves either generation.
//!
//! ```
//! use guid::clock::{Clock, Generation};
//!
//! /// Two ids in order, from a clock of either generation.
//! fn two<G: Generation>(clock: &Clock<G>) -> (G::Guid, G::Guid) {
//!     (clock.g(), clock.g())
//! }
//! let (a, b) = two(&guid::Clock::new());
//! assert!(a < b);
//! let (a, b) = two(&guid::v3::Clock::new());
//! assert!(a < b);
//! ```

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{Error, ErrorKind, Result};
use crate::health::Health;
use crate::id::Id;
use crate::id::sealed::Packing as _;
use crate::id_clock::IdClock;
use crate::layout::{self, SEQ_BITS, SEQ_MAX, TICK_MASK, TICK_SHIFT};
use crate::time::unix_nanos;

mod builder;
pub(crate) mod core;
mod reserved;
mod snapshot;
mod v2;
mod v3;

pub use self::builder::Builder;
use self::core::{Core, Forked, Units};
pub use self::reserved::Reserved;
pub use self::snapshot::Snapshot;
pub use self::v2::V2;
pub use self::v3::V3;

/// The last state of the tick range: tick `2^47 - 1`, sequence `2^14 - 1`
/// (the year 2554).
const MAX_STATE: u64 = TICK_MASK << SEQ_BITS | SEQ_MAX;

/// A generation of 96-bit ids: what its clock stamps and how. Sealed: [`V2`]
/// and [`V3`] are all there are.
pub trait Generation: sealed::Generation {
    /// Its global id.
    type Guid: Id;
    /// Its local id.
    type Local: Id;
    /// The drift its ids carry.
    type Drift: Copy + Default + fmt::Debug + Send + Sync;
}

pub(crate) mod sealed {
    /// What a generation's clock does its own way, beside the units every
    /// generation shares (ticks of 2^17 ns, 14 sequence bits, the 47-bit
    /// tick range, no bound on the lead).
    pub trait Generation: Copy + Default + core::fmt::Debug + Send + Sync + 'static {
        /// The clock's name in `Debug`.
        const NAME: &'static str;
        /// Bits of the node id the clock keeps.
        const NODE_BITS: u32;
        /// The sequence of a forward clock's first id in a tick it has not
        /// issued in: 0 for v2 (this crate's choice), 1 for v3 (as Go's v3).
        const FIRST_SEQ: u64;
        /// A random node id of `NODE_BITS` bits.
        fn random_node() -> u64;
        /// The node id named by `CONFIG_GUID_NODE_ID`, if it is set.
        fn env_node() -> Option<u64>;
        /// The code of a drift.
        fn code(drift: <Self as super::Generation>::Drift) -> u8
        where
            Self: super::Generation;
    }
}

/// Every generation's units: compile-time constants.
impl<G: Generation> Units for G {
    const CAN_INVERT: bool = true;

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

/// Makes ids of generation `G`: a node id, a drift, a time source and the
/// last id's state. Use it as [`crate::Clock`] (v2) or [`crate::v3::Clock`].
///
/// The whole state is one word, `tick << 14 | seq`, in one `AtomicU64`. The
/// next id is `max(state + 1, now_tick << 14)`, installed with one
/// compare-and-swap, or, while the state is at or past the source's tick
/// (as under load), taken with one `fetch_add`, which never retries, so:
///
/// | event | what the clock does |
/// |---|---|
/// | many threads at once | each read-modify-write takes a distinct state: no two ids alike, each later than the one before it |
/// | the source steps back | `state + 1` wins the `max`: ids keep increasing from the last one, no wait |
/// | the source stalls | the sequence counts up within the tick |
/// | 16,384 ids in one tick | the carry of `state + 1` moves to the next tick (borrowed ahead); the source catches up |
/// | the source jumps forward | the new tick wins the `max`, sequence 0 (v3: 1) |
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
/// The clock is three 64-byte cache lines: its state word alone on one,
/// what every id reads on the next, which no id writes, and the unit last
/// seen with the counters of rare events on the third, written once a
/// tick or an event.
///
/// This table is one state machine that every clock of the crate runs: the
/// [flake clock](crate::flake::Clock) runs it on its layout's units with a
/// bound on how far ids borrow ahead (past it, that clock waits). This
/// clock has no such bound and never waits: Go's `G` returns an id and
/// cannot block.
///
/// # Fork
///
/// A forked child holds a copy of the clock's state and would issue the
/// ids its parent issues next. The clock notices the fork (each id compares
/// one word with the clock's fork generation) and, before the child's first
/// id:
///
/// - a clock with a random node ([`Clock::new`], [`crate::CLOCK`] without
///   `CONFIG_GUID_NODE_ID`) draws a new random node, so the child's global
///   ids differ from the parent's with no caller action;
/// - a clock whose node was chosen (the builder's `node`, or
///   `CONFIG_GUID_NODE_ID`) panics: two processes with one node and one
///   state would repeat ids, and the node was somebody's choice, so the
///   clock neither repeats nor picks another node behind the caller's back.
///   Build the child's clock in the child, with a node of its own.
///
/// Local ids carry no node: they are unique per clock, and a child's local
/// ids, like another process's, may equal the parent's.
///
/// Which children are noticed: on Linux 4.14 and later (and Android), all
/// of them, however they were made (the C library's `fork()`, glibc's
/// `_Fork()`, the raw `fork` or `clone` system call): the generation sits
/// on a page marked `MADV_WIPEONFORK`, which the kernel zeroes in every
/// child. Elsewhere (another Unix, or a kernel that refuses that advice)
/// the generation is counted by a `pthread_atfork` handler, so only
/// children whose `fork()` runs the atfork handlers, as the C library's
/// does, are noticed; a child made without them goes on with the parent's
/// node and state, and repeats its ids. Children sharing the parent's
/// memory (`vfork`, `clone` with `CLONE_VM`) share the clock's state too,
/// and repeat nothing. See [`ForkGuard`](crate::ForkGuard).
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
pub struct Clock<G: Generation> {
    core: Core<G, Own<G::Drift>>,
}

// Three cache lines: the state word, what every id reads, the watch.
#[cfg(not(loom))]
const _: () = assert!(size_of::<Clock<V2>>() == 192 && size_of::<Clock<V3>>() == 192);

/// What a 96-bit clock keeps beside its state machine.
struct Own<D> {
    drift: D,
    /// Whether the node was chosen by the caller (explicit or from the
    /// environment) rather than drawn at random.
    chosen: bool,
}

impl<G: Generation> Clock<G> {
    /// A clock with a random node id, the default drift and the wall clock.
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// Configures a clock.
    pub fn builder() -> Builder<G> {
        Builder::default()
    }

    /// The drift stamped on ids.
    #[inline]
    pub fn drift(&self) -> G::Drift {
        self.core.own.drift
    }

    /// Whether ids decrease (an inverse clock).
    pub fn is_inverse(&self) -> bool {
        self.core.is_inverse()
    }

    /// A new global id (Go's `G`).
    ///
    /// Panics only as [the type says](#panics).
    #[inline]
    pub fn g(&self) -> G::Guid {
        let (node, state) = self.take(1);
        self.pack(node, state)
    }

    /// A new local id (Go's `L`).
    ///
    /// Panics only as [the type says](#panics).
    #[inline]
    pub fn l(&self) -> G::Local {
        let (_, state) = self.take(1);
        self.pack(0, state)
    }

    /// A handle that hands out this clock's ids from blocks of `block`
    /// states (1 to 16,384) reserved at once: a `&mut` call costs no atomic
    /// read-modify-write, for one thread (see [`Reserved`] for what it
    /// gives up).
    pub fn reserved(&self, block: u16) -> Reserved<'_, G> {
        Reserved::new(self, block)
    }

    /// Fills `ids` with consecutive global ids from one read of the time.
    pub fn fill(&self, ids: &mut [G::Guid]) {
        if ids.is_empty() {
            return;
        }
        let n = ids.len() as u64;
        let (node, first) = self.take(n);
        let code = G::code(self.drift());
        let inverse = self.is_inverse();
        // While the states' low bits (the tick within its window, and the
        // sequence: what the node does not split) do not wrap, consecutive
        // states are consecutive values of the id too, so one id is packed
        // and the others counted from it.
        let low = (1u64 << (SEQ_BITS + G::Guid::window(code))) - 1;
        let counted = match inverse {
            true => first & low >= n - 1,
            false => (first & low) + (n - 1) <= low,
        };
        if !counted {
            return self.spread(ids, node, first);
        }
        // The counted bits (39 at most) are in the low half of the payload:
        // its high half is one value for the batch, and the low half counts
        // (wrapping only past the last id, where the value is not used).
        let p = self.pack::<G::Guid>(node, first).payload();
        let (high, mut count) = ((p >> 64) as u64, p as u64);
        let step = if inverse { u64::MAX } else { 1 };
        for id in ids {
            *id = G::Guid::from_halves(high, count);
            count = count.wrapping_add(step);
        }
    }

    /// Fills `ids` with consecutive local ids from one read of the time.
    pub fn fill_l(&self, ids: &mut [G::Local]) {
        self.fill_with(ids);
    }

    /// The global id of a local id made by this clock (Go's `FromL`).
    pub fn from_l64(&self, local: G::Local) -> G::Guid {
        // Global ids carry the node's low 32 bits.
        G::Guid::stamp(local.payload() as u64, self.current_node() & 0xffff_ffff)
    }

    /// The state after the last id, to restore after a restart.
    pub fn snapshot(&self) -> Snapshot {
        // A fresh inverse clock sits one above the range: as a snapshot it
        // gives up the topmost state, an inverse id of 1970.
        Snapshot::from_state(self.core.last().min(MAX_STATE))
    }

    /// The rare events met so far (units of one tick, 2^17 ns).
    pub fn health(&self) -> Health {
        self.core.health()
    }

    /// The start of the tick of the last id (or of the not-before bound):
    /// every id so far was made at or before it, so a clock started
    /// [`not_before`](Builder::not_before) it issues none of them again.
    pub fn last_time(&self) -> SystemTime {
        self.core.last_time()
    }

    /// The node id as the clock keeps it (in a forked child, the new one
    /// for a random node; a chosen node is reported as it is, though the
    /// clock refuses to make ids with it there).
    fn node_word(&self) -> u64 {
        if self.core.own.chosen {
            return self.core.node_word();
        }
        self.current_node()
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

    /// The id of `state` stamped with `node`, with the clock's drift.
    #[inline(always)]
    fn pack<T: Id>(&self, node: u64, state: u64) -> T {
        T::from_state(G::code(self.drift()), node, state)
    }

    /// The node and the first of `n >= 1` consecutive states, as the clock
    /// issues them.
    #[inline(always)]
    fn take(&self, n: u64) -> (u64, u64) {
        let node = self.current_node();
        match self.core.reserve(n) {
            Ok(first) => (node, first),
            Err(_) => used_up(self.is_inverse()),
        }
    }

    /// Fills `ids` with ids of consecutive states reserved with one read
    /// of the time.
    #[inline]
    pub(crate) fn fill_with<T: Id>(&self, ids: &mut [T]) {
        if ids.is_empty() {
            return;
        }
        let (node, first) = self.take(ids.len() as u64);
        self.spread(ids, node, first);
    }

    /// Fills `ids` with the ids of the states from `first` on (down,
    /// inverse).
    #[inline]
    fn spread<T: Id>(&self, ids: &mut [T], node: u64, first: u64) {
        let inverse = self.is_inverse();
        for (i, id) in (0..).zip(ids) {
            *id = self.pack(node, if inverse { first - i } else { first + i });
        }
    }

    /// Reserves `n >= 1` consecutive states for a [`Reserved`] handle: the
    /// node and the first state in forward order.
    #[inline]
    fn reserve_forward(&self, n: u64) -> (u64, u64) {
        let (node, first) = self.take(n);
        // The mirror is its own inverse.
        (node, self.core.issued(first))
    }

    /// Whether the forward state `f` is in the source's tick or later.
    #[inline(always)]
    fn current(&self, f: u64) -> bool {
        f >> SEQ_BITS >= layout::tick(self.core.source().now())
    }

    /// The node for this process: after a fork, a new random one (or a
    /// panic for a chosen node), drawn before the child's first id.
    #[inline]
    fn current_node(&self) -> u64 {
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

impl<G: Generation> Default for Clock<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: Generation> fmt::Debug for Clock<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = 2 + G::NODE_BITS.div_ceil(4) as usize;
        f.debug_struct(G::NAME)
            .field("node", &format_args!("{:#0width$x}", self.core.node_word()))
            .field("drift", &self.drift())
            .field("inverse", &self.is_inverse())
            .field("source", self.core.source())
            .field("state", &self.core.last())
            .finish()
    }
}

/// A clock's global ids, for a lease that fences them by time or a server
/// that serves them.
impl<G: Generation> IdClock for Clock<G> {
    type Id = G::Guid;
    type Builder = Builder<G>;

    fn resume(builder: Builder<G>, node: u64, not_before: SystemTime) -> Result<Self> {
        let clock = builder.node_bits(node)?.not_before(not_before)?.build();
        if clock.is_inverse() {
            return Err(Error::new(ErrorKind::Inverse));
        }
        Ok(clock)
    }

    #[inline]
    fn next(&self) -> Result<G::Guid> {
        Ok(self.g())
    }

    #[inline]
    fn fill(&self, ids: &mut [G::Guid]) -> Result<()> {
        Clock::fill(self, ids);
        Ok(())
    }

    fn time_of(&self, id: G::Guid) -> Result<SystemTime> {
        Ok(UNIX_EPOCH + Duration::from_nanos(id.time()))
    }

    fn last_time(&self) -> SystemTime {
        Clock::last_time(self)
    }

    fn reach(&self, n: usize) -> Duration {
        Duration::from_nanos((((n as u64) >> SEQ_BITS) + 1) << TICK_SHIFT)
    }

    fn health(&self) -> Health {
        Clock::health(self)
    }

    fn node(&self) -> u64 {
        self.node_word()
    }
}

/// A new global id from `clock` (Go's `G`).
#[inline]
pub fn g<G: Generation>(clock: &Clock<G>) -> G::Guid {
    clock.g()
}

/// A new local id from `clock` (Go's `L`).
#[inline]
pub fn l<G: Generation>(clock: &Clock<G>) -> G::Local {
    clock.l()
}
