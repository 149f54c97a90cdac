//! How long one call takes when threads share a clock: 1, 2 and 4 threads
//! each taking one id a call from one clock, the default (the wall clock
//! read each call) and one on the ticker, every call timed, side by side
//! in the same run. Prints, per clock and thread count, the percentiles of
//! the calls' latency and how many took 10 µs or longer:
//!
//! `cargo bench --bench latency [-- CALLS_PER_THREAD [ROUNDS]]`
//!
//! criterion summarizes a mean; a call's latency is a distribution, so
//! this bench keeps every call's time (`Instant` on each side, about 20 ns
//! of the figure at the median) and reports its tail.

use std::sync::Barrier;
use std::time::Instant;

use guid::Clock;

/// Every call's latency of `threads` threads making `calls` ids each from
/// `clock`, in nanoseconds, sorted.
fn latencies(clock: &Clock, threads: usize, calls: usize) -> Vec<u32> {
    let start = Barrier::new(threads);
    let mut all: Vec<u32> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut times = Vec::with_capacity(calls);
                    start.wait();
                    for _ in 0..calls {
                        let t = Instant::now();
                        std::hint::black_box(clock.g());
                        times.push(t.elapsed().as_nanos().min(u32::MAX.into()) as u32);
                    }
                    times
                })
            })
            .collect();
        runs.into_iter()
            .flat_map(|r| r.join().expect("a caller"))
            .collect()
    });
    all.sort_unstable();
    all
}

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|a| a.parse::<usize>());
    let calls = args.next().and_then(Result::ok).unwrap_or(2_000_000);
    let rounds = args.next().and_then(Result::ok).unwrap_or(2);
    let clocks = [
        ("default", Clock::new()),
        ("ticker", Clock::builder().ticker().build()),
    ];
    println!(
        "{:<8} {:>7} {:>7} {:>7} {:>8} {:>9} {:>10} {:>9}   (ns; calls of 10 µs or more)",
        "clock", "threads", "p50", "p99", "p99.9", "p99.99", "max", ">=10µs"
    );
    for round in 1..=rounds {
        for threads in [1, 2, 4] {
            for (name, clock) in &clocks {
                let t = latencies(clock, threads, calls);
                let at = |q: f64| t[((t.len() - 1) as f64 * q) as usize];
                let slow = t.len() - t.partition_point(|&ns| ns < 10_000);
                println!(
                    "{name:<8} {threads:>7} {:>7} {:>7} {:>8} {:>9} {:>10} {slow:>9}   round {round}",
                    at(0.5),
                    at(0.99),
                    at(0.999),
                    at(0.9999),
                    t[t.len() - 1],
                );
            }
        }
    }
}
