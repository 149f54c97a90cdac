//! Encoding and decoding: this crate's forms of both ids (sortable string,
//! base62, bytes, JSON) and the peers' canonical strings, in one run.
//!
//! Encoders write into a stack buffer, as a caller on a hot path would; JSON
//! encodes into a reused `Vec`, cleared each time.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use guid::{Clock, Guid, Luid};

fn global(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");
    let id = Clock::builder().node(0x5305_1caf).build().g();
    let string = id.to_string();
    let base62 = id.to_base62();
    let bytes = id.to_bytes();

    let mut buf = [0; Guid::STRING_LEN];
    group.bench_function("guid_string_encode", |b| {
        b.iter(|| black_box(black_box(id).encode(&mut buf)).len())
    });
    group.bench_function("guid_string_decode", |b| {
        b.iter(|| black_box(string.as_str()).parse::<Guid>())
    });
    let mut buf = [0; Guid::BASE62_LEN];
    group.bench_function("guid_base62_encode", |b| {
        b.iter(|| black_box(black_box(id).encode_base62(&mut buf)).len())
    });
    group.bench_function("guid_base62_decode", |b| {
        b.iter(|| Guid::from_base62(black_box(base62.as_str())))
    });
    group.bench_function("guid_bytes_encode", |b| b.iter(|| black_box(id).to_bytes()));
    group.bench_function("guid_bytes_decode", |b| {
        b.iter(|| Guid::from_bytes(black_box(bytes)))
    });
    #[cfg(feature = "serde")]
    json(&mut group, id);
    group.finish();
}

fn local(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");
    let id = Clock::new().l();
    let string = id.to_string();
    let base62 = id.to_base62();
    let bytes = id.to_bytes();

    let mut buf = [0; Luid::STRING_LEN];
    group.bench_function("local_string_encode", |b| {
        b.iter(|| black_box(black_box(id).encode(&mut buf)).len())
    });
    group.bench_function("local_string_decode", |b| {
        b.iter(|| black_box(string.as_str()).parse::<Luid>())
    });
    let mut buf = [0; Luid::BASE62_LEN];
    group.bench_function("local_base62_encode", |b| {
        b.iter(|| black_box(black_box(id).encode_base62(&mut buf)).len())
    });
    group.bench_function("local_base62_decode", |b| {
        b.iter(|| Luid::from_base62(black_box(base62.as_str())))
    });
    group.bench_function("local_bytes_encode", |b| {
        b.iter(|| black_box(id).to_bytes())
    });
    group.bench_function("local_bytes_decode", |b| {
        b.iter(|| Luid::from_bytes(black_box(bytes)))
    });
    #[cfg(feature = "serde")]
    json(&mut group, id);
    group.finish();
}

/// `<prefix>_json_encode` into a reused buffer and `<prefix>_json_decode`
/// from a borrowed string, with serde_json.
#[cfg(feature = "serde")]
fn json<T>(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, id: T)
where
    T: Json + serde::Serialize + serde::de::DeserializeOwned,
{
    let text = serde_json::to_string(&id).expect("an id serializes");
    let mut out = Vec::with_capacity(64);
    group.bench_function(format!("{}_json_encode", T::PREFIX), |b| {
        b.iter(|| {
            out.clear();
            serde_json::to_writer(&mut out, black_box(&id)).map(|()| out.len())
        })
    });
    group.bench_function(format!("{}_json_decode", T::PREFIX), |b| {
        b.iter(|| serde_json::from_str::<T>(black_box(text.as_str())).is_ok())
    });
}

/// The name prefix of an id type's benchmarks.
#[cfg(feature = "serde")]
trait Json {
    const PREFIX: &'static str;
}

#[cfg(feature = "serde")]
impl Json for Guid {
    const PREFIX: &'static str = "guid";
}

#[cfg(feature = "serde")]
impl Json for Luid {
    const PREFIX: &'static str = "local";
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
    targets = global, local, peers
}
criterion_main!(benches);
