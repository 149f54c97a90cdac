//! Ids from real Redis servers: three shards, threads, a server killed.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use guid::flake::Layout;
use kguid_redis::script::{self, Keys, Reply};
use kguid_redis::{Config, Error, Generator};
use support::{Redis, assert_unique};

/// 2024-01-01T00:00:00Z.
fn layout() -> Layout {
    Layout::redis(UNIX_EPOCH + Duration::from_secs(1_704_067_200))
}

/// Three servers with shard ids 1, 2, 3.
fn three() -> Option<(Vec<Redis>, Arc<Generator>)> {
    let servers: Vec<Redis> = (0..3).map(|_| support::redis()).collect::<Option<_>>()?;
    let config = Config::new(layout());
    for (shard, server) in (1..).zip(&servers) {
        config.set_shard(&server.url(), shard).expect("set shard");
    }
    let urls: Vec<String> = servers.iter().map(Redis::url).collect();
    Some((servers, Arc::new(config.connect(&urls).expect("generator"))))
}

/// Ids of one batch with the wall time just before and after it was made.
struct Stamped {
    ids: Vec<u64>,
    before: SystemTime,
    after: SystemTime,
}

/// Asserts every id decodes to one of `shards` and to a time within 5 ms
/// of when it was asked for.
fn assert_decodes(batches: &[Stamped], shards: &[u64]) {
    let layout = layout();
    let slack = Duration::from_millis(5);
    for batch in batches {
        for &id in &batch.ids {
            let parts = layout.decompose(id).expect("a flake id");
            assert!(shards.contains(&parts.node), "shard {} of {id}", parts.node);
            let t = layout.time_of(id).expect("time");
            assert!(
                t + slack >= batch.before && t <= batch.after + slack,
                "time of {id}"
            );
        }
    }
}

