//! Model checking of the clocks: loom runs every interleaving of their
//! atomic operations (up to a preemption bound) and each must give
//! distinct, strictly ordered ids.
//!
//! ```sh
//! RUSTFLAGS="--cfg loom" cargo test -p kguid --release --test loom
//! ```
//!
//! The state machine under test, the one every clock runs: the CAS loop on
//! the one state word, batch reservations, the inverse direction, borrowing
//! the next tick when a tick's sequence runs out, and, with the flake
//! clock's bounded lead, borrowing and waiting against a source another
//! thread moves.
#![cfg(loom)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use guid::flake::{self, Layout};
use guid::{Clock, Guid, Id, MockTime, Snapshot, TimeSource};
use loom::thread;

const T0: u64 = 1_700_000_000_000_000_000;
/// One tick of the global clock, in nanoseconds.
const TICK: u64 = 1 << 17;

/// Runs `f` under every interleaving loom explores with at most
/// `LOOM_MAX_PREEMPTIONS` (default 10) preemptions, and reports how many.
fn check(name: &str, f: impl Fn() + Sync + Send + 'static) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    let mut model = loom::model::Builder::new();
    if model.preemption_bound.is_none() {
        model.preemption_bound = Some(10);
    }
    model.check(move || {
        counted.fetch_add(1, Relaxed);
        f();
    });
    let runs = runs.load(Relaxed);
    eprintln!("loom: {name}: {runs} interleavings");
    assert!(runs > 1, "{name}: loom explored one interleaving only");
}

/// Strictly increasing (or decreasing), and no id shared between `all`.
fn assert_ordered_and_distinct<T: Ord + Copy + std::fmt::Debug>(
    per_thread: &[Vec<T>],
    inverse: bool,
) {
    for ids in per_thread {
        for w in ids.windows(2) {
            assert!(if inverse { w[0] > w[1] } else { w[0] < w[1] }, "{ids:?}");
        }
    }
    let mut all: Vec<T> = per_thread.iter().flatten().copied().collect();
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n, "a duplicate id: {per_thread:?}");
}

fn clock(time: &MockTime, inverse: bool) -> Arc<Clock> {
    let b = Clock::builder().node(7).time(time.clone());
    Arc::new(if inverse { b.inverse() } else { b }.build())
}

/// A flake clock of two ids per unit (one sequence bit) on `time`.
fn flake_clock(time: &MockTime, max_lead: Duration) -> (Layout, Arc<flake::Clock>) {
    let layout = Layout::new(40, 22, 1).unwrap();
    let clock = flake::Clock::builder(layout)
        .node(3)
        .time(time.clone())
        .max_lead(max_lead)
        .build()
        .unwrap();
    (layout, Arc::new(clock))
}

/// Two threads on one clock while a third steps the source back and then
/// jumps it forward: every id distinct, each thread's ids in order.
#[test]
fn global_clock_two_threads_and_a_wild_source() {
    for inverse in [false, true] {
        check(
            if inverse {
                "global inverse, wild source"
            } else {
                "global, wild source"
            },
            move || {
                let time = MockTime::new(T0);
                let clock = clock(&time, inverse);
                let other = Arc::clone(&clock);
                let t = thread::spawn(move || vec![other.g(), other.g()]);
                let mover = time.clone();
                let m = thread::spawn(move || {
                    mover.step_back(3 * TICK);
                    mover.advance(10 * TICK);
                });
                let mine = vec![clock.g(), clock.g()];
                let theirs = t.join().unwrap();
                m.join().unwrap();
                assert_ordered_and_distinct(&[mine, theirs], inverse);
            },
        );
    }
}

/// A batch and single ids at once: the batch is consecutive and shares no
/// state with the single ids.
#[test]
fn global_clock_batch_beside_single_ids() {
    check("global, batch beside singles", || {
        let time = MockTime::new(T0);
        let clock = clock(&time, false);
        let other = Arc::clone(&clock);
        let t = thread::spawn(move || {
            let mut batch = [Guid::default(); 3];
            other.fill(&mut batch);
            batch.to_vec()
        });
        let mine = vec![clock.g(), clock.g()];
        let batch = t.join().unwrap();
        for w in batch.windows(2) {
            assert_eq!(w[1].seq(), (w[0].seq() + 1) % (1 << 14));
        }
        assert_ordered_and_distinct(&[mine, batch], false);
    });
}

