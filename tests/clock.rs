//! The clock's guarantees under many threads and a time source that steps
//! back, stalls and jumps.

mod common;

use guid::Id;
use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{HOUR, MS, SEC, T0, TICK, assert_strict, duplicates};
use guid::{Clock, Drift, Guid, Luid, MockTime, Snapshot};

fn mock_clock(time: &MockTime, inverse: bool) -> Clock {
    let b = Clock::builder().node(0x0a0b_0c0d).time(time.clone());
    if inverse { b.inverse() } else { b }.build()
}

/// 4 threads × 250,000 ids from one wall clock: none alike, each thread's
/// strictly increasing.
#[test]
fn many_threads_share_a_clock_without_duplicates() {
    let clock = Clock::new();
    let per_thread: Vec<Vec<Guid>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| (0..250_000).map(|_| clock.g()).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ids in &per_thread {
        assert_strict(ids, false);
    }
    let all = per_thread.iter().flatten().map(|g| g.to_u128());
    assert_eq!(duplicates(all), 0);
}

/// Threads generating while another moves the source back and forth.
#[test]
fn many_threads_with_a_source_that_steps_back_and_jumps() {
    for inverse in [false, true] {
        let time = MockTime::new(T0);
        let clock = mock_clock(&time, inverse);
        let per_thread = common::with_a_wild_source(&time, || clock.l());
        for ids in &per_thread {
            assert_strict(ids, inverse);
        }
        let all = per_thread.iter().flatten().map(|l| l.to_u64() as u128);
        assert_eq!(duplicates(all), 0, "inverse: {inverse}");
    }
}

/// Steps back by one tick, 1 ms, 1 s and 1 h at random points, forward
/// and inverse: strictly ordered, no duplicate.
#[test]
fn steps_back_at_random_points_never_repeat() {
    for inverse in [false, true] {
        for step in [TICK, MS, SEC, HOUR] {
            let time = MockTime::new(T0);
            let clock = mock_clock(&time, inverse);
            let (ids, steps) = common::with_steps_back(&time, step, 200_000, || clock.g());
            assert!(steps > 100, "the scenario stepped back only {steps} times");
            assert_strict(&ids, inverse);
            assert_eq!(duplicates(ids.iter().map(|g| g.to_u128())), 0);
        }
    }
}

/// A frozen source for 100,000 ids: the sequence overflows six times and
/// borrows the next ticks; ids stay strictly increasing and then follow
/// the source again once it passes them.
#[test]
fn a_frozen_source_borrows_ticks_and_catches_up() {
    for inverse in [false, true] {
        let time = MockTime::new(T0);
        let clock = mock_clock(&time, inverse);
        let ids: Vec<Guid> = (0..100_000).map(|_| clock.g()).collect();
        assert_strict(&ids, inverse);
        assert_eq!(duplicates(ids.iter().map(|g| g.to_u128())), 0);
        // 100,000 ids need ceil(100000 / 16384) = 7 ticks: at most 6 ahead.
        let ticks: HashSet<u64> = ids.iter().map(|g| g.time()).collect();
        assert_eq!(ticks.len(), 7);
        // The source moves 10 ticks on (or back, inverse: it reads the
        // mirror): past the borrowed ticks, ids follow it at sequence 0.
        time.advance(10 * TICK);
        let next = clock.g();
        let expected = if inverse {
            u64::MAX - (T0 + 10 * TICK)
        } else {
            T0 + 10 * TICK
        };
        assert_eq!(next.time(), expected >> 17 << 17);
        assert_eq!(next.seq(), if inverse { 16383 } else { 0 });
    }
}

/// A jump forward is followed at once.
#[test]
fn a_jump_forward_is_followed() {
    let time = MockTime::new(T0);
    let clock = mock_clock(&time, false);
    let before = clock.g();
    time.advance(HOUR);
    let after = clock.g();
    assert!(after > before);
    assert_eq!(after.time(), (T0 + HOUR) >> 17 << 17);
    assert_eq!(after.seq(), 0);
}

/// The Go library gives 3,616 duplicates in 20,000 ids from a frozen
/// clock: its sequence is a separate counter that wraps within the tick.
#[test]
fn a_frozen_clock_gives_no_duplicate_where_go_gives_3616() {
    let time = MockTime::new(T0);
    let clock = mock_clock(&time, false);
    let ids: Vec<u128> = (0..20_000).map(|_| clock.g().to_u128()).collect();
    assert_eq!(duplicates(ids), 0);
}

