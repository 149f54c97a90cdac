//! The 63-bit split of a flake id and its time: units since an epoch.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{Error, ErrorKind, Result};
use crate::time::{nanos, unix_nanos};

/// The epoch of Twitter's snowflake and noeqd, in Unix milliseconds
/// (2010-11-04 01:42:54.657 UTC).
pub const TWITTER_EPOCH_MS: u64 = 1_288_834_974_657;

pub(super) const NANOS_PER_MS: u64 = 1_000_000;

/// A split of 63 bits into time, node and sequence, with the time unit and
/// the epoch the time counts from.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use guid::flake::Layout;
///
/// // Sonyflake-like: 39 bits of 10 ms units, 16 node bits, 8 sequence bits.
/// let layout = Layout::new(39, 16, 8)?
///     .with_unit(Duration::from_millis(10))?
///     .with_epoch(UNIX_EPOCH + Duration::from_secs(1_409_529_600));
/// assert_eq!(layout.max_seq(), 255);
/// assert!(Layout::new(41, 10, 13).is_err()); // 64 bits: the sign bit is not for ids
/// # Ok::<(), guid::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub(super) time: u8,
    pub(super) node: u8,
    pub(super) seq: u8,
    pub(super) unit_ns: u64,
    pub(super) epoch_ns: u64,
}

const _: () =
    assert!(Layout::NOEQD.time as u32 + Layout::NOEQD.node as u32 + Layout::NOEQD.seq as u32 == 63);

impl Layout {
    /// noeqd's and Twitter snowflake's layout: 41 bits of milliseconds
    /// since [`TWITTER_EPOCH_MS`], 10 node bits (`datacenter << 5 | worker`,
    /// see [`noeqd_node`]), 12 sequence bits:
    /// `((ms - epoch) << 22) | (datacenter << 17) | (worker << 12) | seq`.
    pub const NOEQD: Layout = Layout {
        time: 41,
        node: 10,
        seq: 12,
        unit_ns: NANOS_PER_MS,
        epoch_ns: TWITTER_EPOCH_MS * NANOS_PER_MS,
    };

    /// A custom split of `time + node + seq = 63` bits, each at least 1, in
    /// milliseconds since [`TWITTER_EPOCH_MS`] until set otherwise (so
    /// `Layout::new(41, 10, 12)` is [`Layout::NOEQD`]).
    pub const fn new(time: u32, node: u32, seq: u32) -> Result<Layout> {
        let fits = time >= 1 && node >= 1 && seq >= 1;
        if !fits || time as u64 + node as u64 + seq as u64 != 63 {
            return Err(Error::new(ErrorKind::Layout { time, node, seq }));
        }
        Ok(Layout {
            time: time as u8,
            node: node as u8,
            seq: seq as u8,
            ..Layout::NOEQD
        })
    }

    /// snowcast's layout for `node_bits` in 7..=13 (128 to 8,192 nodes): 41
    /// bits of milliseconds, then the node, then `22 - node_bits` sequence
    /// bits (snowcast itself also spends the sign bit on the sequence; this
    /// keeps ids positive). Set its epoch with [`Layout::with_epoch`].
    pub const fn snowcast(node_bits: u32) -> Result<Layout> {
        if node_bits < 7 || node_bits > 13 {
            return Err(Error::new(ErrorKind::Range {
                name: "snowcast node bits",
                value: node_bits as u64,
                min: 7,
                max: 13,
            }));
        }
        Layout::new(41, node_bits, 22 - node_bits)
    }

    /// The layout of the Redis id talk: 41 bits of milliseconds since a
    /// custom `epoch`, a 10-bit shard id, 12 sequence bits.
    pub fn redis(epoch: SystemTime) -> Layout {
        Layout::NOEQD.with_epoch(epoch)
    }

    /// The same split with time counted from `epoch` (times before the Unix
    /// epoch count from it).
    pub fn with_epoch(self, epoch: SystemTime) -> Layout {
        Layout {
            epoch_ns: unix_nanos(epoch),
            ..self
        }
    }

    /// The same split with time counted from `ms` Unix milliseconds.
    pub const fn with_epoch_ms(self, ms: u64) -> Layout {
        Layout {
            epoch_ns: ms.saturating_mul(NANOS_PER_MS),
            ..self
        }
    }

