//! Node ids leased from a real Redis: the store's contract, leases that
//! pass a node id on, a restart of the server, a holder paused past its
//! TTL, and values no lease wrote.

mod support;

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use guid::flake::{self, Layout};
use guid::{TimeSource, WallClock};
use kguid_lease::store::{Claim, Claimed, Fence, FenceWrite, Held, Renewal, Store};
use kguid_lease::{Error, LeasedFlakeClock, NodeLease, Options, WhenFull};
use kguid_redis::RedisStore;
use support::{Redis, assert_unique};

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
/// renewal answers `Gone`, and a claim finds no fence, so it asks its
/// holder to wait out the grace, by when every holder from before has
/// stopped. A node id never fenced asks the same: the store cannot tell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_restart_renewals_are_gone_and_unfenced_claims_wait_the_grace() {
    let Some(mut server) = support::redis() else {
        return;
    };
    let grace = Duration::from_secs(2);
    let store = RedisStore::open(&server.url())
        .unwrap()
        .grace(grace)
        .poll(Duration::from_millis(20));
    let a = claim(&store, "r", 0, 3).await;
    assert_eq!((a.node, a.fence, a.quiet), (0, Fence::default(), grace));
    let fenced = match store.fence(&held("r", &a), a.fence, 42).await.unwrap() {
        FenceWrite::Stored(fence) => fence,
        other => panic!("{other:?}"),
    };
    store.release(&held("r", &a)).await.unwrap();
    let again = claim(&store, "r", 0, 3).await;
    assert_eq!((again.fence, again.quiet), (fenced, Duration::ZERO));

    server.restart();
    assert_eq!(
        store.renew(&held("r", &again)).await.unwrap(),
        Renewal::Gone
    );
    let b = claim(&store, "r", 0, 3).await;
    assert!(b.token > a.token, "tokens keep increasing: {a:?} {b:?}");
    assert_eq!(b.node, 0);
    assert_eq!(
        b.fence,
        Fence::default(),
        "the horizon is gone with the data"
    );
    assert_eq!(b.quiet, grace, "so the claim asks for the grace");
}

/// With `replicas(1, ..)` a horizon counts as stored only once the replica
/// holds it, and a write the replica cannot take fails: so a replica
/// promoted after a failover holds every horizon its holders issued ids
/// under, and its claims wait the grace (a new run id) for the claims it
/// may lack.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_replicas_a_promoted_replica_holds_every_stored_horizon() {
    let Some(primary) = support::redis() else {
        return;
    };
    let mut replica = primary.replica();
    let grace = Duration::from_secs(1);
    let store = RedisStore::open(&primary.url())
        .unwrap()
        .grace(grace)
        .replicas(1, Duration::from_millis(500));
    let a = claim(&store, "rep", 0, 3).await;
    let mine = held("rep", &a);
    let fence = match store.fence(&mine, a.fence, 42).await.unwrap() {
        FenceWrite::Stored(fence) => fence,
        other => panic!("{other:?}"),
    };
    let on_replica: Option<String> = redis::cmd("HGET")
        .arg("rep:horizon:0")
        .arg("ns")
        .query(&mut replica.connection())
        .unwrap();
    assert_eq!(
        on_replica.as_deref(),
        Some("42"),
        "stored only once replicated"
    );

    replica.promote();
    // The primary takes a write no replica acknowledges: not stored.
    let lonely = store.fence(&mine, fence, 43).await;
    assert!(matches!(lonely, Err(Error::Store(_))), "{lonely:?}");

    // The promoted replica: claims wait the grace, then find the horizon.
    let promoted = RedisStore::open(&replica.url())
        .unwrap()
        .grace(grace)
        .poll(Duration::from_millis(20));
    let asked = Instant::now();
    assert_eq!(
        promoted.claim("rep", 0, 0, TTL, "t").await.unwrap(),
        Claim::Full { seen: 0 },
        "the grace of a new run id"
    );
    assert!(
        promoted
            .wait_release("rep", 0, 0, 0, Duration::from_secs(5))
            .await
            .unwrap()
    );
    assert!(asked.elapsed() >= grace / 2);
    let b = claim(&promoted, "rep", 0, 0).await;
    assert_eq!(b.node, 0, "the old claim expired meanwhile");
    assert_eq!((b.fence.horizon, b.quiet), (42, Duration::ZERO));
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