/// The Go library gives 16,384 duplicates when the clock steps back by
/// 16.384 ms after 16,384 ids made 1 µs apart: it replays the same ticks
/// with the same counter values. Here the second run continues past the first.
#[test]
fn a_16ms_step_back_gives_no_duplicate_where_go_gives_16384() {
    let time = MockTime::new(T0);
    let clock = mock_clock(&time, false);
    let mut ids = Vec::new();
    for _ in 0..2 {
        for _ in 0..16_384 {
            ids.push(clock.g().to_u128());
            time.advance(1_000);
        }
        time.step_back(16_384_000);
    }
    assert_eq!(duplicates(ids.iter().copied()), 0);
    assert_strict(&ids, false);
}

/// A batch is consecutive, crosses sequence overflow, and interleaves with
/// single ids without repeating.
#[test]
fn batches_are_consecutive_and_never_overlap() {
    for inverse in [false, true] {
        let time = MockTime::new(T0);
        let clock = mock_clock(&time, inverse);
        let mut all = Vec::new();
        let mut batch = vec![Guid::default(); 10_000];
        for round in 0..5 {
            clock.fill(&mut batch);
            for w in batch.windows(2) {
                let (a, b) = (w[0].to_l64(), w[1].to_l64());
                let step = if inverse {
                    a.to_u64() - b.to_u64()
                } else {
                    b.to_u64() - a.to_u64()
                };
                // A local id is `drift | tick << 14 | seq`: consecutive ids
                // differ by one, the carry past seq 16383 included.
                assert_eq!(step, 1, "round {round}: {a:?} -> {b:?}");
            }
            all.extend_from_slice(&batch);
            all.push(clock.g());
        }
        assert_strict(&all, inverse);
        let mut locals = vec![Luid::default(); 3];
        clock.fill_l(&mut locals);
        assert_strict(&locals, inverse);
        assert!(if inverse {
            locals[0] < all.last().unwrap().to_l64()
        } else {
            locals[0] > all.last().unwrap().to_l64()
        });
        clock.fill(&mut []); // an empty batch takes nothing
    }
}

/// A restarted clock with the same node never goes back into used time:
/// after `not_before` or `restore`, even when the source now reads earlier.
#[test]
fn a_restarted_clock_continues_past_the_old_ids() {
    for inverse in [false, true] {
        let time = MockTime::new(T0);
        let old = mock_clock(&time, inverse);
        let mut issued: Vec<Guid> = (0..50_000).map(|_| old.g()).collect();
        let last = *issued.last().unwrap();
        let snapshot = Snapshot::try_from(u64::from(old.snapshot())).unwrap();
        time.step_back(HOUR);

        let restored = {
            let b = Clock::builder()
                .node(old.node())
                .time(time.clone())
                .restore(snapshot);
            if inverse { b.inverse() } else { b }.build()
        };
        let first = restored.g();
        assert!(if inverse { first < last } else { first > last });

        // The horizon form: not before the last id's time (forward), or
        // its mirror for the inverse clock.
        let horizon = if inverse {
            u64::MAX - last.time()
        } else {
            last.time()
        };
        let guarded = {
            let b = Clock::builder()
                .node(old.node())
                .time(time.clone())
                .not_before(UNIX_EPOCH + Duration::from_nanos(horizon))
                .unwrap();
            if inverse { b.inverse() } else { b }.build()
        };
        let g = guarded.g();
        assert!(
            if inverse { g < last } else { g > last },
            "{g:?} vs {last:?}"
        );
        issued.push(first);
        issued.push(g);
        assert_eq!(duplicates(issued.iter().map(|g| g.to_u128())), 0);
    }
}

/// Ids from the wall clock carry the time they were made, to the tick.
#[test]
fn wall_clock_ids_carry_the_current_time() {
    let clock = Clock::builder().node(1).drift(Drift::MAX).build();
    let before = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let id = clock.g();
    let after = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    assert!(
        id.time() >= before >> 17 << 17 && id.time() <= after,
        "{id:?}"
    );
    assert_eq!((id.node(), id.drift()), (1, Drift::MAX));
    assert_eq!(guid::g(&guid::CLOCK).node(), u64::from(guid::CLOCK.node()));
    assert!(
        guid::l(&guid::CLOCK)
            > Luid::from_time(UNIX_EPOCH + Duration::from_nanos(before), Drift::DEFAULT)
    );
}

