//! The 96-bit clock with a leased node id.

use guid::{Clock, Guid};

use crate::error::Result;
use crate::lease::NodeLease;
use crate::leased::Leased;

/// A [`Clock`] with a leased node id (see [`Leased`]): global ids that
/// stop when the lease is in doubt.
pub type LeasedClock = Leased<Clock>;

impl NodeLease {
    /// A wall-clock [`LeasedClock`] with the default drift.
    pub async fn clock(&self) -> Result<LeasedClock> {
        self.leased(Clock::builder()).await
    }

    /// A [`LeasedClock`] from `builder` (drift, time source): as
    /// [`NodeLease::leased`].
    pub async fn clock_with(&self, builder: guid::Builder) -> Result<LeasedClock> {
        self.leased(builder).await
    }
}

impl Leased<Clock> {
    /// A new global id, if the lease holds.
    #[inline]
    pub fn g(&self) -> Result<Guid> {
        self.next()
    }
}
