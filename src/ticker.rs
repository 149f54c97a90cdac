//! A time source that costs one atomic load: a thread reads another source
//! on a schedule finer than the id tick and publishes what it read.
//!
//! The published word is `ns | LIVE` (`| CALLER` when a caller published
//! it), with `ASKED` set by the first read after each publication, or 0
//! while no thread publishes (not started yet, parked, or gone with a
//! fork). A read that finds no live word, or a word published by another
//! process's thread (a fork copies the word but not the thread), reads the
//! source itself and wakes the thread: so a read is never older than the
//! source's own reading by more than the thread's lateness, never frozen,
//! and idle processes pay nothing.
//!
//! Callers that take ids by the thousand refresh the word themselves (a
//! clock on the ticker reads the source once every 1,024 states it
//! issues): while they do, at least once a period, the thread backs off
//! to one wake-up a millisecond, as a batch thread whose wake-ups wait for
//! a free core rather than preempt a caller, so it does not take a core
//! from callers that have every core busy.

use std::fmt;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64};
use std::sync::{Arc, LazyLock, Weak};
use std::thread::Thread;
use std::time::Duration;

use crate::fork;
use crate::time::{Source, TimeSource};

/// The word holds a time published by a running thread.
const LIVE: u64 = 1;
/// A read has used the word since it was published.
const ASKED: u64 = 2;
const FLAGS: u64 = LIVE | ASKED;
/// A caller, not the thread, published the word.
const CALLER: u64 = 4;
/// The bits of the word that are not the time.
const MARKS: u64 = FLAGS | CALLER;

/// Half the 131 µs tick of the 96-bit ids: every tick is seen.
const PERIOD: Duration = Duration::from_micros(64);

/// The longest sleep of the thread while callers refresh the word.
const BACKED_OFF: Duration = Duration::from_millis(1);

/// Without a read for this long, the thread parks until the next read.
const IDLE: Duration = Duration::from_millis(10);

/// A [`TimeSource`] that reads another source from a thread of its own,
/// every 64 µs by default, and hands out the latest reading for the cost
/// of one atomic load.
///
/// [`Builder::ticker`](crate::Builder::ticker) puts a clock on the
/// process-wide ticker of the wall clock ([`Ticker::wall`]): ids cost a
/// few nanoseconds instead of a `clock_gettime` call, and every guarantee
/// of the clock holds, since the clock trusts nothing about its source.
/// The time an id carries is the ticker's last reading: at most one
/// period old while the thread runs on time (up to 1 ms in the first
/// millisecond after callers stop taking ids by the thousand, see
/// below), older on a machine so busy
/// that the thread waits for a core (as with [`CoarseClock`](crate::CoarseClock)).
/// It follows the wall clock's steps and jumps at the next reading.
///
/// The thread starts at the first read and parks after 10 ms without one:
/// an idle process pays nothing, and the first read after a pause reads
/// the source itself (fresh) and wakes the thread. While ids are asked for
/// at a modest rate (even one a millisecond) it wakes every period:
/// measured with `cargo run --release --example ticker_cost` on a 2-vCPU
/// AMD EPYC KVM guest, 17–20% of one core, about 11,000 wake-ups a second.
/// A clock on a ticker that makes ids by the thousand reads the source
/// itself once every 1,024 ids (a few hundredths of a nanosecond an id),
/// and while such callers publish a reading once a period or more, the
/// thread doubles its sleep up to 1 ms: without pause, 1% of a core and
/// about 1,000 wake-ups a second, with a reading 14 µs behind the wall
/// clock at the median and 30 µs at p99. Meanwhile it is a batch thread
/// (Linux's `SCHED_BATCH`): a wake-up waits for a free core or the end of
/// a running thread's time slice rather than preempt a caller. So the
/// thread does not take a core from callers that keep every core busy,
/// and when they stop, the reading is at most 1 ms old until it wakes
/// (later by up to a time slice where every core is busy with other
/// work); then it is a normal thread again. That is why it is opt-in:
/// a library should not spend a core's fifth behind its user's back, and
/// most programs make far fewer ids than it saves time on. In a forked
/// child, whose copy of the thread does not exist, the first read finds
/// the published time stale, reads the source and starts a thread for the
/// child; if no thread can be started, every read goes to the source.
///
/// ```
/// use guid::{Clock, Ticker};
/// let clock = Clock::builder().ticker().build();
/// let (a, b) = (clock.g(), clock.g());
/// assert!(a < b);
/// assert!(Ticker::wall().now_ns() > 0);
/// ```
#[derive(Clone)]
pub struct Ticker(Arc<Inner>);

