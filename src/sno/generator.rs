//! sno's generator: the tick-tock clock, lock-free on its common path,
//! whose ids never wait and never repeat.

use std::fmt;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use super::id::units_of;
use super::{Builder, EPOCH_NS, MAX_UNITS, Snapshot, Sno, UNIT_NS};
use crate::error::{Error, ErrorKind, Result};
use crate::fork;
use crate::time::{Source, unix_nanos};

/// The state word: `units << 25 | tick << 24 | lead << 16 | seq`, the
/// first 5 bytes of an id (units and tick) above the count of borrowed
/// units and the sequence of the last id.
const UNIT_SHIFT: u32 = 25;
const TICK_SHIFT: u32 = 24;
const LEAD_SHIFT: u32 = 16;
/// The most borrowed units the state word records (about 1 s): a lead
/// this long or longer.
const MAX_LEAD: u64 = 0xff;
/// The smallest pool sno accepts: `sequence_max - sequence_min - 1` at
/// least 4, so at least 6 sequences a unit.
pub(super) const MIN_POOL_SPAN: u16 = 5;

/// The state after the last id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State {
    /// The unit of the last id (sno's `wallHi`).
    units: u64,
    /// The tick-tock bit of the current ids.
    tick: bool,
    /// How many units `units` is ahead of the latest unit the source has
    /// shown, borrowed when a unit's sequence ran out; [`MAX_LEAD`] means
    /// that many or more.
    lead: u64,
    /// The sequence of the last id.
    seq: u16,
}

impl State {
    #[inline]
    fn unpack(w: u64) -> State {
        State {
            units: w >> UNIT_SHIFT,
            tick: w >> TICK_SHIFT & 1 == 1,
            lead: w >> LEAD_SHIFT & MAX_LEAD,
            seq: w as u16,
        }
    }

    #[inline]
    fn pack(self) -> u64 {
        self.units << UNIT_SHIFT
            | u64::from(self.tick) << TICK_SHIFT
            | self.lead << LEAD_SHIFT
            | u64::from(self.seq)
    }
}

/// sno's `Generator`: makes [`Sno`]s of one partition from a time source,
/// with sno's sequence bounds, tick-tock bit and snapshots, byte for byte
/// the ids the Go library makes from the same times, as long as it would
/// not have had to wait (see [where it differs](super#where-the-generator-differs-from-sno)).
///
/// One `AtomicU64` holds the state (the unit and tick-tock bit of the last
/// id, its sequence and the units borrowed ahead); every id is one
/// compare-and-swap of it. Only a step back of the clock that flips the
/// tick-tock bit takes a lock, held for a few loads and one CAS, never
/// across a wait; the generator is `Send + Sync` and meant to be shared.
///
/// | event | sno | here |
/// |---|---|---|
/// | the unit of the last id | the next sequence | the same |
/// | a later unit | `sequence_min` in it | the same |
/// | the clock steps back past the safe point | the tick-tock bit flips, `sequence_min` at the earlier time | the same |
/// | the sequence of a unit runs out | waits for the next unit | borrows it: `sequence_min` in the next unit, at once |
/// | the clock steps back again before the safe point | sleeps until past it | goes on from the last id (its unit and bit), borrowing as above |
///
/// ```
/// use guid::MockTime;
/// use guid::sno::{Generator, UNIT_NS, EPOCH_NS};
///
/// let time = MockTime::new(EPOCH_NS + 1_000 * UNIT_NS);
/// let generator = Generator::builder().partition(7).time(time.clone()).build()?;
/// let a = generator.next(0);
/// time.step_back(2 * UNIT_NS); // the clock steps back 8 ms
/// let b = generator.next(0);
/// assert_eq!((a.units(), a.tick()), (1_000, false));
/// assert_eq!((b.units(), b.tick()), (998, true)); // the other timeline
/// assert_eq!(generator.drifts(), 1);
/// # Ok::<(), guid::Error>(())
/// ```
pub struct Generator {
    state: AtomicU64,
    partition: u16,
    seq_min: u16,
    seq_max: u16,
    /// The sequence of [`Generator::next_with_time`], of its own as in sno.
    seq_static: AtomicU32,
    /// The highest unit the other timeline issued in (sno's `wallSafe`);
    /// written only under `regression`.
    wall_safe: AtomicU64,
    /// The steps back met; written only under `regression`.
    drifts: AtomicU32,
    /// Taken by a step back, and by a snapshot.
    regression: Mutex<()>,
    source: Source,
    /// The fork generation built under.
    fork: fork::Owner<u32>,
}

