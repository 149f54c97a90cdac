//! The v3 clock keeps every guarantee of the v2 clock (it runs the same
//! state machine) and numbers its sequence as Go v3 does: many threads, a
//! time source that steps back, stalls and jumps, batches, restarts and
//! the end of the range.

mod common;

use guid::Id;
use std::collections::HashSet;
use std::time::{Duration, UNIX_EPOCH};

use common::{HOUR, SEC, T0, TICK, duplicates};
use guid::v3::{self, Clock, Drift, Guid, Luid, Xuid};
use guid::{ErrorKind, MockTime, Snapshot};

/// A node past 32 bits, so 128-bit ids carry more than global ones.
const NODE: u64 = 0x2ab_cdef_0123_4567;

/// Every id strictly after (or, inverse, before) the previous; none alike.
fn assert_strict<T: Ord + Copy + std::hash::Hash + std::fmt::Debug>(ids: &[T], inverse: bool) {
    common::assert_strict(ids, inverse);
    assert_eq!(duplicates(ids.iter().copied()), 0);
}

fn mock_clock(time: &MockTime, inverse: bool) -> Clock {
    let b = Clock::builder().node(NODE).unwrap().time(time.clone());
    if inverse { b.inverse() } else { b }.build()
}

/// 4 threads × 200,000 ids of all three kinds from one wall clock: their
/// local casts are all distinct, each thread's strictly increasing.
#[test]
fn many_threads_share_a_clock_without_duplicates() {
    let clock = Clock::new();
    let per_thread: Vec<Vec<Luid>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let clock = &clock;
                s.spawn(move || {
                    (0..200_000)
                        .map(|i| match (t + i) % 3 {
                            0 => clock.g().to_l64(),
                            1 => clock.x().to_l64(),
                            _ => clock.l(),
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ids in &per_thread {
        assert_strict(ids, false);
    }
    let all: HashSet<Luid> = per_thread.iter().flatten().copied().collect();
    assert_eq!(all.len(), 800_000);
}

/// Threads generating while another moves the source back and forth.
#[test]
fn many_threads_with_a_source_that_steps_back_and_jumps() {
    for inverse in [false, true] {
        let time = MockTime::new(T0);
        let clock = mock_clock(&time, inverse);
        let per_thread = common::with_a_wild_source(&time, || clock.x());
        for ids in &per_thread {
            assert_strict(ids, inverse);
        }
        assert_eq!(duplicates(per_thread.iter().flatten().copied()), 0);
    }
}

/// Steps back by one tick, 1 s and 1 h at random points, forward and
/// inverse: strictly ordered, no duplicate.
#[test]
fn steps_back_at_random_points_never_repeat() {
    for inverse in [false, true] {
        for step in [TICK, SEC, HOUR] {
            let time = MockTime::new(T0);
            let clock = mock_clock(&time, inverse);
            let (ids, _) = common::with_steps_back(&time, step, 100_000, || clock.g());
            assert_strict(&ids, inverse);
        }
    }
}

/// Go v3's sequence: the first id of a tick has sequence 1; a stalled
/// source runs it to 16,383, carries into the next tick at 0 (borrowed
/// ahead) and the clock follows the source again once it passes them.
#[test]
fn a_stalled_source_counts_from_1_carries_and_catches_up() {
    let time = MockTime::new(T0);
    let clock = mock_clock(&time, false);
    let ids: Vec<Guid> = (0..100_000).map(|_| clock.g()).collect();
    assert_strict(&ids, false);
    assert_eq!((ids[0].time(), ids[0].seq()), (T0 >> 17 << 17, 1));
    assert_eq!((ids[16_382].seq(), ids[16_383].seq()), (16_383, 0));
    assert_eq!(ids[16_383].time(), (T0 >> 17 << 17) + TICK);
    let ticks: HashSet<u64> = ids.iter().map(|g| g.time()).collect();
    assert_eq!(ticks.len(), 7);
    assert_eq!(clock.health().borrowed, 6);
    time.advance(10 * TICK);
    let next = clock.g();
    assert_eq!((next.time(), next.seq()), ((T0 + 10 * TICK) >> 17 << 17, 1));
}

/// The inverse clock mirrors it: the first id of a tick has sequence
/// 16,383 (Go's `Unclock`), and the sequence counts down.
#[test]
fn the_inverse_clock_counts_down_from_16383() {
    let time = MockTime::new(T0);
    let clock = mock_clock(&time, true);
    let (a, b) = (clock.l(), clock.l());
    assert_eq!((a.seq(), b.seq()), (16_383, 16_382));
    assert_eq!(a.time(), (u64::MAX - T0) >> 17 << 17);
    assert_eq!(
        a.epoch(),
        UNIX_EPOCH + Duration::from_nanos(u64::MAX - a.time())
    );
    time.advance(HOUR);
    assert!(clock.l() < b);
}

/// A jump forward is followed at once, sequence 1.
#[test]
fn a_jump_forward_is_followed() {
    let time = MockTime::new(T0);
    let clock = mock_clock(&time, false);
    let before = clock.x();
    time.advance(HOUR);
    let after = clock.x();
    assert!(after > before);
    assert_eq!((after.time(), after.seq()), ((T0 + HOUR) >> 17 << 17, 1));
}

/// Global ids carry the node's low 32 bits, 128-bit ids all 58; a node
/// wider than 58 bits is refused.
#[test]
fn nodes_have_58_bits() {
    let clock = Clock::builder().node(NODE).unwrap().build();
    assert_eq!(clock.node(), NODE);
    assert_eq!(clock.g().node(), NODE as u32 as u64);
    assert_eq!(clock.x().node(), NODE);
    let l = clock.l();
    assert_eq!(clock.x_from_l64(l).node(), NODE);
    assert_eq!(clock.from_l64(l).node(), NODE as u32 as u64);
    assert_eq!(
        Clock::builder().node(1 << 58).unwrap_err().kind(),
        ErrorKind::Part {
            name: "node",
            value: 1 << 58,
            max: v3::node::MAX
        }
    );
    for _ in 0..64 {
        assert!(Clock::new().node() <= v3::node::MAX);
    }
    assert_eq!(
        format!("{clock:?}").split_whitespace().next(),
        Some("v3::Clock")
    );
}

/// A batch is consecutive and interleaves with single ids without
/// repeating; the three fills agree.
#[test]
fn batches_are_consecutive_and_never_overlap() {
    let time = MockTime::new(T0);
    let clock = mock_clock(&time, false);
    let mut g = [Guid::default(); 20_000];
    let mut l = [Luid::default(); 300];
    let mut x = [Xuid::default(); 300];
    clock.fill(&mut g);
    let single = clock.l();
    clock.fill_l(&mut l);
    clock.fill_x(&mut x);
    let mut all: Vec<Luid> = g.iter().map(|g| g.to_l64()).collect();
    all.push(single);
    all.extend(l);
    all.extend(x.iter().map(|x| x.to_l64()));
    assert_strict(&all, false);
    // Consecutive states: each id is the next state of the one before.
    for w in all.windows(2) {
        let state = |l: &Luid| (l.time() >> 17) << 14 | l.seq() as u64;
        assert_eq!(state(&w[1]), state(&w[0]) + 1);
    }
    assert!(x.iter().all(|x| x.node() == NODE));
}

/// A restarted clock never goes back into used time, from a v3 snapshot,
/// a v2 clock's snapshot (the same word) or a not-before time.
#[test]
fn a_restarted_clock_continues_past_the_old_ids() {
    let time = MockTime::new(T0);
    let old = mock_clock(&time, false);
    let last = (0..1000).map(|_| old.g()).last().unwrap();
    time.step_back(HOUR);
    let restarted = Clock::builder()
        .node(NODE)
        .unwrap()
        .time(time.clone())
        .restore(old.snapshot())
        .build();
    assert!(restarted.g() > last);

    let v2 = guid::Clock::builder().node(7).time(time.clone()).build();
    let v2_last = v2.l();
    let after_v2 = Clock::builder()
        .time(time.clone())
        .restore(Snapshot::try_from(u64::from(v2.snapshot())).unwrap())
        .build()
        .l();
    assert!((after_v2.time(), after_v2.seq()) > (v2_last.time(), v2_last.seq()));

    let at = UNIX_EPOCH + Duration::from_nanos(T0 + HOUR);
    let guarded = Clock::builder()
        .time(time.clone())
        .not_before(at)
        .unwrap()
        .build();
    assert!(guarded.l() > Luid::from_time(&Clock::builder().build(), at));
}

/// At the end of the 47-bit tick range the clock issues what is left (the
/// forward clock 16,383 ids of the last tick, from sequence 1) and then
/// refuses rather than wrap, as the v2 clock does.
#[test]
fn the_clock_refuses_rather_than_wrap_at_the_end_of_the_range() {
    for (inverse, left) in [(false, 16_383), (true, 16_384)] {
        let time = MockTime::new(u64::MAX);
        let clock = mock_clock(&time, inverse);
        let ids: Vec<Guid> = (0..left).map(|_| clock.g()).collect();
        assert_strict(&ids, inverse);
        let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| clock.x()));
        let err = end.unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("used up its 47-bit tick range"), "{msg}");
    }
}

/// `now()` of every v3 id comes from the default v3 clock, in order.
#[test]
fn now_uses_the_default_clock() {
    let before = v3::CLOCK.l();
    let (g, l, x) = (Guid::now(), Luid::now(), Xuid::now());
    assert!(before < g.to_l64() && g.to_l64() < l && l < x.to_l64());
    assert_eq!(x.node(), v3::CLOCK.node());
    assert_eq!(g.drift(), Drift::DEFAULT);
    let now = guid::unix_nanos(std::time::SystemTime::now());
    assert!(now.abs_diff(x.time()) < 10 * SEC);
}
