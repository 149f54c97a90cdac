//! Node ids leased from a real Redis: the store's contract, a restart of
//! the server, and values no lease wrote.

mod support;

use std::time::{Duration, Instant};

use kguid_lease::Error;
use kguid_lease::store::{Claim, Claimed, Fence, FenceWrite, Held, Renewal, Store};
use kguid_redis::RedisStore;
use support::Redis;

const TTL: Duration = Duration::from_secs(2);

/// A store on `server` that never waits after a restart (`grace` 0).
fn store(server: &Redis) -> RedisStore {
    RedisStore::open(&server.url())
        .expect("url")
        .grace(Duration::ZERO)
        .poll(Duration::from_millis(20))
}

async fn claim(store: &RedisStore, prefix: &str, first: u32, last: u32) -> Claimed {
    match store.claim(prefix, first, last, TTL, "test").await {
        Ok(Claim::Held(claimed)) => claimed,
        other => panic!("no claim: {other:?}"),
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

fn ttl_ms(server: &Redis, key: &str) -> i64 {
    redis::cmd("PTTL")
        .arg(key)
        .query(&mut server.connection())
        .expect("PTTL")
}

/// Holders get the lowest free ids, each with a greater token; a full
/// range answers `Full` and a wait for a release ends when one expires.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_take_the_lowest_free_ids_with_increasing_tokens() {
    let Some(server) = support::redis() else {
        return;
    };
    let store = store(&server);
    let a = claim(&store, "fleet", 0, 2).await;
    let b = claim(&store, "fleet", 0, 2).await;
    let c = claim(&store, "fleet", 0, 2).await;
    assert_eq!((a.node, b.node, c.node), (0, 1, 2));
    assert!(a.token < b.token && b.token < c.token, "{a:?} {b:?} {c:?}");
    assert_eq!(a.ttl, TTL);
    assert_eq!(a.fence, Fence::default());
    let left = ttl_ms(&server, "fleet:node:1");
    assert!(
        left > 0 && left <= 2_000,
        "claim expires after the TTL: {left} ms"
    );

    let full = store.claim("fleet", 0, 2, TTL, "test").await.unwrap();
    assert_eq!(full, Claim::Full { seen: 0 });
    // Another range, another prefix: free.
    assert_eq!(claim(&store, "fleet", 3, 9).await.node, 3);
    assert_eq!(claim(&store, "other", 0, 2).await.node, 0);

    // Released in the middle: the gap is taken first.
    store.release(&held("fleet", &b)).await.unwrap();
    assert_eq!(claim(&store, "fleet", 0, 9).await.node, 1);

    // Nothing freed within the wait: false; a claim left to expire: true.
    let waited = Instant::now();
    let freed = store
        .wait_release("fleet", 0, 2, 0, Duration::from_millis(200))
        .await
        .unwrap();
    assert!(!freed);
    assert!(waited.elapsed() >= Duration::from_millis(200));
    let freed = store.wait_release("fleet", 0, 2, 0, TTL * 2).await.unwrap();
    assert!(freed, "a claim expires within the TTL without renewals");
    assert_eq!(claim(&store, "fleet", 0, 2).await.node, 0);
}

/// Ids are claimed window by window across a wide range: the lowest free
/// one, past a first window that is full.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wide_range_is_claimed_lowest_first_past_full_windows() {
    let Some(server) = support::redis() else {
        return;
    };
    let mut con = server.connection();
    for id in 0..1500 {
        let key = format!("wide:node:{id}");
        redis::cmd("HSET")
            .arg(&key)
            .arg(&["token", "7", "ttl", "60000", "holder", "x"][..])
            .exec(&mut con)
            .unwrap();
    }
    let store = store(&server);
    assert_eq!(claim(&store, "wide", 0, u32::MAX).await.node, 1500);
    assert_eq!(
        claim(&store, "wide", u32::MAX, u32::MAX).await.node,
        u32::MAX
    );
}