impl Generator {
    /// The generator of sanitized settings `c`, its last id in unit
    /// `wall_hi`, safe from a second step back from `wall_safe`.
    pub(super) fn start(
        c: &Snapshot,
        wall_hi: u64,
        wall_safe: u64,
        partition: u16,
        source: Source,
    ) -> Generator {
        // A sequence past the bound (sno overflowing) is a unit used up.
        let seq = c.sequence.min(c.sequence_max.into()) as u16;
        let state = State {
            units: wall_hi,
            tick: c.drifts & 1 == 1,
            lead: 0,
            seq,
        };
        Generator {
            state: AtomicU64::new(state.pack()),
            partition,
            seq_min: c.sequence_min,
            seq_max: c.sequence_max,
            // One below the lower bound, in 16 bits as in sno.
            seq_static: AtomicU32::new(c.sequence_min.wrapping_sub(1).into()),
            wall_safe: AtomicU64::new(wall_safe),
            drifts: AtomicU32::new(c.drifts),
            regression: Mutex::new(()),
            source,
            fork: fork::Owner::new(),
        }
    }

    /// Configures a generator: sno's `NewGenerator`.
    pub fn builder() -> Builder {
        Builder {
            config: Snapshot::default(),
            partition: false,
            source: Source::Wall,
        }
    }

    /// A new id with the metabyte `meta`, from the time source (sno's
    /// `New`). See [`Generator::try_next`] for the one way it fails.
    ///
    /// # Panics
    ///
    /// Where [`Generator::try_next`] fails: past sno's last time unit
    /// (2079-09-07), or in a forked child of the process that built it.
    #[inline]
    pub fn next(&self, meta: u8) -> Sno {
        match self.try_next(meta) {
            Ok(id) => id,
            Err(e) => panic!("sno generator: {e}"),
        }
    }

    /// A new id with the metabyte `meta`, from the time source (sno's
    /// `New`), or an error rather than an id that would wrap or repeat:
    /// [`ErrorKind::Part`] once the source or the borrowed units pass sno's
    /// last unit (2079-09-07), where sno wraps to 2010;
    /// [`ErrorKind::Forked`] in a forked child of the process that built
    /// the generator, whose copy of the state would repeat the parent's
    /// ids. A source before sno's epoch (2010) reads as its first unit.
    /// (Every clock's forms on fork and at the end of the range: [the
    /// clock module's table](crate::clock#failing).)
    #[inline]
    pub fn try_next(&self, meta: u8) -> Result<Sno> {
        self.check_fork()?;
        let s = self.advance()?;
        Ok(Sno::pack(s.units, s.tick, meta, self.partition, s.seq))
    }

    /// An id at the time `t` with the metabyte `meta` (sno's
    /// `NewWithTime`): the tick-tock bit 0 and a sequence of its own, that
    /// counts from `sequence_min` to `sequence_max` and starts over,
    /// whatever the time. Meant for carrying old records over before a
    /// generator goes online, as in sno.
    ///
    /// **Its ids are outside the generator's promise**, exactly as sno's
    /// are: nothing keeps them apart from the ids of [`Generator::next`]
    /// (an id of the same unit, bit 0 and sequence is the same id), nor
    /// from each other once the sequence has counted [`Generator::capacity`]
    /// ids (the next of the same unit repeats one). Callers who mix it with
    /// [`Generator::next`] give it times the generator's own ids never
    /// reach (before it went online), or a partition of its own.
    ///
    /// ```
    /// use guid::MockTime;
    /// use guid::sno::{EPOCH_NS, Generator, UNIT_NS};
    ///
    /// let time = MockTime::new(EPOCH_NS + 1_000 * UNIT_NS);
    /// let generator = Generator::builder().partition(7).time(time.clone()).build()?;
    /// let a = generator.next(0);
    /// let b = generator.next_with_time(0, a.time())?;
    /// assert_eq!(a, b); // the same unit, bit and sequence: the same id
    /// # Ok::<(), guid::Error>(())
    /// ```
    ///
    /// Fails with [`ErrorKind::Range`] for a time outside sno's range
    /// (2010 to 2079-09-07), which sno wraps, and with
    /// [`ErrorKind::Forked`] in a forked child.
    pub fn next_with_time(&self, meta: u8, t: SystemTime) -> Result<Sno> {
        self.check_fork()?;
        let units = units_of(unix_nanos(t))?;
        let (min, max) = (u32::from(self.seq_min), u32::from(self.seq_max));
        let mut cur = self.seq_static.load(Relaxed);
        let seq = loop {
            let next = if cur >= max { min } else { cur + 1 };
            match self
                .seq_static
                .compare_exchange_weak(cur, next, Relaxed, Relaxed)
            {
                Ok(_) => break next,
                Err(seen) => cur = seen,
            }
        };
        Ok(Sno::pack(units, false, meta, self.partition, seq as u16))
    }