/// The TTL of the leases below: ids stop 250 ms (the margin) before Redis
/// could expire an unrenewed claim.
const LEASE_TTL: Duration = Duration::from_secs(1);

/// An acquire that waits up to 10 s for the range to have a free id.
fn waiting() -> Options {
    Options::default().when_full(WhenFull::Wait(Duration::from_secs(10)))
}

fn layout() -> Layout {
    Layout::NOEQD
}

/// Ids of `clock` for `run`, taken one by one; refusals that pass (the
/// horizon being moved) are waited out.
fn issue(clock: &LeasedFlakeClock, run: Duration) -> Vec<u64> {
    let until = Instant::now() + run;
    let mut ids = Vec::new();
    while Instant::now() < until {
        match clock.next() {
            Ok(id) => ids.push(id),
            Err(Error::Horizon) => std::thread::sleep(clock.pace(1)),
            Err(e) => panic!("the holder is refused: {e}"),
        }
    }
    ids
}

fn time_of(id: u64) -> SystemTime {
    layout().time_of(id).expect("a flake id")
}

/// Issues ids on a thread until told to stop or refused for good
/// ([`Error::Lost`]).
struct Issuer {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Issued>,
}

/// What an [`Issuer`] made.
struct Issued {
    ids: Vec<u64>,
    /// When the last id was issued.
    last: Option<Instant>,
    /// Whether the lease was lost.
    lost: bool,
}

impl Issuer {
    fn start(clock: LeasedFlakeClock) -> Issuer {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut issued = Issued {
                ids: Vec::new(),
                last: None,
                lost: false,
            };
            while !flag.load(Ordering::Relaxed) {
                match clock.next() {
                    Ok(id) => {
                        issued.ids.push(id);
                        issued.last = Some(Instant::now());
                    }
                    Err(Error::Lost) => {
                        issued.lost = true;
                        break;
                    }
                    // Expired or at the horizon: it may pass.
                    Err(_) => {}
                }
                std::thread::sleep(Duration::from_micros(50));
            }
            issued
        });
        Issuer { stop, thread }
    }

    fn stop(self) -> Issued {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("issuer")
    }
}

