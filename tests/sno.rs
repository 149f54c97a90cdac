//! `guid::sno`: every vector made by running the Go library muyo/sno
//! (codec, `NewWithTime`, and generators driven by a scripted clock, their
//! snapshots and generators restored from them) gives the same bytes here;
//! round trips, strict decoding, threads, and the cases where sno would
//! wait and this generator goes on.
#![cfg(all(feature = "std", feature = "serde"))]

use std::collections::HashSet;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, UNIX_EPOCH};

use guid::sno::{EPOCH_NS, Generator, MAX_UNITS, Snapshot, Sno, UNIT_NS};
use guid::{ErrorKind, MockTime};
use proptest::prelude::*;
use serde_json::Value;

static VECTORS: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!("data/muyo-sno.json")).expect("vectors parse")
});

fn section(name: &str) -> &'static [Value] {
    VECTORS[name].as_array().expect(name)
}

fn u(v: &Value) -> u64 {
    v.as_u64().expect("an unsigned integer")
}

fn id_of(v: &Value) -> Sno {
    let hex = v["hex"].as_str().expect("hex");
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits"))
        .collect();
    Sno::from_slice(&bytes).expect("10 bytes")
}

/// Every form and part of the id `v` describes, both ways.
fn check_id(v: &Value) -> Sno {
    let id = id_of(v);
    let string = v["string"].as_str().expect("string");
    let json = v["json"].as_str().expect("json");
    assert_eq!(format!("{id:x}"), v["hex"].as_str().unwrap());
    assert_eq!(id.to_string(), string);
    assert_eq!(string.parse::<Sno>(), Ok(id));
    assert_eq!(serde_json::to_string(&id).unwrap(), json);
    assert_eq!(serde_json::from_str::<Sno>(json).unwrap(), id);
    let (ns, tick) = (u(&v["unix_ns"]), u(&v["tick"]) == 1);
    let (meta, partition, sequence) = (u(&v["meta"]), u(&v["partition"]), u(&v["sequence"]));
    assert_eq!(id.unix_ns(), ns);
    assert_eq!(id.time(), UNIX_EPOCH + Duration::from_nanos(ns));
    assert_eq!(id.units(), (ns - EPOCH_NS) / UNIT_NS);
    assert_eq!(id.tick(), tick);
    assert_eq!(u64::from(id.meta()), meta);
    assert_eq!(u64::from(id.partition()), partition);
    assert_eq!(u64::from(id.sequence()), sequence);
    assert_eq!(
        Sno::compose(ns, tick, meta as u8, partition as u16, sequence as u16),
        Ok(id)
    );
    assert_eq!(id.is_zero(), json == "null");
    id
}

#[test]
fn codec_vectors() {
    let cases = section("codec");
    assert_eq!(cases.len(), 2003);
    let ids: Vec<Sno> = cases.iter().map(check_id).collect();
    // Bytes and strings sort alike.
    let mut by_id = ids.clone();
    by_id.sort();
    let mut by_text: Vec<String> = ids.iter().map(Sno::to_string).collect();
    by_text.sort();
    assert_eq!(
        by_id.iter().map(Sno::to_string).collect::<Vec<_>>(),
        by_text
    );
}

/// A builder with a vector generator's partition and bounds.
fn builder(g: &Value) -> guid::sno::Builder {
    Generator::builder()
        .partition(u(&g["partition"]) as u16)
        .sequence_min(u(&g["sequence_min"]) as u16)
        .sequence_max(u(&g["sequence_max"]) as u16)
}

#[test]
fn new_with_time_vectors() {
    let gens = section("new_with_time");
    assert_eq!(gens.len(), 40);
    let mut n = 0;
    for g in gens {
        let generator = builder(g).build().unwrap();
        for call in g["calls"].as_array().unwrap() {
            let t = UNIX_EPOCH + Duration::from_nanos(u(&call["unix_ns"]));
            let id = generator.next_with_time(u(&call["meta"]) as u8, t).unwrap();
            assert_eq!(id, check_id(&call["id"]), "{call}");
            n += 1;
        }
    }
    assert_eq!(n, 4000);
}