/// The process-wide ticker of the wall clock.
static WALL: LazyLock<Ticker> = LazyLock::new(|| Ticker::with_period(Source::Wall, PERIOD));

#[repr(align(64))]
struct Word(AtomicU64);

struct Inner {
    /// The published time, on a line of its own: written once a period.
    word: Word,
    /// The fork generation whose thread publishes `word` (none at first).
    fork: fork::Owner<AtomicU32>,
    /// The fork generation of the process that is waking the thread
    /// (none while no process is).
    waking: fork::Owner<AtomicU32>,
    /// The thread, once started (a `Box<Thread>`).
    thread: AtomicPtr<Thread>,
    /// Readings published by callers since the thread last looked.
    refreshed: AtomicU32,
    source: Source,
    period: Duration,
}

impl Ticker {
    /// The process-wide ticker of the wall clock, shared by every clock
    /// built with [`Builder::ticker`](crate::Builder::ticker).
    pub fn wall() -> Ticker {
        WALL.clone()
    }

    /// A ticker of its own over `source`, read every 64 µs. Its thread
    /// ends once the last clone of the ticker is dropped.
    pub fn new(source: impl TimeSource + 'static) -> Ticker {
        Ticker::with_period(Source::custom(source), PERIOD)
    }

    /// A ticker over `source` that reads it every `period` (at least 1 µs).
    pub fn every(source: impl TimeSource + 'static, period: Duration) -> Ticker {
        Ticker::with_period(Source::custom(source), period)
    }

    fn with_period(source: Source, period: Duration) -> Ticker {
        Ticker(Arc::new(Inner {
            word: Word(AtomicU64::new(0)),
            fork: fork::Owner::none(),
            waking: fork::Owner::none(),
            thread: AtomicPtr::new(std::ptr::null_mut()),
            refreshed: AtomicU32::new(0),
            source,
            period: period.max(Duration::from_micros(1)),
        }))
    }

    /// The latest reading, Unix ns (the same as [`TimeSource::now`]).
    #[inline(always)]
    pub fn now_ns(&self) -> u64 {
        self.0.read()
    }

    /// Whether a thread of this process publishes readings now: false
    /// before the first read, while parked after 10 ms without one, and in
    /// a forked child until its first read.
    pub fn is_ticking(&self) -> bool {
        self.0.published().is_some()
    }

    /// How often the thread reads the source.
    pub fn period(&self) -> Duration {
        self.0.period
    }

    /// Reads the source and publishes the reading, if the thread of this
    /// process publishes now: a caller's share of the thread's work.
    #[cold]
    #[inline(never)]
    pub(crate) fn refresh(&self) {
        let inner = &self.0;
        let Some(word) = inner.published() else {
            return;
        };
        let now = inner.source.now() & !MARKS | MARKS;
        // Never back over a newer reading; the thread's own publication
        // (or its parking, which clears the word) wins a race.
        if now > word
            && inner
                .word
                .0
                .compare_exchange(word, now, Release, Relaxed)
                .is_ok()
        {
            inner.refreshed.fetch_add(1, Relaxed);
        }
    }
}

impl TimeSource for Ticker {
    #[inline]
    fn now(&self) -> u64 {
        self.0.read()
    }
}

impl fmt::Debug for Ticker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ticker")
            .field("source", &self.0.source)
            .field("period", &self.0.period)
            .field("ticking", &self.is_ticking())
            .finish()
    }
}

