//! A split brain of real members, each on an address of its own and cut
//! apart by nft rules: with split-brain protection on the map, a holder
//! left with the smaller half stops in time, the larger half hands its
//! node id on only after, and no id repeats; after the merge the holder
//! of the larger half keeps its lease.

mod support;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use guid::Guid;
use kguid_hazelcast::{Client, Config, HazelcastStore};
use kguid_lease::{LeasedClock, Options, WhenFull};
use support::{Cluster, Setup};

const TTL: Duration = Duration::from_secs(4);

fn store(cluster: &Cluster, members: &[usize], bind: &str) -> HazelcastStore {
    let mut config = Config::new(members.iter().map(|&i| cluster.address(i)));
    config.cluster = cluster.name.clone();
    config.bind = Some(bind.parse().unwrap());
    HazelcastStore::new(Client::new(config).unwrap())
}

/// Takes ids from `clock` until `stop`, each with whether it was refused.
fn issue(clock: LeasedClock, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Vec<Guid>> {
    std::thread::spawn(move || {
        let mut ids = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            if let Ok(id) = clock.g() {
                ids.push(id);
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        ids
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_split_brain_with_protection_repeats_no_id() {
    let Some(mut cluster) = Cluster::start(Setup {
        quorum: 2,
        spread: true,
        ..Setup::new(3)
    }) else {
        return;
    };
    let (small, large) = ("127.0.0.20", "127.0.0.21");
    let options = Options::default().when_full(WhenFull::Wait(Duration::from_secs(60)));
    let first = options
        .acquire(store(&cluster, &[0], small), "split", 0..1, TTL)
        .await
        .expect("the first holder");
    let stop = Arc::new(AtomicBool::new(false));
    let before = issue(first.clock().await.unwrap(), stop.clone());
    tokio::time::sleep(Duration::from_millis(500)).await;

    let split = Instant::now();
    cluster.split(
        &[cluster.ip(0), small.into()],
        &[cluster.ip(1), cluster.ip(2), large.into()],
    );
    // The larger half gets node 0 only once the first holder's claim has
    // expired there, and the first holder stops before.
    // (Tried again on errors, as a server does: until the larger half has
    // dropped the smaller one, its writes miss the backups there.)
    let large_store = store(&cluster, &[1, 2], large);
    let second = loop {
        match options
            .acquire(large_store.clone(), "split", 0..1, TTL)
            .await
        {
            Ok(lease) => break lease,
            Err(e) => assert!(split.elapsed() < Duration::from_secs(90), "{e}"),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let granted = split.elapsed();
    let after = issue(second.clock().await.unwrap(), stop.clone());
    tokio::time::sleep(TTL).await;

    cluster.heal();
    cluster.wait_size(3);
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.store(true, Ordering::Relaxed);
    let (a, b) = (before.join().unwrap(), after.join().unwrap());
    assert!(
        !a.is_empty() && !b.is_empty(),
        "{} and {} ids",
        a.len(),
        b.len()
    );
    let seen: HashSet<Guid> = a.iter().copied().collect();
    let repeated = b.iter().filter(|id| seen.contains(id)).count();
    assert_eq!(repeated, 0, "ids made on both sides");
    let last_a = a.iter().max().unwrap();
    let first_b = b.iter().min().unwrap();
    assert!(
        first_b > last_a,
        "the second holder starts after the first's ids"
    );
    assert!(
        second.clock().await.unwrap().g().is_ok(),
        "the larger half's lease kept"
    );
    eprintln!(
        "split: node 0 granted to the larger half {granted:?} after; {} ids before, {} after, 0 repeated",
        a.len(),
        b.len()
    );
}