/// Two holders get the two lowest ids; a third is refused, or waits and
/// gets the id that the first releases.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn holders_get_distinct_lowest_ids_and_a_full_range_refuses_or_waits() {
    let Some(server) = support::redis() else {
        return;
    };
    let a = NodeLease::acquire(store(&server), "two", 0..2, LEASE_TTL)
        .await
        .unwrap();
    let b = NodeLease::acquire(store(&server), "two", 0..2, LEASE_TTL)
        .await
        .unwrap();
    assert_eq!((a.node(), b.node()), (0, 1));
    assert!(a.token() < b.token());
    let refused = NodeLease::acquire(store(&server), "two", 0..2, LEASE_TTL).await;
    assert!(
        matches!(refused, Err(Error::Full { first: 0, last: 1 })),
        "{refused:?}"
    );

    let third = tokio::spawn({
        let url = server.url();
        async move {
            let store = RedisStore::open(&url).unwrap().grace(Duration::ZERO);
            waiting().acquire(store, "two", 0..2, LEASE_TTL).await
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!third.is_finished(), "waits while the range is full");
    a.release().await.unwrap();
    let c = third.await.unwrap().unwrap();
    assert_eq!(c.node(), 0);
    // Both holders renew past several TTLs and keep their ids.
    tokio::time::sleep(LEASE_TTL * 3).await;
    for lease in [&b, &c] {
        assert!(!matches!(lease.check(), Err(Error::Lost)), "{lease:?}");
    }
    b.release().await.unwrap();
    c.release().await.unwrap();
}

/// A released node id, and then an expired one, passes to a holder whose
/// first id is later than the horizon the previous holder left, and so
/// later than each of its ids, even when that holder's clock ran 3 s fast.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_successor_starts_after_the_horizon_of_a_released_or_expired_holder() {
    let Some(server) = support::redis() else {
        return;
    };
    let a = NodeLease::acquire(store(&server), "next", 0..1, LEASE_TTL)
        .await
        .unwrap();
    let clock_a = a
        .flake_clock(flake::Clock::builder(layout()))
        .await
        .unwrap();
    let mut ids = issue(&clock_a, Duration::from_millis(200));
    let horizon_a = a.horizon();
    a.release().await.unwrap();
    assert!(matches!(clock_a.next(), Err(Error::Lost)));

    // The next holder, with a clock 3 s fast, reads A's horizon.
    let b = NodeLease::acquire(store(&server), "next", 0..1, LEASE_TTL)
        .await
        .unwrap();
    assert_eq!(b.node(), 0);
    // A renewal may have moved A's horizon since it was read.
    assert!(b.not_before() >= horizon_a);
    let fast = || WallClock.now() + 3_000_000_000;
    let clock_b = b
        .flake_clock(flake::Clock::builder(layout()).time(fast))
        .await
        .unwrap();
    let b_ids = issue(&clock_b, Duration::from_millis(200));
    let first_b = time_of(b_ids[0]);
    assert!(first_b > horizon_a, "{first_b:?} after {horizon_a:?}");
    assert!(ids.iter().all(|&id| time_of(id) <= horizon_a));
    ids.extend(&b_ids);
    let horizon_b = b.horizon();
    let killed = Instant::now();
    drop(b); // a crash: no release, the renewals stop
    assert!(matches!(clock_b.next(), Err(Error::Lost)));

    // The third holder waits for B's claim to expire and starts after
    // B's horizon, which is ahead of the wall clock.
    let c = waiting()
        .acquire(store(&server), "next", 0..1, LEASE_TTL)
        .await
        .unwrap();
    let waited = killed.elapsed();
    assert_eq!(c.node(), 0);
    assert!(c.not_before() >= horizon_b);
    assert!(horizon_b > SystemTime::now(), "B's horizon is ahead");
    let clock_c = c
        .flake_clock(flake::Clock::builder(layout()))
        .await
        .unwrap();
    let c_ids = issue(&clock_c, Duration::from_millis(200));
    let first_c = time_of(c_ids[0]);
    assert!(first_c > horizon_b, "{first_c:?} after {horizon_b:?}");
    assert!(b_ids.iter().all(|&id| time_of(id) <= horizon_b));
    ids.extend(&c_ids);
    let checked = assert_unique(&mut ids);
    println!(
        "successors: {checked} ids, 0 duplicates; the expired id granted {waited:?} after the crash"
    );
    c.release().await.unwrap();
}

/// A holder of node id 0 under `prefix` on `server`, and its clock.
async fn holder(server: &Redis, prefix: &str, grace: Duration) -> (NodeLease, LeasedFlakeClock) {
    let store = RedisStore::open(&server.url())
        .unwrap()
        .grace(grace)
        .poll(Duration::from_millis(20));
    let lease = waiting()
        .acquire(store, prefix, 0..1, LEASE_TTL)
        .await
        .unwrap();
    let clock = lease
        .flake_clock(flake::Clock::builder(layout()))
        .await
        .unwrap();
    (lease, clock)
}

/// Ways a Redis loses a holder's claim and horizon under it.
#[derive(Clone, Copy, Debug)]
enum Loss {
    /// A restart without persistence.
    Restart,
    /// `FLUSHALL`.
    Wipe,
    /// The node id's claim and horizon deleted (an eviction, an operator).
    Keys,
}

