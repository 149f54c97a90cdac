//! The flake clock's lead under load while its source is behind (a
//! not-before bound in the future, or a step back): ids never run more than
//! the max lead ahead of the latest time the source has shown or the bound,
//! and the clock waits no longer than the source makes it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, UNIX_EPOCH};

use guid::flake::{Clock, Layout};
use guid::{MockTime, TimeSource};

const MS: u64 = 1_000_000;
const T0: u64 = 1_700_000_000_000 * MS;
const LAYOUT: Layout = Layout::NOEQD;
/// The clock's max lead in units (1 ms each).
const LEAD: u64 = 20;
/// Ids per fill: less than one unit's sequence (4,096).
const BATCH: usize = 1_000;

fn units(ns: u64) -> u64 {
    LAYOUT.units(UNIX_EPOCH + Duration::from_nanos(ns))
}

fn last_unit(ids: &[u64]) -> u64 {
    LAYOUT.decompose(*ids.last().unwrap()).unwrap().time
}

/// A clock on `source` with a lead of [`LEAD`] units, not before `nb`.
fn clock(source: impl TimeSource + 'static, nb: Option<u64>) -> Clock {
    let b = Clock::builder(LAYOUT)
        .node(1)
        .time(source)
        .max_lead(Duration::from_millis(LEAD));
    match nb {
        Some(ns) => b.not_before(UNIX_EPOCH + Duration::from_nanos(ns)).unwrap(),
        None => b,
    }
    .build()
    .unwrap()
}

/// One thread, the test moving the source: `steps` fills of [`BATCH`] ids,
/// the source advancing [`STEP`] after each (more ids than the sequence
/// holds). Before each fill [`Clock::pace`] says whether it would wait;
/// when it would, the source is moved a nanosecond short of that (and pace
/// says one more), then the rest, and the fill does not wait. The first
/// time, the fill is made before the last nanosecond, and waits until
/// another thread moves the source. Returns the largest lead over the
/// reference (the latest time the source showed, or `reference`: the
/// not-before bound, or the time before a step back) and the longest wait.
fn paced_run(time: &MockTime, clock: &Clock, mut reference: u64, steps: usize) -> (u64, u64) {
    let (mut max_lead, mut max_wait) = (0, 0);
    let mut ids = vec![0; BATCH];
    let mut prev = 0;
    for _ in 0..steps {
        let wait = guid::nanos(clock.pace(BATCH));
        let waits = clock.health().waits;
        if wait > 0 {
            // A nanosecond less, and it would still wait: no longer than needed.
            time.advance(wait - 1);
            assert_eq!(clock.pace(BATCH), Duration::from_nanos(1));
            if max_wait == 0 {
                fill_waiting_for(time, clock, &mut ids);
            } else {
                time.advance(1);
                assert_eq!(clock.pace(BATCH), Duration::ZERO);
                clock.fill(&mut ids).unwrap();
                assert_eq!(clock.health().waits, waits, "pace said it would not wait");
            }
            max_wait = max_wait.max(wait);
        } else {
            clock.fill(&mut ids).unwrap();
            assert_eq!(clock.health().waits, waits, "pace said it would not wait");
        }
        assert!(ids[0] > prev);
        prev = ids[BATCH - 1];
        reference = reference.max(time.now());
        max_lead = max_lead.max(last_unit(&ids).saturating_sub(units(reference)));
        time.advance(STEP);
    }
    (max_lead, max_wait)
}

