//! Encoding and decoding: this crate's forms of every id of both
//! generations (sortable or UUID string, base62, bytes, JSON) and the
//! peers' canonical strings, in one run.
//!
//! Encoders write into a stack buffer, as a caller on a hot path would; JSON
//! encodes into a reused `Vec`, cleared each time.

use guid::Id;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use guid::{Clock, Guid, Luid, v3};

/// `<prefix>_{string,base62,bytes}_{encode,decode}` (and JSON with the
/// feature `serde`) of one id, for every id type of both generations.
macro_rules! codec {
    ($group:expr, $prefix:literal, $ty:ty, $id:expr) => {{
        let group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime> = $group;
        let id: $ty = $id;
        let string = id.to_string();
        let base62 = id.to_base62();
        let bytes = id.to_bytes();
        let mut buf = [0; <$ty>::STRING_LEN];
        group.bench_function(concat!($prefix, "_string_encode"), |b| {
            b.iter(|| black_box(black_box(id).encode(&mut buf)).len())
        });
        group.bench_function(concat!($prefix, "_string_decode"), |b| {
            b.iter(|| black_box(string.as_str()).parse::<$ty>())
        });
        let mut buf = [0; <$ty>::BASE62_LEN];
        group.bench_function(concat!($prefix, "_base62_encode"), |b| {
            b.iter(|| black_box(black_box(id).encode_base62(&mut buf)).len())
        });
        group.bench_function(concat!($prefix, "_base62_decode"), |b| {
            b.iter(|| <$ty>::from_base62(black_box(base62.as_str())))
        });
        group.bench_function(concat!($prefix, "_bytes_encode"), |b| {
            b.iter(|| black_box(id).to_bytes())
        });
        group.bench_function(concat!($prefix, "_bytes_decode"), |b| {
            b.iter(|| <$ty>::from_bytes(black_box(bytes)))
        });
        #[cfg(feature = "serde")]
        json(group, $prefix, id);
    }};
}

fn global(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");
    let id = Clock::builder().node(0x5305_1caf).build().g();
    codec!(&mut group, "guid", Guid, id);
    codec!(&mut group, "local", Luid, id.to_l64());
    group.finish();
}

/// v3's ids: the same forms (base62 zero-padded), and the 128-bit id's
/// UUID string beside `uuid`'s in the peers below.
fn v3(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");
    let clock = v3::Clock::builder()
        .node(0x84_ea14_5305_1caf)
        .unwrap()
        .build();
    codec!(&mut group, "v3_guid", v3::Guid, clock.g());
    codec!(&mut group, "v3_local", v3::Luid, clock.l());
    codec!(&mut group, "v3_x", v3::Xuid, clock.x());
    group.finish();
}

/// `<prefix>_json_encode` into a reused buffer and `<prefix>_json_decode`
/// from a borrowed string, with serde_json.
#[cfg(feature = "serde")]
fn json<T>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    prefix: &str,
    id: T,
) where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let text = serde_json::to_string(&id).expect("an id serializes");
    let mut out = Vec::with_capacity(64);
    group.bench_function(format!("{prefix}_json_encode"), |b| {
        b.iter(|| {
            out.clear();
            serde_json::to_writer(&mut out, black_box(&id)).map(|()| out.len())
        })
    });
    group.bench_function(format!("{prefix}_json_decode"), |b| {
        b.iter(|| serde_json::from_str::<T>(black_box(text.as_str())).is_ok())
    });
}

/// The peers' canonical strings: hyphenated UUID, Crockford base32 ULID,
/// base36 SCRU128.
fn peers(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");

    let id = uuid::Uuid::now_v7();
    let string = id.to_string();
    let mut buf = [0; uuid::fmt::Hyphenated::LENGTH];
    group.bench_function("uuid_string_encode", |b| {
        b.iter(|| black_box(black_box(id).hyphenated().encode_lower(&mut buf)).len())
    });
    group.bench_function("uuid_string_decode", |b| {
        b.iter(|| uuid::Uuid::try_parse(black_box(string.as_str())))
    });

    let id = ulid::Ulid::generate();
    let string = id.to_string();
    let mut buf = [0; ulid::ULID_LEN];
    group.bench_function("ulid_string_encode", |b| {
        b.iter(|| black_box(black_box(id).array_to_str(&mut buf)).len())
    });
    group.bench_function("ulid_string_decode", |b| {
        b.iter(|| ulid::Ulid::from_string(black_box(string.as_str())))
    });

    let id = scru128::new();
    let string = id.to_string();
    group.bench_function("scru128_string_encode", |b| {
        b.iter(|| black_box(id).encode())
    });
    group.bench_function("scru128_string_decode", |b| {
        b.iter(|| scru128::Id::try_from_str(black_box(string.as_str())))
    });

    group.finish();
}

criterion_group! {
    name = benches;
    // Short runs: the whole `cargo bench` stays near five minutes on 2 cores.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = global, v3, peers
}
criterion_main!(benches);
