//! The drift: how much clock skew between nodes the k-order tolerates.

use core::fmt;
use core::time::Duration;

use crate::error::{Error, ErrorKind, Result};

/// The 3-bit drift code (1..=7) stored at the top of every id.
///
/// Code `k` keeps the lowest `18 + k` bits of the tick below the node id, so
/// ids of different nodes sort by node within a window of `2^(18+k)` ticks of
/// 2^17 ns (code 3, the default: ≈ 4.6 minutes) and by time across windows.
///
/// | code | window | chosen for a drift of |
/// |---|---|---|
/// | 1 | ≈ 68.7 s | ≤ 68 s (also zero and negative) |
/// | 2 | ≈ 137 s | ≤ 137 s |
/// | 3 | ≈ 275 s | ≤ 274 s, and the default |
/// | 4 | ≈ 550 s | ≤ 549 s |
/// | 5 | ≈ 1100 s | ≤ 1099 s |
/// | 6 | ≈ 2199 s | ≤ 2199 s |
/// | 7 | ≈ 4398 s | larger |
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Drift(u8);

/// Upper bounds, in whole seconds, of the drift buckets 1..=6 (Go's table).
const BOUNDS_SECS: [u64; 6] = [68, 137, 274, 549, 1099, 2199];

impl Drift {
    /// The default drift, code 3 (the Go library's default).
    pub const DEFAULT: Drift = Drift(3);
    /// The smallest window, code 1.
    pub const MIN: Drift = Drift(1);
    /// The largest window, code 7.
    pub const MAX: Drift = Drift(7);

    /// The drift with this code, or an error unless `1 <= code <= 7`.
    pub const fn new(code: u8) -> Result<Drift> {
        if code >= 1 && code <= 7 {
            Ok(Drift(code))
        } else {
            Err(Error::new(ErrorKind::Range {
                name: "drift code",
                value: code as u64,
                min: 1,
                max: 7,
            }))
        }
    }

    /// The drift bucket for a tolerated clock skew, exactly as the Go library
    /// buckets its `drift time.Duration` argument.
    pub const fn from_duration(drift: Duration) -> Drift {
        let secs = drift.as_secs();
        // `secs <= b` would accept 68.5 s into the 68 s bucket; Go compares
        // the whole duration, so any fraction moves it up one bucket.
        let exact = drift.subsec_nanos() == 0;
        let mut i = 0;
        while i < BOUNDS_SECS.len() {
            let b = BOUNDS_SECS[i];
            if secs < b || (secs == b && exact) {
                return Drift(i as u8 + 1);
            }
            i += 1;
        }
        Drift(7)
    }

    /// The 3-bit code, 1..=7.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// Number of low tick bits code `code` keeps below the node id: `18 +
    /// code`.
    pub(crate) const fn window_of(code: u8) -> u32 {
        crate::layout::window_v2(code)
    }

    /// The k-order window: ids of different nodes made within it sort by node.
    pub const fn window(self) -> Duration {
        Duration::from_nanos(1 << (Drift::window_of(self.0) + 17))
    }

    /// The drift of the top 3 bits of an id, which every id has checked
    /// to be a code of 1 or more (0 would read as the default).
    pub(crate) const fn of_code(code: u8) -> Drift {
        match code & 7 {
            0 => Drift::DEFAULT,
            code => Drift(code),
        }
    }
}

crate::id::declare!(drift Drift);

impl fmt::Debug for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Drift({})", self.0)
    }
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_go_boundaries() {
        let cases = [
            (Duration::ZERO, 1),
            (Duration::from_secs(68), 1),
            (Duration::from_nanos(68_000_000_001), 2),
            (Duration::from_secs(137), 2),
            (Duration::from_secs(138), 3),
            (Duration::from_secs(274), 3),
            (Duration::from_secs(275), 4),
            (Duration::from_secs(549), 4),
            (Duration::from_secs(1099), 5),
            (Duration::from_secs(2199), 6),
            (Duration::from_secs(2200), 7),
            (Duration::MAX, 7),
        ];
        for (d, code) in cases {
            assert_eq!(Drift::from_duration(d).code(), code, "{d:?}");
        }
        assert_eq!(Drift::from_nanos(-1).code(), 1);
        assert!(Drift::new(0).is_err());
        assert!(Drift::new(8).is_err());
    }
}