/// The Unix time of a vector's `units`, somewhere inside the unit.
fn at(units: u64, step: usize) -> u64 {
    EPOCH_NS + units * UNIT_NS + (step as u64 * 7919) % UNIT_NS
}

/// Drives `generator` through `steps`, each id compared with the vector's.
fn run(generator: &Generator, time: &MockTime, steps: &[Value]) {
    for (i, step) in steps.iter().enumerate() {
        time.set(at(u(&step["units"]), i));
        let id = generator.next(u(&step["meta"]) as u8);
        assert_eq!(id, check_id(&step["id"]), "step {i}: {step}");
    }
}

#[test]
fn generator_vectors() {
    let gens = section("generator");
    assert_eq!(gens.len(), 60);
    let (mut steps, mut resumed) = (0, 0);
    for g in gens {
        let time = MockTime::new(0);
        let generator = builder(g).time(time.clone()).build().unwrap();
        let script = g["steps"].as_array().unwrap();
        run(&generator, &time, script);
        steps += script.len();

        // The snapshot, field by field, and as sno's JSON.
        let want = &g["snapshot_after"];
        let snap = generator.snapshot();
        let p = snap.partition.to_be_bytes();
        assert_eq!(want["partition"], serde_json::json!([p[0], p[1]]));
        assert_eq!(u(&want["sequenceMin"]), u64::from(snap.sequence_min));
        assert_eq!(u(&want["sequenceMax"]), u64::from(snap.sequence_max));
        assert_eq!(u(&want["sequence"]), u64::from(snap.sequence));
        assert_eq!(want["now"].as_i64(), Some(snap.now));
        assert_eq!(want["wallHi"].as_i64(), Some(snap.wall_hi));
        assert_eq!(want["wallSafe"].as_i64(), Some(snap.wall_safe));
        assert_eq!(u(&want["drifts"]), u64::from(snap.drifts));
        assert_eq!(&serde_json::to_value(snap).unwrap(), want);
        let theirs: Snapshot = serde_json::from_value(want.clone()).unwrap();
        assert_eq!(theirs, snap);

        // A generator restored from sno's snapshot goes on as sno's did.
        let time = MockTime::new(at(theirs.now as u64, 0));
        let restored = Generator::builder()
            .restore(theirs)
            .time(time.clone())
            .build()
            .unwrap();
        let script = g["resumed_from_snapshot"].as_array().unwrap();
        run(&restored, &time, script);
        resumed += script.len();
    }
    assert_eq!((steps, resumed), (18_000, 3_000));
}

#[test]
fn zero_is_null_in_json() {
    assert_eq!(serde_json::to_string(&Sno::ZERO).unwrap(), "null");
    assert_eq!(serde_json::from_str::<Sno>("null").unwrap(), Sno::ZERO);
    assert_eq!(
        serde_json::from_str::<Sno>("\"2222222222222222\"").unwrap(),
        Sno::ZERO
    );
    assert!(serde_json::from_str::<Sno>("\"\"").is_err());
    assert!(serde_json::from_str::<Sno>("12").is_err());
    // Compact formats carry the bytes, the zero id's too.
    let bytes = postcard::to_allocvec(&Sno::ZERO).unwrap();
    assert_eq!(postcard::from_bytes::<Sno>(&bytes).unwrap(), Sno::ZERO);
}

#[test]
fn strict_decoding() {
    let kind = |s: &[u8]| Sno::parse_bytes(s).unwrap_err().kind();
    assert_eq!(
        kind(b""),
        ErrorKind::Length {
            expected: 16,
            found: 0
        }
    );
    assert_eq!(
        kind(b"22222222222222222"),
        ErrorKind::Length {
            expected: 16,
            found: 17
        }
    );
    for (i, bad) in [b'0', b'1', b'y', b'z', b'A', b'X', b' ', b'-', 0xc3, 0]
        .into_iter()
        .enumerate()
    {
        let mut s = *b"2222222222222222";
        s[i] = bad;
        assert_eq!(
            kind(&s),
            ErrorKind::Char {
                byte: bad,
                index: i
            }
        );
    }
    assert_eq!(
        Sno::from_slice(&[0; 9]).unwrap_err().kind(),
        ErrorKind::Length {
            expected: 10,
            found: 9
        }
    );
    assert!(Sno::from_u128(1 << 80).is_err());
}