/// Four threads take 100,000 ids each, in batches of 100, from three
/// servers round-robin: no duplicate; every id carries shard 1, 2 or 3
/// and the time it was made; every shard served.
#[test]
fn four_threads_take_400_000_unique_ids_from_three_shards() {
    let Some((_servers, ids)) = three() else {
        return;
    };
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let ids = ids.clone();
            std::thread::spawn(move || {
                (0..1_000)
                    .map(|_| {
                        let before = SystemTime::now();
                        let batch = ids.ids(100).expect("ids");
                        Stamped {
                            ids: batch,
                            before,
                            after: SystemTime::now(),
                        }
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let batches: Vec<Stamped> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert_decodes(&batches, &[1, 2, 3]);
    let mut all: Vec<u64> = batches.iter().flat_map(|b| b.ids.iter().copied()).collect();
    let per_shard = |s| {
        all.iter()
            .filter(|&&id| layout().decompose(id).unwrap().node == s)
            .count()
    };
    let counts = [per_shard(1), per_shard(2), per_shard(3)];
    assert!(
        counts.iter().all(|&c| c >= 50_000),
        "round-robin spread: {counts:?}"
    );
    let checked = assert_unique(&mut all);
    assert_eq!(checked, 400_000);
    println!(
        "3 shards, 4 threads: {checked} ids, 0 duplicates, per shard {counts:?}, {:?}",
        ids.stats()
    );
}

/// One of three servers is killed while four threads take ids: every
/// request still succeeds on the others, and no id repeats.
#[test]
fn a_killed_server_is_passed_over_without_a_failed_request() {
    let Some((mut servers, ids)) = three() else {
        return;
    };
    let killed = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (ids, killed) = (ids.clone(), killed.clone());
            std::thread::spawn(move || {
                let (mut after_kill, mut all, mut requests) = (Vec::new(), Vec::new(), 0);
                // Until 200 requests after the kill, however fast the
                // machine (bounded, should the kill never come).
                let deadline = std::time::Instant::now() + Duration::from_secs(60);
                while after_kill.len() < 200 * 100 && std::time::Instant::now() < deadline {
                    let was_killed = killed.load(Ordering::SeqCst);
                    let batch = ids.ids(100).expect("every request succeeds");
                    if was_killed {
                        after_kill.extend_from_slice(&batch);
                    }
                    all.extend(batch);
                    requests += 1;
                }
                (all, after_kill, requests)
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(150));
    servers[1].kill();
    killed.store(true, Ordering::SeqCst);
    let (mut all, mut after_kill, mut requests) = (Vec::new(), Vec::new(), 0);
    for t in threads {
        let (a, k, r) = t.join().unwrap();
        all.extend(a);
        after_kill.extend(k);
        requests += r;
    }
    assert!(!after_kill.is_empty(), "the run went on past the kill");
    let shards_after: Vec<u64> = after_kill
        .iter()
        .map(|&id| layout().decompose(id).unwrap().node)
        .collect();
    assert!(
        shards_after.iter().all(|&s| s != 2),
        "no id from the killed shard after the kill"
    );
    let stats = ids.stats();
    assert!(stats.errors >= 1, "the dead server was tried: {stats:?}");
    let checked = assert_unique(&mut all);
    assert_eq!(checked, requests * 100, "100 ids per request");
    println!("server killed mid-run: {checked} ids, 0 duplicates, {stats:?}");
}

/// A full millisecond (4,096 ids) leaves nothing for a second request in
/// the same millisecond: the script says so rather than repeat, and the
/// client, with one server, retries until the next millisecond.
#[test]
fn a_used_up_millisecond_is_refused_and_the_client_retries() {
    let Some(server) = support::redis() else {
        return;
    };
    let (layout, keys) = (layout(), Keys::new("guid"));
    let mut con = server.connection();
    keys.set_shard(&mut con, &layout, 9).unwrap();
    let mut seen = None;
    for _ in 0..1_000 {
        let full = script::run(&mut con, &keys, &layout, 4_096).unwrap();
        let next = script::run(&mut con, &keys, &layout, 1).unwrap();
        if let (Reply::Ids(full), Reply::Exhausted) = (full, next) {
            seen = Some(full);
            break;
        }
    }
    let full = seen.expect("two requests within one millisecond in 1,000 tries");
    // The first request got the rest of its millisecond (all of it, unless
    // the previous try's single id opened that millisecond): refused only
    // once nothing is left.
    assert_eq!(
        (full.first + full.count, full.shard),
        (4_096, 9),
        "{full:?}"
    );
    assert!(full.first <= 1, "{full:?}");

    // A request larger than what is left gets the rest of the millisecond.
    let ids = Config::new(layout).connect(&[server.url()]).unwrap();
    let mut all = vec![0u64; 100_000];
    for chunk in all.chunks_mut(4_096) {
        ids.fill(chunk).unwrap();
    }
    let stats = ids.stats();
    let checked = assert_unique(&mut all);
    println!("one server, full milliseconds: {checked} ids, 0 duplicates, {stats:?}");
}

/// The script cache flushed on the server (as after a restart): the client
/// loads the script again and goes on.
#[test]
fn a_flushed_script_is_loaded_again() {
    let Some(server) = support::redis() else {
        return;
    };
    let config = Config::new(layout());
    config.set_shard(&server.url(), 4).unwrap();
    let ids = config.connect(&[server.url()]).unwrap();
    let mut all = ids.ids(10).unwrap();
    redis::cmd("SCRIPT")
        .arg("FLUSH")
        .exec(&mut server.connection())
        .unwrap();
    all.extend(ids.ids(10).unwrap());
    assert_eq!(ids.stats().errors, 0, "NOSCRIPT handled within the request");
    assert_eq!(assert_unique(&mut all), 20);
}

/// Refusals end in typed errors after the bounded retries: a server whose
/// clock is behind the last millisecond used, a server without a shard id,
/// and a server that is down.
#[test]
fn refusals_end_in_typed_errors_after_five_retries() {
    let Some(mut server) = support::redis() else {
        return;
    };
    let layout = layout();
    let ids = Config::new(layout).connect(&[server.url()]).unwrap();
    let no_shard = ids.ids(1);
    assert!(
        matches!(&no_shard, Err(Error::Failed { attempts: 6, last }) if matches!(**last, Error::Redis(_))),
        "{no_shard:?}"
    );

    let mut con = server.connection();
    Keys::new("guid").set_shard(&mut con, &layout, 5).unwrap();
    let future_ms = (SystemTime::now() + Duration::from_secs(60))
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    redis::cmd("SET")
        .arg("guid:last")
        .arg(future_ms)
        .exec(&mut con)
        .unwrap();
    let started = Instant::now();
    let behind = ids.ids(1);
    assert!(
        matches!(&behind, Err(Error::Failed { attempts: 6, last }) if matches!(**last, Error::Behind)),
        "{behind:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "bounded retries"
    );
    let wide = Config::new(layout).set_shard(&server.url(), 1 << 10);
    assert!(
        matches!(
            wide,
            Err(Error::Shard {
                shard: 1024,
                max: 1023
            })
        ),
        "{wide:?}"
    );

    server.kill();
    let down = ids.ids(1);
    assert!(
        matches!(&down, Err(Error::Failed { attempts: 6, .. })),
        "{down:?}"
    );
}
