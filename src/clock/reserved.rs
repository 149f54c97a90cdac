//! A clock's ids handed out from blocks reserved at once, for one thread.

use std::cell::Cell;
use std::fmt;

use super::{Clock, Generation, Refused};
use crate::error::Result;
use crate::fork;
use crate::layout::SEQ_MAX;

/// Ids of a [`Clock`] handed out from blocks reserved at once, for one
/// thread at a time (it is `Send`, not `Sync`; keep one in a
/// `thread_local!`): made by [`Clock::reserved`].
///
/// Each block is taken from the clock with one atomic read-modify-write,
/// and ids are handed out from it with a load of the time source and of
/// the fork word, so with [`Builder::ticker`](super::Builder::ticker) an id
/// costs a few nanoseconds.
///
/// What holds: every id is distinct from every other id of the clock,
/// through any handle or the clock itself, in any thread, across forks (a
/// child's handle reserves anew, as the clock does); the ids of one handle
/// strictly increase; no id is older than the clock's tick when it is
/// handed out (a block left behind by the time is dropped). What is given
/// up: ids of different handles, or of a handle and the clock, may be out
/// of order within one tick (2^17 ns, 131 µs) — an id handed out now can
/// be smaller than one another handle handed out before it. Unused states
/// of a dropped block are never issued.
///
/// ```
/// use guid::Clock;
/// let clock = Clock::builder().ticker().build();
/// let ids = clock.reserved(64);
/// let (a, b) = (ids.g(), ids.g());
/// assert!(a < b);
/// assert_ne!(clock.g(), a);
/// ```
pub struct Reserved<'c, G: Generation> {
    clock: &'c Clock<G>,
    cursor: Cursor,
}

impl<'c, G: Generation> Reserved<'c, G> {
    /// An empty handle on `clock` that reserves `block` states at a time.
    pub(super) fn new(clock: &'c Clock<G>, block: u16) -> Self {
        Reserved {
            clock,
            cursor: Cursor::new(block),
        }
    }

    /// A new global id: [`Reserved::try_g`], panicking where it fails (as
    /// [`Clock::g`]).
    #[inline]
    pub fn g(&self) -> G::Guid {
        match self.cursor.next(self.clock) {
            Ok((node, state)) => self.clock.pack(node, state),
            Err(refused) => self.clock.refuse(refused),
        }
    }

    /// A new global id, or the error of [`Clock::try_g`] when a new block
    /// is needed and the clock refuses it.
    #[inline]
    pub fn try_g(&self) -> Result<G::Guid> {
        let (node, state) = self.cursor.next(self.clock)?;
        Ok(self.clock.pack(node, state))
    }

    /// A new local id: [`Reserved::try_l`], panicking where it fails.
    #[inline]
    pub fn l(&self) -> G::Local {
        match self.cursor.next(self.clock) {
            Ok((_, state)) => self.clock.pack(0, state),
            Err(refused) => self.clock.refuse(refused),
        }
    }

    /// A new local id, or the error of [`Reserved::try_g`].
    #[inline]
    pub fn try_l(&self) -> Result<G::Local> {
        let (_, state) = self.cursor.next(self.clock)?;
        Ok(self.clock.pack(0, state))
    }
}

impl<G: Generation> fmt::Debug for Reserved<'_, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reserved")
            .field("clock", self.clock)
            .field("cursor", &self.cursor)
            .finish()
    }
}

/// Where a handle stands in its block: the node, the process's fork
/// generation it was reserved in and the forward states `next..end` left.
/// Cells: a handle is for one thread at a time.
///
/// The generation is the process's, not the clock's: a handle is private
/// memory even when its clock is shared with forked children, so a child's
/// copy of a block is never handed out.
#[derive(Debug)]
struct Cursor {
    node: Cell<u64>,
    /// The fork generation of the block: none before the first.
    fork: fork::Owner<Cell<u32>>,
    next: Cell<u64>,
    end: Cell<u64>,
    block: u64,
}

impl Cursor {
    /// An empty cursor that reserves `block` states at a time.
    fn new(block: u16) -> Cursor {
        Cursor {
            node: Cell::new(0),
            fork: fork::Owner::none(),
            next: Cell::new(0),
            end: Cell::new(0),
            block: u64::from(block).clamp(1, SEQ_MAX + 1),
        }
    }

    /// The node and the state of the next id, from the block if it is
    /// still current, else from a new one.
    #[inline(always)]
    fn next<G: Generation>(&self, clock: &Clock<G>) -> std::result::Result<(u64, u64), Refused> {
        let f = self.next.get();
        if f < self.end.get() && !self.fork.forked() && clock.current(f) {
            self.next.set(f + 1);
            return Ok((self.node.get(), clock.core.issued(f)));
        }
        self.refill(clock)
    }

    #[cold]
    #[inline(never)]
    fn refill<G: Generation>(&self, clock: &Clock<G>) -> std::result::Result<(u64, u64), Refused> {
        let (node, first) = clock.reserve_forward(self.block)?;
        self.node.set(node);
        self.fork.adopt();
        self.next.set(first + 1);
        self.end.set(first + self.block);
        Ok((node, clock.core.issued(first)))
    }
}
