//! The 64-bit flake (snowflake) layout, `| time | node | seq |`, and a
//! lock-free clock that makes such ids.
//!
//! ```text
//!  1      T bits              N bits      S bits
//! |0|------------------|------------|----------|    T + N + S = 63
//!          time             node        seq
//! ```
//!
//! `time` counts units (1 ms unless set) since a custom epoch, `node` names
//! the generator, `seq` counts ids within a unit. The sign bit stays 0, so
//! ids are positive in every language's signed 64-bit integer. Unlike local
//! ids ([`crate::Luid`]), flake ids are unique across a fleet as long as
//! node ids are.
//!
//! | preset | split | epoch | node |
//! |---|---|---|---|
//! | [`Layout::NOEQD`] (noeqd, Twitter snowflake) | 41/10/12 | 1288834974657 ms | `datacenter << 5 \| worker` ([`noeqd_node`]) |
//! | [`Layout::snowcast`]`(n)` | 41/n/22-n, n in 7..=13 | set with [`Layout::with_epoch`] | 128 to 8,192 nodes |
//! | [`Layout::redis`]`(epoch)` | 41/10/12 | custom | a shard id |
//! | [`Layout::new`]`(t, n, s)` | any t + n + s = 63, each ≥ 1 | set with [`Layout::with_epoch`] | |
//!
//! ```
//! use guid::flake::{self, Layout};
//!
//! let layout = Layout::NOEQD;
//! let node = flake::noeqd_node(3, 7)?; // datacenter 3, worker 7
//! let id = layout.compose(1_000, node, 5)?;
//! assert_eq!(id, (1_000 << 22) | (3 << 17) | (7 << 12) | 5);
//! let parts = layout.decompose(id)?;
//! assert_eq!((parts.time, parts.node, parts.seq), (1_000, node, 5));
//!
//! let clock = flake::Clock::builder(layout).node(node).build()?;
//! let (a, b) = (clock.next()?, clock.next()?);
//! assert!(a < b);
//! assert_eq!(layout.decompose(b)?.node, node);
//! # Ok::<(), guid::Error>(())
//! ```
//!
//! # The clock's policy
//!
//! The sequence is small (4,096 ids per millisecond for noeqd), so the clock
//! can run out of it; it then borrows the next time unit, up to a bounded
//! lead over its time source, and only past that lead waits.
//!
//! | the time source… | the [`Clock`]… |
//! |---|---|
//! | is read by many threads at once | installs every id with one CAS on one word: no two alike, each later than the one before |
//! | stalls (same unit) | counts the sequence up |
//! | stalls for more than 2^S ids | borrows the next unit: ids run ahead of the source, up to [`Builder::max_lead`] (default [`DEFAULT_MAX_LEAD`], 100 ms) |
//! | stalls past that lead | waits (naps of at most 1 ms) until the source catches up ([`Health::waits`]); [`Clock::pace`] tells a caller that would rather wait elsewhere how long |
//! | steps back | keeps counting from the last id and never waits for the source until it is back past its earlier reading ([`Health::steps_back`]) |
//! | jumps forward | follows it, sequence 0 |
//! | passes the layout's last unit | returns an error ([`ErrorKind::Part`] named `"time"`): the layout is used up |
//! | restarts | [`Builder::not_before`] with a saved [`Clock::last_time`] starts after every id issued before |
//! | is used in a forked child | returns an error ([`ErrorKind::Forked`]): the node is the parent's, and the child would repeat its ids |
//!
//! Twitter's snowflake and noeqd wait whenever the sequence runs out and
//! refuse to serve while the clock is behind; the Go guid library repeats
//! ids in both cases.

use std::fmt;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{Error, ErrorKind, Result};
use crate::fork;
use crate::health::{Health, Watch};
use crate::sync::AtomicU64;
use crate::time::{Source, TimeSource, unix_nanos};

/// The epoch of Twitter's snowflake and noeqd, in Unix milliseconds
/// (2010-11-04 01:42:54.657 UTC).
pub const TWITTER_EPOCH_MS: u64 = 1_288_834_974_657;

/// How far a clock's ids may run ahead of its time source when the sequence
/// overflows, unless set with [`Builder::max_lead`].
pub const DEFAULT_MAX_LEAD: Duration = Duration::from_millis(100);

const NANOS_PER_MS: u64 = 1_000_000;