/// A renewal, a fence write and a release act only while the claim holds
/// the holder's token; the fence outlives the claim.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renewals_and_fence_writes_need_the_holders_token() {
    let Some(server) = support::redis() else {
        return;
    };
    let store = store(&server);
    let a = claim(&store, "p", 0, 0).await;
    let mine = held("p", &a);

    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(store.renew(&mine).await.unwrap(), Renewal::Alive(TTL));
    assert!(ttl_ms(&server, "p:node:0") > 1_900, "renewed for the TTL");

    let stored = match store.fence(&mine, Fence::default(), 1_000).await.unwrap() {
        FenceWrite::Stored(fence) => fence,
        other => panic!("{other:?}"),
    };
    assert_eq!(stored.horizon, 1_000);
    assert!(stored.version > 0);
    // Written against a fence since replaced: nothing written.
    assert_eq!(
        store.fence(&mine, Fence::default(), 900).await.unwrap(),
        FenceWrite::Moved(stored)
    );
    let next = match store.fence(&mine, stored, u64::MAX).await.unwrap() {
        FenceWrite::Stored(fence) => fence,
        other => panic!("{other:?}"),
    };
    assert!(next.version > stored.version);
    assert_eq!(next.horizon, u64::MAX, "Unix ns beyond 2^53 kept exactly");

    let stranger = Held {
        token: a.token + 1,
        ..mine.clone()
    };
    assert_eq!(store.renew(&stranger).await.unwrap(), Renewal::Gone);
    assert_eq!(
        store.fence(&stranger, next, 5).await.unwrap(),
        FenceWrite::Lost
    );
    store.release(&stranger).await.unwrap();
    assert_eq!(
        store.renew(&mine).await.unwrap(),
        Renewal::Alive(TTL),
        "kept"
    );

    store.release(&mine).await.unwrap();
    store.release(&mine).await.unwrap();
    assert_eq!(store.renew(&mine).await.unwrap(), Renewal::Gone);
    assert_eq!(store.fence(&mine, next, 5).await.unwrap(), FenceWrite::Lost);
    let b = claim(&store, "p", 0, 0).await;
    assert_eq!(b.fence, next, "the next holder reads the fence");
    assert!(b.token > a.token);
}

/// Keys holding what no lease wrote give typed errors, never a panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_no_lease_wrote_are_typed_errors() {
    let Some(server) = support::redis() else {
        return;
    };
    let store = store(&server);
    let mut con = server.connection();
    let mut set = |args: &[&str]| {
        redis::cmd("DEL").arg(args[1]).exec(&mut con).unwrap();
        redis::cmd(args[0]).arg(&args[1..]).exec(&mut con).unwrap();
    };
    let holding = |node| Held {
        prefix: "bad".into(),
        holder: "test".into(),
        node,
        token: 5,
    };

    // A claim that is a string, or a hash with a token that is no number.
    set(&["SET", "bad:node:0", "hello"]);
    corrupt(store.renew(&holding(0)).await, "bad:node:0");
    corrupt(store.release(&holding(0)).await, "bad:node:0");
    corrupt(store.claim("bad", 0, 0, TTL, "t").await, "bad:node:0");
    set(&["HSET", "bad:node:0", "token", "x5", "ttl", "2000"]);
    corrupt(store.renew(&holding(0)).await, "bad:node:0");
    set(&["HSET", "bad:node:0", "token", "5", "ttl", "-1"]);
    corrupt(store.renew(&holding(0)).await, "bad:node:0");
    corrupt(
        store.fence(&holding(0), Fence::default(), 1).await,
        "bad:node:0",
    );
    set(&["HSET", "bad:node:0", "token", "5", "ttl", "2000"]);
    assert_eq!(store.renew(&holding(0)).await.unwrap(), Renewal::Alive(TTL));

    // A fence whose horizon or version is no number, or that is a list.
    set(&["HSET", "bad:horizon:1", "ns", "soon", "version", "3"]);
    corrupt(store.claim("bad", 1, 1, TTL, "t").await, "bad:horizon:1");
    set(&["HSET", "bad:horizon:1", "ns", "12", "version", "-3"]);
    corrupt(store.claim("bad", 1, 1, TTL, "t").await, "bad:horizon:1");
    set(&["RPUSH", "bad:horizon:1", "12"]);
    corrupt(store.claim("bad", 1, 1, TTL, "t").await, "bad:horizon:1");
    set(&["HSET", "bad:horizon:1", "ns", "12", "version", "3"]);
    let claimed = claim(&store, "bad", 1, 1).await;
    assert_eq!(
        claimed.fence,
        Fence {
            version: 3,
            horizon: 12
        }
    );

    // A token counter that is no number, or too large to count on.
    set(&["SET", "bad:fence", "many"]);
    corrupt(store.claim("bad", 2, 2, TTL, "t").await, "bad:fence");
    set(&["SET", "bad:fence", "99999999999999999"]);
    corrupt(store.claim("bad", 2, 2, TTL, "t").await, "bad:fence");

    // A quiet period that never ends.
    let waiting = RedisStore::open(&server.url()).unwrap();
    set(&["SET", "bad:quiet", "1"]);
    corrupt(waiting.claim("bad", 3, 3, TTL, "t").await, "bad:quiet");

    // No server: the store's own error, typed.
    let nowhere = RedisStore::open("redis://127.0.0.1:1").unwrap();
    match nowhere.renew(&holding(0)).await {
        Err(Error::Store(e)) => assert!(e.downcast_ref::<kguid_redis::Error>().is_some()),
        other => panic!("{other:?}"),
    }
}

