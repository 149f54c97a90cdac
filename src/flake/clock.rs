//! The flake clock: a lock-free source of flake ids that borrows ahead of
//! the latest time its source has shown within a bound and waits past it.

use std::fmt;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime};

use super::layout::{Layout, check};
use crate::error::{Error, ErrorKind, Result};
use crate::fork::ForkGuard;
use crate::health::{Health, Watch};
use crate::sync::AtomicU64;
use crate::time::{Source, unix_nanos};

/// How far a clock's ids may run ahead of the latest time its source has
/// shown (or its not-before bound) when the sequence overflows, unless set
/// with [`Builder::max_lead`].
pub const DEFAULT_MAX_LEAD: Duration = Duration::from_millis(100);

/// The longest single nap of a clock that waits for its source.
#[cfg(not(loom))]
const MAX_NAP: Duration = Duration::from_millis(1);

/// Makes flake ids: a layout, a node id, a time source and the last id's
/// state, as one word `units << S | seq` in one `AtomicU64`.
///
/// The next id is `max(state + 1, now << S)`, installed with one
/// compare-and-swap: a sequence overflow is the carry of `state + 1` into
/// the next unit, a source that steps back loses the `max`, and no two
/// threads ever see the same state.
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
    state: Line,
    /// The latest source unit seen, and the rare events.
    watch: Watch,
    layout: Layout,
    /// The node id, shifted into place.
    node: u64,
    max_lead: u64,
    source: Source,
    /// The process the clock was built in.
    forks: ForkGuard,
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

    /// The bound on how far ids run ahead of the latest time the source has
    /// shown (or the not-before bound) by borrowing.
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
        match self.plan(cur, now, now.max(seen), n as u64) {
            Plan::Wait { target } => {
                Duration::from_nanos(self.start_of(target).saturating_sub(ns).max(1))
            }
            Plan::Issue { .. } | Plan::UsedUp { .. } => Duration::ZERO,
        }
    }

    /// Reserves `n >= 1` consecutive states and returns the first.
    #[inline]
    fn reserve(&self, n: u64) -> Result<u64> {
        if self.forks.forked() {
            return Err(Error(ErrorKind::Forked));
        }
        let s = self.layout.seq;
        let mut waited = false;
        loop {
            // `seen` is read before the source, so a reading another thread
            // published is never mistaken for a step back.
            let seen = self.watch.seen();
            let now = self.layout.units_of_nanos(self.source.now());
            self.watch.observe(seen, now);
            // The latest unit the source has shown (or the not-before
            // bound): the lead is bounded over it, not over `now`.
            let reference = now.max(seen);
            let mut cur = self.state.0.load(Relaxed);
            loop {
                let (first, last) = match self.plan(cur, now, reference, n) {
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
    /// `now`, and `reference` the latest unit it has shown (or the
    /// not-before bound): `now` itself unless it stepped back.
    #[inline]
    fn plan(&self, cur: u64, now: u64, reference: u64, n: u64) -> Plan {
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
        if first_unit > reference && last_unit > reference.saturating_add(self.max_lead) {
            // A batch starts within the lead; it may end past it by its
            // length. The reference is at least `now` and below `target`,
            // so the source itself has to reach `target`.
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
            .field("source", &self.source)
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

    crate::time::source_methods!(source);

    /// Issues only ids whose time unit is after the unit of `t`, whatever
    /// the source says: the restart guard for a process that kept its node
    /// id (noeqd's `-t`). The latest of several calls wins. A `t` in the
    /// layout's last unit or past it leaves no id to issue:
    /// [`Builder::build`] refuses it.
    ///
    /// While the source is behind `t`, ids run at most the
    /// [`Builder::max_lead`] past `t`; beyond that the clock waits for the
    /// source to catch up with them.
    pub fn not_before(mut self, t: SystemTime) -> Builder {
        self.not_before = Some(self.not_before.map_or(t, |prev| prev.max(t)));
        self
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

    /// The clock, or an error if the node id does not fit the layout or the
    /// [`Builder::not_before`] time leaves the layout no unit to issue in
    /// ([`ErrorKind::Range`]).
    pub fn build(self) -> Result<Clock> {
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
            forks: ForkGuard::new(),
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
                .build()
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