/// The inverse clock counts down: newest first.
#[test]
fn inverse_ids_decrease_with_time() {
    let time = MockTime::new(T0);
    let clock = mock_clock(&time, true);
    let a = clock.g();
    time.advance(SEC);
    let b = clock.g();
    assert!(b < a);
    assert_eq!(a.time(), (u64::MAX - T0) >> 17 << 17);
}

/// Steps back, borrowed ticks and the lead are counted, once per event.
#[test]
fn health_counts_steps_back_and_borrowed_ticks() {
    for inverse in [false, true] {
        let time = MockTime::new(T0);
        let clock = mock_clock(&time, inverse);
        clock.g();
        assert_eq!(clock.health(), guid::Health::default());

        time.step_back(SEC);
        for _ in 0..1000 {
            clock.g();
        }
        let h = clock.health();
        assert_eq!(h.steps_back, 1, "one step, however many ids follow");
        let tick = Duration::from_nanos(TICK);
        assert!(
            h.max_step_back >= Duration::from_nanos(SEC) - tick
                && h.max_step_back <= Duration::from_nanos(SEC) + tick
        );
        assert_eq!(h.borrowed, 0);
        assert!(h.max_lead >= Duration::from_nanos(SEC) - tick, "{h:?}");

        // A frozen source past the old time: 50,000 ids borrow 3 ticks.
        let fresh = MockTime::new(T0);
        let clock = mock_clock(&fresh, inverse);
        for _ in 0..50_000 {
            clock.g();
        }
        let h = clock.health();
        assert_eq!(
            (h.steps_back, h.borrowed, h.waits),
            (0, 3, 0),
            "inverse {inverse}"
        );
        assert_eq!(h.max_lead, tick * 3);
    }
}

/// A thread that read the source, then waited (preempted) while other
/// threads' ids moved on, finds ids their readings put there: no lead, no
/// borrowed tick. A source that is behind for good is a lead.
#[test]
fn health_counts_no_lead_for_a_reading_taken_before_a_wait() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    for inverse in [false, true] {
        let (real, stale) = (Arc::new(AtomicU64::new(T0)), Arc::new(AtomicU64::new(0)));
        let (r, st) = (Arc::clone(&real), Arc::clone(&stale));
        // The next reading is `stale` once, when set: a reading taken
        // before a wait, returned after it.
        let source = move || match st.swap(0, Relaxed) {
            0 => r.load(Relaxed),
            old => old,
        };
        let b = Clock::builder().node(1).time(source);
        let clock = if inverse { b.inverse() } else { b }.build();
        clock.g();
        real.store(T0 + 20 * MS, Relaxed);
        clock.g();
        stale.store(T0, Relaxed);
        clock.g();
        let h = clock.health();
        assert_eq!(
            (h.borrowed, h.max_lead),
            (0, Duration::ZERO),
            "inverse {inverse}: {h:?}"
        );
        // Behind for good: the ids' lead over the source is recorded.
        real.store(T0, Relaxed);
        clock.g();
        let h = clock.health();
        let tick = Duration::from_nanos(TICK);
        assert!(h.max_lead >= Duration::from_nanos(20 * MS) - tick, "{h:?}");
    }
}

/// The coarse source keeps every guarantee: many threads, no duplicate,
/// each thread strictly increasing, and ids within the documented lag
/// (`CoarseClock::MAX_LAG` resolutions) of the wall clock.
#[cfg(target_os = "linux")]
#[test]
fn the_coarse_clock_keeps_the_guarantees() {
    let clock = Clock::builder().coarse().build();
    let resolution = guid::CoarseClock::resolution();
    assert!(
        resolution > Duration::ZERO && resolution <= Duration::from_millis(10),
        "{resolution:?}"
    );
    let start = SystemTime::now();
    let per_thread: Vec<Vec<Guid>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| (0..100_000).map(|_| clock.g()).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ids in &per_thread {
        assert_strict(ids, false);
    }
    assert_eq!(
        duplicates(per_thread.iter().flatten().map(|g| g.to_u128())),
        0
    );
    let first = per_thread.iter().map(|ids| ids[0]).min().unwrap();
    // The first id's time was read after `start`: it trails it by at most
    // the coarse clock's lag, plus the tick it is truncated to.
    let lag = start.duration_since(first.epoch()).unwrap_or_default();
    let bound = resolution * guid::CoarseClock::MAX_LAG + Duration::from_nanos(TICK);
    assert!(
        lag <= bound,
        "first id {lag:?} before the start (bound {bound:?})"
    );
}

