//! The flake clock: the state machine of every clock of this crate on a
//! flake layout, borrowing ahead of the latest time its source has shown
//! within a bound and waiting past it.

use std::fmt;
use std::time::{Duration, SystemTime};

use super::layout::{Layout, check};
use crate::clock::core::{Core, Units, UsedUp};
use crate::error::{Error, ErrorKind, Result};
use crate::health::Health;
use crate::time::{Source, TimeSource, unix_nanos};

/// How far a clock's ids may run ahead of the latest time its source has
/// shown (or its not-before bound) when the sequence overflows, unless set
/// with [`Builder::max_lead`].
pub const DEFAULT_MAX_LEAD: Duration = Duration::from_millis(100);

/// Makes flake ids: a layout, a node id, a time source and the last id's
/// state, as one word `units << S | seq` in one `AtomicU64`.
///
/// The next id is `max(state + 1, now << S)`, installed with one
/// compare-and-swap (or one `fetch_add` while the state is at or past the
/// source's unit): a sequence overflow is the carry of `state + 1` into
/// the next unit, a source that steps back loses the `max`, and no two
/// threads ever see the same state. It is the state machine of the 96-bit
/// [`Clock`](crate::Clock), on the layout's units and with a bound on the
/// lead.
///
/// Ids run at most [`Builder::max_lead`] ahead of the reference: the latest
/// unit the source has shown, or the [`Builder::not_before`] bound if that
/// is later. Past it the clock waits, in naps of at most 1 ms, until the
/// source lets it go on ([`Clock::pace`] says how long). So a source behind
/// the reference (a step back, a bound in the future) costs no wait until
/// the lead's worth of sequence is spent, and load never pushes ids more
/// than the lead past the reference: their lead over the source is at most
/// how far it is behind plus the max lead. See [the module's policy
/// table](super#the-clocks-policy).
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
    /// The node word is the node id shifted into place.
    core: Core<Flake>,
}

/// The units of a flake clock's state machine: its layout's, and its bound
/// on the lead.
struct Flake {
    layout: Layout,
    max_lead: u64,
}

impl Units for Flake {
    const CAN_INVERT: bool = false;

    #[inline]
    fn seq_bits(&self) -> u32 {
        self.layout.seq_bits()
    }
    #[inline]
    fn unit_of(&self, ns: u64) -> u64 {
        self.layout.units_of_nanos(ns)
    }
    fn start_of(&self, unit: u64) -> u64 {
        unix_nanos(self.layout.time(unit))
    }
    fn unit_ns(&self) -> u64 {
        self.layout.unit_ns
    }
    #[inline]
    fn max_state(&self) -> u64 {
        self.layout.max_state()
    }
    #[inline]
    fn first_seq(&self) -> u64 {
        0
    }
    #[inline]
    fn max_lead(&self) -> Option<u64> {
        Some(self.max_lead)
    }
}

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
        let node = self.node_word()?;
        match self.core.reserve(1) {
            Ok(state) => Ok(self.id(node, state)),
            Err(used_up) => Err(self.used_up(used_up)),
        }
    }

    /// Fills `ids` with consecutive ids from one read of the time, or
    /// leaves it untouched on error (as [`Clock::next`]).
    pub fn fill(&self, ids: &mut [u64]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let node = self.node_word()?;
        let first = self
            .core
            .reserve(ids.len() as u64)
            .map_err(|used_up| self.used_up(used_up))?;
        for (state, id) in (first..).zip(ids.iter_mut()) {
            *id = self.id(node, state);
        }
        Ok(())
    }

    /// The layout of the ids.
    pub fn layout(&self) -> Layout {
        self.core.units().layout
    }

    /// The node id stamped on ids.
    pub fn node(&self) -> u64 {
        self.core.node_word() >> self.layout().seq
    }

    /// The bound on how far ids run ahead of the latest time the source has
    /// shown (or the not-before bound) by borrowing.
    pub fn max_lead(&self) -> Duration {
        let units = self.core.units();
        Duration::from_nanos(units.max_lead.saturating_mul(units.layout.unit_ns))
    }

    /// The start of the time unit of the last id issued (or of the
    /// [`Builder::not_before`] bound): every id so far is at or before it.
    /// Saved and passed to [`Builder::not_before`] of a restarted clock, it
    /// keeps that clock past every id of this one.
    pub fn last_time(&self) -> SystemTime {
        self.core.last_time()
    }

    /// The rare events met so far.
    pub fn health(&self) -> Health {
        self.core.health()
    }

    /// How long [`Clock::fill`] of `n` ids would wait for the source if
    /// called now: zero when it would not wait. A caller that would rather
    /// wait elsewhere than have the clock sleep its thread (an async task)
    /// waits this long first; nothing is issued or counted.
    pub fn pace(&self, n: usize) -> Duration {
        self.core.pace(n as u64)
    }

    /// The node shifted into place, or the error of a forked child: the
    /// node is the parent's, and the child would repeat its ids.
    #[inline]
    fn node_word(&self) -> Result<u64> {
        self.core.node().map_err(|_| Error::new(ErrorKind::Forked))
    }

    /// The id of a state with the node word `node`.
    #[inline]
    fn id(&self, node: u64, state: u64) -> u64 {
        let layout = &self.core.units().layout;
        let s = layout.seq;
        (state >> s) << (s + layout.node) | node | state & layout.max_seq()
    }

    /// The error of a used-up layout.
    #[cold]
    fn used_up(&self, used_up: UsedUp) -> Error {
        Error::new(ErrorKind::Part {
            name: "time",
            value: used_up.unit,
            max: self.layout().max_time(),
        })
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock")
            .field("layout", &self.layout())
            .field("node", &self.node())
            .field("max_lead", &self.max_lead())
            .field("source", self.core.source())
            .field("state", &self.core.last())
            .field("health", &self.health())
            .finish()
    }
}

