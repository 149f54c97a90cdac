//! What the wall clock's ticker costs and how far it lags: its thread's
//! CPU time and wake-ups while ids are asked for without pause, once a
//! millisecond, and not at all, read from `/proc`; and the lag of its
//! reading behind the wall clock.
//!
//! `cargo run --release --example ticker_cost [SECONDS]` (Linux).

use std::time::{Duration, Instant};

use guid::{Clock, Ticker, TimeSource, WallClock};

#[path = "../benches/support/ticker_thread.rs"]
mod ticker_thread;
use ticker_thread::ticker_thread;

/// Runs `phase` for `secs` and prints the ticker thread's share of a core
/// and its wake-ups a second.
fn measure(name: &str, secs: f64, mut phase: impl FnMut(Instant)) {
    let before = ticker_thread().unwrap_or((0, 0));
    let start = Instant::now();
    phase(start + Duration::from_secs_f64(secs));
    let elapsed = start.elapsed().as_secs_f64();
    let after = ticker_thread().unwrap_or((0, 0));
    let cpu = (after.0 - before.0) as f64 / 1e9 / elapsed * 100.0;
    let wakes = (after.1 - before.1) as f64 / elapsed;
    println!("| {name} | {cpu:.2}% | {wakes:.0} |");
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let clock = Clock::builder().ticker().build();
    let ticker = Ticker::wall();
    clock.g();
    println!(
        "load: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!("ticker period {:?}, {secs} s a phase", ticker.period());
    println!();
    println!("| ids asked for | ticker thread CPU (of one core) | its wake-ups/s |");
    println!("|---|---|---|");
    let mut lags = Vec::new();
    measure("without pause", secs, |until| {
        let mut n = 0u64;
        while Instant::now() < until {
            std::hint::black_box(clock.g());
            n += 1;
            if n % 4096 == 0 {
                // The lag of a reading behind the wall clock read after it.
                let t = ticker.now();
                lags.push(WallClock.now().saturating_sub(t));
            }
        }
    });
    measure("once a millisecond", secs, |until| {
        while Instant::now() < until {
            std::hint::black_box(clock.g());
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    measure("none (idle)", secs, |until| {
        std::thread::sleep(until.saturating_duration_since(Instant::now()));
    });
    lags.sort_unstable();
    if !lags.is_empty() {
        let at = |q: f64| lags[((lags.len() - 1) as f64 * q) as usize] as f64 / 1e3;
        println!();
        println!(
            "lag of the reading behind the wall clock, without pause: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs ({} samples)",
            at(0.5),
            at(0.99),
            at(1.0),
            lags.len()
        );
    }
}
