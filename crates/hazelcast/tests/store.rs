//! The store against real Hazelcast members: claims, renewals, fences and
//! releases; the records as Hazelcast's own client reads them; members
//! that crash with and without backups; the map destroyed; a wrong cluster
//! name or no member at all; a member whose wall clock steps.

mod support;

use std::time::Duration;

use kguid_hazelcast::{Client, Config, Error, HazelcastStore};
use kguid_lease::store::{Claim, Claimed, Fence, FenceWrite, Held, Renewal, Store};
use support::{Cluster, Setup};

fn store(cluster: &Cluster) -> HazelcastStore {
    let mut config = Config::new(cluster.addresses());
    config.cluster = cluster.name.clone();
    config.timeout = Duration::from_secs(5);
    HazelcastStore::new(Client::new(config).expect("client"))
}

const TTL: Duration = Duration::from_secs(10);

async fn claim(store: &HazelcastStore, prefix: &str, first: u32, last: u32) -> Claimed {
    match store
        .claim(prefix, first, last, TTL, "test")
        .await
        .expect("claim")
    {
        Claim::Held(claimed) => claimed,
        Claim::Full { .. } => panic!("full"),
    }
}

fn held(prefix: &str, claimed: &Claimed) -> Held {
    Held {
        prefix: prefix.into(),
        holder: "test".into(),
        node: claimed.node,
        token: claimed.token,
    }
}

/// Claims `count` node ids under `prefix`, the lowest free first, and
/// fences the holder of each `n` at `horizon + n`: the holders, with the
/// fences stored.
async fn fenced(
    store: &HazelcastStore,
    prefix: &str,
    count: u32,
    horizon: u64,
) -> Vec<(Held, Fence)> {
    let mut holders = Vec::new();
    for n in 0..count {
        let c = claim(store, prefix, 0, count - 1).await;
        let h = held(prefix, &c);
        let written = store
            .fence(&h, c.fence, horizon + u64::from(n))
            .await
            .unwrap();
        let FenceWrite::Stored(fence) = written else {
            panic!("node {}: {written:?}", h.node)
        };
        holders.push((h, fence));
    }
    holders
}

/// Claims take the lowest free node ids; only the holder renews, fences
/// and releases; a released id is taken again, after the horizon its
/// holder left; Hazelcast's own client reads the records where this
/// client put them (each key on its partition).
#[tokio::test(flavor = "multi_thread")]
async fn claims_renewals_fences_and_releases_keep_their_contracts() {
    let Some(cluster) = Cluster::start(Setup::new(3)) else {
        return;
    };
    let store = store(&cluster);
    let a = claim(&store, "fleet", 0, 3).await;
    let b = claim(&store, "fleet", 0, 3).await;
    assert_eq!((a.node, b.node), (0, 1));
    assert_ne!(a.token, b.token);
    assert_eq!(
        a.fence,
        Fence {
            version: 1,
            horizon: 0
        }
    );
    assert!(a.quiet > Duration::ZERO, "no fence yet: a quiet");
    let (ha, hb) = (held("fleet", &a), held("fleet", &b));

    assert_eq!(store.renew(&ha).await.unwrap(), Renewal::Alive(TTL));
    let stored = store.fence(&ha, a.fence, 1_000).await.unwrap();
    let FenceWrite::Stored(fence) = stored else {
        panic!("{stored:?}")
    };
    assert_eq!(
        fence,
        Fence {
            version: 2,
            horizon: 1_000
        }
    );
    // The same write again: the fence moved on since.
    assert_eq!(
        store.fence(&ha, a.fence, 2_000).await.unwrap(),
        FenceWrite::Moved(fence)
    );
    let not_a = Held {
        token: b.token,
        ..ha.clone()
    };
    assert_eq!(store.renew(&not_a).await.unwrap(), Renewal::Gone);
    assert_eq!(
        store.fence(&not_a, fence, 5).await.unwrap(),
        FenceWrite::Lost
    );
    store.release(&not_a).await.unwrap();

    let entries = cluster.admin(&["entries", kguid_hazelcast::MAP]);
    let lines: Vec<&str> = entries.lines().collect();
    assert_eq!(lines.len(), 4, "{entries}");
    assert!(
        lines.contains(
            &format!(
                "fleet/fence/0=version 2 horizon 1000 owner {:016x}",
                a.token
            )
            .as_str()
        ),
        "{entries}"
    );
    assert!(
        lines.contains(
            &format!("fleet/claim/1=token {:016x} ttl 10000 holder test", b.token).as_str()
        ),
        "{entries}"
    );

    store.release(&ha).await.unwrap();
    assert_eq!(store.renew(&ha).await.unwrap(), Renewal::Gone);
    let again = claim(&store, "fleet", 0, 3).await;
    assert_eq!(again.node, 0);
    assert_eq!(
        again.fence,
        Fence {
            version: 3,
            horizon: 1_000
        }
    );
    assert_eq!(again.quiet, Duration::ZERO, "the fence was there");
    // The earlier holder's late write finds the fence taken over.
    assert_eq!(
        store.fence(&ha, fence, 9_000).await.unwrap(),
        FenceWrite::Lost
    );
    store.release(&hb).await.unwrap();
}