/// At the end of the 47-bit tick range (a source at `u64::MAX`, past the
/// year 2554) the clock issues what is left and then refuses with a panic:
/// it never wraps to 1970 or repeats its last tick, in either direction.
#[test]
fn the_clock_refuses_rather_than_wrap_at_the_end_of_the_range() {
    for inverse in [false, true] {
        let time = MockTime::new(u64::MAX);
        let clock = mock_clock(&time, inverse);
        let ids: Vec<Guid> = (0..16_384).map(|_| clock.g()).collect();
        assert_strict(&ids, inverse);
        let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| clock.g()));
        assert!(end.is_err(), "inverse {inverse}: no id after the range");
        let mut batch = [Guid::default(); 2];
        let fill =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| clock.fill(&mut batch)));
        assert!(fill.is_err(), "inverse {inverse}: no batch after the range");
        assert_eq!(batch, [Guid::default(); 2]);
    }
}

/// The `try_` forms return [`guid::ErrorKind::UsedUp`] where the others
/// panic, issue nothing and leave a batch untouched, in either direction;
/// a reserved handle and the clock as an `IdClock` too. What is left is
/// still issued after a refused batch.
#[test]
fn the_try_forms_return_used_up_at_the_end_of_the_range() {
    use guid::{ErrorKind, IdClock};
    for inverse in [false, true] {
        let time = MockTime::new(u64::MAX);
        let clock = mock_clock(&time, inverse);
        let mut ids = vec![Guid::default(); 16_382];
        clock.try_fill(&mut ids).unwrap();
        let mut three = [Guid::default(); 3];
        let e = clock.try_fill(&mut three).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UsedUp, "{e}");
        assert_eq!(three, [Guid::default(); 3], "untouched");
        let mut locals = [Luid::default(); 3];
        assert_eq!(
            clock.try_fill_l(&mut locals).unwrap_err().kind(),
            ErrorKind::UsedUp
        );
        assert_eq!(locals, [Luid::default(); 3]);
        assert_eq!(
            IdClock::fill(&clock, &mut three).unwrap_err().kind(),
            ErrorKind::UsedUp
        );
        ids.push(clock.try_g().unwrap());
        assert_strict(&ids, inverse);
        let (before, last) = (ids[ids.len() - 1].to_l64(), clock.try_l().unwrap());
        assert!(if inverse {
            last < before
        } else {
            last > before
        });
        assert_eq!(clock.try_g().unwrap_err().kind(), ErrorKind::UsedUp);
        assert_eq!(clock.try_l().unwrap_err().kind(), ErrorKind::UsedUp);
        assert_eq!(IdClock::next(&clock).unwrap_err().kind(), ErrorKind::UsedUp);
        assert_eq!(
            clock.try_fill(&mut []),
            Ok(()),
            "an empty batch needs no room"
        );
        let reserved = clock.reserved(64);
        assert_eq!(reserved.try_g().unwrap_err().kind(), ErrorKind::UsedUp);
        assert_eq!(reserved.try_l().unwrap_err().kind(), ErrorKind::UsedUp);
        let msg = e.to_string();
        assert!(msg.contains("used up its 47-bit tick range"), "{msg}");
    }
}

/// A batch that would run past the end is refused whole, not wrapped.
#[test]
fn a_batch_past_the_end_of_the_range_is_refused() {
    let time = MockTime::new(u64::MAX);
    let clock = mock_clock(&time, false);
    let mut ids = vec![Guid::default(); 16_383];
    clock.fill(&mut ids);
    let mut two = [Guid::default(); 2];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| clock.fill(&mut two)));
    assert!(r.is_err());
    let last = clock.g(); // the one state left
    assert!(last > ids[16_382]);
    assert_eq!(last.seq(), 16_383);
}