/// Settings of a flake [`Clock`].
#[derive(Clone, Debug)]
pub struct Builder {
    layout: Layout,
    node: u64,
    source: Source,
    /// The unit ids start after.
    not_before: Option<u64>,
    max_lead: Duration,
}

impl Builder {
    /// Stamps this node id (default 0), checked against the layout at
    /// [`Builder::build`].
    pub fn node(mut self, node: u64) -> Builder {
        self.node = node;
        self
    }

    /// Reads time from `source` instead of the wall clock (as
    /// [`crate::Builder::time`]).
    pub fn time(mut self, source: impl TimeSource + 'static) -> Builder {
        self.source = Source::custom(source);
        self
    }

    /// Reads time from the wall clock, the default (as
    /// [`crate::Builder::wall`]).
    pub fn wall(mut self) -> Builder {
        self.source = Source::Wall;
        self
    }

    /// Reads time from the process-wide [`Ticker`](crate::Ticker) (as
    /// [`crate::Builder::ticker`]).
    pub fn ticker(mut self) -> Builder {
        self.source = Source::ticker();
        self
    }

    /// Reads time from the coarse wall clock (as
    /// [`crate::Builder::coarse`]).
    #[cfg(target_os = "linux")]
    pub fn coarse(mut self) -> Builder {
        self.source = Source::Coarse;
        self
    }

    /// Issues only ids whose time unit is after the unit of `t`, whatever
    /// the source says: the restart guard for a process that kept its node
    /// id (noeqd's `-t`). The latest of several calls wins.
    ///
    /// While the source is behind `t`, ids run at most the
    /// [`Builder::max_lead`] past `t`; beyond that the clock waits for the
    /// source to catch up with them.
    ///
    /// Fails when `t` is in the layout's last unit or past it, where no
    /// later id exists ([`ErrorKind::Range`]), as the 96-bit clocks'
    /// [`not_before`](crate::Builder::not_before) does.
    pub fn not_before(mut self, t: SystemTime) -> Result<Builder> {
        let layout = self.layout;
        if unix_nanos(t) >= layout.epoch_ns {
            let unit = layout.units(t);
            if unit >= layout.max_time() {
                return Err(Error::new(ErrorKind::Range {
                    name: "not-before time (units since the epoch)",
                    value: unit,
                    min: 0,
                    max: layout.max_time() - 1,
                }));
            }
            self.not_before = Some(self.not_before.map_or(unit, |prev| prev.max(unit)));
        }
        Ok(self)
    }

