//! The settings of sno's generator, checked as sno checks them.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use super::generator::{Generator, MIN_POOL_SPAN};
use super::{MAX_UNITS, Snapshot};
use crate::error::{Error, ErrorKind, Result};
use crate::time::{Source, TimeSource};

/// Settings of a [`Generator`]: sno's `GeneratorSnapshot` as
/// configuration, and the time source.
///
/// ```
/// use guid::sno::Generator;
/// // Two generators sharing partition 'P' 0 by halves of the sequence.
/// let low = Generator::builder().partition(u16::from_be_bytes([b'P', 0])).sequence_max(32767).build()?;
/// let high = Generator::builder().partition(u16::from_be_bytes([b'P', 0])).sequence_min(32768).build()?;
/// assert_eq!((low.sequence_min(), low.sequence_max()), (0, 32767));
/// assert_eq!((high.sequence_min(), high.sequence_max()), (32768, 65535));
/// assert!(Generator::builder().sequence_min(10).sequence_max(14).build().is_err()); // pool too small
/// # Ok::<(), guid::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    pub(super) config: Snapshot,
    /// Whether the partition was chosen (else one is drawn).
    pub(super) partition: bool,
    pub(super) source: Source,
}

impl Builder {
    /// Stamps this partition (default: one drawn for the process, see
    /// [`Builder::build`]).
    pub fn partition(mut self, partition: u16) -> Builder {
        self.config.partition = partition;
        self.partition = true;
        self
    }

    /// The lower bound of the sequence, inclusive (default 0).
    pub fn sequence_min(mut self, min: u16) -> Builder {
        self.config.sequence_min = min;
        self
    }

    /// The upper bound of the sequence, inclusive (default 65535; 0 means
    /// 65535 unless the lower bound is 65535, as in sno). The bounds may be
    /// given in either order.
    pub fn sequence_max(mut self, max: u16) -> Builder {
        self.config.sequence_max = max;
        self
    }

    /// Restores a generator from a snapshot, taken here or by the Go
    /// library: its partition, bounds, sequence, units, safe point and
    /// drifts (`now` is not read). Settings made before are replaced.
    pub fn restore(mut self, snapshot: Snapshot) -> Builder {
        self.config = snapshot;
        self.partition = true;
        self
    }

    /// Reads time from `source` instead of the wall clock (as
    /// [`crate::Builder::time`]).
    pub fn time(mut self, source: impl TimeSource + 'static) -> Builder {
        self.source = Source::custom(source);
        self
    }

    /// Reads time from the wall clock, the default.
    pub fn wall(mut self) -> Builder {
        self.source = Source::Wall;
        self
    }

    /// Reads time from the coarse wall clock (as
    /// [`crate::Builder::coarse`]), whose resolution is about sno's unit.
    #[cfg(target_os = "linux")]
    pub fn coarse(mut self) -> Builder {
        self.source = Source::Coarse;
        self
    }

    /// The generator, or [`ErrorKind::Range`] where sno's `NewGenerator`
    /// refuses: bounds less than 5 apart (`sequence_max - sequence_min -
    /// 1` under 4, identical bounds included), a snapshot's `sequence`
    /// other than 0 below `sequence_min`; and beyond sno, a snapshot's
    /// `wall_hi` outside `0..2^39` or negative `wall_safe`.
    ///
    /// Without a chosen partition it draws one: a random 16-bit start for
    /// the process, then one more for each generator built, so generators
    /// of one process differ; the 65,537th such generator is refused, as
    /// sno refuses once its pool is exhausted.
    pub fn build(self) -> Result<Generator> {
        let mut c = self.config;
        // sno's sanitizing, in its order.
        if c.sequence_max == 0 && c.sequence_min != u16::MAX {
            c.sequence_max = u16::MAX;
        }
        if c.sequence_max < c.sequence_min {
            (c.sequence_min, c.sequence_max) = (c.sequence_max, c.sequence_min);
        }
        let span = c.sequence_max - c.sequence_min;
        if span < MIN_POOL_SPAN {
            return Err(range("sequence_max - sequence_min", span.into(), 5, 65535));
        }
        if c.sequence == 0 {
            c.sequence = c.sequence_min.into();
        }
        if c.sequence < c.sequence_min.into() {
            return Err(range(
                "snapshot sequence",
                c.sequence.into(),
                c.sequence_min.into(),
                u32::MAX.into(),
            ));
        }
        let wall_hi = u64::try_from(c.wall_hi)
            .ok()
            .filter(|u| *u <= MAX_UNITS)
            .ok_or_else(|| range("snapshot wallHi", c.wall_hi as u64, 0, MAX_UNITS))?;
        let wall_safe = u64::try_from(c.wall_safe)
            .map_err(|_| range("snapshot wallSafe", c.wall_safe as u64, 0, i64::MAX as u64))?;
        let partition = if self.partition {
            c.partition
        } else {
            draw_partition()?
        };
        Ok(Generator::start(
            &c,
            wall_hi,
            wall_safe,
            partition,
            self.source,
        ))
    }
}

fn range(name: &'static str, value: u64, min: u64, max: u64) -> Error {
    Error::new(ErrorKind::Range {
        name,
        value,
        min,
        max,
    })
}

/// A partition for a generator built without one: a random start for the
/// process, and one more for each. A forked child draws a start of its own
/// (its copy of the count names its parent's fork generation), so parent
/// and child never count up through the same partitions.
fn draw_partition() -> Result<u16> {
    /// The fork generation (31 bits), the start and how many were drawn
    /// (17 bits: up to 65,536), in one word.
    static DRAWS: AtomicU64 = AtomicU64::new(0);
    let generation = u64::from(crate::fork::generation()) & 0x7fff_ffff;
    let mut cur = DRAWS.load(Relaxed);
    loop {
        let (start, n) = if cur >> 33 == generation {
            ((cur >> 17) as u16, cur & 0x1_ffff)
        } else {
            let start = crate::node::random_bytes::<2>()
                .map_or_else(|| crate::node::fallback() as u16, u16::from_be_bytes);
            (start, 0)
        };
        if n > u64::from(u16::MAX) {
            return Err(range(
                "partitions drawn in this process",
                n,
                0,
                u16::MAX.into(),
            ));
        }
        let next = generation << 33 | u64::from(start) << 17 | (n + 1);
        match DRAWS.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
            Ok(_) => return Ok(start.wrapping_add(n as u16)),
            Err(seen) => cur = seen,
        }
    }
}