    /// The partition stamped on ids.
    pub fn partition(&self) -> u16 {
        self.partition
    }

    /// The lower bound of the sequence, inclusive.
    pub fn sequence_min(&self) -> u16 {
        self.seq_min
    }

    /// The upper bound of the sequence, inclusive.
    pub fn sequence_max(&self) -> u16 {
        self.seq_max
    }

    /// How many ids a unit holds: `sequence_max - sequence_min + 1` (sno's
    /// `Cap`).
    pub fn capacity(&self) -> u32 {
        u32::from(self.seq_max - self.seq_min) + 1
    }

    /// The sequence of the last id if the source is still in its unit,
    /// else `sequence_min` (sno's `Sequence`).
    pub fn sequence(&self) -> u16 {
        let s = State::unpack(self.state.load(Relaxed));
        if self.now_units() == s.units {
            s.seq
        } else {
            self.seq_min
        }
    }

    /// How many times the clock stepped back and the tick-tock bit flipped
    /// (sno's snapshot `Drifts`).
    pub fn drifts(&self) -> u32 {
        self.drifts.load(Relaxed)
    }

    /// The generator's bookkeeping (sno's `Snapshot`), to restore it with
    /// [`Builder::restore`] after a restart, here or in the Go library.
    ///
    /// `sequence` is the sequence of the last id in the unit `wall_hi`,
    /// also when the source has left that unit, where sno writes
    /// `sequence_min`: a generator restored while the source is back in
    /// that unit then goes on after it instead of repeating it.
    pub fn snapshot(&self) -> Snapshot {
        let _steps_back = self.lock();
        let s = State::unpack(self.state.load(Relaxed));
        Snapshot {
            partition: self.partition,
            sequence_min: self.seq_min,
            sequence_max: self.seq_max,
            sequence: u32::from(s.seq),
            now: self.now_units() as i64,
            wall_hi: s.units as i64,
            wall_safe: self.wall_safe.load(Relaxed) as i64,
            drifts: self.drifts.load(Relaxed),
        }
    }

    /// The source's unit: 0 before sno's epoch.
    #[inline]
    fn now_units(&self) -> u64 {
        self.source.now().saturating_sub(EPOCH_NS) / UNIT_NS
    }