    /// Lets ids run at most `lead` ahead of the latest time the source has
    /// shown (or the [`Builder::not_before`] bound, if later) when the
    /// sequence of a unit runs out (default [`DEFAULT_MAX_LEAD`]); past it
    /// the clock waits for the source. `Duration::ZERO` never borrows, as
    /// Twitter's snowflake.
    pub fn max_lead(mut self, lead: Duration) -> Builder {
        self.max_lead = lead;
        self
    }

    /// The clock, or an error if the node id does not fit the layout.
    pub fn build(self) -> Result<Clock> {
        let layout = self.layout;
        check("node", self.node, layout.max_node())?;
        let lead = self.max_lead.as_nanos() / u128::from(layout.unit_ns);
        let units = Flake {
            layout,
            max_lead: u64::try_from(lead).unwrap_or(u64::MAX),
        };
        let node = self.node << layout.seq;
        Ok(Clock {
            core: Core::new(units, (), self.source, node, false, self.not_before, None),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MockTime;
    use crate::flake::layout::NANOS_PER_MS;
    use crate::flake::{Parts, TWITTER_EPOCH_MS};
    use std::time::UNIX_EPOCH;

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

    /// A stepped-back source costs no wait while the ids stay within the
    /// lead of the latest unit it had shown; past that the clock waits for
    /// the source, not for its lead to shrink.
    #[test]
    fn step_back_waits_only_past_the_lead() {
        let time = MockTime::new(T0);
        let layout = Layout::new(53, 2, 8).unwrap();
        let clock = Clock::builder(layout)
            .time(time.clone())
            .max_lead(Duration::from_millis(2))
            .build()
            .unwrap();
        let a = clock.next().unwrap();
        time.step_back(5 * NANOS_PER_MS);
        // The rest of unit now, and now+1, now+2: no wait.
        assert_eq!(clock.pace(3 * 256 - 1), Duration::ZERO);
        let mut ids = vec![0; 3 * 256 - 1];
        clock.fill(&mut ids).unwrap();
        assert!(ids[0] > a);
        let health = clock.health();
        assert_eq!((health.steps_back, health.waits), (1, 0));
        assert_eq!(health.max_step_back, Duration::from_millis(5));
        assert_eq!(health.max_lead, Duration::from_millis(7));
        // Unit now+3 needs the source back at now+1: 6 ms away.
        assert_eq!(clock.pace(1), Duration::from_millis(6));
        time.advance(6 * NANOS_PER_MS - 1);
        assert_eq!(clock.pace(1), Duration::from_nanos(1));
        time.advance(1);
        assert_eq!(clock.pace(1), Duration::ZERO);
        let b = clock.next().unwrap();
        assert_eq!(
            layout.decompose(b).unwrap().time,
            layout.units(time_at(T0)) + 3
        );
        assert_eq!(clock.health().waits, 0);
    }

    /// `not_before` counts as a time the source has shown: a source behind
    /// it is a step back, and ids run at most the lead past the bound.
    #[test]
    fn not_before_starts_after_its_unit() {
        let time = MockTime::new(T0);
        let later = time_at(T0 + 3 * NANOS_PER_MS + 5);
        let build = |lead| {
            Clock::builder(Layout::NOEQD)
                .time(time.clone())
                .max_lead(lead)
                .not_before(later)
                .and_then(Builder::build)
                .unwrap()
        };
        let clock = build(Duration::from_millis(1));
        assert_eq!(clock.last_time(), time_at(T0 + 3 * NANOS_PER_MS));
        let id = clock.next().unwrap();
        assert_eq!(
            Layout::NOEQD.time_of(id).unwrap(),
            time_at(T0 + 4 * NANOS_PER_MS)
        );
        assert_eq!(clock.health().steps_back, 1);
        assert_eq!(clock.health().waits, 0);
        // Without a lead, the first id waits for the source to reach it.
        let strict = build(Duration::ZERO);
        assert_eq!(strict.pace(1), Duration::from_millis(4));
        time.advance(4 * NANOS_PER_MS);
        assert_eq!(strict.pace(1), Duration::ZERO);
        assert_eq!(strict.next().unwrap(), id, "the same first id, later");
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
