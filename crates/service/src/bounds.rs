//! The service's time rules, in one place: when ids may start, how far
//! ahead of the time they may run, and what keeps a restart or another
//! holder of the node id from reusing their time.
//!
//! - The start bound: no id at or before `-t` or the state file's horizon
//!   ([`start`], checked against what the 64-bit layout can represent);
//!   without either and without a lease, after now plus the max lead
//!   ([`start_after`]); the clocks start after it ([`clocks`]). The server waits for it before its first id
//!   ([`Shared::start_bound`]), turning clients away until only the lead
//!   is left ([`turn_away_until`]).
//! - The lead: 64-bit ids run at most the max lead ahead of the time
//!   ([`Shared::lead`], what metrics show).
//! - The horizon (with a state file, [`horizon`](crate::horizon)): reserved
//!   past the start before the first id ([`open_horizon`]), the clocks'
//!   time capped below it ([`clocks`]), moved before a reply could pass it
//!   ([`Shared::guard`]) and ahead of the ids in the background
//!   ([`Shared::horizon_due`]), saved at the last id at the end
//!   ([`Shared::finish_horizon`]).
//! - The fence (with a lease, [`lease`](crate::lease)): the 64-bit clock
//!   of a leased node id starts after the horizon its store holds, which
//!   is moved as ids near it; its bound is one of those
//!   [`Shared::start_bound`] reads.
//!
//! Each clock gets the same rules through one generic path, [`Bounded`];
//! the sno generator, whose builder takes no start bound, through its
//! time source ([`SnoIds`]).

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::flake::{self, Layout};
use guid::{IdClock, TimeSource, WallClock, unix_nanos};

use crate::config::{IdConfig, TimeConfig};
use crate::error::Error;
use crate::horizon::{self, Horizon, Lock, StatePath};
use crate::issue::IdKind;
use crate::shared::Shared;
use crate::sno::SnoIds;

/// Where the clocks start.
pub(crate) struct Start {
    /// No id at or before this time (Unix ns): the later of `-t` and the
    /// state file's horizon.
    pub(crate) not_before: Option<u64>,
    /// The state file, resolved, whose horizon that is, and its lock,
    /// which the check took: the server's [`Horizon`] holds it on.
    pub(crate) state: Option<(StatePath, Lock)>,
}

const NS_PER_MS: u128 = 1_000_000;

/// The earliest `-t` taken, Unix ns (2001-09-09): a smaller value is
/// seconds or a typo, and would guard nothing.
const MIN_T_NS: u64 = 1_000_000_000_000 * 1_000_000;

/// How far ahead of now `-t` may be: the server issues no id until then.
const MAX_T_AHEAD: Duration = Duration::from_secs(3600);

/// The start bound `bounds` give at Unix ns `now`: the later of `-t`
/// and the state file's horizon, each checked against what the 64-bit
/// `layout` can represent; the state file is resolved (its links
/// followed), locked here, and read again under the lock.
pub(crate) fn start(layout: Layout, bounds: &TimeConfig, now: u64) -> Result<Start, Error> {
    let range = Range::new(layout, bounds);
    range.check_now(now)?;
    let flag_t = match bounds.not_before {
        Some(t) => Some(range.check_t(t, now)?),
        None => None,
    };
    let (saved, state) = match &bounds.state {
        Some(path) => {
            let state = StatePath::resolve(path)?;
            // The file is judged before anything is created next to it.
            if let Some(ns) = state.load()? {
                range.check_state(path, ns)?;
            }
            check_dir(&state)?;
            let lock = horizon::lock(&state)?;
            // Read again under the lock: a server that held it until now
            // may have moved the horizon on since.
            let saved = match state.load()? {
                Some(ns) => Some(range.check_state(path, ns)?),
                None => None,
            };
            (saved, Some((state, lock)))
        }
        None => (None, None),
    };
    Ok(Start {
        not_before: flag_t.max(saved),
        state,
    })
}