    /// The same split with time counted in `unit`s (at least 1 ns).
    pub fn with_unit(self, unit: Duration) -> Result<Layout> {
        match u64::try_from(unit.as_nanos()) {
            Ok(unit_ns) if unit_ns >= 1 => Ok(Layout { unit_ns, ..self }),
            _ => Err(Error::new(ErrorKind::Range {
                name: "time unit (ns)",
                value: nanos(unit),
                min: 1,
                max: u64::MAX,
            })),
        }
    }

    /// Bits of time.
    pub const fn time_bits(&self) -> u32 {
        self.time as u32
    }

    /// Bits of node.
    pub const fn node_bits(&self) -> u32 {
        self.node as u32
    }

    /// Bits of sequence.
    pub const fn seq_bits(&self) -> u32 {
        self.seq as u32
    }

    /// The largest time, in units since the epoch.
    pub const fn max_time(&self) -> u64 {
        (1 << self.time) - 1
    }

    /// The largest node id.
    pub const fn max_node(&self) -> u64 {
        (1 << self.node) - 1
    }

    /// The largest sequence number.
    pub const fn max_seq(&self) -> u64 {
        (1 << self.seq) - 1
    }

    /// The time unit.
    pub const fn unit(&self) -> Duration {
        Duration::from_nanos(self.unit_ns)
    }

    /// The epoch time counts from.
    pub fn epoch(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_nanos(self.epoch_ns)
    }

    /// The id of `time` units since the epoch, `node` and `seq`, each
    /// checked against its field.
    pub fn compose(&self, time: u64, node: u64, seq: u64) -> Result<u64> {
        check("time", time, self.max_time())?;
        check("node", node, self.max_node())?;
        check("seq", seq, self.max_seq())?;
        Ok(time << (self.node + self.seq) | node << self.seq | seq)
    }

    /// The id of `parts`, as [`Layout::compose`].
    pub fn compose_parts(&self, parts: Parts) -> Result<u64> {
        self.compose(parts.time, parts.node, parts.seq)
    }

    /// The parts of `id`; an id with the sign bit set is not a flake id.
    pub fn decompose(&self, id: u64) -> Result<Parts> {
        if id >> 63 != 0 {
            return Err(Error::new(ErrorKind::Overflow { bits: 63 }));
        }
        Ok(Parts {
            time: id >> (self.node + self.seq),
            node: (id >> self.seq) & self.max_node(),
            seq: id & self.max_seq(),
        })
    }

    /// Whole units from the epoch to `t` (0 for times before the epoch).
    pub fn units(&self, t: SystemTime) -> u64 {
        self.units_of_nanos(unix_nanos(t))
    }

    /// The start of unit `units` since the epoch (saturating in the year
    /// 2554, where Unix nanoseconds leave 64 bits).
    pub fn time(&self, units: u64) -> SystemTime {
        let ns = self
            .epoch_ns
            .saturating_add(units.saturating_mul(self.unit_ns));
        UNIX_EPOCH + Duration::from_nanos(ns)
    }

    /// The time of `id` (the start of its unit).
    pub fn time_of(&self, id: u64) -> Result<SystemTime> {
        Ok(self.time(self.decompose(id)?.time))
    }

    #[inline]
    pub(super) fn units_of_nanos(&self, ns: u64) -> u64 {
        ns.saturating_sub(self.epoch_ns) / self.unit_ns
    }

    /// The largest clock state, `max_time << seq | max_seq`.
    pub(super) const fn max_state(&self) -> u64 {
        (1 << (self.time + self.seq)) - 1
    }
}

impl Default for Layout {
    /// [`Layout::NOEQD`].
    fn default() -> Self {
        Layout::NOEQD
    }
}

impl fmt::Display for Layout {
    /// `41/10/12 (1ms units since Unix ms 1288834974657)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{} ({:?} units since Unix ms {})",
            self.time,
            self.node,
            self.seq,
            self.unit(),
            self.epoch_ns / NANOS_PER_MS
        )
    }
}

pub(super) fn check(name: &'static str, value: u64, max: u64) -> Result<()> {
    if value > max {
        return Err(Error::new(ErrorKind::Part { name, value, max }));
    }
    Ok(())
}

/// The parts of a flake id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Parts {
    /// Units since the layout's epoch.
    pub time: u64,
    /// The node id.
    pub node: u64,
    /// The sequence number within the unit.
    pub seq: u64,
}

/// noeqd's node id: `datacenter << 5 | worker`, each in 0..=31.
pub fn noeqd_node(datacenter: u64, worker: u64) -> Result<u64> {
    check("datacenter", datacenter, 31)?;
    check("worker", worker, 31)?;
    Ok(datacenter << 5 | worker)
}
