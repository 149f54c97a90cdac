//! One id per call in a tight loop, beside ferroid's generators, in short
//! bursts: 16,384 calls (2 threads: that many each), then a 1 ms pause.
//!
//! The bursts measure what a call costs while the generator can issue.
//! ferroid's wide snowflake has 65,536 ids a millisecond: a longer loop
//! would measure its wait for the next millisecond instead (its steady
//! rate is at most 65.5 M ids/s). The clocks of this crate borrow ahead
//! and never wait, so the bursts flatter the peer, not them. Only the
//! bursts are timed; the pauses are not.
//!
//! The 2-thread runs end with a line on stderr: the callers' CPU time
//! over the bursts' wall time (2.0 when both ran in parallel all along),
//! the share of bursts in which one caller was off its core for more
//! than a tenth of the burst, and the CPU time the clock's ticker thread
//! took meanwhile.

use std::hint::black_box;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ferroid::generator::AtomicSnowflakeGenerator;
use ferroid::generator::thread_local::Ulid;
use ferroid::id::SnowflakeMastodonId;
use ferroid::time::MonotonicClock;
use guid::Clock;

/// Calls per burst, per thread.
const BURST: u64 = 16_384;
/// The pause after each burst.
const PAUSE: Duration = Duration::from_millis(1);

/// The timed bursts of `iters` calls of `f`.
fn bursts<T>(iters: u64, mut f: impl FnMut() -> T) -> Duration {
    let (mut left, mut timed) = (iters, Duration::ZERO);
    while left > 0 {
        let n = left.min(BURST);
        let start = Instant::now();
        for _ in 0..n {
            black_box(f());
        }
        timed += start.elapsed();
        left -= n;
        thread::sleep(PAUSE);
    }
    timed
}

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

/// The CPU time of this process's thread named `name`, if it has one.
fn named_thread_cpu(name: &str) -> Duration {
    let tick = 1e9 / 100.0; // USER_HZ
    let mut ns = 0.0;
    for task in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() != name {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
        let field = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        ns += (field(11) + field(12)) * tick;
    }
    Duration::from_nanos(ns as u64)
}

/// What the 2-thread bursts of one generator added up to.
#[derive(Default)]
struct Parallel {
    wall: Duration,
    cpu: Duration,
    bursts: u64,
    serial: u64,
}

/// The timed bursts of 2 threads making `iters` ids between them, each
/// calling `f`; adds the bursts' figures to `stats`.
fn bursts2<T>(iters: u64, f: impl Fn() -> T + Sync, stats: &mut Parallel) -> Duration {
    let barrier = Barrier::new(2);
    let rounds = iters.div_ceil(2 * BURST).max(1);
    let per = (iters / 2).div_ceil(rounds);
    let spans: Vec<Vec<(Instant, Instant, Duration)>> = thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let (barrier, f) = (&barrier, &f);
                s.spawn(move || {
                    (0..rounds)
                        .map(|_| {
                            barrier.wait();
                            let (cpu, start) = (thread_cpu(), Instant::now());
                            for _ in 0..per {
                                black_box(f());
                            }
                            let end = Instant::now();
                            let span = (start, end, thread_cpu() - cpu);
                            barrier.wait();
                            thread::sleep(PAUSE);
                            span
                        })
                        .collect()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a caller panicked"))
            .collect()
    });
    let mut timed = Duration::ZERO;
    for (a, b) in spans[0].iter().zip(&spans[1]) {
        let wall = a.1.max(b.1) - a.0.min(b.0);
        timed += wall;
        stats.wall += wall;
        stats.cpu += a.2 + b.2;
        stats.bursts += 1;
        if a.2.min(b.2) < wall.mul_f64(0.9) {
            stats.serial += 1;
        }
    }
    timed
}

fn tight(c: &mut Criterion) {
    let mut group = c.benchmark_group("tight");
    group.throughput(Throughput::Elements(1));

    let ticked = Clock::builder().ticker().build();
    let wide: AtomicSnowflakeGenerator<SnowflakeMastodonId, _> =
        AtomicSnowflakeGenerator::new(0, MonotonicClock::default());

    group.bench_function("guid_g_ticker", |b| {
        b.iter_custom(|n| bursts(n, || ticked.g()))
    });
    group.bench_function("ferroid_snowflake_atomic_wide", |b| {
        b.iter_custom(|n| bursts(n, || wide.next_id(|_| thread::yield_now())))
    });
    group.bench_function("guid_g_default", |b| {
        b.iter_custom(|n| bursts(n, || guid::g(&guid::CLOCK)))
    });
    group.bench_function("guid_reserved_ticker", |b| {
        b.iter_custom(|n| {
            let ids = ticked.reserved(256);
            bursts(n, || ids.g())
        })
    });
    group.bench_function("ferroid_ulid_mono_thread_local", |b| {
        b.iter_custom(|n| bursts(n, || Ulid::new_ulid_mono(|_| thread::yield_now())))
    });

    let mut report = Vec::new();
    let mut two = |name: &str,
                   f: &(dyn Fn() -> u128 + Sync),
                   group: &mut criterion::BenchmarkGroup<'_, _>| {
        let mut stats = Parallel::default();
        let (ticker, start) = (named_thread_cpu("guid-ticker"), Instant::now());
        group.bench_function(format!("{name}/2_threads"), |b| {
            b.iter_custom(|n| bursts2(n, f, &mut stats))
        });
        let (ticker, elapsed) = (
            named_thread_cpu("guid-ticker").saturating_sub(ticker),
            start.elapsed(),
        );
        report.push(format!(
            "{name}/2_threads: cpu/wall {:.2}, bursts with a caller off its core {} of {}, ticker thread {:.1}% of a core ({:.0} ms of {:.0} ms)",
            stats.cpu.as_secs_f64() / stats.wall.as_secs_f64().max(1e-9),
            stats.serial,
            stats.bursts,
            100.0 * ticker.as_secs_f64() / elapsed.as_secs_f64(),
            ticker.as_secs_f64() * 1e3,
            elapsed.as_secs_f64() * 1e3,
        ));
    };
    two("guid_g_ticker", &|| ticked.g().to_u128(), &mut group);
    two(
        "ferroid_snowflake_atomic_wide",
        &|| wide.next_id(|_| thread::yield_now()).to_raw() as u128,
        &mut group,
    );
    group.finish();
    for line in report {
        eprintln!("{line}");
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20);
    targets = tight
}
criterion_main!(benches);