#[test]
fn parts_out_of_range() {
    let range = |r: guid::Result<Sno>| matches!(r.unwrap_err().kind(), ErrorKind::Range { .. });
    assert!(range(Sno::compose(EPOCH_NS - 1, false, 0, 0, 0)));
    assert!(range(Sno::compose(u64::MAX, false, 0, 0, 0)));
    assert!(Sno::from_units(MAX_UNITS + 1, false, 0, 0, 0).is_err());
    let generator = Generator::builder().partition(1).build().unwrap();
    let before = UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    assert!(range(generator.next_with_time(0, before)));
}

proptest! {
    #[test]
    fn bytes_and_string_round_trip(bytes in any::<[u8; 10]>()) {
        let id = Sno::from_bytes(bytes);
        prop_assert_eq!(id.to_bytes(), bytes);
        prop_assert_eq!(Sno::try_from(&bytes[..]), Ok(id));
        let text = id.to_string();
        prop_assert_eq!(text.len(), 16);
        prop_assert_eq!(text.parse::<Sno>(), Ok(id));
        prop_assert_eq!(Sno::from_u128(id.to_u128()), Ok(id));
        let json = serde_json::to_string(&id).unwrap();
        prop_assert_eq!(serde_json::from_str::<Sno>(&json).unwrap(), id);
    }

    #[test]
    fn parts_round_trip(units in 0..=MAX_UNITS, tick: bool, meta: u8, partition: u16, sequence: u16) {
        let id = Sno::from_units(units, tick, meta, partition, sequence).unwrap();
        prop_assert_eq!(
            (id.units(), id.tick(), id.meta(), id.partition(), id.sequence()),
            (units, tick, meta, partition, sequence)
        );
        prop_assert_eq!(Sno::compose(id.unix_ns(), tick, meta, partition, sequence), Ok(id));
    }

    #[test]
    fn order_is_byte_order_is_string_order(a in any::<[u8; 10]>(), b in any::<[u8; 10]>()) {
        let (x, y) = (Sno::from_bytes(a), Sno::from_bytes(b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        prop_assert_eq!(x.cmp(&y), x.to_string().cmp(&y.to_string()));
    }

    #[test]
    fn decoding_never_panics(s in proptest::collection::vec(any::<u8>(), 0..24)) {
        if let Ok(id) = Sno::parse_bytes(&s) {
            let text = id.to_string();
            prop_assert_eq!(text.as_bytes(), &s[..]);
        }
    }
}

#[test]
fn threads_never_repeat() {
    const THREADS: usize = 8;
    const PER: usize = 20_000;
    // A small pool, so that units run out and are borrowed.
    let generator = Arc::new(
        Generator::builder()
            .partition(3)
            .sequence_min(100)
            .sequence_max(1099)
            .build()
            .unwrap(),
    );
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let generator = Arc::clone(&generator);
            std::thread::spawn(move || (0..PER).map(|_| generator.next(5)).collect::<Vec<_>>())
        })
        .collect();
    let mut all = HashSet::new();
    for h in handles {
        let ids = h.join().unwrap();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "a thread's ids increase"
        );
        for id in ids {
            assert!((100..=1099).contains(&id.sequence()));
            assert!(all.insert(id), "repeated {id}");
        }
    }
    assert_eq!(all.len(), THREADS * PER);
}

/// A generator of the smallest pool (6 sequences a unit), partition 1, on
/// a mock clock at `t0`.
fn smallest_pool(t0: u64) -> (MockTime, Generator) {
    let time = MockTime::new(t0);
    let generator = Generator::builder()
        .partition(1)
        .sequence_min(0)
        .sequence_max(5)
        .time(time.clone())
        .build()
        .unwrap();
    (time, generator)
}

