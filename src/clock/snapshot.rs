//! A clock's state saved across a restart.

use super::MAX_STATE;
use crate::error::{Error, ErrorKind, Result};

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
            return Err(Error::new(ErrorKind::Range {
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

impl Snapshot {
    /// The snapshot of a state within the range.
    pub(super) fn from_state(state: u64) -> Snapshot {
        debug_assert!(state <= MAX_STATE);
        Snapshot(state)
    }
}
