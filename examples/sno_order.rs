//! sno generators at full speed on the wall clock, every id checked
//! against the one before it on its thread:
//! `cargo run --release --example sno_order [SECONDS] [THREADS]`.
//!
//! For the smallest pool (6 sequences a unit) and the default one (65,536),
//! prints the ids made, the rate, the steps back the generator met
//! (`drifts`), how far the last id ran ahead of the clock, and how many
//! ids were not after the one before them (0 is the promise).

use std::sync::Arc;
use std::time::{Duration, Instant};

use guid::sno::Generator;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>());
    let seconds = args.next().and_then(Result::ok).unwrap_or(10);
    let threads = args.next().and_then(Result::ok).unwrap_or(2).max(1);
    let run = Duration::from_secs(seconds);
    for (name, min, max) in [("smallest pool", 0, 5), ("default pool", 0, 65_535)] {
        let generator = Generator::builder()
            .sequence_min(min)
            .sequence_max(max)
            .build()
            .expect("valid bounds");
        let generator = Arc::new(generator);
        let started = Instant::now();
        let counts: Vec<(u64, u64)> = (0..threads)
            .map(|_| {
                let generator = Arc::clone(&generator);
                std::thread::spawn(move || {
                    let (mut ids, mut back) = (1, 0);
                    let mut last = generator.next(0);
                    while started.elapsed() < run {
                        for _ in 0..4_096 {
                            let id = generator.next(0);
                            back += u64::from(id <= last);
                            last = id;
                        }
                        ids += 4_096;
                    }
                    (ids, back)
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().expect("a thread ran"))
            .collect();
        let elapsed = started.elapsed().as_secs_f64();
        let ids: u64 = counts.iter().map(|c| c.0).sum();
        let back: u64 = counts.iter().map(|c| c.1).sum();
        let snapshot = generator.snapshot();
        let lead = (snapshot.wall_hi - snapshot.now) as f64 * 4e-3;
        println!(
            "{name}: {ids} ids from {threads} threads in {elapsed:.1} s ({:.1} M/s), drifts {}, \
             last id {lead:.2} s ahead of the clock, ids not after the one before: {back}",
            ids as f64 / elapsed / 1e6,
            generator.drifts(),
        );
    }
}