/// Asserts a [`Error::Corrupt`] naming `key`.
#[track_caller]
fn corrupt<T: std::fmt::Debug>(result: Result<T, Error>, key: &str) {
    match result {
        Err(Error::Corrupt { key: k }) => assert_eq!(k, key),
        other => panic!("{key}: {other:?}"),
    }
}

/// A restart without persistence empties the server: the holder's
/// renewal answers `Gone`, and claims wait out the grace, by which time
/// every holder from before has stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_restart_renewals_are_gone_and_claims_wait_the_grace() {
    let Some(mut server) = support::redis() else {
        return;
    };
    let grace = Duration::from_secs(2);
    let store = RedisStore::open(&server.url())
        .unwrap()
        .grace(grace)
        .poll(Duration::from_millis(20));
    // A server up for less than the grace takes no claim.
    let started = Instant::now();
    assert_eq!(
        store.claim("r", 0, 3, TTL, "t").await.unwrap(),
        Claim::Full { seen: 0 }
    );
    assert!(
        store
            .wait_release("r", 0, 3, 0, Duration::from_secs(5))
            .await
            .unwrap()
    );
    let a = claim(&store, "r", 0, 3).await;
    assert!(started.elapsed() >= grace / 2);
    assert_eq!(a.node, 0);

    server.restart();
    let restarted = Instant::now();
    assert_eq!(store.renew(&held("r", &a)).await.unwrap(), Renewal::Gone);
    assert_eq!(
        store.claim("r", 0, 3, TTL, "t").await.unwrap(),
        Claim::Full { seen: 0 }
    );
    assert!(
        store
            .wait_release("r", 0, 3, 0, Duration::from_secs(5))
            .await
            .unwrap()
    );
    let b = claim(&store, "r", 0, 3).await;
    let waited = restarted.elapsed();
    assert!(waited >= grace, "claims wait the grace: {waited:?}");
    assert!(b.token > a.token, "tokens keep increasing: {a:?} {b:?}");
    assert_eq!(
        b.fence,
        Fence::default(),
        "the horizon is gone with the data"
    );
}

/// With `appendonly yes` the claims and the fence survive a restart: the
/// holder renews on, and a new claim still waits the grace, since a
/// server may lose the last writes before a crash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persistent_server_keeps_claims_and_horizons_across_a_restart() {
    let Some(mut server) = support::redis_persistent() else {
        return;
    };
    let grace = Duration::from_secs(2);
    let store = RedisStore::open(&server.url())
        .unwrap()
        .grace(grace)
        .poll(Duration::from_millis(20));
    assert!(
        store
            .wait_release("s", 0, 3, 0, Duration::from_secs(5))
            .await
            .unwrap()
    );
    let a = claim(&store, "s", 0, 3).await;
    let mine = held("s", &a);
    let fence = match store.fence(&mine, a.fence, 42).await.unwrap() {
        FenceWrite::Stored(fence) => fence,
        other => panic!("{other:?}"),
    };

    server.restart();
    assert_eq!(store.renew(&mine).await.unwrap(), Renewal::Alive(TTL));
    assert_eq!(
        store.claim("s", 0, 3, TTL, "t").await.unwrap(),
        Claim::Full { seen: 0 }
    );
    store.release(&mine).await.unwrap();
    assert!(
        store
            .wait_release("s", 0, 0, 0, Duration::from_secs(5))
            .await
            .unwrap()
    );
    let b = claim(&store, "s", 0, 3).await;
    assert_eq!((b.node, b.fence), (0, fence), "the horizon survived");
}