/// sno waits when a unit's sequence runs out; this generator borrows the
/// next unit at once and never repeats, whatever the clock does.
#[test]
fn overflow_and_steps_back_never_wait_nor_repeat() {
    let t0 = EPOCH_NS + 10_000 * UNIT_NS;
    let (time, generator) = smallest_pool(t0);
    let started = std::time::Instant::now();
    let mut seen = HashSet::new();
    let mut push = |id: Sno| assert!(seen.insert(id), "repeated {id}");
    // 60 ids in a stalled unit of 6: 10 units, borrowed.
    let first: Vec<Sno> = (0..60).map(|_| generator.next(0)).collect();
    assert!(first.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(first[59].units(), 10_009);
    first.iter().copied().for_each(&mut push);

    // A step back past the safe point (0): tick-tock.
    time.set(t0 - 50 * UNIT_NS);
    let flipped = generator.next(0);
    assert_eq!(
        (flipped.units(), flipped.tick(), flipped.sequence()),
        (9_950, true, 0)
    );
    assert_eq!(generator.drifts(), 1);
    push(flipped);
    assert_eq!(generator.snapshot().wall_safe, 10_009);

    // A second step back, not past the safe point: sno would sleep until
    // unit 10_010; here ids go on from the last one, borrowing.
    time.set(t0 - 100 * UNIT_NS);
    for _ in 0..20 {
        let id = generator.next(0);
        assert!(id.tick() && id.units() >= 9_950);
        push(id);
    }
    assert_eq!(generator.drifts(), 1);

    // Back past the safe point: the first timeline again.
    time.set(t0 + 20 * UNIT_NS);
    let later = generator.next(0);
    assert_eq!((later.units(), later.tick()), (10_020, true));
    time.set(t0 + 15 * UNIT_NS); // past 10_009 but behind 10_020: flips back
    let back = generator.next(0);
    assert_eq!((back.units(), back.tick()), (10_015, false));
    assert_eq!(generator.drifts(), 2);
    push(later);
    push(back);
    assert!(started.elapsed() < Duration::from_secs(5), "never slept");
}

/// The state records a lead of up to 255 units: ids lent further ahead
/// of a stalled clock still increase, and a clock behind them then is not
/// a step back.
#[test]
fn ids_lent_more_than_a_second_ahead_still_increase() {
    let t0 = EPOCH_NS + 10_000 * UNIT_NS;
    let (time, generator) = smallest_pool(t0);
    let mut last = generator.next(0);
    let mut next = |what: &str| {
        let id = generator.next(0);
        assert!(id > last, "{what}: {id:?} after {last:?}");
        last = id;
        id
    };
    // 600 units' worth of ids on a stalled clock: 2.4 s ahead.
    let far = (0..6 * 600).map(|_| next("a stalled clock")).last();
    assert_eq!(far.map(|id| id.units()), Some(10_600));
    // The clock moves on, still behind the ids: they go on from the last.
    time.advance(100 * UNIT_NS);
    for _ in 0..60 {
        next("a clock behind the ids");
    }
    // A step back while ids run that far ahead goes on from the last id.
    time.step_back(50 * UNIT_NS);
    for _ in 0..60 {
        assert!(!next("a step back behind the ids").tick());
    }
    assert_eq!(generator.drifts(), 0);
    // The clock within 255 units of the ids, then past them.
    time.set(t0 + 500 * UNIT_NS);
    next("a clock within the recorded lead");
    time.set(t0 + 700 * UNIT_NS);
    let caught_up = next("a clock past the ids");
    assert_eq!((caught_up.units(), caught_up.sequence()), (10_700, 0));
    assert_eq!(generator.drifts(), 0);
}

/// Two threads taking ids from one generator as fast as they can, with
/// the smallest pool on the wall clock and the default pool on a clock
/// 1,024 times slower (so that its ids run a second ahead within the run):
/// each thread's ids increase, however far ahead the ids run.
#[test]
fn ids_increase_at_full_speed() {
    const THREADS: usize = 2;
    let started = std::time::Instant::now();
    let slow = move || EPOCH_NS + 1_000_000 * UNIT_NS + started.elapsed().as_nanos() as u64 / 1024;
    let runs = [
        (
            Generator::builder().sequence_min(0).sequence_max(5).build(),
            2_000_000,
        ),
        (Generator::builder().time(slow).build(), 12_000_000),
    ];
    for (generator, per_thread) in runs {
        let generator = Arc::new(generator.unwrap());
        let threads: Vec<_> = (0..THREADS)
            .map(|_| {
                let generator = Arc::clone(&generator);
                std::thread::spawn(move || {
                    let mut last = generator.next(0);
                    for i in 1..per_thread {
                        let id = generator.next(0);
                        assert!(id > last, "id {i}: {id:?} after {last:?}");
                        last = id;
                    }
                    last
                })
            })
            .collect();
        let last = threads
            .into_iter()
            .map(|t| t.join().unwrap())
            .max()
            .unwrap();
        let lead = last.units().saturating_sub(generator.snapshot().now as u64);
        assert!(
            lead > 255,
            "the ids ran {lead} units ahead, not past the recorded lead"
        );
        assert_eq!(generator.drifts(), 0);
    }
}

/// What the docs of `next_with_time` say, as sno does: its ids are the
/// caller's to keep apart from `next`'s and from each other.
#[test]
fn next_with_time_ids_are_outside_the_promise() {
    let time = MockTime::new(EPOCH_NS + 1_000 * UNIT_NS);
    let generator = Generator::builder()
        .partition(7)
        .sequence_min(0)
        .sequence_max(5)
        .time(time.clone())
        .build()
        .unwrap();
    let a = generator.next(0);
    assert_eq!(generator.next_with_time(0, a.time()).unwrap(), a);
    // Its own sequence starts over after `capacity()` ids.
    let at = UNIX_EPOCH + Duration::from_nanos(EPOCH_NS + 5 * UNIT_NS);
    let ids: Vec<Sno> = (0..=generator.capacity())
        .map(|_| generator.next_with_time(0, at).unwrap())
        .collect();
    assert_eq!(ids[0], ids[generator.capacity() as usize]);
}

#[test]
fn snapshots_restore() {
    let time = MockTime::new(EPOCH_NS + 500 * UNIT_NS);
    let generator = Generator::builder()
        .partition(0x5850)
        .sequence_min(10)
        .sequence_max(20)
        .time(time.clone())
        .build()
        .unwrap();
    let ids: Vec<Sno> = (0..5).map(|_| generator.next(0)).collect();
    let snap = generator.snapshot();
    assert_eq!((snap.sequence, snap.wall_hi, snap.now), (14, 500, 500));
    let json = serde_json::to_string(&snap).unwrap();
    assert_eq!(
        json,
        r#"{"partition":[88,80],"sequenceMin":10,"sequenceMax":20,"sequence":14,"now":500,"wallHi":500,"wallSafe":0,"drifts":0}"#
    );
    let back: Snapshot = serde_json::from_str(&json).unwrap();
    let restored = Generator::builder()
        .restore(back)
        .time(time.clone())
        .build()
        .unwrap();
    let next = restored.next(0);
    assert!(next > ids[4]);
    assert_eq!(next.sequence(), 15);
    // sno's older snapshots, with fields it no longer has, and missing ones.
    let old: Snapshot =
        serde_json::from_str(r#"{"partition":[1,2],"monoHi":5,"monoOffset":7}"#).unwrap();
    assert_eq!(
        old,
        Snapshot {
            partition: 0x0102,
            ..Snapshot::default()
        }
    );
    // A restored snapshot that is not valid.
    let bad = Snapshot {
        wall_hi: -1,
        ..Snapshot::default()
    };
    assert!(Generator::builder().restore(bad).build().is_err());
}

#[test]
fn default_partitions_differ() {
    let a = Generator::builder().build().unwrap();
    let b = Generator::builder().build().unwrap();
    assert_ne!(a.partition(), b.partition());
}

/// The integrations every id type has, for a sno: its 10 bytes.
mod integrations {
    #[allow(unused_imports)]
    use super::*;

    #[cfg(feature = "borsh")]
    #[test]
    fn borsh_is_the_bytes() {
        let id = Sno::compose(1_700_000_000_000_000_000, true, 3, 0xabcd, 77).unwrap();
        let bytes = borsh::to_vec(&id).unwrap();
        assert_eq!(bytes, id.to_bytes());
        assert_eq!(borsh::from_slice::<Sno>(&bytes).unwrap(), id);
        let err = borsh::from_slice::<Sno>(&bytes[..9]).unwrap_err();
        assert_eq!(err.kind(), borsh::io::ErrorKind::UnexpectedEof);
    }

    #[cfg(feature = "bytemuck")]
    #[test]
    fn bytemuck_casts_any_bytes() {
        let ids = [Sno::MAX, Sno::ZERO];
        let bytes: &[u8] = bytemuck::cast_slice(&ids);
        assert_eq!(&bytes[..10], Sno::MAX.as_bytes());
        let back: Sno = bytemuck::cast([7u8; 10]);
        assert_eq!(back, Sno::from_bytes([7; 10]));
        assert_eq!(<Sno as bytemuck::Zeroable>::zeroed(), Sno::ZERO);
    }

    #[cfg(feature = "zerocopy")]
    #[test]
    fn zerocopy_reads_and_writes_the_bytes() {
        use zerocopy::{FromBytes, IntoBytes};
        let id = Sno::from_bytes(*b"0123456789");
        assert_eq!(id.as_bytes(), IntoBytes::as_bytes(&id));
        assert_eq!(Sno::read_from_bytes(b"0123456789"), Ok(id));
        let view = <[Sno]>::ref_from_bytes(&[1u8; 20]).unwrap();
        assert_eq!(view, [Sno::from_bytes([1; 10]); 2]);
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_takes_the_next_ten_bytes() {
        use arbitrary::{Arbitrary, Unstructured};
        let mut u = Unstructured::new(b"0123456789");
        assert_eq!(
            Sno::arbitrary(&mut u).unwrap(),
            Sno::from_bytes(*b"0123456789")
        );
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn schema_matches_what_serde_writes() {
        let schema = schemars::schema_for!(Sno);
        assert_eq!(
            schema.get("type"),
            Some(&serde_json::json!(["string", "null"]))
        );
        let pattern = schema.get("pattern").and_then(Value::as_str).unwrap();
        let re = regex::Regex::new(pattern).unwrap();
        for case in section("codec") {
            let id = id_of(case);
            match serde_json::to_value(id).unwrap() {
                Value::String(s) => assert!(re.is_match(&s), "{s}"),
                other => assert!(id.is_zero() && other.is_null()),
            }
        }
        assert!(!re.is_match("2222222222222222x"));
        assert!(!re.is_match("222222222222222y"));
    }

    #[cfg(feature = "rusqlite")]
    #[test]
    fn sqlite_blobs_sort_as_ids() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute("CREATE TABLE t (id BLOB PRIMARY KEY)", [])
            .unwrap();
        let mut ids: Vec<Sno> = section("codec").iter().take(200).map(id_of).collect();
        for id in &ids {
            db.execute("INSERT INTO t VALUES (?1)", [id]).unwrap();
        }
        let mut stmt = db.prepare("SELECT id FROM t ORDER BY id").unwrap();
        let read: Vec<Sno> = stmt
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        ids.sort();
        assert_eq!(read, ids);
        let short: rusqlite::Result<Sno> = db.query_row("SELECT x'0102'", [], |row| row.get(0));
        assert!(short.is_err());
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn postgres_bytea_is_the_bytes() {
        use postgres_types::{FromSql, ToSql, Type};
        let id = Sno::from_bytes(*b"abcdefghij");
        let mut buf = bytes::BytesMut::new();
        id.to_sql(&Type::BYTEA, &mut buf).unwrap();
        assert_eq!(&buf[..], id.as_bytes());
        assert_eq!(Sno::from_sql(&Type::BYTEA, &buf).unwrap(), id);
        assert!(Sno::from_sql(&Type::BYTEA, &buf[1..]).is_err());
        assert!(!<Sno as ToSql>::accepts(&Type::TEXT));
    }

    #[test]
    fn compact_formats_carry_the_bytes() {
        let id = Sno::from_bytes(*b"abcdefghij");
        let bytes = bincode::serialize(&id).unwrap();
        assert_eq!(bincode::deserialize::<Sno>(&bytes).unwrap(), id);
        let bytes = postcard::to_allocvec(&id).unwrap();
        assert_eq!(&bytes[1..], id.as_bytes());
    }
}
