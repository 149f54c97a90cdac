//! One id per call in a tight loop, beside ferroid's generators, on one
//! thread and on two threads sharing one generator.
//!
//! ferroid's atomic generator runs on a layout of its own with 23 sequence
//! bits (8 M ids a millisecond): the same code as its Twitter and Mastodon
//! layouts, whose 4,096 and 65,536 ids a millisecond a loop this tight
//! uses up, so that they would measure their wait for the next millisecond
//! instead of a call.
//!
//! The 2-thread runs start both callers at once (they spin at a barrier)
//! and end with a line on stderr: the callers' CPU time over the runs'
//! wall time (2.0 when both ran in parallel all along), how many runs had
//! a caller off its core for more than a tenth of the run, and the CPU
//! time the ticker's thread took meanwhile.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use ferroid::define_snowflake_id;
use ferroid::generator::AtomicSnowflakeGenerator;
use ferroid::generator::thread_local::Ulid;
use ferroid::time::MonotonicClock;
use guid::Clock;

#[path = "support/ticker_thread.rs"]
mod ticker_thread;

/// The ticker thread's CPU time so far.
fn ticker_cpu() -> Duration {
    Duration::from_nanos(ticker_thread::ticker_thread().map_or(0, |(ns, _)| ns))
}

define_snowflake_id!(
    /// ferroid's snowflake with a sequence this loop does not use up.
    Wide, u64,
    reserved: 1,
    timestamp: 39,
    machine_id: 1,
    sequence: 23
);

/// This thread's CPU time.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// What the 2-thread runs of one generator added up to.
#[derive(Default)]
struct Parallel {
    wall: Duration,
    cpu: Duration,
    runs: u64,
    apart: u64,
}

/// Wall time for 2 threads to make `ids` ids between them, each calling
/// `f`; adds the run's figures to `stats`.
fn two<T>(ids: u64, f: &(impl Fn() -> T + Sync), stats: &mut Parallel) -> Duration {
    let ready = AtomicUsize::new(0);
    let spans: Vec<(Instant, Instant, Duration)> = thread::scope(|s| {
        let callers: Vec<_> = (0..2)
            .map(|_| {
                let ready = &ready;
                s.spawn(move || {
                    black_box(f());
                    ready.fetch_add(1, Ordering::AcqRel);
                    while ready.load(Ordering::Acquire) < 2 {
                        std::hint::spin_loop();
                    }
                    let (cpu, start) = (thread_cpu(), Instant::now());
                    for _ in 0..ids / 2 {
                        black_box(f());
                    }
                    (start, Instant::now(), thread_cpu() - cpu)
                })
            })
            .collect();
        callers
            .into_iter()
            .map(|c| c.join().expect("a caller panicked"))
            .collect()
    });
    let start = spans.iter().map(|s| s.0).min().expect("two callers");
    let end = spans.iter().map(|s| s.1).max().expect("two callers");
    let wall = end - start;
    stats.wall += wall;
    stats.cpu += spans.iter().map(|s| s.2).sum::<Duration>();
    stats.runs += 1;
    if spans.iter().any(|s| s.2 < wall.mul_f64(0.9)) {
        stats.apart += 1;
    }
    wall
}

/// The 2-thread runs of `f`, and their line for stderr.
fn bench_two<T>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    f: impl Fn() -> T + Sync,
) -> String {
    let mut stats = Parallel::default();
    let (ticker, start) = (ticker_cpu(), Instant::now());
    group.bench_function(format!("{name}/2_threads"), |b| {
        b.iter_custom(|n| two(n, &f, &mut stats))
    });
    let (ticker, elapsed) = (ticker_cpu().saturating_sub(ticker), start.elapsed());
    format!(
        "{name}/2_threads: cpu/wall {:.2}, runs with a caller off its core {} of {}, \
         ticker thread {:.1}% of a core ({} ms of {} ms)",
        stats.cpu.as_secs_f64() / stats.wall.as_secs_f64().max(1e-9),
        stats.apart,
        stats.runs,
        100.0 * ticker.as_secs_f64() / elapsed.as_secs_f64(),
        ticker.as_millis(),
        elapsed.as_millis(),
    )
}

fn tight(c: &mut Criterion) {
    let mut group = c.benchmark_group("tight");
    group.throughput(Throughput::Elements(1));

    let ticked = Clock::builder().ticker().build();
    let wide: AtomicSnowflakeGenerator<Wide, _> =
        AtomicSnowflakeGenerator::new(0, MonotonicClock::default());
    // Spinning, not yielding, when a CAS loses a race: its fastest use.
    let next_wide = || wide.next_id(|_| std::hint::spin_loop());

    group.bench_function("guid_g_ticker", |b| b.iter(|| ticked.g()));
    group.bench_function("ferroid_snowflake_atomic", |b| b.iter(next_wide));
    group.bench_function("guid_g_default", |b| b.iter(|| guid::g(&guid::CLOCK)));
    group.bench_function("guid_reserved_ticker", |b| {
        let ids = ticked.reserved(256);
        b.iter(|| ids.g())
    });
    group.bench_function("ferroid_ulid_mono_thread_local", |b| {
        b.iter(|| Ulid::new_ulid_mono(|_| thread::yield_now()))
    });

    let report = [
        bench_two(&mut group, "guid_g_ticker", || ticked.g()),
        bench_two(&mut group, "ferroid_snowflake_atomic", next_wide),
    ];
    group.finish();
    for line in report {
        eprintln!("{line}");
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = tight
}
criterion_main!(benches);
