//! The v3 drift ladder.

use core::fmt;
use core::time::Duration;

use crate::error::{Error, ErrorKind, Result};

/// The 3-bit drift code (0..=7) at the top of every v3 id, and the window
/// of low tick bits it keeps below the node.
///
/// v3 numbers its windows by a ladder, not v2's `18 + code`, so the same
/// code means a different window in each generation (all but code 5):
///
/// | code | window bits `d` | window (`2^(17+d)` ns) | Go's name |
/// |---|---|---|---|
/// | 0 | 0 | 131.072 µs | `Drift131us` |
/// | 1 | 14 | ≈ 2.1 s | `Drift2s` |
/// | 2 | 17 | ≈ 17 s | `Drift17s` |
/// | 3 | 19 | ≈ 68.7 s | `Drift68s` |
/// | 4 (default) | 21 | ≈ 275 s (v2's default window) | `Drift275s` |
/// | 5 | 23 | ≈ 1100 s | `Drift1099s` |
/// | 6 | 25 | ≈ 73 min | `Drift4398s` |
/// | 7 | 30 | ≈ 39 h | `Drift39h` |
///
/// `Display` prints the window as Go prints this type (`4m34.877906944s`);
/// [`Drift::code`] is the number.
///
/// ```
/// use guid::v3::Drift;
/// assert_eq!(Drift::DEFAULT.code(), 4);
/// assert_eq!(Drift::DEFAULT.to_string(), "4m34.877906944s");
/// // v2's default window (v2 code 3) is v3's code 4.
/// assert_eq!(Drift::from_v2(guid::Drift::DEFAULT), Drift::DEFAULT);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Drift(u8);

/// Go's `Drift.String()` of each code: `time.Duration(Window).String()`.
const NAMES: [&str; 8] = [
    "131.072µs",
    "2.147483648s",
    "17.179869184s",
    "1m8.719476736s",
    "4m34.877906944s",
    "18m19.511627776s",
    "1h13m18.046511104s",
    "39h5m37.488355328s",
];

impl Drift {
    /// The default drift, code 4 (Go v3's default; the window of v2's
    /// default code 3).
    pub const DEFAULT: Drift = Drift(4);
    /// The smallest window, code 0.
    pub const MIN: Drift = Drift(0);
    /// The largest window, code 7.
    pub const MAX: Drift = Drift(7);

    /// The drift with this code, or an error unless `code <= 7`.
    pub const fn new(code: u8) -> Result<Drift> {
        if code <= 7 {
            Ok(Drift(code))
        } else {
            Err(Error::new(ErrorKind::Range {
                name: "drift code",
                value: code as u64,
                min: 0,
                max: 7,
            }))
        }
    }

    /// The drift of the top 3 bits of an id.
    pub(crate) const fn of_code(code: u8) -> Drift {
        Drift(code & 7)
    }

    /// The smallest drift whose window holds a clock skew of `budget` (Go's
    /// `DriftOf`): the first code whose window is at least `budget`, else 7.
    pub const fn from_duration(budget: Duration) -> Drift {
        let mut code = 0;
        while code < 7 {
            let window = Drift(code).window();
            if budget.as_secs() < window.as_secs()
                || (budget.as_secs() == window.as_secs()
                    && budget.subsec_nanos() <= window.subsec_nanos())
            {
                return Drift(code);
            }
            code += 1;
        }
        Drift(7)
    }

    /// The v3 drift that keeps a v2 drift's window or the next wider one
    /// (what Go's `FromV2` re-encodes with): v2 codes 1 → 3, 2 and 3 → 4,
    /// 4 and 5 → 5, 6 and 7 → 6.
    pub const fn from_v2(drift: crate::Drift) -> Drift {
        Drift::from_duration(drift.window())
    }

    /// The 3-bit code, 0..=7.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// Number of low tick bits kept below the node id (Go's `Bits`).
    pub const fn bits(self) -> u32 {
        Drift::window_of(self.0)
    }

    /// Number of low tick bits code `code` keeps below the node id.
    pub(crate) const fn window_of(code: u8) -> u32 {
        crate::layout::window_v3(code)
    }

    /// The k-order window, `2^(17 + bits)` ns (Go's `Window`): ids of
    /// different nodes made within it sort by node.
    pub const fn window(self) -> Duration {
        Duration::from_nanos(1 << (self.bits() + 17))
    }
}

crate::id::declare!(drift Drift);

impl fmt::Debug for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v3::Drift({})", self.0)
    }
}

impl fmt::Display for Drift {
    /// The window as Go's `Drift.String()` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(NAMES[self.0 as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_windows_widen_as_go_from_v2_does() {
        let v3 = |c| Drift::from_v2(crate::Drift::new(c).unwrap()).code();
        assert_eq!([1, 2, 3, 4, 5, 6, 7].map(v3), [3, 4, 4, 5, 5, 6, 6]);
        // Code 5 is the one window the generations share.
        assert_eq!(
            Drift(5).bits(),
            crate::Drift::new(5)
                .unwrap()
                .window()
                .as_nanos()
                .trailing_zeros()
                - 17
        );
    }
}
