//! The flake layout and clock: noeqd's formula, round trips, errors, and
//! the clock under a source that steps back, stalls and jumps.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::flake::{self, Clock, Layout, Parts, TWITTER_EPOCH_MS};
use guid::{ErrorKind, MockTime};
use proptest::prelude::*;

const MS: u64 = 1_000_000;

/// noeqd's formula, written out as noeqd's source does it.
fn noeqd(ms: u64, dc: u64, worker: u64, seq: u64) -> u64 {
    ((ms - 1_288_834_974_657) << 22) | (dc << 17) | (worker << 12) | seq
}

/// Composes the noeqd ids of known (time, datacenter, worker, seq) exactly
/// as noeqd's formula does.
#[test]
fn noeqd_formula_for_known_parts() {
    let cases = [
        (1_288_834_974_657, 0, 0, 0),
        (1_288_834_974_658, 0, 0, 1),
        (1_700_000_000_000, 3, 7, 5),
        (1_700_000_000_123, 31, 31, 4095),
        (1_288_834_974_657 + (1 << 41) - 1, 31, 31, 4095),
    ];
    for (ms, dc, worker, seq) in cases {
        let node = flake::noeqd_node(dc, worker).unwrap();
        let id = Layout::NOEQD
            .compose(ms - TWITTER_EPOCH_MS, node, seq)
            .unwrap();
        assert_eq!(id, noeqd(ms, dc, worker, seq), "{ms} {dc} {worker} {seq}");
        let parts = Layout::NOEQD.decompose(id).unwrap();
        assert_eq!(parts.node >> 5, dc);
        assert_eq!(parts.node & 31, worker);
        assert_eq!(
            Layout::NOEQD.time_of(id).unwrap(),
            UNIX_EPOCH + Duration::from_millis(ms)
        );
    }
    // The largest noeqd id is the largest positive i64.
    assert_eq!(
        noeqd(1_288_834_974_657 + (1 << 41) - 1, 31, 31, 4095),
        i64::MAX as u64
    );
}

/// A clock at a known time makes noeqd's ids for that time, sequence 0, 1, ...
#[test]
fn clock_makes_noeqd_ids() {
    let ms = 1_700_000_000_000;
    let time = MockTime::new(ms * MS);
    let node = flake::noeqd_node(2, 9).unwrap();
    let clock = Clock::builder(Layout::NOEQD)
        .node(node)
        .time(time.clone())
        .build()
        .unwrap();
    let mut ids = [0; 3];
    clock.fill(&mut ids).unwrap();
    assert_eq!(ids, [0, 1, 2].map(|seq| noeqd(ms, 2, 9, seq)));
    time.advance(MS);
    assert_eq!(clock.next().unwrap(), noeqd(ms + 1, 2, 9, 0));
}

/// The presets have the splits their sources describe.
#[test]
fn presets() {
    let bits = |l: Layout| (l.time_bits(), l.node_bits(), l.seq_bits());
    assert_eq!(bits(Layout::NOEQD), (41, 10, 12));
    assert_eq!(Layout::new(41, 10, 12).unwrap(), Layout::NOEQD);
    for n in 7..=13 {
        assert_eq!(bits(Layout::snowcast(n).unwrap()), (41, n, 22 - n));
    }
    let epoch = UNIX_EPOCH + Duration::from_secs(1_420_070_400);
    let redis = Layout::redis(epoch);
    assert_eq!(bits(redis), (41, 10, 12));
    assert_eq!(redis.epoch(), epoch);
    assert_eq!(redis.unit(), Duration::from_millis(1));
    // The snowcast README's example: 2014-03-03 05:12:12 since 2014-01-01, node 1234.
    let snowcast = Layout::snowcast(13)
        .unwrap()
        .with_epoch_ms(1_388_534_400_000);
    let at = UNIX_EPOCH + Duration::from_millis(1_393_823_532_000);
    let delta = snowcast.units(at);
    assert_eq!(delta, 5_289_132_000);
    let id = snowcast.compose(delta, 1234, 7).unwrap();
    assert_eq!(id, (5_289_132_000 << 22) | (1234 << 9) | 7);
}