impl Inner {
    /// The published word, if this process's thread published it.
    #[inline(always)]
    fn published(&self) -> Option<u64> {
        let (word, ours) = self.load();
        live(word, ours)
    }

    /// The word, and whether this process's thread published it.
    #[inline(always)]
    fn load(&self) -> (u64, bool) {
        let word = self.word.0.load(Acquire);
        (word, !self.fork.forked())
    }

    #[inline(always)]
    fn read(self: &Arc<Self>) -> u64 {
        let (word, ours) = self.load();
        // One branch on the common path: live, asked for, this process's.
        if word & FLAGS == FLAGS && ours {
            return word & !MARKS;
        }
        self.first_read(word, ours)
    }

    /// A read that finds the word not yet asked for (marks it), or not
    /// published by this process's thread (reads the source, wakes it).
    #[cold]
    #[inline(never)]
    fn first_read(self: &Arc<Self>, word: u64, ours: bool) -> u64 {
        if let Some(word) = live(word, ours) {
            if word & ASKED == 0 {
                self.word.0.fetch_or(ASKED, Relaxed);
            }
            return word & !MARKS;
        }
        self.cold_read()
    }

    /// Publishes the thread's reading `now`, unless a caller published a
    /// newer one after it was read (less than a period newer: a step back
    /// of the source is published at the next reading at the latest);
    /// returns the word it replaced.
    fn publish(&self, now: u64) -> u64 {
        let period = self.period.as_nanos() as u64;
        let mut old = self.word.0.load(Relaxed);
        loop {
            let shown = old & !MARKS;
            let newer =
                old & (LIVE | CALLER) == LIVE | CALLER && shown > now && shown - now < period;
            let next = if newer { shown } else { now } | LIVE;
            match self
                .word
                .0
                .compare_exchange_weak(old, next, Release, Relaxed)
            {
                Ok(_) => return old,
                Err(word) => old = word,
            }
        }
    }

    /// Reads the source itself and wakes (or starts) the thread.
    #[cold]
    #[inline(never)]
    fn cold_read(self: &Arc<Self>) -> u64 {
        let now = self.source.now();
        self.wake();
        now
    }

    fn wake(self: &Arc<Self>) {
        // One reader of this process wakes the thread; the others read
        // the source meanwhile. A parent's mark, copied by a fork, is
        // taken over.
        if !self.waking.claim() {
            return;
        }
        let ptr = self.thread.load(Acquire);
        // The claim re-armed a wiped word: a parent's thread reads forked.
        if !self.fork.forked() && !ptr.is_null() {
            // SAFETY: the pointer is a leaked `Box<Thread>`, replaced only
            // by the waker of a later generation, never in this one.
            unsafe { (*ptr).unpark() };
        } else if !self.start() {
            // No thread can be had: every read of this process goes to
            // the source, and the mark stays so that none tries again.
            return;
        }
        self.waking.release();
    }

    /// Starts the thread for this process's fork generation.
    fn start(self: &Arc<Self>) -> bool {
        // A parent's reading, copied by a fork, is not this process's.
        self.word.0.store(0, Relaxed);
        self.fork.adopt();
        let weak = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("guid-ticker".into())
            .stack_size(64 * 1024)
            .spawn(move || tick(&weak));
        let Ok(handle) = spawned else {
            return false;
        };
        let thread = Box::into_raw(Box::new(handle.thread().clone()));
        let old = self.thread.swap(thread, AcqRel);
        if !old.is_null() {
            // SAFETY: a leaked `Box<Thread>` of an earlier generation, no
            // longer reachable by any reader.
            drop(unsafe { Box::from_raw(old) });
        }
        true
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let ptr = *self.thread.get_mut();
        if !ptr.is_null() {
            // SAFETY: the last owner frees the leaked box; the thread,
            // woken, finds the ticker gone and ends.
            let thread = unsafe { Box::from_raw(ptr) };
            thread.unpark();
        }
    }
}

