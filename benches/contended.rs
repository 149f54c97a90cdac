//! Generation under contention: the aggregate rate of threads that share
//! one clock, against one thread alone and against a clock per thread.
//!
//! Each figure is wall time per id over all threads (criterion's elements/s
//! is the aggregate ids/s): the threads start together at a barrier, and
//! the span runs from the first thread's start to the last one's end, as
//! the threads themselves read it (the spawning thread may not get a core
//! while they run).

use std::hint::black_box;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guid::Clock;

/// Wall time for `threads` threads to make `ids` ids between them, each
/// from the clock `clock_of` gives it.
fn run<'c>(threads: u64, ids: u64, clock_of: impl Fn(usize) -> &'c Clock + Sync) -> Duration {
    let barrier = Barrier::new(threads as usize);
    let spans: Vec<(Instant, Instant)> = thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                // The first thread also makes the remainder.
                let n = ids / threads + if t == 0 { ids % threads } else { 0 };
                let (barrier, clock_of) = (&barrier, &clock_of);
                s.spawn(move || {
                    let clock = clock_of(t as usize);
                    barrier.wait();
                    let start = Instant::now();
                    for _ in 0..n {
                        black_box(clock.g());
                    }
                    (start, Instant::now())
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a generating thread panicked"))
            .collect()
    });
    let start = spans.iter().map(|s| s.0).min();
    let end = spans.iter().map(|s| s.1).max();
    match (start, end) {
        (Some(start), Some(end)) => end - start,
        _ => Duration::ZERO,
    }
}

fn contended(c: &mut Criterion) {
    let mut group = c.benchmark_group("contended");
    group.throughput(Throughput::Elements(1));

    let shared = Clock::new();
    group.bench_function("shared_clock_1_thread", |b| {
        b.iter_custom(|ids| run(1, ids, |_| &shared))
    });
    group.bench_function("shared_clock_2_threads", |b| {
        b.iter_custom(|ids| run(2, ids, |_| &shared))
    });
    // Separate clocks, each on its own cache line: the scaling that sharing
    // one clock gives up.
    let own = [Clock::new(), Clock::new()];
    group.bench_function("clock_per_thread_2_threads", |b| {
        b.iter_custom(|ids| run(2, ids, |t| &own[t]))
    });

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