/// Redis loses the claim and the horizon of a holder that issues ids: a
/// new holder is granted the node id at once, but issues nothing until
/// the grace has passed, by when the old holder has learned that its claim
/// is gone and stopped; its ids start after the old one's. No id is
/// issued twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_claim_and_horizon_repeat_no_id() {
    let Some(mut server) = support::redis() else {
        return;
    };
    let grace = LEASE_TTL * 2;
    for loss in [Loss::Restart, Loss::Wipe, Loss::Keys] {
        let prefix = format!("lost-{loss:?}");
        let (_a, clock_a) = holder(&server, &prefix, grace).await;
        let issuer = Issuer::start(clock_a);
        // The first holder of a node id waits the grace too.
        tokio::time::sleep(grace + Duration::from_millis(300)).await;

        match loss {
            Loss::Restart => server.restart(),
            Loss::Wipe => redis::cmd("FLUSHALL")
                .query::<()>(&mut server.connection())
                .unwrap(),
            Loss::Keys => redis::cmd("DEL")
                .arg(format!("{prefix}:node:0"))
                .arg(format!("{prefix}:horizon:0"))
                .query::<()>(&mut server.connection())
                .unwrap(),
        }
        let lost = Instant::now();
        // Its clock is built once the quiet is over.
        let (b, clock_b) = holder(&server, &prefix, grace).await;
        assert_eq!(b.node(), 0, "{loss:?}: the node id is granted again");
        let mut b_ids = Vec::new();
        let mut first_b = None;
        while lost.elapsed() < grace + Duration::from_millis(500) {
            match clock_b.next() {
                Ok(id) => {
                    first_b.get_or_insert_with(Instant::now);
                    b_ids.push(id);
                }
                Err(Error::Unfenced { .. } | Error::Horizon) => {}
                Err(e) => panic!("{loss:?}: the new holder is refused: {e}"),
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        let first_b = first_b.expect("the new holder issues after the grace");

        let a_issued = issuer.stop();
        assert!(
            a_issued.lost,
            "{loss:?}: the holder learned that its claim is gone"
        );
        let last_a = a_issued.last.expect("ids before the loss");
        assert!(
            last_a < lost + LEASE_TTL,
            "{loss:?}: ids stop within the TTL: the last {:?} after the loss",
            last_a.saturating_duration_since(lost)
        );
        assert!(last_a < first_b, "{loss:?}: the old holder stopped first");
        assert!(first_b >= lost + grace, "{loss:?}: ids within the grace");
        let (last_id, first_id) = (*a_issued.ids.last().unwrap(), b_ids[0]);
        assert!(
            time_of(first_id) > time_of(last_id),
            "{loss:?}: ids in order"
        );
        let mut ids = a_issued.ids;
        ids.extend(b_ids);
        let checked = assert_unique(&mut ids);
        println!(
            "{loss:?}: the holder's last id {:?} after the loss, the next holder's first {:?} after it; {checked} ids, 0 duplicates",
            last_a.saturating_duration_since(lost),
            first_b - lost
        );
        b.release().await.unwrap();
    }
}

/// With `appendonly yes` a restart keeps the claims and the horizons: the
/// holder renews on and keeps its id, a new holder gets the next one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_keeps_its_id_across_a_restart_with_persistence() {
    let Some(mut server) = support::redis_persistent() else {
        return;
    };
    let store = |server: &Redis| {
        RedisStore::open(&server.url())
            .unwrap()
            .grace(LEASE_TTL * 2)
            .poll(Duration::from_millis(20))
    };
    let a = waiting()
        .acquire(store(&server), "kept", 0..2, LEASE_TTL)
        .await
        .unwrap();
    let clock_a = a
        .flake_clock(flake::Clock::builder(layout()))
        .await
        .unwrap();
    let issuer = Issuer::start(clock_a);
    tokio::time::sleep(Duration::from_millis(300)).await;

    server.restart();
    let restarted = Instant::now();
    let b = waiting()
        .acquire(store(&server), "kept", 0..2, LEASE_TTL)
        .await
        .unwrap();
    assert_eq!((a.node(), b.node()), (0, 1));
    tokio::time::sleep(LEASE_TTL).await;
    let a_issued = issuer.stop();
    assert!(!a_issued.lost, "still held");
    assert!(
        a_issued.last.is_some_and(|t| t > restarted),
        "ids resumed after the restart"
    );
    let mut ids = a_issued.ids;
    let checked = assert_unique(&mut ids);
    println!("restart with persistence: the holder kept its id, {checked} ids, 0 duplicates");
    a.release().await.unwrap();
    b.release().await.unwrap();
}

/// Where the paused holder's child writes its ids, and the Redis it uses.
const CHILD_URL: &str = "KGUID_REDIS_CHILD_URL";
const CHILD_OUT: &str = "KGUID_REDIS_CHILD_OUT";

