//! The ticker time source and reserved handles keep the clock's promises:
//! sources that step back between readings, a long idle, a fork with the
//! ticker running, many threads, and the order a handle gives up.
#![cfg(unix)]

mod common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::{SplitMix, T0, TICK, assert_strict, duplicates, with_a_wild_source};
use guid::{Clock, Guid, Id, MockTime, Ticker, TimeSource, WallClock, flake, unix_nanos, v3};
use proptest::prelude::*;

fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(30), "never {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The start of the tick of Unix time `ns`.
fn tick_floor(ns: u64) -> u64 {
    ns & !(TICK - 1)
}

/// Four threads on a clock whose ticker reads a source moved back and
/// forth at random, between and across its readings: no id repeats and
/// each thread's ids strictly increase, as on the source itself.
#[test]
fn a_source_stepping_back_between_ticks_never_repeats_an_id() {
    let time = MockTime::new(T0);
    let ticker = Ticker::every(time.clone(), Duration::from_micros(20));
    let clock = Clock::builder().time(ticker.clone()).build();
    let per_thread = with_a_wild_source(&time, || clock.g());
    for ids in &per_thread {
        assert_strict(ids, false);
    }
    assert_eq!(duplicates(per_thread.iter().flatten().copied()), 0);
    assert!(ticker.is_ticking() || ticker.now_ns() > 0);

    // The flake clock on the same ticker.
    let layout = flake::Layout::new(41, 10, 12).unwrap();
    let flake = flake::Clock::builder(layout)
        .node(3)
        .time(ticker)
        .build()
        .unwrap();
    let per_thread = with_a_wild_source(&time, || flake.next().unwrap());
    for ids in &per_thread {
        assert_strict(ids, false);
    }
    assert_eq!(duplicates(per_thread.iter().flatten().copied()), 0);
}

/// Idle for longer than 10 ms, the ticker parks; the next read is the
/// source's own, so the id after a long idle carries the time it was made
/// at, and the ticker runs again.
#[test]
fn after_a_long_idle_the_ticker_parks_and_the_next_id_is_fresh() {
    let ticker = Ticker::new(WallClock);
    let clock = Clock::builder().time(ticker.clone()).build();
    let first = clock.g();
    eventually("ticking", || ticker.is_ticking());
    eventually("parked after 10 ms idle", || !ticker.is_ticking());
    std::thread::sleep(Duration::from_millis(50));
    let before = unix_nanos(std::time::SystemTime::now());
    let id = clock.g();
    assert!(id > first);
    assert!(
        id.time() >= tick_floor(before),
        "an id after a long idle carries an old time: {} < {before}",
        id.time()
    );
    eventually("ticking again", || ticker.is_ticking());
}

/// A fork with the wall ticker running: the child's first id is not made
/// from the parent's last reading (the copy of the thread does not exist
/// there), the child gets a ticker thread of its own, and it repeats none
/// of the ids the parent makes from the same clock and handle.
#[test]
fn a_forked_child_reads_fresh_time_and_ticks_on_its_own() {
    let clock = Clock::builder().ticker().build();
    let handle = clock.reserved(1024);
    let before_fork = handle.g();
    eventually("ticking", || Ticker::wall().is_ticking());
    let ids = |handle: &guid::Reserved<'_>| -> Vec<Guid> {
        (0..20_000)
            .map(|i| if i % 2 == 0 { handle.g() } else { clock.g() })
            .collect()
    };
    let (child, parent) = common::fork_with(
        || {
            // Past the parent's last reading: a fresh one must be taken.
            std::thread::sleep(Duration::from_millis(5));
            let before = unix_nanos(std::time::SystemTime::now());
            let first = clock.g();
            let fresh = first.time() >= tick_floor(before);
            let ticking = (0..30_000).any(|_| {
                std::thread::sleep(Duration::from_millis(1));
                clock.g();
                Ticker::wall().is_ticking()
            });
            let mut out = vec![u8::from(fresh), u8::from(ticking)];
            out.extend(ids(&handle).iter().flat_map(|g| g.to_bytes()));
            out
        },
        || ids(&handle),
    );
    assert_eq!(child[..2], [1, 1], "[fresh first id, a ticker of its own]");
    let mine: HashSet<Guid> = parent.iter().copied().chain([before_fork]).collect();
    let theirs: Vec<Guid> = child[2..]
        .chunks(12)
        .map(|b| Guid::try_from(b).unwrap())
        .collect();
    assert_eq!(theirs.len(), 20_000);
    assert!(theirs.iter().all(|g| !mine.contains(g)), "a repeated id");
    assert_ne!(theirs[0].node(), before_fork.node(), "a node of its own");
}

