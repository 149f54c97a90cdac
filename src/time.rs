//! Time sources: where a clock reads the time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A source of Unix time in nanoseconds.
///
/// The clock trusts nothing about it: a source may step back, stall or
/// jump, and the clock still never repeats an id. Any `Fn() -> u64` closure
/// is a source.
pub trait TimeSource: Send + Sync {
    /// Nanoseconds since the Unix epoch.
    fn now(&self) -> u64;
}

impl<F: Fn() -> u64 + Send + Sync> TimeSource for F {
    fn now(&self) -> u64 {
        self()
    }
}

/// The system wall clock (`CLOCK_REALTIME`), the default source.
#[derive(Clone, Copy, Debug, Default)]
pub struct WallClock;

impl TimeSource for WallClock {
    #[inline]
    fn now(&self) -> u64 {
        unix_nanos(SystemTime::now())
    }
}

/// A time source set by hand, for tests: shared by its clones, so a test
/// keeps one and moves the time of the clock that holds the other.
///
/// ```
/// use guid::{Clock, MockTime};
/// let time = MockTime::new(1 << 40);
/// let clock = Clock::builder().node(7).time(time.clone()).build();
/// let a = clock.g();
/// time.step_back(1_000_000_000); // the system clock goes back 1 s
/// assert!(clock.g() > a);
/// ```
#[derive(Clone, Debug, Default)]
pub struct MockTime(Arc<AtomicU64>);

impl MockTime {
    /// A source that reads `ns` until moved.
    pub fn new(ns: u64) -> MockTime {
        MockTime(Arc::new(AtomicU64::new(ns)))
    }

    /// Sets the time.
    pub fn set(&self, ns: u64) {
        self.0.store(ns, Ordering::Relaxed);
    }

    /// Moves the time forward by `ns` (saturating).
    pub fn advance(&self, ns: u64) {
        self.set(self.now().saturating_add(ns));
    }

    /// Moves the time back by `ns` (saturating at 0).
    pub fn step_back(&self, ns: u64) {
        self.set(self.now().saturating_sub(ns));
    }
}

impl TimeSource for MockTime {
    fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Where a clock reads the time: the wall clock is called directly, any
/// other source through a shared trait object.
#[derive(Clone)]
pub(crate) enum Source {
    Wall,
    Custom(Arc<dyn TimeSource>),
}

impl Source {
    /// A custom source.
    pub(crate) fn custom(source: impl TimeSource + 'static) -> Source {
        Source::Custom(Arc::new(source))
    }

    /// Unix nanoseconds.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        match self {
            Source::Wall => WallClock.now(),
            Source::Custom(source) => source.now(),
        }
    }

    /// Whether this is the wall clock.
    pub(crate) fn is_wall(&self) -> bool {
        matches!(self, Source::Wall)
    }
}

/// Nanoseconds since the Unix epoch; 0 before it, saturating past 2554.
pub(crate) fn unix_nanos(t: SystemTime) -> u64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
        Err(_) => 0,
    }
}

/// The `SystemTime` of signed nanoseconds since the Unix epoch.
pub(crate) fn from_unix_nanos(ns: i128) -> SystemTime {
    let d = Duration::from_nanos(ns.unsigned_abs() as u64);
    if ns >= 0 {
        UNIX_EPOCH + d
    } else {
        UNIX_EPOCH - d
    }
}