/// A full range answers `Full`; a claim that expires frees its id.
#[tokio::test(flavor = "multi_thread")]
async fn a_full_range_refuses_until_a_claim_expires() {
    let Some(cluster) = Cluster::start(Setup::new(1)) else {
        return;
    };
    let store = store(&cluster);
    let short = Duration::from_millis(1_500);
    let first = store.claim("p", 5, 5, short, "a").await.unwrap();
    assert!(matches!(first, Claim::Held(ref c) if c.node == 5));
    assert!(matches!(
        store.claim("p", 5, 5, short, "b").await.unwrap(),
        Claim::Full { .. }
    ));
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(matches!(
        store.claim("p", 5, 5, short, "b").await.unwrap(),
        Claim::Held(_)
    ));
}

/// A wrong cluster name is refused at once, naming it; no member at the
/// address is `Unreachable`.
#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_cluster_or_no_member_fails_at_once() {
    let Some(cluster) = Cluster::start(Setup::new(1)) else {
        return;
    };
    let mut config = Config::new(cluster.addresses());
    config.cluster = "not-this-one".into();
    let e = Client::new(config).unwrap().connect().await.unwrap_err();
    assert!(matches!(e, Error::Refused { .. }), "{e}");
    assert!(e.to_string().contains("wrong cluster name"), "{e}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = closed.local_addr().unwrap().to_string();
    drop(closed);
    let e = Client::new(Config::new([address]))
        .unwrap()
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Unreachable { .. }), "{e}");
}

/// With a backup of every partition, a member killed loses no record:
/// each holder renews (its client moves to the members left), a claim of
/// a held id finds it held, and every fence stands; twice over, once the
/// cluster has made new backups. (Two members lost before then may take a
/// partition with both copies: the lost records case below.)
#[tokio::test(flavor = "multi_thread")]
async fn a_member_crash_with_backups_loses_nothing() {
    let Some(mut cluster) = Cluster::start(Setup::new(3)) else {
        return;
    };
    let store = store(&cluster);
    let mut holders = fenced(&store, "crash", 8, 1_000).await;
    for (killed, left) in [(0, 2), (1, 1)] {
        cluster.kill_and_settle(killed, left);
        for (h, fence) in &mut holders {
            assert_eq!(
                store.renew(h).await.unwrap(),
                Renewal::Alive(TTL),
                "node {}",
                h.node
            );
            let horizon = fence.horizon + 1;
            let written = store.fence(h, *fence, horizon).await.unwrap();
            assert_eq!(
                written,
                FenceWrite::Stored(Fence {
                    version: fence.version + 1,
                    horizon
                })
            );
            *fence = Fence {
                version: fence.version + 1,
                horizon,
            };
        }
        let full = store.claim("crash", 0, 7, TTL, "late").await.unwrap();
        assert!(matches!(full, Claim::Full { .. }), "{full:?}");
    }
}