/// The longest single nap of a clock that waits for its source.
#[cfg(not(loom))]
const MAX_NAP: Duration = Duration::from_millis(1);

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
    time: u8,
    node: u8,
    seq: u8,
    unit_ns: u64,
    epoch_ns: u64,
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
            return Err(Error(ErrorKind::Layout { time, node, seq }));
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
            return Err(Error(ErrorKind::Range {
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
            _ => Err(Error(ErrorKind::Range {
                name: "time unit (ns)",
                value: u64::try_from(unit.as_nanos()).unwrap_or(u64::MAX),
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
            return Err(Error(ErrorKind::Overflow { bits: 63 }));
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
    fn units_of_nanos(&self, ns: u64) -> u64 {
        ns.saturating_sub(self.epoch_ns) / self.unit_ns
    }

    /// The largest clock state, `max_time << seq | max_seq`.
    const fn max_state(&self) -> u64 {
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

fn check(name: &'static str, value: u64, max: u64) -> Result<()> {
    if value > max {
        return Err(Error(ErrorKind::Part { name, value, max }));
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

/// Makes flake ids: a layout, a node id, a time source and the last id's
/// state, as one word `units << S | seq` in one `AtomicU64`.
///
/// The next id is `max(state + 1, now << S)`, installed with one
/// compare-and-swap: a sequence overflow is the carry of `state + 1` into
/// the next unit, a source that steps back loses the `max`, and no two
/// threads ever see the same state. See [the module's policy
/// table](self#the-clocks-policy).
///
/// ```
/// use guid::MockTime;
/// use guid::flake::{Clock, Layout};
///
/// let time = MockTime::new(1_700_000_000_000_000_000);
/// let clock = Clock::builder(Layout::NOEQD).node(5).time(time.clone()).build()?;
/// let a = clock.next()?;
/// time.step_back(2_000_000_000); // the system clock goes back 2 s
/// let b = clock.next()?;
/// assert!(b > a);
/// assert_eq!(clock.health().steps_back, 1);
/// # Ok::<(), guid::Error>(())
/// ```
pub struct Clock {
    state: Line,
    /// The latest source unit seen, and the rare events.
    watch: Watch,
    layout: Layout,
    /// The node id, shifted into place.
    node: u64,
    max_lead: u64,
    source: Source,
    /// The fork generation the clock was built in.
    forks: u32,
}

/// The clock's state alone on a cache line: it is the word every id writes.
#[repr(align(64))]
struct Line(AtomicU64);

impl Clock {
    /// Configures a clock for `layout`.
    pub fn builder(layout: Layout) -> Builder {
        Builder {
            layout,
            node: 0,
            source: Source::Wall,
            not_before: None,
            max_lead: DEFAULT_MAX_LEAD,
        }
    }

    /// A new id, later than every id this clock issued before.
    ///
    /// Fails only when the source has passed the layout's last time unit,
    /// or in a forked child of the process that built the clock.
    #[inline]
    pub fn next(&self) -> Result<u64> {
        Ok(self.id(self.reserve(1)?))
    }

    /// Fills `ids` with consecutive ids from one read of the time, or
    /// leaves it untouched on error (as [`Clock::next`]).
    pub fn fill(&self, ids: &mut [u64]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let first = self.reserve(ids.len() as u64)?;
        for (state, id) in (first..).zip(ids.iter_mut()) {
            *id = self.id(state);
        }
        Ok(())
    }

    /// The layout of the ids.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The node id stamped on ids.
    pub fn node(&self) -> u64 {
        self.node >> self.layout.seq
    }

    /// The bound on how far ids run ahead of the source by borrowing.
    pub fn max_lead(&self) -> Duration {
        units_to_duration(self.max_lead, &self.layout)
    }

    /// The start of the time unit of the last id issued (or of the
    /// [`Builder::not_before`] bound): every id so far is at or before it.
    /// Saved and passed to [`Builder::not_before`] of a restarted clock, it
    /// keeps that clock past every id of this one.
    pub fn last_time(&self) -> SystemTime {
        self.layout
            .time(self.state.0.load(Relaxed) >> self.layout.seq)
    }

    /// The rare events met so far.
    pub fn health(&self) -> Health {
        self.watch.health(self.layout.unit_ns)
    }

    /// The id of a state.
    #[inline]
    fn id(&self, state: u64) -> u64 {
        let s = self.layout.seq;
        (state >> s) << (s + self.layout.node) | self.node | state & self.layout.max_seq()
    }

    /// How long [`Clock::fill`] of `n` ids would wait for the source if
    /// called now: zero when it would not wait. A caller that would rather
    /// wait elsewhere than have the clock sleep its thread (an async task)
    /// waits this long first; nothing is issued or counted.
    pub fn pace(&self, n: usize) -> Duration {
        if n == 0 {
            return Duration::ZERO;
        }
        let seen = self.watch.seen();
        let ns = self.source.now();
        let now = self.layout.units_of_nanos(ns);
        let cur = self.state.0.load(Relaxed);
        match self.plan(cur, now, now < seen, n as u64) {
            Plan::Wait { target } => {
                Duration::from_nanos(self.start_of(target).saturating_sub(ns).max(1))
            }
            Plan::Issue { .. } | Plan::UsedUp { .. } => Duration::ZERO,
        }
    }

    /// Reserves `n >= 1` consecutive states and returns the first.
    #[inline]
    fn reserve(&self, n: u64) -> Result<u64> {
        if fork::generation() != self.forks {
            return Err(Error(ErrorKind::Forked));
        }
        let s = self.layout.seq;
        let mut waited = false;
        loop {
            // `seen` is read before the source, so a reading another thread
            // published is never mistaken for a step back.
            let seen = self.watch.seen();
            let now = self.layout.units_of_nanos(self.source.now());
            let behind = self.watch.observe(seen, now);
            let mut cur = self.state.0.load(Relaxed);
            loop {
                let (first, last) = match self.plan(cur, now, behind, n) {
                    Plan::Issue { first, last } => (first, last),
                    Plan::UsedUp { value } => {
                        return Err(Error(ErrorKind::Part {
                            name: "time",
                            value,
                            max: self.layout.max_time(),
                        }));
                    }
                    Plan::Wait { target } => {
                        if !waited {
                            waited = true;
                            self.watch.waited();
                        }
                        self.nap(target);
                        break;
                    }
                };
                match self
                    .state
                    .0
                    .compare_exchange_weak(cur, last, Relaxed, Relaxed)
                {
                    Ok(_) => {
                        let last_unit = last >> s;
                        if last_unit > now {
                            self.watch.ran_ahead(cur >> s, now, last_unit);
                        }
                        return Ok(first);
                    }
                    Err(seen) => cur = seen,
                }
            }
        }
    }

    /// What to do for `n` ids after state `cur` with the source at unit
    /// `now` (`behind` when that is before a unit it had shown).
    #[inline]
    fn plan(&self, cur: u64, now: u64, behind: bool, n: u64) -> Plan {
        let layout = &self.layout;
        let s = layout.seq;
        let floor = if now > layout.max_time() {
            u64::MAX
        } else {
            now << s
        };
        let first = cur.saturating_add(1).max(floor);
        let last = first.saturating_add(n - 1);
        if last > layout.max_state() {
            let value = if now > layout.max_time() {
                now
            } else {
                last >> s
            };
            return Plan::UsedUp { value };
        }
        let (first_unit, last_unit) = (first >> s, last >> s);
        if !behind && first_unit > now && last_unit > now.saturating_add(self.max_lead) {
            // A batch starts within the lead; it may end past it by its length.
            return Plan::Wait {
                target: first_unit.min(last_unit - self.max_lead),
            };
        }
        Plan::Issue { first, last }
    }

    /// The start of unit `unit`, Unix ns.
    fn start_of(&self, unit: u64) -> u64 {
        let layout = &self.layout;
        layout
            .epoch_ns
            .saturating_add(unit.saturating_mul(layout.unit_ns))
    }

    /// Sleeps until the source may have reached unit `target`, at most
    /// [`MAX_NAP`] at a time.
    #[cold]
    fn nap(&self, target: u64) {
        // The model checker schedules its threads itself: yield to them.
        #[cfg(loom)]
        {
            let _ = target;
            loom::thread::yield_now();
        }
        #[cfg(not(loom))]
        {
            let left = self.start_of(target).saturating_sub(self.source.now());
            if left == 0 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_nanos(left).min(MAX_NAP));
            }
        }
    }
}

/// The next step of [`Clock::reserve`].
enum Plan {
    /// Install `last`; the ids are the states `first..=last`.
    Issue { first: u64, last: u64 },
    /// Wait until the source reaches unit `target`.
    Wait { target: u64 },
    /// The layout's time is used up (`value` is the unit asked for).
    UsedUp { value: u64 },
}

fn units_to_duration(units: u64, layout: &Layout) -> Duration {
    Duration::from_nanos(units.saturating_mul(layout.unit_ns))
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock")
            .field("layout", &self.layout)
            .field("node", &self.node())
            .field("max_lead", &self.max_lead())
            .field("wall", &self.source.is_wall())
            .field("state", &self.state.0.load(Relaxed))
            .field("health", &self.health())
            .finish()
    }
}

/// Settings of a flake [`Clock`].
#[derive(Clone)]
pub struct Builder {
    layout: Layout,
    node: u64,
    source: Source,
    not_before: Option<SystemTime>,
    max_lead: Duration,
}

impl Builder {
    /// Stamps this node id (default 0), checked against the layout at
    /// [`Builder::build`].
    pub fn node(mut self, node: u64) -> Builder {
        self.node = node;
        self
    }

    /// Reads time from `source` instead of the wall clock.
    pub fn time(mut self, source: impl TimeSource + 'static) -> Builder {
        self.source = Source::custom(source);
        self
    }

    /// Issues only ids whose time unit is after the unit of `t`, whatever
    /// the source says: the restart guard for a process that kept its node
    /// id (noeqd's `-t`). The latest of several calls wins. A `t` in the
    /// layout's last unit or past it leaves no id to issue:
    /// [`Builder::build`] refuses it.
    pub fn not_before(mut self, t: SystemTime) -> Builder {
        self.not_before = Some(self.not_before.map_or(t, |prev| prev.max(t)));
        self
    }

    /// Lets ids run at most `lead` ahead of the source when the sequence
    /// of a unit runs out (default [`DEFAULT_MAX_LEAD`]); past it the clock
    /// waits. `Duration::ZERO` never borrows, as Twitter's snowflake.
    pub fn max_lead(mut self, lead: Duration) -> Builder {
        self.max_lead = lead;
        self
    }

    /// The clock, or an error if the node id does not fit the layout or the
    /// [`Builder::not_before`] time leaves the layout no unit to issue in
    /// ([`ErrorKind::Range`]).
    pub fn build(self) -> Result<Clock> {
        fork::watch();
        let layout = self.layout;
        check("node", self.node, layout.max_node())?;
        let (mut state, mut seen) = (0, 0);
        if let Some(t) = self
            .not_before
            .filter(|t| unix_nanos(*t) >= layout.epoch_ns)
        {
            let unit = layout.units(t);
            if unit >= layout.max_time() {
                return Err(Error(ErrorKind::Range {
                    name: "not-before time (units since the epoch)",
                    value: unit,
                    min: 0,
                    max: layout.max_time() - 1,
                }));
            }
            seen = unit;
            state = ((unit + 1) << layout.seq) - 1;
        }
        let lead = self.max_lead.as_nanos() / u128::from(layout.unit_ns);
        Ok(Clock {
            state: Line(AtomicU64::new(state)),
            watch: Watch::new(seen),
            layout,
            node: self.node << layout.seq,
            max_lead: u64::try_from(lead).unwrap_or(u64::MAX),
            source: self.source,
            forks: fork::generation(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MockTime;

    const T0: u64 = 1_700_000_000_000_000_000;

    fn mock_clock(time: &MockTime, layout: Layout) -> Clock {
        Clock::builder(layout)
            .node(1)
            .time(time.clone())
            .build()
            .expect("node 1 fits")
    }

    /// The first id of a fresh clock is the source's unit with sequence 0.
    #[test]
    fn first_id_is_now_with_seq_zero() {
        let time = MockTime::new(T0);
        let clock = mock_clock(&time, Layout::NOEQD);
        let parts = Layout::NOEQD.decompose(clock.next().unwrap()).unwrap();
        let ms = T0 / NANOS_PER_MS - TWITTER_EPOCH_MS;
        assert_eq!(
            parts,
            Parts {
                time: ms,
                node: 1,
                seq: 0
            }
        );
    }

    /// A stalled source: the sequence counts, then the next unit is borrowed.
    #[test]
    fn overflow_borrows_the_next_unit() {
        let time = MockTime::new(T0);
        let layout = Layout::new(45, 10, 8).unwrap();
        let clock = mock_clock(&time, layout);
        let mut ids = vec![0; 256 + 3];
        clock.fill(&mut ids).unwrap();
        let first = layout.decompose(ids[0]).unwrap();
        let after = layout.decompose(ids[256]).unwrap();
        assert_eq!(after.time, first.time + 1);
        assert_eq!(after.seq, 0);
        let health = clock.health();
        assert_eq!(health.borrowed, 1);
        assert_eq!(health.max_lead, Duration::from_millis(1));
        assert_eq!(health.waits, 0);
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }

    /// Past the lead the clock waits until the source moves on.
    #[test]
    fn waits_past_the_lead() {
        let time = MockTime::new(T0);
        let layout = Layout::new(53, 2, 8).unwrap();
        let clock = Clock::builder(layout)
            .time(time.clone())
            .max_lead(Duration::from_millis(2))
            .build()
            .unwrap();
        assert_eq!(clock.pace(3 * 256), Duration::ZERO);
        let mut ids = vec![0; 3 * 256]; // units now, now+1, now+2
        clock.fill(&mut ids).unwrap();
        assert_eq!(clock.health().waits, 0);
        // One more id needs unit now+3: the source must reach now+1 first.
        assert_eq!(clock.pace(1), Duration::from_millis(1));
        time.advance(NANOS_PER_MS / 4);
        assert_eq!(clock.pace(1), Duration::from_micros(750));
        time.step_back(NANOS_PER_MS / 4);
        assert_eq!(clock.health().waits, 0, "pace counts nothing");
        let mover = {
            let time = time.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                time.advance(NANOS_PER_MS);
            })
        };
        let next = clock.next().unwrap(); // unit now+3: a lead of 3 until the source moves
        mover.join().unwrap();
        assert_eq!(clock.health().waits, 1);
        assert_eq!(
            layout.decompose(next).unwrap().time,
            layout.units(time_at(T0)) + 3
        );
        assert!(next > ids[ids.len() - 1]);
    }

    fn time_at(ns: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_nanos(ns)
    }

    /// A stepped-back source never makes the clock wait, however far it
    /// has to borrow.
    #[test]
    fn step_back_never_waits() {
        let time = MockTime::new(T0);
        let layout = Layout::new(53, 2, 8).unwrap();
        let clock = Clock::builder(layout)
            .time(time.clone())
            .max_lead(Duration::ZERO)
            .build()
            .unwrap();
        let a = clock.next().unwrap();
        time.step_back(5 * NANOS_PER_MS);
        let mut ids = vec![0; 10 * 256];
        clock.fill(&mut ids).unwrap();
        assert!(ids[0] > a);
        let health = clock.health();
        assert_eq!((health.steps_back, health.waits), (1, 0));
        assert_eq!(health.max_step_back, Duration::from_millis(5));
    }

    /// `not_before` counts as a time the source has shown: a source behind
    /// it is a step back, served without waiting.
    #[test]
    fn not_before_starts_after_its_unit() {
        let time = MockTime::new(T0);
        let later = time_at(T0 + 3 * NANOS_PER_MS + 5);
        let clock = Clock::builder(Layout::NOEQD)
            .time(time.clone())
            .max_lead(Duration::ZERO)
            .not_before(later)
            .build()
            .unwrap();
        assert_eq!(clock.last_time(), time_at(T0 + 3 * NANOS_PER_MS));
        let id = clock.next().unwrap();
        assert_eq!(
            Layout::NOEQD.time_of(id).unwrap(),
            time_at(T0 + 4 * NANOS_PER_MS)
        );
        assert_eq!(clock.health().steps_back, 1);
        assert_eq!(clock.health().waits, 0);
    }

    /// Past the layout's last unit the clock fails instead of wrapping.
    #[test]
    fn used_up_layout_is_an_error() {
        let layout = Layout::new(1, 31, 31).unwrap().with_epoch_ms(0);
        let time = MockTime::new(5 * NANOS_PER_MS);
        let clock = Clock::builder(layout).time(time).build().unwrap();
        let err = clock.next().unwrap_err();
        assert_eq!(
            err.kind(),
            ErrorKind::Part {
                name: "time",
                value: 5,
                max: 1
            }
        );
    }

    /// The common path writes nothing but the state.
    #[test]
    fn common_path_counts_nothing() {
        let time = MockTime::new(T0);
        let clock = mock_clock(&time, Layout::NOEQD);
        for _ in 0..1000 {
            clock.next().unwrap();
            time.advance(NANOS_PER_MS / 2);
        }
        assert_eq!(clock.health(), Health::default());
    }
}
