//! What the v2 clock does its own way: 32-bit nodes, and the first id of a
//! tick has sequence 0.

use super::{Builder, Clock, Generation, sealed};
use crate::drift::Drift;
use crate::guid::Guid;
use crate::local::Luid;
use crate::node;

/// The v2 generation (fogfish/guid v2): [`Guid`] and [`Luid`], 32-bit
/// nodes. [`crate::Clock`] is `Clock<V2>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct V2;

impl Generation for V2 {
    type Guid = Guid;
    type Local = Luid;
    type Drift = Drift;
}

impl sealed::Generation for V2 {
    const NAME: &'static str = "Clock";
    const NODE_BITS: u32 = 32;
    const FIRST_SEQ: u64 = 0;
    fn random_node() -> u64 {
        node::random().into()
    }
    fn env_node() -> Option<u64> {
        node::from_env().map(u64::from)
    }
    #[inline]
    fn code(drift: Drift) -> u8 {
        drift.code()
    }
}

impl Clock<V2> {
    /// The node id stamped on ids (in a forked child, the new one for a
    /// random node; a chosen node is reported as it is, though the clock
    /// refuses to make ids with it there).
    pub fn node(&self) -> u32 {
        self.node_word() as u32
    }
}

impl Builder<V2> {
    /// Stamps this node id (default: random, see [`node::random`]).
    pub fn node(mut self, node: u32) -> Self {
        self.node = Some(node.into());
        self
    }
}