/// A fill that [`Clock::pace`] says must wait a nanosecond for the source
/// does wait (once), until another thread moves the source on.
fn fill_waiting_for(time: &MockTime, clock: &Clock, ids: &mut [u64]) {
    let waits = clock.health().waits;
    std::thread::scope(|s| {
        s.spawn(|| {
            // Moves the source once the fill is waiting (or gives up, and
            // the count below fails).
            for _ in 0..10_000 {
                if clock.health().waits > waits {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            time.advance(1);
        });
        clock.fill(ids).unwrap();
    });
    assert_eq!(clock.health().waits, waits + 1, "pace said it would wait");
}

/// The source's step after each fill: 1,000 ids per 100 µs, 2.4 times what
/// the sequence holds.
const STEP: u64 = 100_000;

/// Not before 3 s from now, under more load than the sequence holds: ids
/// stay within the lead of the bound (the clock waits for the source to
/// reach it), and once the source is past the bound, within the lead of
/// the source.
#[test]
fn not_before_in_the_future_bounds_the_lead() {
    let time = MockTime::new(T0);
    let nb = T0 + 3_000 * MS;
    let clock = clock(time.clone(), Some(nb));
    let (lead, wait) = paced_run(&time, &clock, nb, 35_000); // 3.5 s of the source
    eprintln!("not before +3 s: largest lead {lead} ms, longest wait {wait} ns");
    assert!(time.now() > nb + 400 * MS, "the run passed the bound");
    assert!(lead <= LEAD + 1, "lead {lead} ms over max(now, not before)");
    // The first wait is for the source to reach the bound (its next
    // unit); none is longer.
    assert!(wait <= 3_001 * MS, "a wait of {wait} ns");
    let health = clock.health();
    assert_eq!(health.waits, 1, "{health:?}");
    assert_eq!(health.steps_back, 1, "{health:?}");
}

/// A step back of 2 s under load: the clock keeps counting from the last
/// id for up to the lead's worth of sequence, then waits for the source;
/// never further ahead of what the source showed before than the lead.
#[test]
fn a_step_back_under_load_bounds_the_lead() {
    let time = MockTime::new(T0);
    let clock = clock(time.clone(), None);
    let mut ids = vec![0; BATCH];
    for _ in 0..100 {
        clock.fill(&mut ids).unwrap();
        time.advance(MS); // within the sequence: no lead
    }
    let before = time.now();
    time.step_back(2_000 * MS);
    // The step costs nothing until the lead's worth of sequence is spent.
    let per_unit = LAYOUT.max_seq() + 1;
    let mut spent = 0;
    while clock.pace(BATCH) == Duration::ZERO {
        clock.fill(&mut ids).unwrap();
        spent += BATCH as u64;
        assert!(
            spent <= (LEAD + 1) * per_unit,
            "{spent} ids within the lead"
        );
    }
    assert!(spent >= LEAD * per_unit, "only {spent} ids within the lead");
    assert_eq!(clock.health().waits, 0);
    let (lead, wait) = paced_run(&time, &clock, before, 25_000);
    eprintln!("step back 2 s: largest lead {lead} ms, longest wait {wait} ns");
    assert!(time.now() > before + 400 * MS, "the run passed the step");
    assert!(
        lead <= LEAD + 1,
        "lead {lead} ms over the latest time shown"
    );
    // How far the source is behind, and one unit.
    assert!(wait <= 2_001 * MS, "a wait of {wait} ns");
    let health = clock.health();
    assert_eq!((health.steps_back, health.waits), (1, 1), "{health:?}");
    assert!(health.max_lead >= Duration::from_secs(1), "{health:?}");
}

/// A source that remembers the latest reading it gave: with one thread on
/// the clock, the reading its last id was planned with.
#[derive(Clone)]
struct Recorder {
    time: MockTime,
    latest: Arc<AtomicU64>,
}

impl TimeSource for Recorder {
    fn now(&self) -> u64 {
        let ns = self.time.now();
        self.latest.fetch_max(ns, Relaxed);
        ns
    }
}

/// A thread fills as fast as it can while another moves the source by
/// 10 µs a step through `path` (pairs of a start and an end, the source set
/// to each start), then an hour on. Returns the largest lead of an id over
/// the reference: the latest time the clock read, or `reference` (the
/// not-before bound).
fn loaded_run(path: &[(u64, u64)], reference: u64, nb: Option<u64>) -> u64 {
    let time = MockTime::new(path[0].0);
    let latest = Arc::new(AtomicU64::new(0));
    let recorder = Recorder {
        time: time.clone(),
        latest: Arc::clone(&latest),
    };
    let clock = Arc::new(clock(recorder, nb));
    let done = Arc::new(AtomicBool::new(false));
    let filler = {
        let (clock, done, latest) = (Arc::clone(&clock), Arc::clone(&done), Arc::clone(&latest));
        std::thread::spawn(move || {
            let mut ids = vec![0; BATCH];
            let (mut max_lead, mut prev) = (0, 0);
            while !done.load(Relaxed) {
                clock.fill(&mut ids).unwrap();
                assert!(ids[0] > prev);
                prev = ids[BATCH - 1];
                let seen = latest.load(Relaxed).max(reference);
                max_lead = max_lead.max(last_unit(&ids).saturating_sub(units(seen)));
            }
            max_lead
        })
    };
    for &(from, to) in path {
        time.set(from);
        while time.now() < to {
            time.advance(10_000);
            std::thread::yield_now();
        }
    }
    // However far ahead the ids ran, the filler's last wait ends.
    time.advance(3_600_000 * MS);
    done.store(true, Relaxed);
    let lead = filler.join().unwrap();
    eprintln!("{:?}", clock.health());
    lead
}

/// As [`not_before_in_the_future_bounds_the_lead`], with a thread filling
/// as fast as it can while another moves the source on its own.
#[test]
fn not_before_in_the_future_bounds_the_lead_of_a_busy_thread() {
    let nb = T0 + 3_000 * MS;
    let lead = loaded_run(&[(T0, nb + 500 * MS)], nb, Some(nb));
    eprintln!("not before +3 s, busy thread: largest lead {lead} ms");
    assert!(lead <= LEAD + 1, "lead {lead} ms over max(now, not before)");
}

/// As [`a_step_back_under_load_bounds_the_lead`], with a thread filling as
/// fast as it can while another moves the source on its own.
#[test]
fn a_step_back_bounds_the_lead_of_a_busy_thread() {
    let back = T0 + 100 * MS - 2_000 * MS;
    let lead = loaded_run(&[(T0, T0 + 100 * MS), (back, T0 + 500 * MS)], 0, None);
    eprintln!("step back 2 s, busy thread: largest lead {lead} ms");
    assert!(
        lead <= LEAD + 1,
        "lead {lead} ms over the latest time shown"
    );
}
