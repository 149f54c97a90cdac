//! Generation under contention: the aggregate rate of 1, 2 and 4 threads
//! that share one clock, take ids through handles of their own, or own a
//! clock each, beside the peers' generators in the same run.
//!
//! Each figure is wall time per id over all threads (criterion's elements/s
//! is the aggregate ids/s): the threads start together at a barrier, and
//! the span runs from the first thread's start to the last one's end, as
//! the threads themselves read it (the spawning thread may not get a core
//! while they run).

use std::thread;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guid::Clock;

#[path = "support/threads.rs"]
mod threads;
use threads::run;

/// Each generator with 1, 2 and 4 threads.
fn contended(c: &mut Criterion) {
    use ferroid::generator::AtomicSnowflakeGenerator;
    use ferroid::generator::thread_local::Ulid;
    use ferroid::id::{SnowflakeMastodonId, SnowflakeTwitterId};
    use ferroid::time::{MonotonicClock, TWITTER_EPOCH};

    let mut group = c.benchmark_group("contended");
    group.throughput(Throughput::Elements(1));

    let shared = Clock::new();
    let ticked = Clock::builder().ticker().build();
    // Separate clocks, each on its own cache line: the scaling that sharing
    // one clock gives up.
    let own = [Clock::new(), Clock::new(), Clock::new(), Clock::new()];
    let twitter: AtomicSnowflakeGenerator<SnowflakeTwitterId, _> =
        AtomicSnowflakeGenerator::new(1, MonotonicClock::<1>::with_epoch(TWITTER_EPOCH));
    let wide: AtomicSnowflakeGenerator<SnowflakeMastodonId, _> =
        AtomicSnowflakeGenerator::new(0, MonotonicClock::default());

    for threads in [1, 2, 4] {
        let name = |what: &str| format!("{what}/{threads}_threads");
        group.bench_function(name("guid_shared_clock"), |b| {
            b.iter_custom(|ids| run(threads, ids, |_| || shared.l().to_u64()))
        });
        group.bench_function(name("guid_shared_clock_ticker"), |b| {
            b.iter_custom(|ids| run(threads, ids, |_| || ticked.l().to_u64()))
        });
        group.bench_function(name("guid_reserved_ticker"), |b| {
            b.iter_custom(|ids| {
                run(threads, ids, |_| {
                    let ids = ticked.reserved(256);
                    move || ids.l().to_u64()
                })
            })
        });
        group.bench_function(name("guid_clock_per_thread"), |b| {
            b.iter_custom(|ids| {
                run(threads, ids, |t| {
                    let clock = &own[t];
                    move || clock.l().to_u64()
                })
            })
        });
        group.bench_function(name("ferroid_snowflake_atomic_twitter"), |b| {
            b.iter_custom(|ids| {
                run(threads, ids, |_| {
                    || twitter.next_id(|_| thread::yield_now()).to_raw()
                })
            })
        });
        group.bench_function(name("ferroid_snowflake_atomic_wide"), |b| {
            b.iter_custom(|ids| {
                run(threads, ids, |_| {
                    || wide.next_id(|_| thread::yield_now()).to_raw()
                })
            })
        });
        group.bench_function(name("ferroid_ulid_mono_thread_local"), |b| {
            b.iter_custom(|ids| {
                run(threads, ids, |_| {
                    || Ulid::new_ulid_mono(|_| thread::yield_now()).to_raw() as u64
                })
            })
        });
        group.bench_function(name("ulid_monotonic"), |b| {
            b.iter_custom(|ids| {
                run(threads, ids, |_| {
                    let mut g = ulid::Generator::new();
                    move || g.generate().map_or(0, |u| u.0 as u64)
                })
            })
        });
        group.bench_function(name("uuid_v7"), |b| {
            b.iter_custom(|ids| run(threads, ids, |_| || uuid::Uuid::now_v7().as_u64_pair().1))
        });
        group.bench_function(name("scru128"), |b| {
            b.iter_custom(|ids| run(threads, ids, |_| || scru128::new().to_u128() as u64))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Short runs: the whole `cargo bench` stays near five minutes on 2 cores.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(30);
    targets = contended
}
criterion_main!(benches);