/// A holder in a child process is stopped (SIGSTOP) past its TTL while
/// another process is granted its node id and issues ids, then continued
/// (SIGCONT): it learns its lease is lost and issues no id later than its
/// horizon, where the new holder's ids begin; no id is issued twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_holder_issues_nothing_past_its_horizon_once_continued() {
    let Some(server) = support::redis() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ids");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "paused_holder_child", "--nocapture"])
        .env(CHILD_URL, server.url())
        .env(CHILD_OUT, &out)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the child holder");
    let pid = i32::try_from(child.id()).unwrap();
    let started = Instant::now();
    while std::fs::metadata(&out).map_or(0, |m| m.len()) < 8_000 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the child issues ids"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // SAFETY: signals to the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    let stopped = Instant::now();
    let b = waiting()
        .acquire(store(&server), "paused", 0..1, LEASE_TTL)
        .await
        .unwrap();
    let granted = stopped.elapsed();
    assert_eq!(b.node(), 0);
    let horizon_a = b.not_before();
    let clock_b = b
        .flake_clock(flake::Clock::builder(layout()))
        .await
        .unwrap();
    let issuer = Issuer::start(clock_b);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
    let stdout = tokio::task::spawn_blocking(move || {
        let mut text = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        let status = child.wait().unwrap();
        (text, status)
    });
    let (text, status) = tokio::time::timeout(Duration::from_secs(30), stdout)
        .await
        .expect("the child ends once it learns its lease is lost")
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let b_issued = issuer.stop();
    assert!(status.success(), "child: {status}\n{text}");
    let summary = text
        .lines()
        .find(|l| l.starts_with("child:"))
        .unwrap_or_else(|| panic!("the child's summary in\n{text}"));
    assert!(summary.contains("ended Lost"), "{summary}");

    let bytes = std::fs::read(&out).unwrap();
    let a_ids: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert!(a_ids.iter().all(|&id| time_of(id) <= horizon_a));
    assert!(b_issued.ids.iter().all(|&id| time_of(id) > horizon_a));
    let b_set: std::collections::HashSet<u64> = b_issued.ids.iter().copied().collect();
    let duplicates = a_ids.iter().filter(|id| b_set.contains(id)).count();
    assert_eq!(duplicates, 0);
    let mut ids = a_ids.clone();
    ids.extend(&b_issued.ids);
    assert_unique(&mut ids);
    println!(
        "paused holder: {} ids, then {} of the next holder (granted {granted:?} after the stop), {duplicates} duplicates; {summary}",
        a_ids.len(),
        b_issued.ids.len()
    );
    b.release().await.unwrap();
}

/// The holder that the test above pauses: runs only when that test starts
/// it. It issues ids, writing each to a file, until its lease is lost,
/// and reports its longest stall and the ids it issued after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paused_holder_child() {
    let (Some(url), Some(out)) = (std::env::var_os(CHILD_URL), std::env::var_os(CHILD_OUT)) else {
        return;
    };
    let store = RedisStore::open(url.to_str().unwrap())
        .unwrap()
        .grace(Duration::ZERO);
    let lease = NodeLease::acquire(store, "paused", 0..1, LEASE_TTL)
        .await
        .unwrap();
    let clock = lease
        .flake_clock(flake::Clock::builder(layout()))
        .await
        .unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    let started = Instant::now();
    let (mut prev, mut stall) = (started, Duration::ZERO);
    let (mut count, mut after) = (0u64, 0u64);
    let ended = loop {
        let now = Instant::now();
        if now - prev > stall {
            stall = now - prev;
            after = 0;
        }
        prev = now;
        match clock.next() {
            Ok(id) => {
                std::io::Write::write_all(&mut file, &id.to_le_bytes()).unwrap();
                count += 1;
                after += 1;
                if count % 1_000 == 0 {
                    std::io::Write::flush(&mut file).unwrap();
                }
            }
            Err(Error::Lost) => break "Lost",
            Err(_) => {}
        }
        if started.elapsed() > Duration::from_secs(30) {
            break "by time";
        }
        std::thread::sleep(Duration::from_micros(50));
    };
    std::io::Write::flush(&mut file).unwrap();
    println!(
        "child: {count} ids, longest stall {stall:?} with {after} ids after it, ended {ended}"
    );
}
