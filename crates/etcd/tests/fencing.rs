//! A node id passing from one holder to the next: the fencing horizon and
//! the safety margin, against a real etcd.

mod support;

use guid::Id;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use guid::{Clock, Guid, TimeSource, WallClock};
use kguid_etcd::{Error, NodeLease, Options, WhenFull};
use support::{Proxy, assert_unique};

/// A holder whose wall clock runs 5 s fast is killed (dropped without a
/// release); the next holder, with a correct clock, gets the id after the
/// lease expires and still issues only ids later than every one the old
/// holder made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_holder_starts_after_every_id_of_a_killed_one() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let client = etcd.client().await;
    let prefix = "/fleet/killed";
    let ttl = Duration::from_secs(1);

    let old = NodeLease::acquire(client.clone(), prefix, 0..1, ttl)
        .await
        .unwrap();
    let fast = || WallClock.now() + 5_000_000_000;
    let old_clock = old.clock_with(Clock::builder().time(fast)).await.unwrap();
    let mut ids: Vec<Guid> = Vec::new();
    let until = Instant::now() + Duration::from_millis(300);
    while Instant::now() < until && ids.len() < 200_000 {
        ids.push(old_clock.g().expect("the holder issues"));
    }
    let old_max = *ids.iter().max().unwrap();
    assert!(
        old_max.epoch() > SystemTime::now() + Duration::from_secs(4),
        "ids ahead"
    );

    let killed = Instant::now();
    drop(old); // a crash: no revoke, the keep-alive stops
    assert!(matches!(old_clock.g(), Err(Error::Lost)));

    let new = Options::default()
        .when_full(WhenFull::Wait(Duration::from_secs(10)))
        .acquire(client.clone(), prefix, 0..1, ttl)
        .await
        .unwrap();
    let waited = killed.elapsed();
    assert_eq!(new.node(), 0);
    assert!(
        // The last keep-alive may have gone out one interval (TTL / 4) before the kill.
        waited >= ttl * 3 / 4 - Duration::from_millis(50),
        "granted only after the lease expired: {waited:?}"
    );
    assert!(
        new.not_before() >= old_max.epoch(),
        "horizon {:?} is later than every old id, the last at {:?}",
        new.not_before(),
        old_max.epoch()
    );
    let new_clock = new.clock().await.unwrap();
    let first = new_clock.g().unwrap();
    assert!(first > old_max && first.epoch() > old_max.epoch());
    for _ in 0..10_000 {
        ids.push(new_clock.g().unwrap());
    }
    let checked = assert_unique(&mut ids);
    println!("killed holder: {checked} ids, 0 duplicates, new holder granted after {waited:?}");
    new.release().await.unwrap();
}

