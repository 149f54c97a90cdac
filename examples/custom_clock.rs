//! A clock with an explicit node, a drift and a time source under control.
//!
//! cargo run --example custom_clock

use std::time::Duration;

use guid::{Clock, Drift, MockTime};

fn main() {
    // A tolerated skew of 10 minutes between nodes: drift code 5.
    let drift = Drift::from_duration(Duration::from_secs(600));
    let time = MockTime::new(1_700_000_000_000_000_000);
    let clock = Clock::builder()
        .node(0xcafe_f00d)
        .drift(drift)
        .time(time.clone())
        .build();

    let first = clock.g();
    // The system clock goes back an hour: ids keep increasing.
    time.step_back(3_600_000_000_000);
    let second = clock.g();
    assert!(second > first);
    println!("{first} then, after a 1 h step back, {second}");

    // An inverse clock counts down: the newest id sorts first.
    let newest_first = Clock::builder().node(1).inverse().build();
    let x = newest_first.g();
    let y = newest_first.g();
    assert!(y < x);
    println!("inverse: {x} then {y}");

    // One clock read for a whole batch.
    let mut batch = [guid::Guid::default(); 4];
    clock.fill(&mut batch);
    println!("batch: {batch:?}");
}
