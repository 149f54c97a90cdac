//! How far the coarse wall clock lags the precise one on this machine:
//! `cargo run --release --example coarse_lag [SAMPLES] [PAUSE_US]`.
//!
//! Each sample reads `CLOCK_REALTIME_COARSE`, then `CLOCK_REALTIME`; the
//! difference is the coarse clock's lag (plus any preemption between the
//! two reads, so the maximum is an upper estimate).

#[cfg(target_os = "linux")]
fn main() {
    use guid::{CoarseClock, TimeSource, WallClock};
    use std::time::Duration;

    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>());
    let samples = args.next().and_then(Result::ok).unwrap_or(5_000).max(1);
    let pause = Duration::from_micros(args.next().and_then(Result::ok).unwrap_or(1_000));
    let mut lags: Vec<u64> = (0..samples)
        .map(|_| {
            std::thread::sleep(pause);
            let coarse = CoarseClock.now();
            WallClock.now().saturating_sub(coarse)
        })
        .collect();
    lags.sort_unstable();
    let ms = |ns: u64| ns as f64 / 1e6;
    let mean = lags.iter().sum::<u64>() as f64 / lags.len() as f64 / 1e6;
    let at = |q: f64| lags[((lags.len() - 1) as f64 * q) as usize];
    println!(
        "resolution {:?}; lag over {samples} samples {pause:?} apart: mean {mean:.2} ms, median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        CoarseClock::resolution(),
        ms(at(0.5)),
        ms(at(0.99)),
        ms(*lags.last().unwrap()),
    );
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("the coarse clock is Linux's CLOCK_REALTIME_COARSE");
}
