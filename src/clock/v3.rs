//! What the v3 clock does its own way: 58-bit nodes, the first id of a tick
//! has sequence 1 (as Go v3's `++V`), and 128-bit ids.

use super::{Builder, Clock, Generation, sealed};
use crate::error::Result;
use crate::id::sealed::Packing as _;
use crate::v3::{Drift, Guid, Luid, Xuid, node};

/// The v3 generation (Go's fogfish/guid v3): [`Guid`], [`Luid`] and
/// [`Xuid`], 58-bit nodes. [`crate::v3::Clock`] is `Clock<V3>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct V3;

impl Generation for V3 {
    type Guid = Guid;
    type Local = Luid;
    type Drift = Drift;
}

impl sealed::Generation for V3 {
    const NAME: &'static str = "v3::Clock";
    const NODE_BITS: u32 = node::BITS;
    const FIRST_SEQ: u64 = 1;
    fn random_node() -> u64 {
        node::random()
    }
    fn env_node() -> Option<u64> {
        node::from_env()
    }
    #[inline]
    fn code(drift: Drift) -> u8 {
        drift.code()
    }
}

impl Clock<V3> {
    /// The node id stamped on ids: global ids carry its low 32 bits,
    /// 128-bit ids all 58 (in a forked child, the new one for a random
    /// node; a chosen node is reported as it is, though the clock refuses
    /// to make ids with it there).
    pub fn node(&self) -> u64 {
        self.node_word()
    }

    /// A new 128-bit id (Go v3's `X`), with all 58 bits of the node:
    /// [`Clock::try_x`], panicking where it fails (see
    /// [Panics](Clock#panics)).
    #[inline(always)]
    pub fn x(&self) -> Xuid {
        match self.take(1) {
            Ok((node, state)) => self.pack(node, state),
            Err(refused) => self.refuse(refused),
        }
    }

    /// A new 128-bit id, or the error of [`Clock::try_g`].
    #[inline]
    pub fn try_x(&self) -> Result<Xuid> {
        let (node, state) = self.take(1)?;
        Ok(self.pack(node, state))
    }

    /// Fills `ids` with consecutive 128-bit ids from one read of the time:
    /// [`Clock::try_fill_x`], panicking where it fails (see
    /// [Panics](Clock#panics)).
    pub fn fill_x(&self, ids: &mut [Xuid]) {
        self.fill_with(ids).unwrap_or_else(|r| self.refuse(r));
    }

    /// Fills `ids` with consecutive 128-bit ids from one read of the time,
    /// or leaves it untouched and returns the error of
    /// [`Clock::try_fill`].
    pub fn try_fill_x(&self, ids: &mut [Xuid]) -> Result<()> {
        Ok(self.fill_with(ids)?)
    }

    /// The 128-bit id of a local id made by this clock (Go's `X.FromL`),
    /// stamped with [the node](Clock::node): it never fails, as
    /// [`Clock::from_l64`].
    pub fn x_from_l64(&self, local: Luid) -> Xuid {
        Xuid::stamp(local.to_u64(), self.node_word())
    }
}

impl Builder<V3> {
    /// Stamps this 58-bit node id (default: random, see [`node::random`]);
    /// fails if it is wider (Go's `WithNodeID` drops the extra bits).
    pub fn node(self, node: u64) -> Result<Self> {
        self.node_bits(node)
    }
}
