//! etcd goes away under a running fleet and comes back.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use guid::Guid;
use kguid_etcd::{Client, Error, LeasedClock, NodeLease, Options, WhenFull};
use support::assert_unique;

const HOLDERS: usize = 8;
const TTL: Duration = Duration::from_secs(2);

/// What one holder saw.
#[derive(Default)]
struct Log {
    ids: Vec<Guid>,
    /// When each batch was issued.
    issued: Vec<Instant>,
    acquires: usize,
}

/// Issues batches until told to stop; re-acquires when the lease is lost.
async fn holder(client: Client, stop: Arc<AtomicBool>) -> Log {
    let mut log = Log::default();
    let options = Options::default().when_full(WhenFull::Wait(Duration::from_secs(1)));
    let mut held: Option<(NodeLease, LeasedClock)> = None;
    while !stop.load(Ordering::Relaxed) {
        let Some((_, clock)) = &held else {
            if let Ok(lease) = options
                .acquire(client.clone(), "/fleet/outage", 0..HOLDERS as u32, TTL)
                .await
            {
                if let Ok(clock) = lease.clock().await {
                    log.acquires += 1;
                    held = Some((lease, clock));
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let mut batch = [Guid::default(); 16];
        match clock.fill(&mut batch) {
            Ok(()) => {
                log.ids.extend_from_slice(&batch);
                log.issued.push(Instant::now());
            }
            Err(Error::Lost) => held = None,
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    log
}

/// With etcd killed, every holder stops issuing within the TTL; with etcd
/// back, every holder issues again (the one whose lease was revoked meanwhile
/// acquires a new one); no id repeats across the run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn holders_stop_within_the_ttl_while_etcd_is_down_and_resume_after() {
    let Some(mut etcd) = support::etcd().await else {
        return;
    };
    let client = etcd.client().await;
    let stop = Arc::new(AtomicBool::new(false));
    let holders: Vec<_> = (0..HOLDERS)
        .map(|_| tokio::spawn(holder(client.clone(), stop.clone())))
        .collect();

    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let down = Instant::now();
    etcd.stop();
    tokio::time::sleep(TTL + Duration::from_millis(1_000)).await;
    let restart = Instant::now();
    etcd.start().await;
    let back = Instant::now();
    tokio::time::sleep(Duration::from_secs(1)).await;
    // One lease revoked behind its holder's back: that holder must learn it
    // lost the lease and acquire again.
    let admin = etcd.client().await;
    let leases = support::leases(&admin).await;
    let revoked = *leases.first().expect("live leases");
    support::revoke(&admin, revoked).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, Ordering::Relaxed);

    let mut ids = Vec::new();
    let mut acquires = 0;
    for (n, task) in holders.into_iter().enumerate() {
        let log = task.await.unwrap();
        let before = log.issued.iter().filter(|&&t| t < down).count();
        // etcd is down from the kill until its restart; `back` is later,
        // once the restarted server answered, and a holder may issue in
        // between.
        let latest_in_outage = log
            .issued
            .iter()
            .filter(|&&t| t >= down && t < restart)
            .max();
        let after = log.issued.iter().filter(|&&t| t >= back).count();
        assert!(before > 0, "holder {n} issued before the outage");
        if let Some(&t) = latest_in_outage {
            assert!(
                t - down < TTL,
                "holder {n} issued {:?} into the outage",
                t - down
            );
        }
        assert!(
            log.issued.iter().all(|&t| t < down + TTL || t >= restart),
            "holder {n} issued while etcd was down past the TTL"
        );
        assert!(after > 0, "holder {n} resumed after etcd came back");
        println!(
            "holder {n}: {before} batches before, last in outage {:?} after the kill, \
             {after} batches after, {} acquires",
            latest_in_outage.map(|&t| t - down),
            log.acquires
        );
        acquires += log.acquires;
        ids.extend(log.ids);
    }
    assert_eq!(
        acquires,
        HOLDERS + 1,
        "the holder of the revoked lease acquired again"
    );
    let checked = assert_unique(&mut ids);
    println!("etcd outage: {checked} ids, 0 duplicates");
}
