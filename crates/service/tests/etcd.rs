//! `guid-serve --etcd`: 64-bit node ids leased from a real etcd.
#![cfg(feature = "etcd")]

mod common;
#[path = "../../etcd/tests/support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::{
    ChildServer, Server, eventually, fetch, fetch_serving, http_get, nodes, raw, scrape,
    shifted_clock, try_ask,
};
use guid::flake::Layout;
use kguid_service::{Config, LeaseConfig, LeaseStore};
use serde_json::json;
use support::b64;

/// The flags of a server leasing its node id under `prefix` from the etcd
/// at `endpoint`, with a 2 s TTL.
fn lease_args<'a>(endpoint: &'a str, prefix: &'a str) -> [&'a str; 6] {
    ["--etcd", endpoint, "--prefix", prefix, "--lease-ttl", "2s"]
}

/// Two servers on one prefix lease distinct node ids and issue distinct
/// ids; after one stops gracefully, a third gets its node id back and
/// issues ids later than every id of the first.
#[tokio::test]
async fn servers_lease_distinct_nodes_and_a_released_node_comes_back_later() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let endpoint = etcd.endpoint();
    let args = lease_args(&endpoint, "/test/serve");
    let mut a = ChildServer::binary(&args, |_| {});
    let b = ChildServer::binary(&args, |_| {});
    let (ids_a, ids_b) = (fetch(a.addr), fetch(b.addr));
    let (node_a, node_b) = (nodes(&ids_a), nodes(&ids_b));
    assert_eq!(node_a.len(), 1, "one node per server: {node_a:?}");
    assert_eq!(node_b.len(), 1, "one node per server: {node_b:?}");
    assert_ne!(node_a, node_b, "two servers, two leased nodes");
    let mut all: Vec<u64> = ids_a.iter().chain(&ids_b).copied().collect();
    let checked = support::assert_unique(&mut all);
    assert_eq!(checked, 2 * 20 * 255);

    // SAFETY: kill only sends a signal to the child we started.
    unsafe {
        libc::kill(a.child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = a.child.wait().expect("wait for the first server");
    assert!(status.success(), "{status:?}");
    let log = a.rest_of_stderr();
    let node = node_a.first().copied().expect("a node");
    assert!(log.contains(&format!("node {node} leased")), "{log}");
    assert!(
        log.contains(&format!("lease of node {node} released")),
        "{log}"
    );

    let c = ChildServer::binary(&args, |_| {});
    let ids_c = fetch(c.addr);
    assert_eq!(nodes(&ids_c), node_a, "the released node id comes back");
    let last_a = ids_a.iter().max().copied().expect("ids");
    let first_c = ids_c.iter().min().copied().expect("ids");
    let time = |id| Layout::NOEQD.decompose(id).expect("id decodes").time;
    assert!(
        time(first_c) > time(last_a),
        "the new holder starts after the old one's ids: {} <= {}",
        time(first_c),
        time(last_a)
    );
    let mut all: Vec<u64> = all.into_iter().chain(ids_c).collect();
    support::assert_unique(&mut all);
    println!(
        "3 servers, {} ids, 0 duplicates; node {node} released and leased again",
        all.len()
    );
    drop((b, c));
}

/// Waits (at most `limit`) for `line` in the server's output.
fn wait_for_log(server: &ChildServer, line: &str, limit: Duration) {
    let until = Instant::now() + limit;
    while !server.output_so_far().contains(line) {
        assert!(
            Instant::now() < until,
            "no {line:?} within {limit:?}: {}",
            server.output_so_far()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A rival holds every node id under `prefix` but `node`, takes the
/// server's claim on `node` over in one transaction (so that the server
/// cannot simply get it back) and revokes the server's lease; returns the
/// rival's lease, whose revoke frees them all.
async fn take_every_node(admin: &kguid_etcd::Client, prefix: &str, node: u64) -> i64 {
    let claims = format!("{prefix}/claim/");
    // Every key that starts with `claims`: '0' follows '/'.
    let end = format!("{prefix}/claim0");
    let listed = support::call(
        admin,
        "/v3/kv/range",
        json!({"key": b64(&claims), "range_end": b64(&end)}),
    )
    .await;
    let kvs = listed["kvs"].as_array().cloned().unwrap_or_default();
    let [kv] = &kvs[..] else {
        panic!("one claim: {kvs:?}");
    };
    let key = support::unb64(kv["key"].as_str().expect("a key"));
    let (claim, lost) = (
        String::from_utf8(key).expect("utf-8 key"),
        support::int(&kv["lease"]),
    );
    assert_eq!(claim, format!("{claims}{node:010}"));

    // A rival holds every other node id, and takes the server's claim over
    // in one transaction, so that the server cannot simply get it back.
    let rival = support::grant(admin, 30).await;
    let put = |key: &str| json!({"request_put": {"key": b64(key), "value": b64("0 rival"), "lease": rival.to_string()}});
    let others: Vec<u64> = (0..=Layout::NOEQD.max_node())
        .filter(|&n| n != node)
        .collect();
    for chunk in others.chunks(100) {
        let puts: Vec<_> = chunk
            .iter()
            .map(|n| put(&format!("{claims}{n:010}")))
            .collect();
        support::call(admin, "/v3/kv/txn", json!({"success": puts})).await;
    }
    let takeover = json!({
        "compare": [{"target": "LEASE", "key": b64(&claim), "result": "EQUAL", "lease": lost.to_string()}],
        "success": [put(&claim)],
    });
    let taken = support::call(admin, "/v3/kv/txn", takeover).await;
    assert_eq!(
        taken["succeeded"],
        json!(true),
        "the claim was still the server's"
    );
    support::revoke(admin, lost).await;
    rival
}

/// The server's lease revoked behind its back, while a rival holds every
/// other node id: the server refuses 64-bit ids (it closes connections)
/// until it leases a node id again, then issues ids later than every id
/// of the lost lease.
#[tokio::test]
async fn a_revoked_lease_stops_ids_until_a_new_one_is_acquired() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let started = Instant::now();
    let endpoint = etcd.endpoint();
    let prefix = "/test/reacquire";
    let args = lease_args(&endpoint, prefix);
    let mut server = ChildServer::binary(&args, |_| {});
    let before = fetch(server.addr);
    let node = *nodes(&before).first().expect("ids");

    let admin = etcd.client().await;
    let rival = take_every_node(&admin, prefix, node).await;

    // Generous bounds: on a loaded machine etcd answers late, and these
    // wait for events, not for a promised time.
    wait_for_log(
        &server,
        &format!("lease of node {node} ended"),
        Duration::from_secs(20),
    );
    let mut refused = 0;
    for _ in 0..5 {
        let reply = try_ask(server.addr, 255);
        assert!(reply.is_none(), "ids from a lost lease: {reply:?}");
        refused += 1;
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_for_log(
        &server,
        "acquiring a node id failed",
        Duration::from_secs(20),
    );

    // The rival goes: the server leases the lowest free node id again.
    support::revoke(&admin, rival).await;
    let released = Instant::now();
    let first = loop {
        if let Some(ids) = try_ask(server.addr, 255) {
            break ids;
        }
        refused += 1;
        assert!(
            released.elapsed() < Duration::from_secs(30),
            "no ids {:?} after the node ids were free: {}",
            released.elapsed(),
            server.output_so_far()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let resumed = released.elapsed();
    let after: Vec<u64> = first.into_iter().chain(fetch(server.addr)).collect();
    assert_eq!(
        nodes(&after),
        nodes(&before),
        "the lowest free node id again"
    );
    let time = |id| Layout::NOEQD.decompose(id).expect("id decodes").time;
    let last_before = before.iter().max().copied().expect("ids");
    let first_after = after.iter().min().copied().expect("ids");
    assert!(
        time(first_after) > time(last_before),
        "the new lease's ids start after the lost one's: {} <= {}",
        time(first_after),
        time(last_before)
    );
    let mut all: Vec<u64> = before.iter().chain(&after).copied().collect();
    let checked = support::assert_unique(&mut all);

    // SAFETY: kill only sends a signal to the child we started.
    unsafe {
        libc::kill(server.child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = server.child.wait().expect("wait for the server");
    assert!(status.success(), "{status:?}");
    let log = server.rest_of_stderr();
    assert_eq!(
        log.matches(&format!("node {node} leased")).count(),
        2,
        "leased at start and again: {log}"
    );
    assert!(
        log.contains(&format!("lease of node {node} released")),
        "{log}"
    );
    println!(
        "node {node}: {} ids before the revoke, {refused} requests refused, ids again \
         {resumed:?} after the node ids were free, {checked} ids, 0 duplicates, {:?} in all",
        before.len(),
        started.elapsed()
    );
}

/// The replies to `requests` sent at once on `s`: `None` if the server
/// closes the connection instead (a refusal).
fn replies(s: &mut TcpStream, requests: &[u8]) -> Option<Vec<u64>> {
    s.write_all(requests).ok()?;
    let n: usize = requests.iter().map(|&n| usize::from(n)).sum();
    let mut bytes = vec![0u8; n * 8];
    s.read_exact(&mut bytes).ok()?;
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| u64::from_be_bytes(c.try_into().expect("8 bytes")))
            .collect(),
    )
}

/// A server whose clock is 2 s behind takes a node id over from one with
/// a correct clock that stopped. It waits until its clock passes the
/// first's last id (turning clients away meanwhile), then its ids start
/// after every id of the first, and it goes on answering while its ids run
/// on past the horizon stored at its start (the TTL ahead): the horizon is
/// moved as ids near it. Requests refused are counted, not forbidden: on a
/// loaded machine a renewal etcd answers late holds ids back for a while,
/// as it should.
#[tokio::test]
async fn a_server_2s_behind_takes_a_node_over_and_refuses_nothing() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let lease = LeaseConfig {
        store: LeaseStore::Etcd {
            endpoints: vec![etcd.endpoint()],
        },
        prefix: "/test/behind".into(),
        ttl: Duration::from_secs(2),
    };
    let mut config = Config::default();
    config.lease = Some(lease.clone());
    let a = Server::start(config);
    let ids_a = fetch_serving(a.addr);
    a.stop(); // releases the node id
    let time = |id| Layout::NOEQD.time_of(id).expect("id time");
    let last_a = ids_a.iter().copied().max().expect("ids");

    const BEHIND: u64 = 2_000_000_000;
    let mut config = Config::default();
    config.lease = Some(lease);
    config.time.source = Some(Arc::new(shifted_clock(Arc::new(AtomicU64::new(BEHIND)))));
    let b = Server::start(config);
    let served = eventually(Duration::from_secs(20), "B serving", || {
        replies(&mut raw(b.addr), &[255])
    });
    assert_eq!(nodes(&served), nodes(&ids_a), "the same node id");
    assert!(served[0] > last_a, "B starts after A's ids");

    // Requests without pause, 16 at a time, until B's clock has caught up
    // with A's ids and B's ids have run more than the TTL past its first:
    // each id later than the one before, no request refused.
    let b_now = || SystemTime::now() - Duration::from_nanos(BEHIND);
    let mut s = raw(b.addr);
    let (mut requests, mut refused, mut issued) = (0u64, 0u64, 0u64);
    let mut first_b = None;
    let mut prev = served[served.len() - 1];
    let past = |first: Option<u64>, last: u64| {
        first.is_some_and(|f| time(last) > time(f) + Duration::from_millis(2_100))
    };
    let running = Instant::now();
    while b_now() <= time(last_a) + Duration::from_millis(100) || !past(first_b, prev) {
        assert!(
            running.elapsed() < Duration::from_secs(60),
            "B's ids never ran past its first horizon: {refused} of {requests} requests refused"
        );
        requests += 16;
        let Some(ids) = replies(&mut s, &[255; 16]) else {
            refused += 1;
            s = raw(b.addr);
            continue;
        };
        first_b.get_or_insert(ids[0]);
        for id in ids {
            assert!(id > prev, "{id} after {prev}: a repeat or out of order");
            prev = id;
        }
        issued += 16 * 255;
    }
    drop(s);
    b.stop();
    let first_b = first_b.expect("ids");
    assert!(
        time(first_b) > time(last_a),
        "B starts after A's ids: {:?} <= {:?}",
        time(first_b),
        time(last_a)
    );

    // The fence left in etcd covers every id B issued.
    let admin = etcd.client().await;
    let (fence, _) = support::get(&admin, "/test/behind/fence/0000000000")
        .await
        .expect("a fence");
    let value = std::str::from_utf8(&fence).expect("utf-8");
    let ns: u64 = value
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a horizon");
    assert!(
        UNIX_EPOCH + Duration::from_nanos(ns) >= time(prev),
        "fence {ns} below B's last id at {:?}",
        time(prev)
    );
    println!(
        "2 s behind: {requests} requests, {issued} ids, {refused} refused; ids ran {:?} past A's last",
        time(prev).duration_since(time(last_a)).unwrap_or_default()
    );
}

/// `/readyz` with `--etcd`: 200 while the lease is held, 503 with the
/// reason once it is lost (the claim taken over and the lease revoked, as
/// above), 200 again once a node id is leased again; the lease's metrics
/// say the same, and `/healthz` stays 200 throughout.
#[tokio::test]
async fn readiness_follows_the_lease() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let prefix = "/test/ready";
    let mut config = Config::default();
    config.lease = Some(LeaseConfig {
        store: LeaseStore::Etcd {
            endpoints: vec![etcd.endpoint()],
        },
        prefix: prefix.into(),
        ttl: Duration::from_secs(2),
    });
    let server = Server::start_full(config, false, true);
    let metrics = server.metrics.expect("a metrics listener");
    let node = *nodes(&fetch_serving(server.addr)).first().expect("ids");
    let limit = Duration::from_secs(10);
    let ready = || http_get(metrics, "/readyz");
    eventually(limit, "ready", || {
        (ready() == (200, "ok\n".into())).then_some(())
    });
    let m = scrape(metrics);
    assert_eq!(m["guid_lease_node"], node as f64);
    assert_eq!(m["guid_lease_held"], 1.0);
    assert!(m["guid_lease_remaining_seconds"] > 0.0, "{m:#?}");
    assert!(m["guid_lease_remaining_seconds"] <= m["guid_lease_ttl_seconds"]);
    assert!(m["guid_lease_horizon_timestamp_seconds"] > 1.6e9);

    let admin = etcd.client().await;
    let rival = take_every_node(&admin, prefix, node).await;
    let why = eventually(limit, "not ready once the lease is lost", || {
        let (status, body) = ready();
        (status == 503).then_some(body)
    });
    assert!(why.contains(&format!("the lease of node {node} ")), "{why}");
    assert_eq!(why.lines().count(), 1, "{why}");
    assert_eq!(http_get(metrics, "/healthz").0, 200);
    assert!(try_ask(server.addr, 1).is_none(), "ids from a lost lease");
    let m = scrape(metrics);
    assert_eq!(m["guid_lease_held"], 0.0, "{m:#?}");
    assert_eq!(m["guid_lease_remaining_seconds"], 0.0, "{m:#?}");
    assert!(m["guid_lease_refusals_total"] >= 1.0, "{m:#?}");
    assert_eq!(
        m["guid_lease_refusals_total"],
        m["guid_connections_closed_total{reason=\"lease\"}"]
    );

    support::revoke(&admin, rival).await;
    eventually(limit, "ready again", || (ready().0 == 200).then_some(()));
    let m = scrape(metrics);
    assert_eq!(m["guid_lease_held"], 1.0, "{m:#?}");
    assert_eq!(
        m["guid_lease_node"], node as f64,
        "the lowest free node id again"
    );
    assert_eq!(nodes(&fetch(server.addr)).first(), Some(&node));
    server.stop();
    println!("node {node}: ready, 503 ({why:?}) while lost, ready again");
}

/// How far the first id of `ids` runs ahead of the wall clock read after
/// its reply arrived (so no more than when it was issued), in ms.
fn lead_ms(ids: &[u64]) -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64;
    let first = ids.iter().min().copied().expect("ids");
    let t = Layout::NOEQD.time_of(first).expect("id decodes");
    (t.duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64)
        .saturating_sub(now)
}

/// Lives of a server on one leased node id, each serving one request and
/// stopped by SIGTERM (graceful: the lease records its last id) or
/// SIGKILL (the next holder waits out the reserved horizon). Across all of
/// them no id repeats, ids keep increasing, and no first id runs more than
/// the max lead ahead of the wall clock: restarts do not add up.
#[tokio::test]
async fn restarts_on_a_leased_node_never_push_ids_ahead() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let endpoint = etcd.endpoint();
    let args = lease_args(&endpoint, "/test/restarts");
    let mut all = Vec::new();
    let mut leads = Vec::new();
    for kill in [
        false, false, false, false, false, false, true, false, true, false,
    ] {
        let mut server = ChildServer::binary(&args, |_| {});
        let ids = eventually(
            Duration::from_secs(20),
            "ids from a restarted server",
            || try_ask(server.addr, 255),
        );
        leads.push(lead_ms(&ids));
        if let Some(&last) = all.last() {
            assert!(ids[0] > last, "a restart went back");
        }
        all.extend(ids);
        if kill {
            server.kill();
        } else {
            let status = server.terminate();
            assert!(status.success(), "{status:?}");
        }
    }
    println!("first-id leads over the wall clock, ms, per life: {leads:?}");
    assert!(
        leads.iter().all(|&ms| ms <= 101),
        "ids ran ahead of the wall clock: {leads:?}"
    );
    support::assert_unique(&mut all);
}

/// A bounded soak on leased node ids: lives stopped by SIGTERM and SIGKILL
/// under two pipelined clients (a killed holder's node id stays taken for
/// the TTL, so the next life may lease another); across all of them no id
/// repeats and none runs more than the max lead ahead of the wall clock.
#[tokio::test]
async fn soak_restarts_on_leased_nodes_under_load() {
    use common::lives::{Stop, check, lives};
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let endpoint = etcd.endpoint();
    let stops = [
        Stop::Term,
        Stop::Kill,
        Stop::Term,
        Stop::Term,
        Stop::Kill,
        Stop::Term,
    ];
    let seen = tokio::task::spawn_blocking(move || {
        let args = lease_args(&endpoint, "/test/soak");
        lives(&args, &stops, Duration::from_millis(400))
    })
    .await
    .expect("the lives");
    check("soak: 6 lives on leased node ids", &seen);
}
