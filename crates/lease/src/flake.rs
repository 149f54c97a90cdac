//! Flake (snowflake) clocks that stamp a leased node id and issue ids only
//! while the lease holds.

use guid::flake::{self, Layout};

use crate::error::Result;
use crate::lease::NodeLease;
use crate::leased::Leased;

/// A [`flake::Clock`] with the leased node id as its node (worker) id (see
/// [`Leased`]).
pub type LeasedFlakeClock = Leased<flake::Clock>;

impl NodeLease {
    /// A [`LeasedFlakeClock`] from `builder` (layout, time source, lead):
    /// as [`NodeLease::leased`]. The lease's range must fit the layout's
    /// node bits, or this fails with [`Error::Id`](crate::Error::Id).
    pub async fn flake_clock(&self, builder: flake::Builder) -> Result<LeasedFlakeClock> {
        self.leased(builder).await
    }
}

impl Leased<flake::Clock> {
    /// The layout of the ids.
    pub fn layout(&self) -> Layout {
        self.clock.layout()
    }
}