/// Files can be created in the state file's directory and removed, as
/// every save does: tried with a save's own temporary file, so that a
/// directory the server cannot write is refused before listening rather
/// than found out by the first save.
fn check_dir(state: &StatePath) -> Result<(), Error> {
    let dir = state.file().parent().unwrap_or(Path::new("/"));
    horizon::try_write(state.file())
        .map_err(|e| state.error(format!("cannot write in {}: {e}", dir.display())))
}

/// The time this run's ids start after (Unix ns): the later of `-t` and
/// the state file's horizon (`checked`). When neither a state file nor a
/// lease (`leased`: its fence) says where the previous run's ids ended, they may have run up to
/// its max lead past its last moment, which is before `now`: so after
/// `now` plus the max lead.
fn start_after(bounds: &TimeConfig, leased: bool, checked: Option<u64>, now: u64) -> Option<u64> {
    let told = checked.is_some() || leased;
    if told {
        return checked;
    }
    Some(now.saturating_add(guid::nanos(bounds.max_lead)))
}

/// Until when, before the first id at `end` (when the time source reaches
/// the start bound), connections are closed at once rather than left to
/// wait: until only the max lead `hold` is left.
pub(crate) fn turn_away_until(end: tokio::time::Instant, hold: Duration) -> tokio::time::Instant {
    end.checked_sub(hold).unwrap_or(end)
}

/// Restart safety: with a state file (`state`, resolved and locked by the
/// check), a horizon reserved past the start (the later of now and the
/// start bound, checked already) before the first id.
fn open_horizon(
    bounds: &TimeConfig,
    state: Option<(StatePath, Lock)>,
    layout: Layout,
    time: &dyn TimeSource,
    not_before: Option<u64>,
) -> Result<Option<Arc<Horizon>>, Error> {
    let Some((state, lock)) = state else {
        return Ok(None);
    };
    let from = time.now().max(not_before.unwrap_or(0));
    let horizon = Horizon::create(
        &state,
        lock,
        from,
        horizon::span(layout),
        guid::nanos(bounds.reserve),
    )?;
    Ok(Some(Arc::new(horizon)))
}

/// The clocks as the time rules set them up, with what the rules go on
/// to need while serving.
pub(crate) struct Clocks {
    /// The time source, not capped by the horizon.
    pub(crate) time: Arc<dyn TimeSource>,
    /// With a state file, the horizon reserved past the start.
    pub(crate) horizon: Option<Arc<Horizon>>,
    /// The 64-bit clock's builder: its node id may yet be leased.
    pub(crate) flake: flake::Builder,
    /// v2's 96-bit clock.
    pub(crate) global: guid::Clock,
    /// v3's clock, of global, local and X ids.
    pub(crate) v3: guid::v3::Clock,
    /// The sno generator, or why there is none.
    pub(crate) sno: SnoIds,
}

/// The clocks of `ids`, after the start bound: `checked`'s (`-t`, the
/// state file's horizon) or the margin of a start told nothing, neither a
/// state file nor a lease (`leased`); with a state file (the one `checked`
/// resolved and locked, whose lock the horizon takes over), the horizon
/// reserved past it and the clocks' time capped below it.
pub(crate) fn clocks(
    ids: &IdConfig,
    bounds: &TimeConfig,
    leased: bool,
    checked: Start,
) -> Result<Clocks, Error> {
    let time: Arc<dyn TimeSource> = bounds.source.clone().unwrap_or_else(|| Arc::new(WallClock));
    let not_before = start_after(bounds, leased, checked.not_before, time.now());
    let horizon = open_horizon(bounds, checked.state, ids.layout, &*time, not_before)?;
    let source = capped(bounds, &time, horizon.as_ref());
    let (flake, global, v3) = builders(ids, source.as_ref(), not_before, bounds.max_lead)?;
    let sno = SnoIds::new(
        ids.node,
        leased,
        source.unwrap_or_else(|| Arc::clone(&time)),
        not_before,
    );
    Ok(Clocks {
        time,
        horizon,
        flake,
        global,
        v3,
        sno,
    })
}