/// Out-of-range parts and invalid splits are typed errors.
#[test]
fn errors() {
    let part = |name, value, max| ErrorKind::Part { name, value, max };
    let l = Layout::NOEQD;
    assert_eq!(
        l.compose(1 << 41, 0, 0).unwrap_err().kind(),
        part("time", 1 << 41, (1 << 41) - 1)
    );
    assert_eq!(
        l.compose(0, 1024, 0).unwrap_err().kind(),
        part("node", 1024, 1023)
    );
    assert_eq!(
        l.compose(0, 0, 4096).unwrap_err().kind(),
        part("seq", 4096, 4095)
    );
    assert_eq!(
        flake::noeqd_node(32, 0).unwrap_err().kind(),
        part("datacenter", 32, 31)
    );
    assert_eq!(
        flake::noeqd_node(0, 32).unwrap_err().kind(),
        part("worker", 32, 31)
    );
    assert_eq!(
        l.decompose(1 << 63).unwrap_err().kind(),
        ErrorKind::Overflow { bits: 63 }
    );
    for (t, n, s) in [
        (41, 10, 13),
        (41, 10, 11),
        (0, 51, 12),
        (51, 0, 12),
        (51, 12, 0),
        (63, 0, 0),
        (u32::MAX, 32, 32),
    ] {
        assert_eq!(
            Layout::new(t, n, s).unwrap_err().kind(),
            ErrorKind::Layout {
                time: t,
                node: n,
                seq: s
            }
        );
    }
    for n in [0, 6, 14, 22] {
        assert_eq!(
            Layout::snowcast(n).unwrap_err().kind(),
            ErrorKind::Range {
                name: "snowcast node bits",
                value: n as u64,
                min: 7,
                max: 13
            }
        );
    }
    assert!(matches!(
        l.with_unit(Duration::ZERO).unwrap_err().kind(),
        ErrorKind::Range {
            value: 0,
            min: 1,
            ..
        }
    ));
    let clock = Clock::builder(l).node(1024).build();
    assert_eq!(clock.unwrap_err().kind(), part("node", 1024, 1023));
    // The messages say what was wrong.
    assert_eq!(
        l.compose(0, 1024, 0).unwrap_err().to_string(),
        "node 1024 is out of range 0..=1023"
    );
}

fn layouts() -> impl Strategy<Value = Layout> {
    (1u32..=61, 0u32..=60).prop_flat_map(|(t, n)| {
        let n = 1 + n % (62 - t); // 1..=62-t, leaving seq >= 1
        let s = 63 - t - n;
        (
            Just(Layout::new(t, n, s).unwrap()),
            1u64..=1 << 40,
            0u64..=1 << 62,
        )
            .prop_map(|(l, unit, epoch)| {
                l.with_unit(Duration::from_nanos(unit))
                    .unwrap()
                    .with_epoch_ms(epoch >> 20)
            })
    })
}

proptest! {
    /// compose(decompose(x)) == x and back, for random layouts and parts.
    #[test]
    fn round_trip(layout in layouts(), time in any::<u64>(), node in any::<u64>(), seq in any::<u64>()) {
        let parts = Parts {
            time: time & layout.max_time(),
            node: node & layout.max_node(),
            seq: seq & layout.max_seq(),
        };
        let id = layout.compose_parts(parts).unwrap();
        prop_assert!(id >> 63 == 0);
        prop_assert_eq!(layout.decompose(id).unwrap(), parts);
        prop_assert_eq!(layout.compose_parts(layout.decompose(id).unwrap()).unwrap(), id);
        // Ids sort by time, then node, then seq.
        if parts.time < layout.max_time() {
            let later = layout.compose(parts.time + 1, 0, 0).unwrap();
            prop_assert!(later > id);
        }
    }

    /// Every 63-bit value decomposes and composes back to itself.
    #[test]
    fn every_id_decomposes(layout in layouts(), id in 0u64..=i64::MAX as u64) {
        let parts = layout.decompose(id).unwrap();
        prop_assert_eq!(layout.compose_parts(parts).unwrap(), id);
    }

    /// A part one past its field is rejected, naming the part.
    #[test]
    fn out_of_range_parts(layout in layouts()) {
        let name = |r: guid::Result<u64>| match r.map_err(|e| e.kind()) {
            Err(ErrorKind::Part { name, .. }) => name,
            _ => "accepted",
        };
        if let Some(t) = layout.max_time().checked_add(1) {
            prop_assert_eq!(name(layout.compose(t, 0, 0)), "time");
        }
        prop_assert_eq!(name(layout.compose(0, layout.max_node() + 1, 0)), "node");
        prop_assert_eq!(name(layout.compose(0, 0, layout.max_seq() + 1)), "seq");
    }
}