/// The word as [`Inner::load`] read it, if it is live and this process's
/// thread published it.
#[inline(always)]
fn live(word: u64, ours: bool) -> Option<u64> {
    (word & LIVE != 0 && ours).then_some(word)
}

/// The thread: publishes a reading every period while reads come, parks
/// after [`IDLE`] without one, ends when the ticker is dropped. While
/// callers publish readings at least once a period, it sleeps twice as
/// long each time, up to [`BACKED_OFF`].
fn tick(ticker: &Weak<Inner>) {
    set_timer_slack();
    let (mut idle, mut sleep) = (Duration::ZERO, Duration::ZERO);
    let mut yielding = false;
    loop {
        let Some(t) = ticker.upgrade() else {
            return;
        };
        let old = t.publish(t.source.now() & !MARKS);
        sleep = next_sleep(sleep, t.refreshed.swap(0, Relaxed), t.period);
        if yielding != (sleep > t.period) {
            yielding = sleep > t.period;
            yield_to_callers(yielding);
        }
        idle = if old & ASKED != 0 {
            Duration::ZERO
        } else {
            idle + sleep
        };
        if idle >= IDLE {
            // Unpublished first: a read from here on wakes the thread,
            // whose park then returns at once.
            if t.word.0.swap(0, Release) & ASKED == 0 {
                drop(t);
                std::thread::park();
            }
            idle = Duration::ZERO;
            continue;
        }
        drop(t);
        std::thread::sleep(sleep);
    }
}

/// The thread's next sleep after `sleep`, in which callers published
/// `refreshed` readings: twice as long (up to [`BACKED_OFF`]) if they did
/// at least once a `period`, else one period.
fn next_sleep(sleep: Duration, refreshed: u32, period: Duration) -> Duration {
    if u128::from(refreshed) * period.as_nanos() >= sleep.as_nanos() {
        (sleep * 2).clamp(period, BACKED_OFF.max(period))
    } else {
        period
    }
}