/// The time the clocks read, if not the wall clock: capped below the
/// horizon if there is one.
fn capped(
    bounds: &TimeConfig,
    time: &Arc<dyn TimeSource>,
    horizon: Option<&Arc<Horizon>>,
) -> Option<Arc<dyn TimeSource>> {
    match (horizon, &bounds.source) {
        (Some(h), _) => {
            let (h, time) = (Arc::clone(h), Arc::clone(time));
            Some(Arc::new(move || time.now().min(h.cap())))
        }
        (None, Some(_)) => Some(Arc::clone(time)),
        (None, None) => None,
    }
}

/// The builder of the 64-bit clock (whose node id may yet be leased) and
/// the 96-bit clocks of v2 and v3: all read `source` (the time capped
/// below the horizon if there is one; the wall clock if none), and start
/// after `not_before` (Unix ns).
fn builders(
    ids: &IdConfig,
    source: Option<&Arc<dyn TimeSource>>,
    not_before: Option<u64>,
    max_lead: Duration,
) -> Result<(flake::Builder, guid::Clock, guid::v3::Clock), Error> {
    let flake = flake::Clock::builder(ids.layout)
        .node(ids.node)
        .max_lead(max_lead);
    let mut global = guid::Clock::builder().node_from_env();
    let mut v3 = guid::v3::Clock::builder().node_from_env();
    if let Some(node) = ids.global_node {
        global = global.node(node);
        v3 = v3.node(node.into())?;
    }
    let after = not_before.map(|ns| UNIX_EPOCH + Duration::from_nanos(ns));
    Ok((
        bounded(flake, source, after)?,
        bounded(global, source, after)?.build(),
        bounded(v3, source, after)?.build(),
    ))
}

/// A clock's builder, as the time rules set it: the time it reads, and
/// the time its ids start after. The clocks' builders differ in how they
/// take these (the 96-bit ones refuse a bound past their range), not in
/// what the rules ask of them.
pub(crate) trait Bounded: Sized {
    /// Reads the time from `source`.
    fn read(self, source: Arc<dyn TimeSource>) -> Self;
    /// Issues only ids later than every id at or before `t`.
    fn after(self, t: SystemTime) -> Result<Self, Error>;
}

/// The 64-bit clock refuses a bound past its layout's range.
impl Bounded for flake::Builder {
    fn read(self, source: Arc<dyn TimeSource>) -> Self {
        self.time(move || source.now())
    }

    fn after(self, t: SystemTime) -> Result<Self, Error> {
        Ok(self.not_before(t)?)
    }
}

/// v2's 96-bit clock refuses a bound past its range.
impl Bounded for guid::Builder {
    fn read(self, source: Arc<dyn TimeSource>) -> Self {
        self.time(move || source.now())
    }

    fn after(self, t: SystemTime) -> Result<Self, Error> {
        Ok(self.not_before(t)?)
    }
}

/// v3's clock refuses a bound past its range.
impl Bounded for guid::v3::Builder {
    fn read(self, source: Arc<dyn TimeSource>) -> Self {
        self.time(move || source.now())
    }

    fn after(self, t: SystemTime) -> Result<Self, Error> {
        Ok(self.not_before(t)?)
    }
}

/// `builder` reading `source`, if given, and starting after `after`, if
/// given.
fn bounded<B: Bounded>(
    builder: B,
    source: Option<&Arc<dyn TimeSource>>,
    after: Option<SystemTime>,
) -> Result<B, Error> {
    let builder = match source {
        Some(source) => builder.read(Arc::clone(source)),
        None => builder,
    };
    match after {
        Some(t) => builder.after(t),
        None => Ok(builder),
    }
}

/// The time rules as the connections share them: the start bound the
/// clocks hold, the lead, and the horizon moved with the ids.
impl Shared {
    /// Where the clocks start (Unix ns): the later of their bounds (`-t`,
    /// the state file, the margin of a start without either, a lease's
    /// fence), as the clocks themselves hold them.
    pub(crate) fn start_bound(&self) -> u64 {
        let flake = guid::unix_nanos(self.flake().last_time());
        flake
            .max(guid::unix_nanos(IdClock::last_time(&self.global)))
            .max(guid::unix_nanos(IdClock::last_time(&self.v3)))
    }

