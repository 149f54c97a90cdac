//! The threads of a contended run, shared by the benches that measure one.

use std::hint::black_box;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

/// Wall time for `threads` threads to make `ids` ids between them, each
/// calling the generator `make` gives it (built in its thread).
pub fn run<G: FnMut() -> u64>(
    threads: u64,
    ids: u64,
    make: impl Fn(usize) -> G + Sync,
) -> Duration {
    let barrier = Barrier::new(threads as usize);
    let spans: Vec<(Instant, Instant)> = thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                // The first thread also makes the remainder.
                let n = ids / threads + if t == 0 { ids % threads } else { 0 };
                let (barrier, make) = (&barrier, &make);
                s.spawn(move || {
                    let mut next = make(t as usize);
                    black_box(next());
                    barrier.wait();
                    let start = Instant::now();
                    for _ in 0..n {
                        black_box(next());
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
