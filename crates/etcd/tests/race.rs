//! Fence writes that race: covers from several clocks and the keep-alive
//! task at once, some of them given up on by the holder and delivered to
//! etcd late, after newer ones. The fence in etcd must never go down, and
//! never be below a horizon the holder lets its clocks use.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use guid::flake::{self, Layout};
use guid::{TimeSource, WallClock};
use kguid_etcd::{Client, Error, LeasedFlakeClock, NodeLease, Options};
use support::HoldProxy;

const PREFIX: &str = "/race";
const FENCE: &str = "/race/fence/0000000000";

/// A wall clock `secs` ahead, so that a clock built on it needs the
/// horizon moved that far.
fn ahead(secs: u64) -> impl TimeSource + 'static {
    move || WallClock.now() + secs * 1_000_000_000
}

/// The horizon stored in a fence value.
fn horizon_of(value: &[u8]) -> u64 {
    let text = std::str::from_utf8(value).expect("utf-8 fence");
    text.split_once(' ')
        .and_then(|(ns, _)| ns.parse().ok())
        .unwrap_or_else(|| panic!("a fence value: {text:?}"))
}

/// The fence in etcd, read directly, and its revision.
async fn fence(admin: &Client) -> (u64, i64) {
    let (value, revision) = support::get(admin, FENCE).await.expect("a fence");
    (horizon_of(&value), revision)
}

/// A flake clock whose start needs the horizon `secs` ahead, retried
/// while the holder's client connects again after the proxy closed it.
async fn fresh_clock(lease: &NodeLease, secs: u64) -> LeasedFlakeClock {
    let mut tries = 0;
    loop {
        let builder = flake::Clock::builder(Layout::NOEQD).time(ahead(secs));
        match lease.flake_clock(builder).await {
            Ok(clock) => return clock,
            Err(Error::Store(_) | Error::Timeout) if tries < 50 => tries += 1,
            Err(e) => panic!("a clock once etcd is reachable again: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Rounds of: requests held by the proxy while four clocks start at once
/// (each needing a higher horizon) and the keep-alive task runs, so that
/// all of them time out; then the holder's connection is closed, a new
/// clock needing a still higher horizon starts through a new connection,
/// and the held writes reach etcd, before it (odd rounds) or after it
/// (even rounds). etcd's history shows every value the fence took, and a checker
/// compares the holder's horizon with the fence throughout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn late_fence_writes_never_lower_the_fence_below_the_horizon_in_use() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let proxy = HoldProxy::start(etcd.port()).await;
    let admin = etcd.client().await;
    let options = Options::default()
        .interval(Duration::from_millis(300))
        .timeout(Duration::from_millis(300));
    let holder = support::connect(&proxy.endpoint()).await;
    let lease = Arc::new(
        options
            .acquire(holder, PREFIX, 0..1, Duration::from_secs(3))
            .await
            .expect("a lease"),
    );

    // Every value the fence takes is read back from etcd's history at the
    // end, from the revision it had here.
    let (_, first_revision) = fence(&admin).await;

    // The holder's horizon, read first, is never above the fence read next.
    let stop = Arc::new(AtomicBool::new(false));
    let checker = {
        let (lease, stop, admin) = (lease.clone(), stop.clone(), etcd.client().await);
        tokio::spawn(async move {
            let mut checks = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let used = lease.horizon();
                let (stored, _) = fence(&admin).await;
                let used = used
                    .duration_since(std::time::UNIX_EPOCH)
                    .expect("after 1970")
                    .as_nanos() as u64;
                assert!(
                    stored >= used,
                    "the fence {stored} is below the horizon in use {used}"
                );
                checks += 1;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            checks
        })
    };

    let mut late = 0;
    for round in 0..4u64 {
        let base = 100 * (round + 1);
        proxy.hold();
        let starts: Vec<_> = (0..4)
            .map(|i| {
                let lease = lease.clone();
                tokio::spawn(async move {
                    let builder = flake::Clock::builder(Layout::NOEQD).time(ahead(base + i));
                    lease.flake_clock(builder).await
                })
            })
            .collect();
        for start in starts {
            let r = start.await.expect("a start");
            assert!(
                matches!(r, Err(Error::Timeout)),
                "held, so timed out: {r:?}"
            );
        }
        assert!(proxy.held_requests() >= 1, "round {round}: writes held");
        proxy.detach().await;
        let clock = if round % 2 == 0 {
            let clock = fresh_clock(&lease, base + 50).await;
            late += proxy.release().await;
            clock
        } else {
            late += proxy.release().await;
            fresh_clock(&lease, base + 50).await
        };
        let id = clock.next().expect("an id below the horizon");
        let (stored, _) = fence(&admin).await;
        let time = Layout::NOEQD.time_of(id).expect("id time");
        assert!(
            time <= std::time::UNIX_EPOCH + Duration::from_nanos(stored),
            "round {round}: an id at {time:?} past the fence {stored}"
        );
    }

    stop.store(true, Ordering::Relaxed);
    let checks = checker.await.expect("the checker");
    let (stored, revision) = fence(&admin).await;
    let used = lease
        .horizon()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos() as u64;
    assert!(
        stored >= used,
        "the fence {stored} is below the horizon {used}"
    );
    Arc::into_inner(lease)
        .expect("the only holder")
        .release()
        .await
        .expect("release");

    // Every value up to the last one read, from etcd's history: the fence
    // as of each revision, each write once.
    let mut values: Vec<(i64, u64)> = Vec::new();
    for at in first_revision..=revision {
        let (value, modified) = support::get_at(&admin, FENCE, at)
            .await
            .unwrap_or_else(|| panic!("the fence is never deleted (revision {at})"));
        if values.last().is_none_or(|&(r, _)| r != modified) {
            values.push((modified, horizon_of(&value)));
        }
    }
    assert_eq!(values.last(), Some(&(revision, stored)));
    for pair in values.windows(2) {
        assert!(
            pair[1].1 >= pair[0].1,
            "the fence went down from {} to {} at revision {}",
            pair[0].1,
            pair[1].1,
            pair[1].0
        );
    }
    println!(
        "4 rounds: {late} writes delivered late, {} fence values, {checks} checks, never lower",
        values.len()
    );
}