    /// How far the last id of `kind`'s clock is ahead of the time source
    /// now.
    pub(crate) fn lead(&self, kind: IdKind) -> Duration {
        Duration::from_nanos(self.next_from(kind).saturating_sub(self.time.now()))
    }

    /// Moves the horizon on, fsynced, if the next reply of `kind` could
    /// pass it.
    #[inline]
    pub(crate) fn guard(&self, kind: IdKind) -> io::Result<()> {
        let Some(horizon) = &self.horizon else {
            return Ok(());
        };
        let t = self.next_from(kind).max(self.time.now());
        // A reply of sno ids can reach a unit past the last id or the time.
        let t = match kind {
            IdKind::Sno { .. } => self.sno.reach(t),
            _ => t,
        };
        if horizon.needs(t) {
            horizon.reserve(t)?;
        }
        Ok(())
    }

    /// Where the next ids of `kind` start, Unix ns: the last id of its
    /// clock, or a bound the clock starts after.
    fn next_from(&self, kind: IdKind) -> u64 {
        match kind {
            IdKind::Flake => guid::unix_nanos(self.flake().last_time()),
            _ => self.last[kind.clock()].load(Relaxed),
        }
    }

    /// The time of the last id issued of any kind (or of the start bound),
    /// Unix ns: what the horizon must cover, and nothing else.
    pub(crate) fn issued(&self) -> u64 {
        self.last.iter().map(|t| t.load(Relaxed)).max().unwrap_or(0)
    }

    /// Records ids of `kind` sent up to Unix ns `t`.
    #[inline]
    pub(crate) fn issued_at(&self, kind: IdKind, t: u64) {
        let last = &self.last[kind.clock()];
        // The 64-bit clock's time moves once per unit: skip the locked
        // write for every other reply.
        if t > last.load(Relaxed) {
            last.fetch_max(t, Relaxed);
        }
    }

    /// Records 64-bit ids up to the time of `clock`'s last id.
    #[inline]
    pub(crate) fn issued_flake(&self, clock: &flake::Clock) {
        self.issued_at(IdKind::Flake, guid::unix_nanos(clock.last_time()));
    }

    /// With a state file, when housekeeping is to move the horizon on in
    /// the background: the horizon, and where to (from the ids issued and
    /// the time, not from a bound of a clock that issued nothing).
    pub(crate) fn horizon_due(&self) -> Option<(&Arc<Horizon>, u64)> {
        let h = self.horizon.as_ref()?;
        let t = self.issued().max(self.time.now());
        h.due(t).then_some((h, t))
    }

    /// With a state file, saves the horizon at the end: at the last id
    /// issued, not a bound of a clock that issued none; if requests over
    /// HTTP may still be making ids (not `quiet`), at the horizon they
    /// hold.
    pub(crate) fn finish_horizon(&self, quiet: bool) -> Result<(), Error> {
        let Some(h) = &self.horizon else {
            return Ok(());
        };
        let last = if quiet { self.issued() } else { h.saved() };
        h.finish(last)
            .map_err(|e| Error::io(format!("save {}", h.path().display()), e))
    }
}

/// What the 64-bit layout can represent, in Unix ns (u128: a layout may
/// end centuries past what u64 nanoseconds hold).
struct Range {
    layout: Layout,
    epoch: u128,
    /// The start of the layout's last unit: a clock must start before it.
    last: u128,
    /// How far past its start a clock's ids and horizon may run: the max
    /// lead, and the state file's reserve when there is one.
    reach: u128,
    max_lead: Duration,
    ahead: Duration,
}