/// While callers publish readings themselves, the thread's wake-ups must
/// not take a core from them: as a batch thread (`SCHED_BATCH`, still a
/// normal thread of the same weight) a wake-up waits for a free core or
/// the end of a running thread's slice instead of preempting it. Back to
/// the default policy once the thread alone keeps the reading fresh.
fn yield_to_callers(yielding: bool) {
    #[cfg(target_os = "linux")]
    {
        let policy = match yielding {
            true => libc::SCHED_BATCH,
            false => libc::SCHED_OTHER,
        };
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: sets this thread's own policy among the normal ones,
        // which any thread may do; a refusal leaves the policy as it was.
        unsafe { libc::sched_setscheduler(0, policy, &param) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = yielding;
}

/// Asks the kernel to wake the thread on time: by default a sleep may run
/// 50 µs late, most of a period.
fn set_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes a value and touches nothing else.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Id, MockTime};
    use std::time::Instant;

    fn until(what: &str, mut f: impl FnMut() -> bool) {
        let start = Instant::now();
        while !f() {
            assert!(start.elapsed() < Duration::from_secs(30), "never {what}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The first read reads the source; then the thread publishes and
    /// follows the source, back and forth; idle, it parks, and the next
    /// read reads the source again.
    #[test]
    fn publishes_follows_the_source_and_parks_when_idle() {
        let time = MockTime::new(4_000);
        let ticker = Ticker::every(time.clone(), Duration::from_micros(50));
        assert!(!ticker.is_ticking());
        assert_eq!(ticker.now_ns(), 4_000);
        until("ticking", || ticker.is_ticking());
        time.set(8_000);
        until("the new time", || ticker.now_ns() == 8_000);
        time.step_back(6_000);
        until("the time stepped back", || ticker.now_ns() == 2_000);
        // No reads for 10 ms: parked.
        until("parked", || !ticker.is_ticking());
        time.set(12_000);
        assert_eq!(ticker.now_ns(), 12_000, "a read while parked is fresh");
        until("ticking again", || ticker.is_ticking());
    }

    /// The thread keeps a caller's newer reading once rather than move the
    /// word back, then publishes its own: a step back of the source shows
    /// at the next reading.
    #[test]
    fn a_callers_newer_reading_is_kept_once() {
        let ticker = Ticker::every(MockTime::new(0), Duration::from_micros(64));
        let word = &ticker.0.word.0;
        word.store(2_000 | MARKS, Relaxed);
        ticker.0.publish(1_000);
        assert_eq!(word.load(Relaxed), 2_000 | LIVE);
        ticker.0.publish(1_000);
        assert_eq!(word.load(Relaxed), 1_000 | LIVE);
        // A reading a period older is a step back: published at once.
        word.store(100_000 | MARKS, Relaxed);
        ticker.0.publish(1_000);
        assert_eq!(word.load(Relaxed), 1_000 | LIVE);
    }

    /// Callers that take thousands of ids publish the source's time
    /// themselves: a word published as by a thread (none runs) follows
    /// the source once a clock on the ticker has made 8,192 ids.
    #[test]
    fn callers_taking_many_ids_publish_the_time() {
        const T0: u64 = 1_717_200_000_000_000_000 >> 17 << 17;
        let later = T0 + (10 << 17);
        let ticker = Ticker::every(MockTime::new(later), Duration::from_secs(3_600));
        ticker.0.fork.adopt();
        ticker.0.word.0.store(T0 | FLAGS, Relaxed);
        let clock = crate::Clock::builder().time(ticker.clone()).build();
        let first = clock.g();
        assert_eq!(first.time(), T0, "the ids are on the published time");
        for _ in 0..8_192 {
            clock.g();
        }
        assert_eq!(ticker.0.word.0.load(Relaxed), later | MARKS);
        assert!(clock.g().time() >= later);
        assert!(
            ticker.0.thread.load(Relaxed).is_null(),
            "no thread was started"
        );
    }

    /// The thread sleeps twice as long while callers publish once a period
    /// or more, up to a millisecond, and one period once they stop.
    #[test]
    fn the_thread_backs_off_while_callers_refresh() {
        let period = Duration::from_micros(64);
        let mut sleep = next_sleep(Duration::ZERO, 0, period);
        assert_eq!(sleep, period);
        let mut sleeps = Vec::new();
        for _ in 0..6 {
            // One refresh a period of the last sleep.
            let refreshed = sleep.as_nanos().div_ceil(period.as_nanos()) as u32;
            sleep = next_sleep(sleep, refreshed, period);
            sleeps.push(sleep.as_micros());
        }
        assert_eq!(sleeps, [128, 256, 512, 1_000, 1_000, 1_000]);
        // Fewer than one a period: back to the period.
        assert_eq!(next_sleep(BACKED_OFF, 15, period), period);
        assert_eq!(next_sleep(period, 0, period), period);
    }

    /// While backed off, the thread is a batch thread, whose wake-ups do
    /// not preempt callers; then a normal one again. Any thread may switch
    /// between the two.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_backed_off_thread_yields_to_callers() {
        std::thread::spawn(|| {
            // SAFETY: asks for this thread's own policy.
            let policy = || unsafe { libc::sched_getscheduler(0) };
            assert_eq!(policy(), libc::SCHED_OTHER);
            yield_to_callers(true);
            assert_eq!(policy(), libc::SCHED_BATCH);
            yield_to_callers(false);
            assert_eq!(policy(), libc::SCHED_OTHER);
        })
        .join()
        .unwrap();
    }

    /// A dropped ticker's thread ends.
    #[test]
    fn the_thread_ends_with_the_ticker() {
        let ticker = Ticker::every(MockTime::new(1 << 40), Duration::from_micros(50));
        ticker.now_ns();
        until("ticking", || ticker.is_ticking());
        let weak = Arc::downgrade(&ticker.0);
        drop(ticker);
        // The thread may hold it for the rest of one period.
        until("the ticker freed", || weak.upgrade().is_none());
    }
}
