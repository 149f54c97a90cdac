//! The v3 clock: the shared state machine stamping v3 ids.

use std::time::SystemTime;

use super::{Drift, Guid, Luid, Xuid, node};
use crate::error::Result;
use crate::id::sealed::Layout;
use crate::layout;
use crate::sequence::{Generation, Sequence, Settings};

/// The v3 generation of the shared state machine: 58-bit nodes, and the
/// first id of a tick has sequence 1, as in Go v3.
#[derive(Default)]
pub(crate) struct V3;

impl Generation for V3 {
    type Drift = Drift;
    const NODE_BITS: u32 = node::BITS;
    const FIRST_SEQ: u64 = 1;
    fn random_node() -> u64 {
        node::random()
    }
}

/// Makes v3 ids: a 58-bit node id, a v3 drift, a time source and the last
/// id's state.
///
/// The state machine of [`crate::Clock`] (one word `tick << 14 | seq`, one
/// atomic read-modify-write per id), with every guarantee of its table: lock-free,
/// never a repeated id, steps back and stalls ride on the sequence, 16,384
/// ids in a tick borrow the next one, a forked child redraws a random node
/// or refuses a chosen one, the end of the tick range refuses rather than
/// wrap. [`Clock::health`] counts the rare events.
///
/// Where it follows Go v3 rather than this crate's v2 clock:
///
/// - the first id of a tick has sequence 1, as Go v3's `++V` gives (the
///   v2 clock starts at 0; an id of sequence 0 still comes from a carry,
///   as in Go), so its ids equal Go's for the same time readings;
/// - the node has 58 bits: global ids carry its low 32, 128-bit ids all.
///
/// Its state is Go v3's checkpoint value `V`: a [`Snapshot`](super::Snapshot) restores a
/// clock after a Go process's checkpoint and the other way round. Go's
/// `WithCheckpoint` channel is [`Clock::snapshot`], read when the caller
/// likes; Go's `WithSeed(v)` is [`Builder::restore`]. Go's `Mock` clock,
/// which gives one id forever, is not offered: compose ids instead.
///
/// ```
/// use guid::{Id, MockTime};
/// use guid::v3::{Clock, Drift};
/// let time = MockTime::new(1_700_000_000_000_000_000);
/// let clock = Clock::builder().node(0x84ea1453051caf)?.drift(Drift::DEFAULT).time(time.clone()).build();
/// let (a, b) = (clock.g(), clock.x());
/// assert_eq!((a.seq(), b.seq()), (1, 2)); // Go v3's sequence
/// time.step_back(3_600_000_000_000);      // an hour back
/// assert!(clock.g() > a);
/// # Ok::<(), guid::Error>(())
/// ```
///
/// # Panics
///
/// As [`crate::Clock`]: a forked child's clock with a chosen node, and the
/// end of the tick range (the year 2554).
pub struct Clock {
    seq: Sequence<V3>,
}

crate::sequence::clock_methods!(guid: Guid, local: Luid, node: u64, drift: Drift, debug: "v3::Clock");

impl Clock {
    /// A new 128-bit id (Go v3's `X`), with all 58 bits of the node.
    #[inline]
    pub fn x(&self) -> Xuid {
        let (node, state) = self.seq.next();
        Xuid::from_state(self.seq.drift().code(), node, state)
    }

    /// Fills `ids` with consecutive 128-bit ids from one read of the time.
    pub fn fill_x(&self, ids: &mut [Xuid]) {
        let drift = self.seq.drift();
        self.seq.fill(ids, |node, state| {
            Xuid::from_state(drift.code(), node, state)
        });
    }

    /// The 128-bit id of a local id made by this clock (Go's `X.FromL`).
    pub fn x_from_l64(&self, local: Luid) -> Xuid {
        Xuid::stamp(local.to_u64(), self.seq.current_node())
    }

    /// The tick of `t` in the clock's direction.
    pub(crate) fn tick_at(&self, t: SystemTime) -> u64 {
        self.seq.tick_at(t)
    }
}

/// Settings of a v3 [`Clock`].
#[derive(Clone, Debug, Default)]
pub struct Builder {
    settings: Settings,
    drift: Drift,
}

impl Builder {
    /// Stamps this 58-bit node id (default: random, see [`node::random`]);
    /// fails if it is wider (Go's `WithNodeID` drops the extra bits).
    pub fn node(mut self, node: u64) -> Result<Builder> {
        self.settings.node = Some(layout::check(node, "node", node::BITS)?);
        Ok(self)
    }

    /// Stamps the node id named by `CONFIG_GUID_NODE_ID` if it is set and
    /// not empty ([`node::from_env`]); otherwise keeps the node chosen so
    /// far.
    pub fn node_from_env(mut self) -> Builder {
        if let Some(node) = node::from_env() {
            self.settings.node = Some(node);
        }
        self
    }

    crate::sequence::settings_methods!(drift: Drift);
}
