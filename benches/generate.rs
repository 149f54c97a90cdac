//! Id generation: this crate's clock, the floors it stands on (one read of
//! the wall clock, one atomic read-modify-write) and the peers' generators,
//! side by side in one run.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guid::{CLOCK, Clock, Guid, flake, v3};

/// Ids per `guid_g_batch` call: the figure is per id.
const BATCH: usize = 1024;

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");

    // The floors: generation reads the wall clock once and installs its
    // state with one atomic read-modify-write.
    group.bench_function("floor_system_time", |b| {
        b.iter(|| {
            let d = SystemTime::now().duration_since(UNIX_EPOCH);
            black_box(d.map_or(0, |d| d.as_nanos() as u64))
        })
    });
    let counter = AtomicU64::new(0);
    group.bench_function("floor_atomic", |b| {
        b.iter(|| black_box(&counter).fetch_add(1, Relaxed))
    });

    // The process clock is made on first use: make it before measuring.
    black_box(guid::g(&CLOCK));
    group.bench_function("guid_g", |b| b.iter(|| guid::g(black_box(&CLOCK))));
    group.bench_function("guid_l", |b| b.iter(|| guid::l(black_box(&CLOCK))));
    let inverse = Clock::builder().inverse().build();
    group.bench_function("guid_g_inverse", |b| b.iter(|| black_box(&inverse).g()));
    #[cfg(target_os = "linux")]
    fast_time(&mut group);

    // v3's ids from its default clock: the same state machine.
    black_box(v3::g(&v3::CLOCK));
    group.bench_function("v3_g", |b| b.iter(|| v3::g(black_box(&v3::CLOCK))));
    group.bench_function("v3_l", |b| b.iter(|| v3::l(black_box(&v3::CLOCK))));
    group.bench_function("v3_x", |b| b.iter(|| v3::x(black_box(&v3::CLOCK))));

    // The flake clock on a layout whose sequence (2^23 ids a millisecond,
    // from an epoch of 2023) does not run out here: the path of an id, not
    // its waits.
    let flake = flake::Clock::builder(wide_layout())
        .node(1)
        .build()
        .expect("node 1 fits");
    group.bench_function("flake_next", |b| b.iter(|| black_box(&flake).next()));

    group.throughput(Throughput::Elements(BATCH as u64));
    let mut batch = [Guid::default(); BATCH];
    group.bench_function("guid_g_batch", |b| {
        b.iter(|| {
            CLOCK.fill(black_box(&mut batch));
            black_box(&batch);
        })
    });
    let mut batch = [v3::Xuid::default(); BATCH];
    group.bench_function("v3_x_batch", |b| {
        b.iter(|| {
            v3::CLOCK.fill_x(black_box(&mut batch));
            black_box(&batch);
        })
    });
    let mut batch = [0u64; BATCH];
    group.bench_function("flake_batch", |b| {
        b.iter(|| {
            black_box(&flake)
                .fill(black_box(&mut batch))
                .expect("not forked");
            black_box(&batch);
        })
    });
    group.throughput(Throughput::Elements(1));

    // Peers: the time-based generators, then random UUIDs as the reference
    // of an id that reads no clock.
    group.bench_function("uuid_v7", |b| b.iter(uuid::Uuid::now_v7));
    group.bench_function("uuid_v4", |b| b.iter(uuid::Uuid::new_v4));
    group.bench_function("ulid", |b| b.iter(ulid::Ulid::generate));
    let mut monotonic = ulid::Generator::new();
    group.bench_function("ulid_monotonic", |b| {
        b.iter(|| monotonic.generate().map_err(|_| "overflow"))
    });
    group.bench_function("scru128", |b| b.iter(scru128::new));
    ferroid(&mut group);
    group.bench_function("xid", |b| b.iter(xid::new));

    group.finish();
}

/// A layout whose sequence (2^23 ids a millisecond, from an epoch of
/// 2023) does not run out here.
fn wide_layout() -> flake::Layout {
    flake::Layout::new(39, 1, 23)
        .expect("39 + 1 + 23 = 63")
        .with_epoch_ms(1_700_000_000_000)
}

/// A clock on the opt-in coarse time source.
#[cfg(target_os = "linux")]
fn fast_time(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let fast: Clock = Clock::builder().coarse().build();
    group.bench_function("guid_g_fast", |b| b.iter(|| black_box(&fast).g()));
    let ticked: Clock = Clock::builder().ticker().build();
    group.bench_function("guid_g_ticker", |b| b.iter(|| black_box(&ticked).g()));
    let reserved = ticked.reserved(256);
    group.bench_function("guid_g_reserved_ticker", |b| {
        b.iter(|| black_box(&reserved).g())
    });
    // Through a thread-local, as a handle per thread is kept.
    thread_local! {
        static RESERVED: guid::Reserved<'static> = TICKED.reserved(256);
    }
    group.bench_function("guid_g_reserved_thread_local", |b| {
        b.iter(|| RESERVED.with(|ids| ids.g()))
    });
    let flake = flake::Clock::builder(wide_layout())
        .node(1)
        .ticker()
        .build()
        .expect("node 1 fits");
    group.bench_function("flake_next_ticker", |b| b.iter(|| black_box(&flake).next()));
}

/// A process-wide clock on the ticker, for thread-local handles.
#[cfg(target_os = "linux")]
static TICKED: std::sync::LazyLock<Clock> =
    std::sync::LazyLock::new(|| Clock::builder().ticker().build());

/// ferroid 2: its thread-local ULIDs, monotonic per thread, and its
/// lock-free snowflake generator, each on ferroid's own clock (a thread
/// that stores the milliseconds since start in an atomic).
fn ferroid(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    use ferroid::generator::thread_local::Ulid;
    use ferroid::generator::{AtomicSnowflakeGenerator, BasicMonoUlidGenerator};
    use ferroid::id::{SnowflakeMastodonId, SnowflakeTwitterId, ULID};
    use ferroid::rand::ThreadRandom;
    use ferroid::time::{MonotonicClock, TWITTER_EPOCH};

    black_box(Ulid::new_ulid_mono(|_| std::thread::yield_now()));
    group.bench_function("ferroid_ulid_mono_thread_local", |b| {
        b.iter(|| Ulid::new_ulid_mono(|_| std::thread::yield_now()))
    });
    group.bench_function("ferroid_ulid_thread_local", |b| b.iter(Ulid::new_ulid));
    let basic: BasicMonoUlidGenerator<ULID, _, _> =
        BasicMonoUlidGenerator::new(MonotonicClock::default(), ThreadRandom);
    group.bench_function("ferroid_ulid_mono_basic", |b| {
        b.iter(|| basic.next_id(|_| std::thread::yield_now()))
    });
    let twitter: AtomicSnowflakeGenerator<SnowflakeTwitterId, _> =
        AtomicSnowflakeGenerator::new(1, MonotonicClock::<1>::with_epoch(TWITTER_EPOCH));
    group.bench_function("ferroid_snowflake_atomic_twitter", |b| {
        b.iter(|| twitter.next_id(|_| std::thread::yield_now()))
    });
    let wide: AtomicSnowflakeGenerator<SnowflakeMastodonId, _> =
        AtomicSnowflakeGenerator::new(0, MonotonicClock::default());
    group.bench_function("ferroid_snowflake_atomic_wide", |b| {
        b.iter(|| wide.next_id(|_| std::thread::yield_now()))
    });
}

criterion_group! {
    name = benches;
    // Short runs: the whole `cargo bench` stays near five minutes on 2 cores.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    targets = generate
}
criterion_main!(benches);
