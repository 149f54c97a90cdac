//! The 96-bit clocks: one lock-free, strictly monotonic clock, generic over
//! the generation of ids it makes.
//!
//! [`Clock<G>`] runs the crate's one state machine (one word `tick << 14 |
//! seq`, one atomic read-modify-write per id) and packs its states into the
//! ids of its [`Generation`]: [`V2`] ([`crate::Clock`]) or [`V3`]
//! ([`crate::v3::Clock`]), the names to use; the generic type serves both.
//!
//! ```
//! use guid::clock::{Clock, Generation};
//! /// Two ids in order, from a clock of either generation.
//! fn two<G: Generation>(clock: &Clock<G>) -> (G::Guid, G::Guid) {
//!     (clock.g(), clock.g())
//! }
//! let (a, b) = two(&guid::Clock::new());
//! assert!(a < b);
//! let (a, b) = two(&guid::v3::Clock::new());
//! assert!(a < b);
//! ```
//!
//! # Failing
//!
//! A clock makes no id that could repeat one: in a forked child (whose
//! copy of the state would issue its parent's next ids) and at the end of
//! its range it refuses. Every clock of the crate has a form that returns
//! the refusal as an [`Error`]; the 96-bit clocks' Go-shaped
//! forms (`g`, `l`, `x`, the fills), whose Go API returns an id, are thin
//! wrappers of their `try_` forms that panic with its message. Every check
//! for a fork is the one of [`ForkGuard`](crate::ForkGuard): which
//! children are noticed is said there.
//!
//! | form | forked child, random node | forked child, chosen node | end of the range |
//! |---|---|---|---|
//! | [`Clock::try_g`], [`try_l`](Clock::try_l), [`try_fill`](Clock::try_fill), [`try_fill_l`](Clock::try_fill_l); v3's [`try_x`](Clock::try_x), [`try_fill_x`](Clock::try_fill_x); [`Reserved::try_g`], [`try_l`](Reserved::try_l) | draws a new random node before the child's first id, then issues | `Err`: [`ErrorKind::Forked`], nothing issued | `Err`: [`ErrorKind::UsedUp`] (the year 2554), nothing issued; a batch without room for all its ids is refused whole |
//! | [`Clock::g`], [`l`](Clock::l), [`fill`](Clock::fill), [`fill_l`](Clock::fill_l); v3's [`x`](Clock::x), [`fill_x`](Clock::fill_x); [`Reserved::g`], [`l`](Reserved::l); [`g`], [`l`], `v3::g`, `v3::l`, `v3::x`; the ids' `now()` | as above | panics with the error's message (and the node) | panics with the error's message |
//! | [`IdClock::next`], [`fill`](crate::IdClock::fill) of a 96-bit clock | as above | `Err`: `Forked` | `Err`: `UsedUp` |
//! | [`Clock::from_l64`], v3's [`x_from_l64`](Clock::x_from_l64) (issue nothing) | stamps the new node | stamps the chosen node | — |
//! | a clock built [`shared_with_forks`](Builder::shared_with_forks) | keeps its node: parent and child share the one state | keeps its node, likewise | as the form says |
//! | [`flake::Clock::next`](crate::flake::Clock::next), [`fill`](crate::flake::Clock::fill) | — (its node is always chosen) | `Err`: `Forked` | `Err`: [`ErrorKind::Part`] named `"time"` |
//! | [`sno::Generator::try_next`](crate::sno::Generator::try_next), [`next_with_time`](crate::sno::Generator::next_with_time) | — (its partition is fixed when built, random or not) | `Err`: `Forked` | `Err`: `Part` of the sno time (2079); `next_with_time`: [`ErrorKind::Range`] for a time outside 2010 to 2079 |
//! | [`sno::Generator::next`](crate::sno::Generator::next) | — | panics | panics |
//!
//! A [`Ticker`](crate::Ticker) never fails: in a forked child, whose copy
//! of its thread does not exist, its first read reads the source and
//! starts a thread for the child.

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
/// | the tick range ends (year 2554) | `try_g()` returns [`ErrorKind::UsedUp`], `g()` panics, rather than wrap (see [Panics](#panics)) |
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
///   `CONFIG_GUID_NODE_ID`) refuses: its `try_` forms return
///   [`ErrorKind::Forked`], the others panic. Two processes with one node
///   and one state would repeat ids, and the node was somebody's choice, so
///   the clock neither repeats nor picks another node behind the caller's
///   back. Build the child's clock in the child, with a node of its own.
///
/// Every form, on fork and at the end of the range: [the module's
/// table](self#failing).
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
/// [`Clock::g`], [`Clock::l`], v3's [`Clock::x`] and the fills panic
/// where their `try_` forms ([`Clock::try_g`]…) return an error: when the
/// clock has used up its 47-bit tick range ([`ErrorKind::UsedUp`]: the
/// year 2554 for the wall clock, or sooner only if a custom time source
/// reports a time past that range), and when a clock with a chosen node is
/// used in a forked child ([`ErrorKind::Forked`]). Go's `G` returns an id,
/// not an error, so these forms cannot report either any other way without
/// repeating ids. Every start the builder accepts leaves ids to issue: an
/// out-of-range [`Builder::not_before`] or [`Snapshot`] is an error there.
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

    /// A new global id (Go's `G`): [`Clock::try_g`], panicking where it
    /// fails (see [Panics](#panics)).
    #[inline(always)]
    pub fn g(&self) -> G::Guid {
        match self.take(1) {
            Ok((node, state)) => self.pack(node, state),
            Err(refused) => self.refuse(refused),
        }
    }

    /// A new global id, or the error of a chosen node in a forked child
    /// ([`ErrorKind::Forked`]) or of a used-up tick range
    /// ([`ErrorKind::UsedUp`]); nothing is issued on error (see [the
    /// table](self#failing)).
    #[inline]
    pub fn try_g(&self) -> Result<G::Guid> {
        let (node, state) = self.take(1)?;
        Ok(self.pack(node, state))
    }

    /// A new local id (Go's `L`): [`Clock::try_l`], panicking where it
    /// fails (see [Panics](#panics)).
    #[inline(always)]
    pub fn l(&self) -> G::Local {
        match self.take(1) {
            Ok((_, state)) => self.pack(0, state),
            Err(refused) => self.refuse(refused),
        }
    }

    /// A new local id, or the error of [`Clock::try_g`].
    #[inline]
    pub fn try_l(&self) -> Result<G::Local> {
        let (_, state) = self.take(1)?;
        Ok(self.pack(0, state))
    }

    /// A handle that hands out this clock's ids from blocks of `block`
    /// states (1 to 16,384) reserved at once: a `&mut` call costs no atomic
    /// read-modify-write, for one thread (see [`Reserved`] for what it
    /// gives up).
    pub fn reserved(&self, block: u16) -> Reserved<'_, G> {
        Reserved::new(self, block)
    }

    /// Fills `ids` with consecutive global ids from one read of the time:
    /// [`Clock::try_fill`], panicking where it fails (see
    /// [Panics](#panics)).
    pub fn fill(&self, ids: &mut [G::Guid]) {
        self.fill_with(ids).unwrap_or_else(|r| self.refuse(r));
    }

    /// Fills `ids` with consecutive global ids from one read of the time,
    /// or leaves it untouched and returns the error of [`Clock::try_g`] (a
    /// batch the range has no room for is refused whole).
    pub fn try_fill(&self, ids: &mut [G::Guid]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let n = ids.len() as u64;
        let (node, first) = self.take(n)?;
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
            self.spread(ids, node, first);
            return Ok(());
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
        Ok(())
    }

    /// Fills `ids` with consecutive local ids from one read of the time:
    /// [`Clock::try_fill_l`], panicking where it fails (see
    /// [Panics](#panics)).
    pub fn fill_l(&self, ids: &mut [G::Local]) {
        self.fill_with(ids).unwrap_or_else(|r| self.refuse(r));
    }

    /// Fills `ids` with consecutive local ids from one read of the time, or
    /// leaves it untouched and returns the error of [`Clock::try_fill`].
    pub fn try_fill_l(&self, ids: &mut [G::Local]) -> Result<()> {
        Ok(self.fill_with(ids)?)
    }

    /// The global id of a local id made by this clock (Go's `FromL`),
    /// stamped with [the node](Clock::node): it issues nothing, so it never
    /// fails, in a forked child neither.
    pub fn from_l64(&self, local: G::Local) -> G::Guid {
        // Global ids carry the node's low 32 bits.
        G::Guid::stamp(local.payload() as u64, self.node_word() & 0xffff_ffff)
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
        self.current_node()
            .unwrap_or_else(|_| self.core.node_word())
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
    /// issues them, or the error of a chosen node in a forked child or of
    /// a used-up range (nothing taken).
    #[inline(always)]
    fn take(&self, n: u64) -> std::result::Result<(u64, u64), Refused> {
        let node = self.current_node()?;
        match self.core.reserve(n) {
            Ok(first) => Ok((node, first)),
            Err(_) => Err(Refused::UsedUp),
        }
    }

    /// Fills `ids` with ids of consecutive states reserved with one read
    /// of the time, or leaves it untouched on error.
    #[inline]
    pub(crate) fn fill_with<T: Id>(&self, ids: &mut [T]) -> std::result::Result<(), Refused> {
        if ids.is_empty() {
            return Ok(());
        }
        let (node, first) = self.take(ids.len() as u64)?;
        self.spread(ids, node, first);
        Ok(())
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
    fn reserve_forward(&self, n: u64) -> std::result::Result<(u64, u64), Refused> {
        let (node, first) = self.take(n)?;
        // The mirror is its own inverse.
        Ok((node, self.core.issued(first)))
    }

    /// Whether the forward state `f` is in the source's tick or later.
    #[inline(always)]
    fn current(&self, f: u64) -> bool {
        f >> SEQ_BITS >= layout::tick(self.core.source().now())
    }

    /// The node for this process: after a fork, a new random one drawn
    /// before the child's first id, or [`ErrorKind::Forked`] for a chosen
    /// node.
    #[inline]
    fn current_node(&self) -> std::result::Result<u64, Refused> {
        match self.core.node() {
            Ok(node) => Ok(node),
            Err(Forked) => self.forked(),
        }
    }

    #[cold]
    #[inline(never)]
    fn forked(&self) -> std::result::Result<u64, Refused> {
        if self.core.own.chosen {
            return Err(Refused::Forked);
        }
        self.core.renode(G::random_node());
        Ok(self.core.node_word())
    }

    /// The panic of a panicking form, for the error of its `try_` form.
    #[cold]
    #[inline(never)]
    fn refuse(&self, refused: Refused) -> ! {
        if refused == Refused::Forked {
            panic!(
                "guid: a clock with the chosen node {:#x} was used in a forked child, \
                 where it would repeat its parent's ids; build the child's clock in the \
                 child, with a node of its own",
                self.core.node_word()
            );
        }
        panic!("guid: {}", Error::from(refused))
    }
}

/// Why a clock made no id, kept to one byte on the common path: the
/// [`Error`] of a `try_` form is made from it there, off that path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// A chosen node in a forked child.
    Forked,
    /// The tick range is used up.
    UsedUp,
}

impl From<Refused> for Error {
    #[cold]
    fn from(refused: Refused) -> Error {
        Error::new(match refused {
            Refused::Forked => ErrorKind::Forked,
            Refused::UsedUp => ErrorKind::UsedUp,
        })
    }
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
        self.try_g()
    }

    #[inline]
    fn fill(&self, ids: &mut [G::Guid]) -> Result<()> {
        self.try_fill(ids)
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