    /// The fork check ([`fork::Owner::forked`]).
    #[inline]
    fn check_fork(&self) -> Result<()> {
        if self.fork.forked() {
            return Err(Error::new(ErrorKind::Forked));
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.regression
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Moves the state on for an id at the source's unit and returns the
    /// id's state.
    ///
    /// The state is read before the source, so a unit another thread read
    /// from the source and published is never mistaken for a step back:
    /// when a newer state (a failed CAS, the lock) shows a unit past the
    /// reading, the source is read again before it counts as one.
    #[inline]
    fn advance(&self) -> Result<State> {
        let mut steps_back = None;
        let mut word = self.state.load(Acquire);
        let mut now = self.now_units();
        let mut fresh = true;
        loop {
            if now > MAX_UNITS {
                return Err(past_the_end(now));
            }
            let cur = State::unpack(word);
            let mut flip = false;
            let next = if now > cur.units {
                // A later unit: its first sequence.
                State {
                    units: now,
                    tick: cur.tick,
                    lead: 0,
                    seq: self.seq_min,
                }
            } else if now + cur.lead >= cur.units {
                // The unit of the last id, or a unit the borrowed ones ran
                // ahead of: the next sequence.
                self.go_on(cur, cur.units - now)?
            } else if cur.lead == MAX_LEAD {
                // At least the most borrowed units the state records ahead,
                // maybe more: the source may be behind ids lent ahead, not
                // stepped back, so go on from the last id. (A step back
                // met here is met as one before the safe point.)
                self.go_on(cur, MAX_LEAD)?
            } else if !fresh {
                // Behind a state newer than the reading: read again.
                now = self.now_units();
                fresh = true;
                continue;
            } else if now <= self.wall_safe.load(Relaxed) {
                // A step back, not past everything the other timeline
                // issued: sno sleeps until it is; go on from the last id
                // instead, in its unit and timeline. (The safe point only
                // grows, so an old reading of it says the same.)
                self.go_on(cur, cur.lead)?
            } else if steps_back.is_none() {
                // A step back past it: under the lock, with the state and
                // the safe point read again.
                steps_back = Some(self.lock());
                word = self.state.load(Acquire);
                fresh = false;
                continue;
            } else {
                // Past everything the other timeline issued: tick-tock.
                flip = true;
                State {
                    units: now,
                    tick: !cur.tick,
                    lead: 0,
                    seq: self.seq_min,
                }
            };
            match self
                .state
                .compare_exchange_weak(word, next.pack(), AcqRel, Acquire)
            {
                Ok(_) => {
                    if flip {
                        // Still under the lock: the next step back sees both.
                        self.wall_safe.store(cur.units, Relaxed);
                        self.drifts.fetch_add(1, Relaxed);
                    }
                    return Ok(next);
                }
                Err(seen) => {
                    fresh = seen == word;
                    word = seen;
                }
            }
        }
    }

    /// The state after `cur` in its unit, or in the next one (borrowed)
    /// once the sequence has run out; `lead` is how far `cur`'s unit is
    /// ahead of the source.
    #[inline]
    fn go_on(&self, cur: State, lead: u64) -> Result<State> {
        if cur.seq < self.seq_max {
            return Ok(State {
                seq: cur.seq + 1,
                lead,
                ..cur
            });
        }
        if cur.units >= MAX_UNITS {
            return Err(past_the_end(cur.units + 1));
        }
        Ok(State {
            units: cur.units + 1,
            tick: cur.tick,
            lead: (lead + 1).min(MAX_LEAD),
            seq: self.seq_min,
        })
    }
}

/// The error of a unit past sno's range.
#[cold]
fn past_the_end(units: u64) -> Error {
    Error::new(ErrorKind::Part {
        name: "sno time (units of 4 ms since 2010)",
        value: units,
        max: MAX_UNITS,
    })
}

impl fmt::Debug for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = State::unpack(self.state.load(Relaxed));
        f.debug_struct("Generator")
            .field("partition", &self.partition)
            .field("sequence_min", &self.seq_min)
            .field("sequence_max", &self.seq_max)
            .field("source", &self.source)
            .field("wall_hi", &s.units)
            .field("tick", &s.tick)
            .field("sequence", &s.seq)
            .field("wall_safe", &self.wall_safe.load(Relaxed))
            .field("drifts", &self.drifts())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MockTime;

    const T0: u64 = EPOCH_NS + 1_000_000 * UNIT_NS;

    fn generator(time: &MockTime, min: u16, max: u16) -> Generator {
        Generator::builder()
            .partition(9)
            .sequence_min(min)
            .sequence_max(max)
            .time(time.clone())
            .build()
            .unwrap()
    }

    #[test]
    fn state_packs() {
        let s = State {
            units: MAX_UNITS,
            tick: true,
            lead: MAX_LEAD,
            seq: u16::MAX,
        };
        assert_eq!(State::unpack(s.pack()), s);
        assert_eq!(s.pack(), u64::MAX);
    }

    #[test]
    fn bounds_as_sno() {
        let b = || Generator::builder().partition(1);
        let g = b().build().unwrap();
        assert_eq!(
            (g.sequence_min(), g.sequence_max(), g.capacity()),
            (0, 65535, 65536)
        );
        let g = b().sequence_min(100).sequence_max(10).build().unwrap();
        assert_eq!((g.sequence_min(), g.sequence_max()), (10, 100));
        // 65535 and the default 0, reordered, as in sno.
        let g = b().sequence_min(65535).build().unwrap();
        assert_eq!((g.sequence_min(), g.sequence_max()), (0, 65535));
        let e = b().sequence_min(7).sequence_max(7).build().unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Range { value: 0, .. }));
        assert!(b().sequence_min(10).sequence_max(14).build().is_err());
        assert!(b().sequence_min(10).sequence_max(15).build().is_ok());
        let s = Snapshot {
            sequence_min: 10,
            sequence: 9,
            ..Snapshot::default()
        };
        assert!(b().restore(s).build().is_err());
    }

    #[test]
    fn overflow_borrows_then_the_clock_catches_up() {
        let time = MockTime::new(T0);
        let g = generator(&time, 0, 5);
        let ids: Vec<Sno> = (0..13).map(|_| g.next(0)).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let units: Vec<u64> = ids.iter().map(|id| id.units() - 1_000_000).collect();
        assert_eq!(units, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2]);
        // The clock reaches the borrowed unit: not a step back.
        time.advance(UNIT_NS);
        let next = g.next(0);
        assert_eq!(
            (next.units() - 1_000_000, next.sequence(), next.tick()),
            (2, 1, false)
        );
        assert_eq!(g.drifts(), 0);
    }
}