/// Starts past the range are typed errors at the builder, not ids of 1970:
/// a not-before time in the last tick or later, a state past `2^61 - 1`.
#[test]
fn starts_past_the_range_are_rejected() {
    let past = UNIX_EPOCH + Duration::from_nanos(u64::MAX);
    let err = Clock::builder().not_before(past).unwrap_err();
    assert!(matches!(err.kind(), guid::ErrorKind::Range { .. }), "{err}");
    let last_tick = UNIX_EPOCH + Duration::from_nanos(((1 << 47) - 1) << 17);
    assert!(Clock::builder().not_before(last_tick).is_err());
    // The tick before the last still leaves the last tick's ids.
    let before_last = UNIX_EPOCH + Duration::from_nanos(((1 << 47) - 2) << 17);
    let time = MockTime::new(0);
    let clock = Clock::builder()
        .time(time)
        .not_before(before_last)
        .unwrap()
        .build();
    assert_eq!(
        clock.g().to_l64().to_u64() >> 14 & ((1 << 47) - 1),
        (1 << 47) - 1
    );

    for state in [1u64 << 61, u64::MAX] {
        let err = Snapshot::try_from(state).unwrap_err();
        assert!(matches!(err.kind(), guid::ErrorKind::Range { .. }), "{err}");
    }
    // A fresh inverse clock's snapshot restores.
    let fresh = Clock::builder().inverse().build().snapshot();
    assert!(Snapshot::try_from(u64::from(fresh)).is_ok());
}

/// `Guid::now()` and `Luid::now()` come from the default clock: strictly
/// after what it made before.
#[test]
fn now_uses_the_default_clock() {
    let before = guid::CLOCK.g();
    let g = Guid::now();
    assert!(g > before && g.node() == u64::from(guid::CLOCK.node()));
    let l = Luid::now();
    assert!(l > g.to_l64());
}

/// The builder's time source is the one chosen, named in `Debug`: the wall
/// clock by default, the coarse clock by `coarse()`, anything else custom.
#[test]
fn the_time_source_is_chosen_explicitly() {
    let source = |clock: &Clock| {
        let debug = format!("{clock:?}");
        let at = debug.find("source: ").expect("source field") + 8;
        debug[at..].split(',').next().unwrap().to_owned()
    };
    assert_eq!(source(&Clock::builder().build()), "wall");
    assert_eq!(
        source(&Clock::builder().time(MockTime::new(1)).wall().build()),
        "wall"
    );
    #[cfg(target_os = "linux")]
    assert_eq!(source(&Clock::builder().coarse().build()), "coarse");
    assert_eq!(
        source(&Clock::builder().time(guid::WallClock).build()),
        "custom"
    );
    let flake = guid::flake::Clock::builder(guid::flake::Layout::NOEQD)
        .time(MockTime::new(1 << 60))
        .build()
        .unwrap();
    assert!(format!("{flake:?}").contains("source: custom"));
}

/// A batch is the ids its clock would issue one by one, for every drift,
/// forward and inverse, whether or not its states cross the edge of a
/// drift window (where the tick's low bits wrap under the node).
#[test]
fn a_batch_equals_the_ids_issued_one_by_one_across_window_edges() {
    for code in 1..=7u8 {
        let drift = Drift::try_from(code).unwrap();
        // Bits of the tick below the node.
        let window = (drift.window().as_nanos() as u64 / TICK).trailing_zeros();
        for inverse in [false, true] {
            // The last tick of a window forward, the first one inverse (its
            // mirror), and a tick inside one.
            let edge = ((T0 / TICK) >> window << window) + (1 << window);
            let ticks = [edge - 1, edge, edge + 5];
            for tick in ticks {
                let time = MockTime::new(tick * TICK);
                let build = || {
                    let b = Clock::builder()
                        .node(0x0a0b_0c0d)
                        .drift(drift)
                        .time(time.clone());
                    if inverse { b.inverse() } else { b }.build()
                };
                let (batched, single) = (build(), build());
                let mut batch = vec![Guid::default(); 20_000];
                batched.fill(&mut batch);
                let one_by_one: Vec<Guid> = (0..batch.len()).map(|_| single.g()).collect();
                assert_eq!(
                    batch, one_by_one,
                    "drift {code}, inverse {inverse}, tick {tick}"
                );
            }
        }
    }
}