/// Two threads that run the last sequence values of a tick out: the carry
/// borrows the next tick, in both directions, and is counted as borrowed.
#[test]
fn global_clock_borrows_the_next_tick_under_contention() {
    for inverse in [false, true] {
        check(
            if inverse {
                "global inverse, borrowing"
            } else {
                "global, borrowing"
            },
            move || {
                let time = MockTime::new(T0);
                // Two states left in the source's tick (forward), or two above
                // its floor (inverse).
                let tick = if inverse {
                    (1u64 << 47) - 1 - (T0 >> 17)
                } else {
                    T0 >> 17
                };
                let state = if inverse {
                    tick << 14 | 2
                } else {
                    tick << 14 | ((1 << 14) - 3)
                };
                let b = Clock::builder()
                    .node(7)
                    .time(time.clone())
                    .restore(Snapshot::try_from(state).unwrap());
                let clock = Arc::new(if inverse { b.inverse() } else { b }.build());
                let other = Arc::clone(&clock);
                let t = thread::spawn(move || vec![other.g(), other.g()]);
                let mine = vec![clock.g(), clock.g()];
                let theirs = t.join().unwrap();
                assert_ordered_and_distinct(&[mine, theirs], inverse);
                assert!(clock.health().borrowed >= 1);
            },
        );
    }
}

/// The v3 clock (the same state machine, Go v3's sequence from 1): two
/// threads and a source that steps back, the ids of all three kinds.
#[test]
fn v3_clock_two_threads_and_a_wild_source() {
    use guid::v3;
    check("v3, wild source", || {
        let time = MockTime::new(T0);
        let clock = Arc::new(
            v3::Clock::builder()
                .node(1 << 40)
                .unwrap()
                .time(time.clone())
                .build(),
        );
        let other = Arc::clone(&clock);
        let t = thread::spawn(move || vec![other.x().to_l64(), other.l()]);
        let mover = time.clone();
        let m = thread::spawn(move || mover.step_back(3 * TICK));
        let mine = vec![clock.g().to_l64(), clock.x().to_l64()];
        let theirs = t.join().unwrap();
        m.join().unwrap();
        assert!(mine.iter().chain(&theirs).all(|l| l.seq() >= 1));
        assert_ordered_and_distinct(&[mine, theirs], false);
    });
}

/// The flake clock with one sequence bit and no lead: two ids per unit, so
/// of three ids one waits until a third thread moves the source; none is
/// repeated, none is ahead of the source.
#[test]
fn flake_clock_waits_for_the_source() {
    check("flake, wait", || {
        let time = MockTime::new(T0);
        let (layout, clock) = flake_clock(&time, Duration::ZERO);
        let other = Arc::clone(&clock);
        let t = thread::spawn(move || vec![other.next().unwrap(), other.next().unwrap()]);
        let mover = time.clone();
        let m = thread::spawn(move || mover.advance(5_000_000));
        let mine = vec![clock.next().unwrap()];
        let theirs = t.join().unwrap();
        m.join().unwrap();
        let newest = layout.units(std::time::UNIX_EPOCH + Duration::from_nanos(time.now()));
        for id in mine.iter().chain(&theirs) {
            assert!(layout.decompose(*id).unwrap().time <= newest);
        }
        assert_ordered_and_distinct(&[mine, theirs], false);
    });
}

/// The flake clock borrowing within its lead under contention.
#[test]
fn flake_clock_borrows_within_its_lead() {
    check("flake, borrow", || {
        let time = MockTime::new(T0);
        let (layout, clock) = flake_clock(&time, Duration::from_millis(1));
        let other = Arc::clone(&clock);
        let t = thread::spawn(move || vec![other.next().unwrap(), other.next().unwrap()]);
        let mine = vec![clock.next().unwrap(), clock.next().unwrap()];
        let theirs = t.join().unwrap();
        let now = layout.units(std::time::UNIX_EPOCH + Duration::from_nanos(T0));
        for id in mine.iter().chain(&theirs) {
            assert!(
                layout.decompose(*id).unwrap().time <= now + 1,
                "within the lead"
            );
        }
        assert_ordered_and_distinct(&[mine, theirs], false);
    });
}
