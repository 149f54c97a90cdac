//! Many processes leasing node ids from one range of a real etcd.

mod support;

use guid::Id;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use kguid_etcd::{Error, NodeLease, Options, WhenFull};
use support::assert_unique;

const TTL: Duration = Duration::from_secs(2);

/// 64 concurrent acquirers over 64 ids get 64 distinct ids; their clocks
/// issue 64,000 ids without a duplicate; a 65th fails or waits, as asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_acquirers_get_distinct_ids_and_the_65th_fails_or_waits() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let client = etcd.client().await;
    let prefix = "/fleet/acquire";

    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { NodeLease::acquire(client, prefix, 0..64, TTL).await })
        })
        .collect();
    let mut leases = Vec::new();
    for task in tasks {
        leases.push(task.await.expect("task").expect("acquire"));
    }
    let nodes: BTreeSet<u32> = leases.iter().map(NodeLease::node).collect();
    assert_eq!(nodes, (0..64).collect(), "64 distinct ids, the whole range");
    for lease in &leases {
        assert_eq!(
            lease.not_before(),
            std::time::UNIX_EPOCH,
            "a fresh prefix has no horizon"
        );
        assert!(lease.horizon() > std::time::SystemTime::now());
    }

    let mut ids = Vec::new();
    for lease in &leases {
        let clock = lease.clock().await.expect("clock");
        for _ in 0..1_000 {
            ids.push(clock.g().expect("id"));
        }
    }
    let checked = assert_unique(&mut ids);
    assert_eq!(checked, 64_000);
    println!("64 holders: {checked} ids, 0 duplicates");

    // The 65th, told to fail.
    let started = Instant::now();
    let full = NodeLease::acquire(client.clone(), prefix, 0..64, TTL).await;
    assert!(
        matches!(full, Err(Error::Full { first: 0, last: 63 })),
        "{full:?}"
    );
    assert!(started.elapsed() < TTL, "fails at once");

    // The 65th, told to wait: it gets the id given back while it waits.
    let waiting = {
        let client = client.clone();
        tokio::spawn(async move {
            Options::default()
                .when_full(WhenFull::Wait(Duration::from_secs(10)))
                .acquire(client, prefix, 0..64, TTL)
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(!waiting.is_finished(), "waits while the range is full");
    let index = leases
        .iter()
        .position(|l| l.node() == 17)
        .expect("holder of 17");
    let seventeen = leases.swap_remove(index);
    let clock17 = seventeen.clock().await.expect("clock");
    let last17 = clock17.g().expect("id");
    let released = Instant::now();
    seventeen.release().await.expect("release");
    assert!(
        matches!(clock17.g(), Err(Error::Lost)),
        "a released lease issues nothing"
    );
    let next = waiting.await.expect("task").expect("the waiter's lease");
    assert_eq!(next.node(), 17);
    assert!(
        released.elapsed() < Duration::from_secs(2),
        "woken by the release"
    );
    assert!(
        next.not_before() > last17.epoch(),
        "starts after the released horizon"
    );
    assert!(next.clock().await.expect("clock").g().expect("id") > last17);

    // A wait that runs out.
    let started = Instant::now();
    let timed_out = Options::default()
        .when_full(WhenFull::Wait(Duration::from_millis(700)))
        .acquire(client.clone(), prefix, 0..64, TTL)
        .await;
    assert!(
        matches!(timed_out, Err(Error::Full { .. })),
        "{timed_out:?}"
    );
    assert!(started.elapsed() >= Duration::from_millis(700));

    for lease in leases {
        lease.release().await.expect("release");
    }
    next.release().await.expect("release");
}

/// Released ids are taken again lowest first; a sub-range and a foreign
/// key under the prefix behave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lowest_free_id_is_taken_and_bad_keys_are_typed_errors() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let client = etcd.client().await;
    let prefix = "/fleet/lowest";
    let a = NodeLease::acquire(client.clone(), prefix, 5..=9, TTL)
        .await
        .unwrap();
    let b = NodeLease::acquire(client.clone(), prefix, 5..=9, TTL)
        .await
        .unwrap();
    let c = NodeLease::acquire(client.clone(), prefix, 5..=9, TTL)
        .await
        .unwrap();
    assert_eq!([a.node(), b.node(), c.node()], [5, 6, 7]);
    b.release().await.unwrap();
    let d = NodeLease::acquire(client.clone(), prefix, 5..=9, TTL)
        .await
        .unwrap();
    assert_eq!(d.node(), 6, "the gap is filled first");

    // Something else wrote under the prefix: a typed error, no panic.
    support::put(&client, &format!("{prefix}/claim/000000000x"), "?").await;
    let bad = NodeLease::acquire(client.clone(), prefix, 5..=9, TTL).await;
    assert!(matches!(bad, Err(Error::Corrupt { .. })), "{bad:?}");
    support::put(
        &client,
        &format!("{prefix}/fence/0000000020"),
        "not a horizon",
    )
    .await;
    let bad = NodeLease::acquire(client.clone(), prefix, 20..=20, TTL).await;
    assert!(matches!(bad, Err(Error::Corrupt { .. })), "{bad:?}");

    let empty = NodeLease::acquire(client.clone(), prefix, 3..3, TTL).await;
    assert!(matches!(empty, Err(Error::Config(_))));
}