impl Range {
    fn new(layout: Layout, bounds: &TimeConfig) -> Range {
        let epoch = u128::from(unix_nanos(layout.epoch()));
        let ahead = match bounds.state {
            Some(_) => {
                let reserve = guid::nanos(bounds.reserve);
                Duration::from_nanos(horizon::ahead(horizon::span(layout), reserve))
            }
            None => Duration::ZERO,
        };
        Range {
            layout,
            epoch,
            last: epoch + u128::from(layout.max_time()) * layout.unit().as_nanos(),
            reach: bounds.max_lead.as_nanos() + ahead.as_nanos(),
            max_lead: bounds.max_lead,
            ahead,
        }
    }

    /// The layout's flags and values.
    fn flags(&self) -> String {
        let l = &self.layout;
        format!(
            "(--layout {}/{}/{} --epoch-ms {} --unit {:?})",
            l.time_bits(),
            l.node_bits(),
            l.seq_bits(),
            self.epoch / NS_PER_MS,
            l.unit()
        )
    }

    /// What may run past a start: the max lead and the state's reserve.
    fn lead(&self) -> String {
        match self.ahead.is_zero() {
            true => format!("--max-lead {:?}", self.max_lead),
            false => format!(
                "--max-lead {:?} and the --state reserve of {:?}",
                self.max_lead, self.ahead
            ),
        }
    }

    /// The epoch is past, and the layout holds now and the lead after it.
    fn check_now(&self, now: u64) -> Result<(), Error> {
        let now = u128::from(now);
        if self.epoch > now {
            return Err(Error::Config(format!(
                "--epoch-ms {} is in the future (now is Unix ms {})",
                self.epoch / NS_PER_MS,
                now / NS_PER_MS
            )));
        }
        if now >= self.last {
            return Err(Error::Config(format!(
                "the 64-bit layout {} ends at Unix ms {}, before now (Unix ms {})",
                self.flags(),
                self.last / NS_PER_MS,
                now / NS_PER_MS
            )));
        }
        if now + self.reach >= self.last {
            return Err(Error::Config(format!(
                "{} from now passes the end of the 64-bit layout {} at Unix ms {}",
                self.lead(),
                self.flags(),
                self.last / NS_PER_MS
            )));
        }
        Ok(())
    }

    /// `-t`: a plausible Unix ms time that both clocks can start after,
    /// at most [`MAX_T_AHEAD`] past `now`. Returns it in Unix ns.
    fn check_t(&self, t: SystemTime, now: u64) -> Result<u64, Error> {
        let ns = unix_nanos(t);
        let why = if ns < MIN_T_NS {
            Some(format!(
                "is before Unix ms {} (2001): seconds, not milliseconds?",
                MIN_T_NS / 1_000_000
            ))
        } else if ns > now.saturating_add(guid::nanos(MAX_T_AHEAD)) {
            Some(format!(
                "is more than {MAX_T_AHEAD:?} ahead of now (Unix ms {}): microseconds, not milliseconds? The server would issue no id until then",
                now / 1_000_000
            ))
        } else {
            self.why_not_after(ns)
        };
        why.map_or(Ok(ns), |why| {
            let ms = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
            Err(Error::Config(format!(
                "-t {ms} {why}; -t takes Unix milliseconds"
            )))
        })
    }

    /// The state file's horizon: both clocks can start after it.
    fn check_state(&self, path: &Path, ns: u64) -> Result<u64, Error> {
        self.why_not_after(ns).map_or(Ok(ns), |why| {
            Err(Error::State {
                path: path.to_owned(),
                why: format!("horizon {ns} (Unix ns) {why}"),
            })
        })
    }

    /// Why the clocks cannot start after Unix ns `ns`, if they cannot.
    fn why_not_after(&self, ns: u64) -> Option<String> {
        let t = UNIX_EPOCH + Duration::from_nanos(ns);
        if guid::Clock::builder().not_before(t).is_err() {
            return Some("is past the last tick of 96-bit ids (the year 2554)".into());
        }
        if u128::from(ns) + self.reach >= self.last {
            return Some(format!(
                "leaves no room for {} before the end of the 64-bit layout {} at Unix ms {}",
                self.lead(),
                self.flags(),
                self.last / NS_PER_MS
            ));
        }
        None
    }
}