/// Eight threads, each with a handle of its own on one clock, and the
/// clock's own ids beside them: no id repeats, each handle's ids strictly
/// increase, and the source steps back and forth meanwhile.
#[test]
fn handles_and_their_clock_never_share_an_id() {
    let time = MockTime::new(T0);
    let clock = Clock::builder().time(time.clone()).build();
    let v3 = v3::Clock::builder().time(time.clone()).build();
    let per_thread = std::thread::scope(|s| {
        let mover = s.spawn(|| {
            let mut rng = SplitMix(11);
            for _ in 0..20_000 {
                match rng.next() % 3 {
                    0 => time.step_back(rng.next() % (4 * TICK)),
                    _ => time.advance(rng.next() % (2 * TICK)),
                }
                std::thread::yield_now();
            }
        });
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let (clock, v3) = (&clock, &v3);
                s.spawn(move || {
                    let handle = clock.reserved(1 << (t % 8 * 2));
                    let handle_v3 = v3.reserved(100);
                    let mine: Vec<Guid> = (0..50_000).map(|_| handle.g()).collect();
                    let v3s: Vec<v3::Guid> = (0..10_000).map(|_| handle_v3.g()).collect();
                    let shared: Vec<Guid> = (0..5_000).map(|_| clock.g()).collect();
                    (mine, v3s, shared)
                })
            })
            .collect();
        let out: Vec<_> = threads.into_iter().map(|h| h.join().unwrap()).collect();
        mover.join().unwrap();
        out
    });
    for (mine, v3s, _) in &per_thread {
        assert_strict(mine, false);
        assert_strict(v3s, false);
    }
    let all = per_thread
        .iter()
        .flat_map(|(mine, _, shared)| mine.iter().chain(shared))
        .copied();
    assert_eq!(duplicates(all), 0);
    let all_v3 = per_thread.iter().flat_map(|(_, v3s, _)| v3s).copied();
    assert_eq!(duplicates(all_v3), 0);
}

/// What one step of a handle test does.
#[derive(Clone, Debug)]
enum Step {
    /// An id from handle `i`.
    Handle(usize),
    /// An id from the clock itself.
    Clock,
    /// The source moves forward by `ns`.
    Advance(u64),
    /// The source steps back by `ns`.
    Back(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..3usize).prop_map(Step::Handle),
        2 => Just(Step::Clock),
        2 => (0..3 * TICK).prop_map(Step::Advance),
        1 => (0..3 * TICK).prop_map(Step::Back),
    ]
}

proptest! {
    /// Any interleaving of three handles, the clock, and a source moving
    /// both ways: ids are distinct, each handle's strictly increase, and no
    /// id is older than the tick the source showed at its call.
    #[test]
    fn a_handle_never_repeats_and_never_hands_out_a_past_tick(
        steps in prop::collection::vec(step(), 1..400),
        blocks in prop::array::uniform3(1u16..40),
        inverse in any::<bool>(),
    ) {
        let time = MockTime::new(T0);
        let builder = Clock::builder().time(time.clone());
        let clock = if inverse { builder.inverse() } else { builder }.build();
        let handles: Vec<_> = blocks.iter().map(|&b| clock.reserved(b)).collect();
        let mut of_handle: Vec<Vec<Guid>> = vec![Vec::new(); 3];
        let mut all = Vec::new();
        for step in steps {
            let id = match step {
                Step::Advance(ns) => { time.advance(ns); continue; }
                Step::Back(ns) => { time.step_back(ns); continue; }
                Step::Handle(i) => {
                    let id = handles[i].g();
                    of_handle[i].push(id);
                    id
                }
                Step::Clock => clock.g(),
            };
            if !inverse {
                prop_assert!(id.time() >= tick_floor(time.now()));
            }
            all.push(id);
        }
        prop_assert_eq!(duplicates(all.iter().copied()), 0);
        for ids in &of_handle {
            for w in ids.windows(2) {
                let increasing = if inverse { w[1] < w[0] } else { w[1] > w[0] };
                prop_assert!(increasing, "{:?} then {:?}", w[0], w[1]);
            }
        }
    }
}