/// A holder cut off from etcd stops issuing ids at least the safety
/// margin before etcd grants its node id to another process, and learns
/// it lost the lease once it can reach etcd again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_off_holder_stops_a_margin_before_another_is_granted() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let proxy = Proxy::start(etcd.port()).await;
    let prefix = "/fleet/margin";
    let ttl = Duration::from_secs(2);
    let margin = Duration::from_millis(600);
    let options = Options::default()
        .margin(margin)
        .interval(Duration::from_millis(300))
        .timeout(Duration::from_millis(300));

    let cut_off = support::connect(&proxy.endpoint()).await;
    let a = options.acquire(cut_off, prefix, 0..1, ttl).await.unwrap();
    assert_eq!(a.ttl(), ttl);
    let clock = Arc::new(a.clock().await.unwrap());

    // A issues ids without pause and notes when the last one was made.
    let stop = Arc::new(AtomicBool::new(false));
    let issuer = {
        let (clock, stop) = (clock.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut ids = Vec::new();
            let mut last_ok = Instant::now();
            let mut refusals = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                match clock.g() {
                    Ok(id) => {
                        ids.push(id);
                        last_ok = Instant::now();
                    }
                    Err(e) => {
                        refusals.push(e.to_string());
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
                if ids.len() % 64 == 0 {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
            (ids, last_ok, refusals)
        })
    };
    tokio::time::sleep(Duration::from_millis(700)).await;
    let cut = Instant::now();
    proxy.cut();

    // B, connected directly, waits for the id.
    let b = options
        .clone()
        .when_full(WhenFull::Wait(Duration::from_secs(10)))
        .acquire(etcd.client().await, prefix, 0..1, ttl)
        .await
        .unwrap();
    let granted = Instant::now();
    stop.store(true, Ordering::Relaxed);
    let (mut ids, last_ok, refusals) = issuer.join().unwrap();

    assert!(last_ok > cut, "A kept issuing while its lease was valid");
    assert!(
        last_ok - cut <= ttl - margin,
        "A stopped within TTL - margin of the cut"
    );
    let gap = granted - last_ok;
    assert!(
        gap >= margin - Duration::from_millis(50),
        "A's last id came {gap:?} before B's grant; the margin is {margin:?}"
    );
    assert!(
        refusals.iter().all(|r| r == &Error::Expired.to_string()),
        "{refusals:?}"
    );
    assert!(matches!(clock.g(), Err(Error::Expired)));

    // Back in touch, A finds its claim gone and knows it for good.
    proxy.heal().await;
    let until = Instant::now() + Duration::from_secs(10);
    while !matches!(clock.g(), Err(Error::Lost)) {
        assert!(Instant::now() < until, "A never learned it lost the lease");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let b_clock = b.clock().await.unwrap();
    let a_max = *ids.iter().max().unwrap();
    let b_first = b_clock.g().unwrap();
    assert!(b_first > a_max, "B starts after A's horizon");
    ids.push(b_first);
    for _ in 0..10_000 {
        ids.push(b_clock.g().unwrap());
    }
    let checked = assert_unique(&mut ids);
    println!(
        "cut-off holder: stopped {:?} after the cut, {gap:?} before the next grant \
         (margin {margin:?}); {checked} ids, 0 duplicates",
        last_ok - cut
    );
    b.release().await.unwrap();
    drop(a);
}

/// The same hand-over with flake clocks (41/10/12): the next holder's
/// first id is past every id of the killed one, whose clock ran 3 s fast.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_flake_holder_starts_after_every_id_of_a_killed_one() {
    use guid::flake::{self, Layout};
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let client = etcd.client().await;
    let (prefix, ttl, layout) = ("/fleet/flake", Duration::from_secs(1), Layout::NOEQD);

    let old = NodeLease::acquire(client.clone(), prefix, 0..1024, ttl)
        .await
        .unwrap();
    let fast = || WallClock.now() + 3_000_000_000;
    let old_clock = old
        .flake_clock(flake::Clock::builder(layout).time(fast))
        .await
        .unwrap();
    let mut ids = vec![0u64; 50_000];
    for chunk in ids.chunks_mut(100) {
        old_clock.fill(chunk).expect("the holder issues");
    }
    let old_max = *ids.iter().max().unwrap();
    assert_eq!(
        layout.decompose(old_max).unwrap().node,
        u64::from(old.node())
    );
    drop(old);

    let new = Options::default()
        .when_full(WhenFull::Wait(Duration::from_secs(10)))
        .acquire(client.clone(), prefix, 0..1, ttl)
        .await
        .unwrap();
    assert_eq!(new.node(), 0);
    assert!(new.not_before() >= layout.time_of(old_max).unwrap());
    let new_clock = new
        .flake_clock(flake::Clock::builder(layout))
        .await
        .unwrap();
    let first = new_clock.next().unwrap();
    assert!(first > old_max, "{first} after {old_max}");
    ids.extend((0..10_000).map(|_| new_clock.next().unwrap()));
    let checked = assert_unique(&mut ids);
    println!("killed flake holder: {checked} ids, 0 duplicates");

    // A leased id that does not fit the layout's node bits is refused.
    let wide = Layout::snowcast(7).unwrap();
    let many = NodeLease::acquire(client.clone(), "/fleet/wide", 200..300, ttl)
        .await
        .unwrap();
    let refused = many.flake_clock(flake::Clock::builder(wide)).await;
    assert!(matches!(refused, Err(Error::Id(_))), "{refused:?}");
    new.release().await.unwrap();
}

/// A holder whose clocks run 2 s behind takes the node id over from one
/// with correct clocks that released it. Both its clocks start after every
/// id of the first and issue without a refusal while they are still
/// behind those ids, and while its flake ids run on past the horizon
/// stored at their start (the TTL ahead): the horizon is moved as ids
/// near it (the flake fills also wait as `pace` says, should they reach
/// it before etcd has stored the next).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_2s_behind_takes_over_and_is_never_refused() {
    use guid::flake::{self, Layout};
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let (prefix, ttl, layout) = ("/fleet/behind", Duration::from_secs(2), Layout::NOEQD);

    let a = NodeLease::acquire(etcd.client().await, prefix, 0..1, ttl)
        .await
        .unwrap();
    let a_flake = a.flake_clock(flake::Clock::builder(layout)).await.unwrap();
    let a_clock = a.clock().await.unwrap();
    let mut a_ids = vec![0u64; 25_500];
    let mut a_guids = vec![Guid::default(); 25_500];
    for (f, g) in a_ids.chunks_mut(255).zip(a_guids.chunks_mut(255)) {
        a_flake.fill(f).expect("A issues");
        a_clock.fill(g).expect("A issues");
    }
    a.release().await.unwrap();
    let a_last = *a_ids.iter().max().unwrap();
    let a_last_guid = *a_guids.iter().max().unwrap();
    let a_last_time = layout.time_of(a_last).unwrap().max(a_last_guid.epoch());

    const BEHIND: u64 = 2_000_000_000;
    let behind = || WallClock.now() - BEHIND;
    let b = NodeLease::acquire(etcd.client().await, prefix, 0..1, ttl)
        .await
        .unwrap();
    assert_eq!(b.node(), 0, "the same node id");
    let b_flake = b
        .flake_clock(flake::Clock::builder(layout).time(behind))
        .await
        .unwrap();
    let b_clock = b.clock_with(Clock::builder().time(behind)).await.unwrap();

    // Until B's clocks have caught up with A's ids and B's flake ids have
    // run more than the TTL past the first: every fill accepted, every id
    // later than the one before.
    let issuer = std::thread::spawn(move || {
        let b_now = || SystemTime::now() - Duration::from_nanos(BEHIND);
        let (mut prev, mut prev_guid) = (a_last, a_last_guid);
        let mut first = None;
        let (mut fills, mut refused) = (0u64, Vec::new());
        let mut ids = vec![0u64; 4096];
        let mut guids = vec![Guid::default(); 4096];
        let ran_past = |first: Option<u64>, last: u64| {
            first.is_some_and(|f| {
                layout.time_of(last).unwrap() > layout.time_of(f).unwrap() + ttl + ttl / 10
            })
        };
        while b_now() <= a_last_time + Duration::from_millis(100) || !ran_past(first, prev) {
            fills += 1;
            let wait = b_flake.pace(ids.len());
            if !wait.is_zero() {
                std::thread::sleep(wait);
            }
            match b_flake.fill(&mut ids) {
                Ok(()) => {
                    first.get_or_insert(ids[0]);
                    for &id in &ids {
                        assert!(id > prev, "{id} after {prev}");
                        prev = id;
                    }
                }
                Err(e) => refused.push(e.to_string()),
            }
            match b_clock.fill(&mut guids) {
                Ok(()) => {
                    for &g in &guids {
                        assert!(g > prev_guid, "{g} after {prev_guid}");
                        prev_guid = g;
                    }
                }
                Err(e) => refused.push(e.to_string()),
            }
        }
        (first, prev, fills, refused)
    });
    let (first, last, fills, refused) = issuer.join().unwrap();
    assert!(refused.is_empty(), "refused: {refused:?}");
    let first = first.expect("B issued");
    assert!(
        first > a_last,
        "B's first flake id {first} after A's {a_last}"
    );
    let ran = layout
        .time_of(last)
        .unwrap()
        .duration_since(layout.time_of(first).unwrap());
    println!(
        "2 s behind: {fills} fills of 4,096 flake and 4,096 global ids, none refused, \
         0 duplicates; flake ids ran {:?} past the first",
        ran.unwrap_or_default()
    );
    b.release().await.unwrap();
}
