//! The v2 clock: a lock-free, strictly monotonic source of ids.

use crate::drift::Drift;
use crate::guid::Guid;
use crate::local::Luid;
use crate::node;
use crate::sequence::{Generation, Sequence, Settings};

/// The v2 generation of the shared state machine: 32-bit nodes, and the
/// first id of a tick has sequence 0.
#[derive(Default)]
pub(crate) struct V2;

impl Generation for V2 {
    type Drift = Drift;
    const NODE_BITS: u32 = 32;
    const FIRST_SEQ: u64 = 0;
    fn random_node() -> u64 {
        node::random() as u64
    }
}

/// Makes ids: a node id, a drift, a time source and the last id's state.
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
/// The clock is two 64-byte cache lines: its state word alone on one, and
/// what every id reads on the other, which no id writes.
///
/// This table is one state machine that every clock of the crate runs:
/// [`v3::Clock`](crate::v3::Clock) runs it as it is, and the
/// [flake clock](crate::flake::Clock) on its layout's units with a bound on
/// how far ids borrow ahead (past it, that clock waits). This clock has no
/// such bound and never waits: Go's `G` returns an id and cannot block.
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
/// - a clock whose node was chosen ([`Builder::node`], or
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
/// [`Builder::not_before`] or [`Snapshot`](crate::Snapshot) is an error there.
#[repr(align(64))]
pub struct Clock {
    seq: Sequence<V2>,
}

crate::sequence::clock_methods!(guid: Guid, local: Luid, node: u32, drift: Drift, debug: "Clock");

/// Settings of a [`Clock`].
#[derive(Clone, Debug, Default)]
pub struct Builder {
    settings: Settings,
    drift: Drift,
}

impl Builder {
    /// Stamps this node id (default: random, see [`node::random`]).
    pub fn node(mut self, node: u32) -> Builder {
        self.settings.node = Some(node as u64);
        self
    }

    /// Stamps the node id named by `CONFIG_GUID_NODE_ID` if it is set
    /// ([`node::from_env`]); otherwise keeps the node chosen so far.
    pub fn node_from_env(mut self) -> Builder {
        if let Some(node) = node::from_env() {
            self.settings.node = Some(node as u64);
        }
        self
    }

    crate::sequence::settings_methods!(drift: Drift);
}