/// Without backups, a member killed takes the records of its partitions:
/// a holder whose claim or fence went learns it (`Gone`, `Lost`), and a
/// node id claimed again either finds its fence as last stored or asks
/// for a quiet, never a lower horizon without one.
#[tokio::test(flavor = "multi_thread")]
async fn without_backups_a_lost_record_is_never_a_lower_horizon() {
    let Some(mut cluster) = Cluster::start(Setup {
        backups: 0,
        ..Setup::new(3)
    }) else {
        return;
    };
    let store = store(&cluster);
    let stored = fenced(&store, "lost", 24, 1_000_000).await;
    cluster.kill(2);
    cluster.wait_size(2);
    let mut gone = 0;
    for (h, _) in &stored {
        if store.renew(h).await.unwrap() == Renewal::Gone {
            gone += 1;
            store.release(h).await.unwrap();
        }
    }
    assert!(gone > 0, "a third of the partitions went with the member");
    let (mut quiet, mut kept) = (0, 0);
    while let Claim::Held(c) = store.claim("lost", 0, 23, TTL, "next").await.unwrap() {
        let (_, fence) = &stored[c.node as usize];
        if c.quiet > Duration::ZERO {
            quiet += 1;
        } else {
            assert_eq!(c.fence.horizon, fence.horizon, "node {}", c.node);
            kept += 1;
        }
    }
    assert_eq!(quiet + kept, gone, "every freed id claimed again");
    eprintln!(
        "{gone} claims lost: {quiet} with their fence lost too (a quiet), {kept} with it kept"
    );
}

/// The map destroyed (as by an operator): holders find their claims gone,
/// and the next claims, which find no fence, ask for a quiet.
#[tokio::test(flavor = "multi_thread")]
async fn a_destroyed_map_stops_its_holders_and_quiets_the_next() {
    let Some(cluster) = Cluster::start(Setup::new(2)) else {
        return;
    };
    let store = store(&cluster);
    let c = claim(&store, "wiped", 0, 3).await;
    let h = held("wiped", &c);
    let FenceWrite::Stored(fence) = store.fence(&h, c.fence, 77).await.unwrap() else {
        panic!("not stored")
    };
    cluster.admin(&["destroy", kguid_hazelcast::MAP]);
    assert_eq!(store.renew(&h).await.unwrap(), Renewal::Gone);
    assert_eq!(store.fence(&h, fence, 78).await.unwrap(), FenceWrite::Lost);
    let next = claim(&store, "wiped", 0, 3).await;
    assert_eq!(next.node, 0);
    assert_eq!(next.quiet, 2 * TTL);
}

/// A write whose backup does not acknowledge it (its member paused) does
/// not count, though its owner applied it: claims fail with `Backups` (or
/// time out, where the paused member owns the key), as long as the
/// members left have not dropped the paused one (after that they keep no
/// backup, and writes succeed again: the availability that split-brain
/// protection trades away). Once the member is back, claims succeed.
#[tokio::test(flavor = "multi_thread")]
async fn a_write_without_its_backups_acknowledgement_does_not_count() {
    let Some(cluster) = Cluster::start(Setup {
        detection: Duration::from_secs(60),
        ..Setup::new(2)
    }) else {
        return;
    };
    let mut config = Config::new(cluster.addresses());
    config.cluster = cluster.name.clone();
    let store = HazelcastStore::new(Client::new(config).unwrap());
    // Connected to both members before one pauses.
    claim(&store, "acks", 100, 100).await;
    cluster.signal(1, libc::SIGSTOP);
    let mut n = 0;
    loop {
        match store.claim("acks", n, n, TTL, "test").await {
            Ok(held) => panic!("node {n} claimed without its backup: {held:?}"),
            // The paused member's keys.
            Err(kguid_lease::Error::Timeout) => {}
            Err(kguid_lease::Error::Store(e)) => match e.downcast_ref::<Error>() {
                Some(Error::Backups {
                    acked: 0,
                    expected: 1,
                }) => break,
                // The paused member's connection, closed for want of pings.
                Some(Error::Closed { .. }) => {}
                other => panic!("node {n}: {other:?}"),
            },
            Err(e) => panic!("node {n}: {e}"),
        }
        n += 1;
        assert!(n < 24, "no key of the running member's");
    }
    cluster.signal(1, libc::SIGCONT);
    let mut tries = 0;
    let again = loop {
        if let Ok(Claim::Held(c)) = store.claim("acks", 200, 200, TTL, "test").await {
            break c;
        }
        tries += 1;
        assert!(tries < 30, "no claim once the member is back");
    };
    assert_eq!(again.node, 200);
}

