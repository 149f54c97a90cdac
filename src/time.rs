//! Time sources: where a clock reads the time.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::sync::AtomicU64;

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
        // The vDSO call straight: `SystemTime::now()` and `duration_since`
        // add a checked subtraction of timespecs to every id.
        #[cfg(target_os = "linux")]
        if let Some(ns) = clock_gettime(libc::CLOCK_REALTIME) {
            return ns;
        }
        unix_nanos(SystemTime::now())
    }
}

/// Reads a Linux clock as Unix nanoseconds (0 before 1970).
#[cfg(target_os = "linux")]
#[inline]
fn clock_gettime(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return None;
    }
    Some(
        (ts.tv_sec.max(0) as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(ts.tv_nsec.max(0) as u64),
    )
}

/// The coarse wall clock (`CLOCK_REALTIME_COARSE`), opt-in for speed.
///
/// It reads in a few nanoseconds where the precise wall clock takes 20–60,
/// but it is the time of the kernel's last timekeeping update, which
/// happens about once per kernel tick ([`CoarseClock::resolution`], 1–4 ms
/// on common kernels) and lazily: it lags the wall clock by about one
/// resolution on average and by more than one at times. Measured with
/// `cargo run --release --example coarse_lag` on a 2-vCPU KVM guest with a
/// 4 ms resolution: 3.3–3.9 ms on average, at most 6 ms idle and 10–14 ms
/// with both cores busy (the upper figures include the sampling thread
/// being preempted between its two reads). The kernel documents no bound;
/// this crate's tests hold ids made from it to [`CoarseClock::MAX_LAG`]
/// resolutions behind the wall clock. Within a kernel tick the clock counts
/// its sequence and borrows ticks ahead, and every guarantee of the clock
/// holds with it: only the time an id carries is older.
///
/// ```
/// # #[cfg(target_os = "linux")] {
/// use guid::Clock;
/// let clock = Clock::builder().coarse().build();
/// assert!(clock.g() < clock.g());
/// # }
/// ```
#[cfg(target_os = "linux")]
#[derive(Clone, Copy, Debug, Default)]
pub struct CoarseClock;

#[cfg(target_os = "linux")]
impl CoarseClock {
    /// The lag, in resolutions, that the tests allow the coarse clock
    /// behind the wall clock (see the type's docs for measured figures).
    pub const MAX_LAG: u32 = 5;

    /// How often the coarse clock moves.
    pub fn resolution() -> Duration {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the call.
        match unsafe { libc::clock_getres(libc::CLOCK_REALTIME_COARSE, &mut ts) } {
            0 => Duration::new(
                ts.tv_sec.max(0) as u64,
                ts.tv_nsec.clamp(0, 999_999_999) as u32,
            ),
            _ => Duration::ZERO,
        }
    }
}

#[cfg(target_os = "linux")]
impl TimeSource for CoarseClock {
    #[inline]
    fn now(&self) -> u64 {
        clock_gettime(libc::CLOCK_REALTIME_COARSE).unwrap_or_else(|| WallClock.now())
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
#[derive(Clone, Debug)]
pub struct MockTime(Arc<AtomicU64>);

impl Default for MockTime {
    /// A source that reads 0 (the Unix epoch) until moved.
    fn default() -> Self {
        MockTime::new(0)
    }
}

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

/// Where a clock reads the time: the built-in clocks are called directly,
/// any other source through a shared trait object.
#[derive(Clone, Default)]
pub(crate) enum Source {
    #[default]
    Wall,
    #[cfg(target_os = "linux")]
    Coarse,
    Ticked(crate::Ticker),
    Custom(Arc<dyn TimeSource>),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::Wall => "wall",
            #[cfg(target_os = "linux")]
            Source::Coarse => "coarse",
            Source::Ticked(_) => "ticker",
            Source::Custom(_) => "custom",
        })
    }
}

impl Source {
    /// Any other source, through a shared trait object.
    pub(crate) fn custom(source: impl TimeSource + 'static) -> Source {
        // A ticker is read inline, as the wall clock's is, and refreshed by
        // callers that take many ids.
        if let Some(ticker) = (&source as &dyn std::any::Any).downcast_ref::<crate::Ticker>() {
            return Source::Ticked(ticker.clone());
        }
        Source::Custom(Arc::new(source))
    }

    /// The process-wide [`Ticker`](crate::Ticker) of the wall clock.
    pub(crate) fn ticker() -> Source {
        Source::Ticked(crate::Ticker::wall())
    }

    /// Unix nanoseconds.
    #[inline(always)]
    pub(crate) fn now(&self) -> u64 {
        // The source of the fastest ids first: one compare, no jump table.
        if let Source::Ticked(ticker) = self {
            return ticker.now_ns();
        }
        self.read()
    }

    /// Reads a ticker's source and publishes the reading (no-op for the
    /// others): for callers that take many ids.
    #[inline(always)]
    pub(crate) fn refresh(&self) {
        if let Source::Ticked(ticker) = self {
            ticker.refresh();
        }
    }

    /// [`Source::now`] of the sources that read a clock per call.
    #[inline]
    fn read(&self) -> u64 {
        match self {
            Source::Wall => WallClock.now(),
            #[cfg(target_os = "linux")]
            Source::Coarse => CoarseClock.now(),
            Source::Ticked(ticker) => ticker.now_ns(),
            Source::Custom(source) => source.now(),
        }
    }
}

/// `t` as nanoseconds since the Unix epoch, the unit of [`TimeSource`]:
/// 0 before the epoch, saturating at `u64::MAX` (in the year 2554).
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// assert_eq!(guid::unix_nanos(UNIX_EPOCH + Duration::from_millis(1)), 1_000_000);
/// assert_eq!(guid::unix_nanos(UNIX_EPOCH - Duration::from_secs(1)), 0);
/// ```
#[inline]
pub fn unix_nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, nanos)
}

/// `d` in whole nanoseconds, saturating at `u64::MAX` (584 years).
///
/// ```
/// use std::time::Duration;
/// assert_eq!(guid::nanos(Duration::from_micros(3)), 3_000);
/// assert_eq!(guid::nanos(Duration::MAX), u64::MAX);
/// ```
#[inline]
pub fn nanos(d: Duration) -> u64 {
    // u64 arithmetic: cheaper than `as_nanos` in u128 on the hot path.
    d.as_secs()
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::from(d.subsec_nanos()))
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
