//! Makes `n` ids with one generator, for instruction counts per id:
//! `valgrind --tool=callgrind` of two runs whose `n` differ, divided.
//!
//! `cargo run --release --example instructions -- <generator> <n>`, with
//! generator one of ticker, reserved, default, ferroid_atomic, ferroid_ulid.
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(String::as_str).unwrap_or("ticker");
    let n: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    match which {
        "ticker" => {
            let clock = guid::Clock::builder().ticker().build();
            for _ in 0..n {
                black_box(black_box(&clock).g());
            }
        }
        "reserved" => {
            let clock = guid::Clock::builder().ticker().build();
            let ids = clock.reserved(256);
            for _ in 0..n {
                black_box(black_box(&ids).g());
            }
        }
        "default" => {
            let clock = guid::Clock::new();
            for _ in 0..n {
                black_box(black_box(&clock).g());
            }
        }
        "ferroid_atomic" => {
            use ferroid::generator::AtomicSnowflakeGenerator;
            use ferroid::id::SnowflakeMastodonId;
            use ferroid::time::MonotonicClock;
            let wide: AtomicSnowflakeGenerator<SnowflakeMastodonId, _> =
                AtomicSnowflakeGenerator::new(0, MonotonicClock::default());
            for _ in 0..n {
                black_box(black_box(&wide).next_id(|_| std::thread::yield_now()));
            }
        }
        "ferroid_ulid" => {
            use ferroid::generator::thread_local::Ulid;
            for _ in 0..n {
                black_box(Ulid::new_ulid_mono(|_| std::thread::yield_now()));
            }
        }
        other => panic!("no generator {other}"),
    }
}