/// A member's wall clock stepped 25 s forward, then 25 s behind real time
/// (libfaketime), within the members' failure detection (60 s here; a
/// larger step splits the cluster, as the fault harness shows): the claims
/// it owns expire early, then late, and no horizon is ever lower. Forward,
/// a claim it owns is gone at once, so its node id is claimed again while
/// its holder lives; but the claim takes the fence over as the holder left
/// it (the same horizon, the next version, no quiet), so the successor
/// starts after the holder's ids, and the holder's next writes find its
/// claim gone (`Gone`) and the fence changed (`Lost`). Back, the claims it
/// took while ahead outlive their TTL unrenewed (their node ids stay
/// taken: availability, not safety), until released.
#[tokio::test(flavor = "multi_thread")]
async fn a_members_skewed_clock_expires_claims_early_or_late_never_below_a_fence() {
    let Some(cluster) = Cluster::start(Setup {
        faketime: true,
        detection: Duration::from_secs(60),
        ..Setup::new(3)
    }) else {
        return;
    };
    let store = store(&cluster);
    let holders = fenced(&store, "skew", 24, 5_000).await;
    cluster.step_clock(0, 25_000);
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let mut taken = Vec::new();
    while let Claim::Held(c) = store.claim("skew", 0, 23, TTL, "next").await.unwrap() {
        let (_, fence) = holders[c.node as usize];
        assert_eq!(c.quiet, Duration::ZERO, "node {}", c.node);
        assert_eq!(
            c.fence,
            Fence {
                version: fence.version + 1,
                horizon: fence.horizon
            },
            "node {}",
            c.node
        );
        taken.push(held("skew", &c));
    }
    assert!(
        !taken.is_empty() && taken.len() < 24,
        "the skewed member owns some claims, not all: {}",
        taken.len()
    );
    for (h, fence) in &holders {
        let lost = taken.iter().any(|t| t.node == h.node);
        let renewal = store.renew(h).await.unwrap();
        let written = store.fence(h, *fence, fence.horizon + 1).await.unwrap();
        match lost {
            true => assert_eq!((renewal, written), (Renewal::Gone, FenceWrite::Lost)),
            false => {
                assert_eq!(renewal, Renewal::Alive(TTL), "node {}", h.node);
                assert!(matches!(written, FenceWrite::Stored(_)), "{written:?}");
            }
        }
    }
    cluster.step_clock(0, -25_000);
    tokio::time::sleep(TTL + Duration::from_secs(2)).await;
    for t in &taken {
        let late = store
            .claim("skew", t.node, t.node, TTL, "late")
            .await
            .unwrap();
        assert!(
            matches!(late, Claim::Full { .. }),
            "node {}: {late:?}",
            t.node
        );
        store.release(t).await.unwrap();
        let again = claim(&store, "skew", t.node, t.node).await;
        assert_eq!(again.quiet, Duration::ZERO);
    }
}