/// Drives a clock through steps back, stalls and jumps of a mock source:
/// every id is strictly greater than the one before.
#[test]
fn clock_under_a_wild_source() {
    let start = 1_700_000_000_000 * MS;
    let time = MockTime::new(start);
    let layout = Layout::new(45, 10, 8).unwrap();
    let clock = Clock::builder(layout)
        .node(77)
        .time(time.clone())
        .max_lead(Duration::from_secs(3600))
        .build()
        .unwrap();
    let mut last = 0;
    let mut seen = HashSet::new();
    let mut take = |clock: &Clock, n: usize| {
        for _ in 0..n {
            let id = clock.next().unwrap();
            assert!(id > last, "{id} after {last}");
            assert!(seen.insert(id));
            assert_eq!(layout.decompose(id).unwrap().node, 77);
            last = id;
        }
        last
    };
    take(&clock, 100);
    time.step_back(1_000 * MS); // back 1 s
    take(&clock, 1_000); // stalled and behind: sequence, then borrowed units
    time.advance(10 * MS); // still behind
    take(&clock, 1_000);
    time.set(start + 60_000 * MS); // jumps forward a minute
    let last = take(&clock, 10);
    let parts = layout.decompose(last).unwrap();
    assert_eq!(
        parts.time,
        layout.units(UNIX_EPOCH + Duration::from_nanos(start + 60_000 * MS))
    );
    time.step_back(30 * MS);
    take(&clock, 5_000); // stalled for 5,000 ids: 20 units borrowed
    let health = clock.health();
    assert_eq!(health.steps_back, 2);
    assert_eq!(health.max_step_back, Duration::from_secs(1));
    assert_eq!(health.waits, 0);
    assert!(health.borrowed >= 19, "{health:?}");
}

/// Restarting with `not_before(last_time())` continues past every earlier
/// id, even when the source went back while the clock was down.
#[test]
fn restart_after_last_time() {
    let time = MockTime::new(1_700_000_000_000 * MS);
    let build = |nb: Option<SystemTime>| {
        let b = Clock::builder(Layout::NOEQD).node(5).time(time.clone());
        match nb {
            Some(t) => b.not_before(t).unwrap(),
            None => b,
        }
        .build()
        .unwrap()
    };
    let first = build(None);
    let mut before = vec![0; 10_000];
    first.fill(&mut before).unwrap();
    let saved = first.last_time();
    drop(first);
    time.step_back(2_000 * MS);
    let second = build(Some(saved));
    let after = second.next().unwrap();
    assert!(after > *before.last().unwrap());
    assert_eq!(second.health().waits, 0);
}

/// Four threads share a clock on the wall clock: 800,000 ids, no two alike,
/// each thread's ids strictly increasing.
#[test]
fn four_threads_no_duplicates() {
    let clock = Arc::new(Clock::builder(Layout::NOEQD).node(3).build().unwrap());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let clock = Arc::clone(&clock);
            std::thread::spawn(move || {
                let ids: Vec<u64> = (0..200_000).map(|_| clock.next().unwrap()).collect();
                assert!(ids.windows(2).all(|w| w[0] < w[1]));
                ids
            })
        })
        .collect();
    assert_eq!(distinct(threads), 800_000);
}

/// Four threads on a stalled mock source: the clock borrows unit after unit
/// and never repeats.
#[test]
fn four_threads_on_a_stalled_source() {
    let time = MockTime::new(1_700_000_000_000 * MS);
    let clock = Arc::new(
        Clock::builder(Layout::NOEQD)
            .time(time.clone())
            .max_lead(Duration::from_secs(3600))
            .build()
            .unwrap(),
    );
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let clock = Arc::clone(&clock);
            let time = time.clone();
            std::thread::spawn(move || {
                let mut ids = vec![0; 200_000];
                for (k, chunk) in ids.chunks_mut(100).enumerate() {
                    clock.fill(chunk).unwrap();
                    if i == 0 && k % 100 == 0 {
                        time.step_back(MS); // one thread keeps moving the source back
                    }
                }
                assert!(ids.windows(2).all(|w| w[0] < w[1]));
                ids
            })
        })
        .collect();
    assert_eq!(distinct(threads), 800_000);
    assert!(clock.health().borrowed >= 190);
    assert!(clock.health().steps_back >= 1);
}

/// Joins the threads and counts their ids, failing on the first duplicate.
fn distinct(threads: Vec<std::thread::JoinHandle<Vec<u64>>>) -> usize {
    let mut all = HashSet::new();
    for t in threads {
        for id in t.join().unwrap() {
            assert!(all.insert(id), "duplicate {id}");
        }
    }
    all.len()
}

/// A not-before time in the layout's last unit or past it leaves no id to
/// issue: the builder refuses it instead of starting a clock that is used up.
#[test]
fn a_not_before_past_the_layout_is_refused() {
    let layout = Layout::new(8, 10, 45).unwrap().with_epoch(UNIX_EPOCH);
    let last = layout.time(layout.max_time());
    for t in [last, last + Duration::from_secs(3600)] {
        let err = Clock::builder(layout).not_before(t).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Range { .. }), "{err}");
    }
    let before_last = layout.time(layout.max_time() - 1);
    let time = MockTime::new(0);
    let clock = Clock::builder(layout)
        .time(time)
        .not_before(before_last)
        .and_then(guid::flake::Builder::build)
        .unwrap();
    assert_eq!(
        layout.decompose(clock.next().unwrap()).unwrap().time,
        layout.max_time()
    );
}
