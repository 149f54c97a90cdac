//! `guid-serve --redis`: 64-bit node ids leased from a real Redis.
#![cfg(feature = "redis")]

mod common;
#[path = "../../redis/tests/support/mod.rs"]
mod support;

use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::{
    ChildServer, Server, eventually, fetch, fetch_serving, http, http_get, nodes, scrape, try_ask,
};
use guid::flake::Layout;
use kguid_service::{Config, LeaseConfig, LeaseStore};
use support::Redis;

/// The servers' lease TTL.
const TTL: Duration = Duration::from_secs(2);

/// The flags of a server leasing its node id under `prefix` from the Redis
/// at `url`, with a 2 s TTL.
fn lease_args<'a>(url: &'a str, prefix: &'a str) -> [&'a str; 6] {
    ["--redis", url, "--prefix", prefix, "--lease-ttl", "2s"]
}

/// The one node id that all of `ids` carry.
#[track_caller]
fn node_of(ids: &[u64]) -> u64 {
    let nodes = nodes(ids);
    assert_eq!(nodes.len(), 1, "one node per server: {nodes:?}");
    nodes.first().copied().expect("a node")
}

fn time(id: u64) -> SystemTime {
    Layout::NOEQD.time_of(id).expect("id decodes")
}

fn unix_ns(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos()
        .try_into()
        .expect("ns fit in u64")
}

/// Sends `signal` to the child server.
fn signal(server: &ChildServer, signal: libc::c_int) {
    // SAFETY: kill only sends a signal to the child we started.
    let sent = unsafe { libc::kill(server.child.id() as libc::pid_t, signal) };
    assert_eq!(sent, 0, "signal {signal}");
}

/// Claims of a rival, written as the store's claim script writes them
/// (`P:node:N`, a hash of token, ttl and holder, expiring after ttl), on
/// `nodes` under `prefix`: a server can lease none of them for a minute.
fn rival_claims(redis: &Redis, prefix: &str, nodes: impl IntoIterator<Item = u64>) -> usize {
    let mut pipe = redis::pipe();
    let mut count = 0;
    for n in nodes {
        let key = format!("{prefix}:node:{n}");
        pipe.cmd("HSET")
            .arg(&key)
            .arg(&["token", "1", "ttl", "60000", "holder", "rival"][..])
            .ignore()
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(60_000)
            .ignore();
        count += 1;
    }
    pipe.exec(&mut redis.connection())
        .expect("the rival's claims");
    count
}

/// Deletes the rival's claims on `nodes`: they are free at once.
fn free(redis: &Redis, prefix: &str, nodes: impl IntoIterator<Item = u64>) {
    let mut pipe = redis::pipe();
    for n in nodes {
        pipe.cmd("DEL").arg(format!("{prefix}:node:{n}")).ignore();
    }
    pipe.exec(&mut redis.connection()).expect("free the claims");
}

/// Every node id of the noeqd layout but `node`.
fn all_but(node: u64) -> impl Iterator<Item = u64> + Clone {
    (0..=Layout::NOEQD.max_node()).filter(move |&n| n != node)
}

/// The horizon stored for `node` under `prefix`, Unix ns: the holders of
/// the node id issue no id later than it, and its next holder starts after.
fn stored_horizon(redis: &Redis, prefix: &str, node: u64) -> u64 {
    let ns: Option<String> = redis::cmd("HGET")
        .arg(format!("{prefix}:horizon:{node}"))
        .arg("ns")
        .query(&mut redis.connection())
        .expect("HGET");
    ns.and_then(|ns| ns.parse().ok()).expect("a stored horizon")
}

/// Two servers on one prefix lease distinct node ids, the lowest first,
/// and issue distinct ids; after one stops gracefully, a third gets its
/// node id back and issues ids later than every id of the first.
#[test]
fn servers_lease_distinct_nodes_and_a_released_node_comes_back_later() {
    let Some(redis) = support::redis() else {
        return;
    };
    let url = redis.url();
    let args = lease_args(&url, "test/serve");
    let mut a = ChildServer::binary(&args, |_| {});
    let b = ChildServer::binary(&args, |_| {});
    let (ids_a, ids_b) = (fetch_serving(a.addr), fetch_serving(b.addr));
    let (node_a, node_b) = (node_of(&ids_a), node_of(&ids_b));
    assert_eq!((node_a, node_b), (0, 1), "the lowest free node ids");
    let mut all: Vec<u64> = ids_a.iter().chain(&ids_b).copied().collect();
    let checked = support::assert_unique(&mut all);
    assert_eq!(checked, 2 * 20 * 255);

    let status = a.terminate();
    assert!(status.success(), "{status:?}");
    let log = a.rest_of_stderr();
    assert!(log.contains(&format!("node {node_a} leased")), "{log}");
    assert!(
        log.contains(&format!("lease of node {node_a} released")),
        "{log}"
    );

    let c = ChildServer::binary(&args, |_| {});
    let ids_c = fetch_serving(c.addr);
    assert_eq!(node_of(&ids_c), node_a, "the released node id comes back");
    let last_a = ids_a.iter().max().copied().expect("ids");
    let first_c = ids_c.iter().min().copied().expect("ids");
    assert!(
        time(first_c) > time(last_a),
        "the new holder starts after the old one's ids: {:?} <= {:?}",
        time(first_c),
        time(last_a)
    );
    let mut all: Vec<u64> = all.into_iter().chain(ids_c).collect();
    support::assert_unique(&mut all);
    println!(
        "3 servers on nodes {node_a}, {node_b}, {node_a}: {} ids, 0 duplicates; node {node_a} \
         released and leased again, its first id {:?} after the last of its previous holder",
        all.len(),
        time(first_c)
            .duration_since(time(last_a))
            .unwrap_or_default()
    );
    drop((b, c));
}

/// A holder killed with SIGKILL releases nothing: its successor on the
/// same node id (the only one left free) is granted it once the claim
/// expires and starts after the horizon the killed holder left, so after
/// every id it issued.
#[test]
fn a_killed_holders_successor_starts_after_its_horizon() {
    let Some(redis) = support::redis() else {
        return;
    };
    let url = redis.url();
    let prefix = "test/killed";
    let args = lease_args(&url, prefix);
    let mut a = ChildServer::binary(&args, |_| {});
    let ids_a = fetch_serving(a.addr);
    let node = node_of(&ids_a);

    // Every other node id taken, so that the successor must wait for this one.
    let taken = rival_claims(&redis, prefix, all_but(node));
    a.kill();
    let killed = Instant::now();
    let horizon = stored_horizon(&redis, prefix, node);
    let last_a = ids_a.iter().max().copied().expect("ids");
    assert!(
        unix_ns(time(last_a)) <= horizon,
        "an id of the killed holder past its stored horizon"
    );

    let b = ChildServer::binary(&args, |_| {});
    let granted = killed.elapsed();
    // The successor turns clients away until its clock passes the horizon.
    let first = eventually(Duration::from_secs(20), "ids from the successor", || {
        try_ask(b.addr, 255)
    });
    let served = killed.elapsed();
    let ids_b: Vec<u64> = first.into_iter().chain(fetch(b.addr)).collect();
    assert_eq!(node_of(&ids_b), node, "the killed holder's node id");
    let first_b = ids_b.iter().min().copied().expect("ids");
    assert!(
        unix_ns(time(first_b)) > horizon,
        "the successor's first id at or before the horizon: {:?}",
        time(first_b)
    );
    assert!(first_b > last_a && time(first_b) > time(last_a));
    let log = b.output_so_far();
    assert!(log.contains(&format!("node {node} leased")), "{log}");
    let mut all: Vec<u64> = ids_a.iter().chain(&ids_b).copied().collect();
    let checked = support::assert_unique(&mut all);
    println!(
        "SIGKILL on node {node} ({taken} others held by a rival): successor granted {granted:?} \
         and served {served:?} after the kill; horizon {:?} past the killed holder's last id, \
         successor's first id {:?} past the horizon; {checked} ids, 0 duplicates",
        Duration::from_nanos(horizon - unix_ns(time(last_a))),
        Duration::from_nanos(unix_ns(time(first_b)) - horizon)
    );
}

/// Redis restarts without persistence, losing every claim: the server
/// stops issuing 64-bit ids within the TTL and `/readyz` answers 503; once
/// the restarted Redis grants claims again (after its grace) the server
/// leases a node id again and issues ids later than every id before.
#[test]
fn a_redis_restart_stops_ids_until_a_node_id_is_leased_again() {
    let Some(mut redis) = support::redis() else {
        return;
    };
    let url = redis.url();
    let mut args = lease_args(&url, "test/restart").to_vec();
    args.extend(["--metrics", "127.0.0.1:0"]);
    let mut server = ChildServer::binary(&args, |_| {});
    let metrics = server.metrics_addr();
    let ready = || http_get(metrics, "/readyz");
    let mut before = fetch_serving(server.addr);
    let node = node_of(&before);
    assert_eq!(ready(), (200, "ok\n".into()));

    // Requests without pause from before the restart until the first
    // refusal, each with the instant it was sent.
    let addr = server.addr;
    let (tx, rx) = mpsc::channel();
    let prober = std::thread::spawn(move || {
        let mut served = Vec::new();
        let mut last_sent = None;
        let _ = tx.send(());
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let sent = Instant::now();
            match try_ask(addr, 255) {
                Some(ids) => {
                    served.extend(ids);
                    last_sent = Some(sent);
                }
                None => return (served, last_sent, Instant::now()),
            }
            assert!(Instant::now() < until, "ids without a lease");
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    rx.recv().expect("the prober started");
    let restarted = Instant::now();
    redis.restart();
    let (served, last_sent, refused_at) = prober.join().expect("the prober");
    before.extend(served);
    let last_served = last_sent.map(|t| t.saturating_duration_since(restarted));
    assert!(
        last_served.is_none_or(|d| d < TTL),
        "ids for a request sent {last_served:?} after the restart"
    );

    let why = eventually(
        Duration::from_secs(10),
        "503 once the lease is gone",
        || {
            let (status, body) = ready();
            (status == 503).then_some(body)
        },
    );
    assert!(why.contains(&format!("the lease of node {node} ")), "{why}");
    assert_eq!(http_get(metrics, "/healthz").0, 200);

    let mut refused = 1;
    let first = loop {
        if let Some(ids) = try_ask(server.addr, 255) {
            break ids;
        }
        refused += 1;
        assert!(
            refused_at.elapsed() < Duration::from_secs(40),
            "no ids {:?} after the restart: {}",
            restarted.elapsed(),
            server.output_so_far()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let refused_for = refused_at.elapsed();
    let after: Vec<u64> = first.into_iter().chain(fetch(server.addr)).collect();
    assert_eq!(node_of(&after), node, "the lowest free node id again");
    let last_before = before.iter().max().copied().expect("ids");
    let first_after = after.iter().min().copied().expect("ids");
    assert!(
        first_after > last_before && time(first_after) > time(last_before),
        "ids after the restart start after those before: {:?} <= {:?}",
        time(first_after),
        time(last_before)
    );
    eventually(Duration::from_secs(10), "ready again", || {
        (ready().0 == 200).then_some(())
    });
    let m = scrape(metrics);
    assert_eq!(m["guid_lease_held"], 1.0, "{m:#?}");
    assert_eq!(m["guid_lease_node"], node as f64, "{m:#?}");
    assert!(m["guid_lease_refusals_total"] >= 1.0, "{m:#?}");
    let mut all: Vec<u64> = before.iter().chain(&after).copied().collect();
    let checked = support::assert_unique(&mut all);

    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    let log = server.rest_of_stderr();
    assert_eq!(
        log.matches(&format!("node {node} leased")).count(),
        2,
        "leased at start and again: {log}"
    );
    assert!(
        log.contains(&format!("lease of node {node} ended")),
        "{log}"
    );
    let last_served = last_served.map_or("none".into(), |d| format!("{d:?}"));
    println!(
        "Redis restart on node {node}: last id for a request sent {last_served} after it, \
         ids refused for {refused_for:?} ({refused} requests, 503 {:?}), {checked} ids, \
         0 duplicates",
        why.trim_end()
    );
}

/// A server stopped (SIGSTOP) for three TTLs loses its node id to a second
/// server, which starts after its ids; continued (SIGCONT), the first
/// issues nothing on the node id it lost, and once another node id is
/// free it leases that one. No id is issued twice.
#[test]
fn a_paused_holder_issues_nothing_on_the_node_id_it_lost() {
    let Some(redis) = support::redis() else {
        return;
    };
    let url = redis.url();
    let prefix = "test/paused";
    let args = lease_args(&url, prefix);
    let a = ChildServer::binary(&args, |_| {});
    let ids_a = fetch_serving(a.addr);
    let node = node_of(&ids_a);
    let others = all_but(node);
    rival_claims(&redis, prefix, others.clone());

    signal(&a, libc::SIGSTOP);
    let stopped = Instant::now();
    let b = ChildServer::binary(&args, |_| {});
    let granted = stopped.elapsed();
    let first = eventually(
        Duration::from_secs(20),
        "ids from the second server",
        || try_ask(b.addr, 255),
    );
    let ids_b: Vec<u64> = first.into_iter().chain(fetch(b.addr)).collect();
    assert_eq!(node_of(&ids_b), node, "the paused server's node id");
    let last_a = ids_a.iter().max().copied().expect("ids");
    let first_b = ids_b.iter().min().copied().expect("ids");
    assert!(time(first_b) > time(last_a), "B starts after A's ids");

    std::thread::sleep((TTL * 3).saturating_sub(stopped.elapsed()));
    let paused = stopped.elapsed();
    signal(&a, libc::SIGCONT);
    let mut refused = 0;
    for _ in 0..10 {
        let reply = try_ask(a.addr, 255);
        assert!(reply.is_none(), "ids from a lost lease: {reply:?}");
        refused += 1;
        std::thread::sleep(Duration::from_millis(50));
    }
    let ended = format!("lease of node {node} ended");
    eventually(Duration::from_secs(10), "the lost lease logged", || {
        a.output_so_far().contains(&ended).then_some(())
    });
    // The second server kept the node id throughout.
    let more_b = fetch(b.addr);
    assert_eq!(node_of(&more_b), node);

    // The rival goes: the first server leases the lowest free node id.
    free(&redis, prefix, others);
    let again = eventually(Duration::from_secs(30), "ids from A again", || {
        try_ask(a.addr, 255)
    });
    let again: Vec<u64> = again.into_iter().chain(fetch(a.addr)).collect();
    let new_node = node_of(&again);
    assert_ne!(new_node, node, "a node id other than the one it lost");
    let mut all: Vec<u64> = [&ids_a, &ids_b, &more_b, &again]
        .into_iter()
        .flatten()
        .copied()
        .collect();
    let checked = support::assert_unique(&mut all);
    println!(
        "paused {paused:?} on node {node}: taken over {granted:?} after the stop, {refused} \
         requests refused after SIGCONT, then node {new_node} leased; {checked} ids, 0 duplicates"
    );
}

/// `/readyz` with `--redis`: 200 while the lease is held, 503 with the
/// reason once it is lost (the claim taken over by a rival that holds
/// every node id), 200 again once the rival goes and the node id is
/// leased again; the lease's metrics say the same, `/healthz` stays 200.
#[test]
fn readiness_follows_the_lease() {
    let Some(redis) = support::redis() else {
        return;
    };
    let prefix = "test/ready";
    let mut config = Config::default();
    config.lease = Some(LeaseConfig {
        store: LeaseStore::Redis { url: redis.url() },
        prefix: prefix.into(),
        ttl: TTL,
    });
    let server = Server::start_full(config, false, true);
    let metrics = server.metrics.expect("a metrics listener");
    let node = node_of(&fetch_serving(server.addr));
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

    // A rival holds every other node id and overwrites the server's claim
    // with its own token, so that the server's next renewal finds it gone.
    rival_claims(&redis, prefix, all_but(node));
    let takeover = "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end \
                    redis.call('HSET', KEYS[1], 'token', '1', 'ttl', '60000', 'holder', 'rival') \
                    redis.call('PEXPIRE', KEYS[1], 60000) return 1";
    let taken: i64 = redis::cmd("EVAL")
        .arg(takeover)
        .arg(1)
        .arg(format!("{prefix}:node:{node}"))
        .query(&mut redis.connection())
        .expect("the takeover");
    assert_eq!(taken, 1, "the claim was still there");

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

    free(&redis, prefix, 0..=Layout::NOEQD.max_node());
    eventually(Duration::from_secs(20), "ready again", || {
        (ready().0 == 200).then_some(())
    });
    let m = scrape(metrics);
    assert_eq!(m["guid_lease_held"], 1.0, "{m:#?}");
    assert_eq!(
        m["guid_lease_node"], node as f64,
        "the lowest free node id again"
    );
    assert_eq!(node_of(&fetch(server.addr)), node);
    server.stop();
    println!(
        "node {node}: ready, 503 ({:?}) while lost, ready again",
        why.trim_end()
    );
}

/// A bounded soak on leased node ids: lives stopped by SIGTERM and SIGKILL
/// under two pipelined clients (a killed holder's node id stays taken for
/// the TTL, so the next life may lease another); across all of them no id
/// repeats and none runs more than the max lead ahead of the wall clock.
#[test]
fn soak_restarts_on_leased_nodes_under_load() {
    use common::lives::{Stop, check, lives};
    let Some(redis) = support::redis() else {
        return;
    };
    let url = redis.url();
    let stops = [
        Stop::Term,
        Stop::Kill,
        Stop::Term,
        Stop::Term,
        Stop::Kill,
        Stop::Term,
    ];
    let args = lease_args(&url, "test/soak");
    // A first server waits out node 0's quiet (it has no horizon yet) and
    // gives it back with one: lives of 400 ms are shorter than a quiet.
    let mut first = ChildServer::binary(&args, |_| {});
    fetch_serving(first.addr);
    signal(&first, libc::SIGTERM);
    assert!(first.child.wait().expect("the first server").success());
    let seen = lives(&args, &stops, Duration::from_millis(400));
    check("soak: 6 lives on leased node ids", &seen);
    println!(
        "soak: 6 lives (2 killed), {} ids on nodes {:?}, 0 duplicates, largest lead {:?}",
        seen.ids.len(),
        nodes(&seen.ids),
        seen.lead
    );
}

/// Holds one binary request to `addr` open: how long until ids or a close
/// answered it, and whether ids did.
fn held(addr: std::net::SocketAddr) -> Option<(Duration, bool)> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let sent = Instant::now();
    s.write_all(&[1]).ok()?;
    let mut id = [0u8; 8];
    let served = s.read_exact(&mut id).is_ok();
    Some((sent.elapsed(), served))
}

/// A server whose node id has no horizon in Redis (a new fleet, or a
/// Redis that lost its keys) waits out the quiet before its first id, and
/// holds no request meanwhile: binary connections are closed at once (the
/// promise is the max lead; the bound here leaves room for a loaded
/// machine and is far below the 4 s quiet that a held request would
/// wait), HTTP answers 503 with a Retry-After of the wait left, and
/// `/readyz` says why.
#[test]
fn a_server_waiting_out_its_quiet_holds_no_request() {
    let Some(redis) = support::redis() else {
        return;
    };
    let free = || {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
    };
    let (addr, api) = (free(), free());
    let url = redis.url();
    let api_s = api.to_string();
    let mut args = lease_args(&url, "test/quiet").to_vec();
    args.extend(["--http", &api_s]);
    let started = Instant::now();
    let _server = ChildServer::binary_at(addr, &args, |_| {});
    let (mut refused, mut longest, mut unavailable) = (0, Duration::ZERO, 0);
    let mut longest_retry = 0;
    let mut reasons = Vec::new();
    let served = loop {
        assert!(started.elapsed() < Duration::from_secs(30), "never served");
        let Some((waited, served)) = held(addr) else {
            continue;
        };
        if served {
            break started.elapsed();
        }
        refused += 1;
        longest = longest.max(waited);
        let answer = http(api, "GET /ids?n=1", &[]);
        if answer.status == 503 {
            unavailable += 1;
            let retry: u64 = answer
                .header("Retry-After")
                .and_then(|v| v.parse().ok())
                .expect("a Retry-After in seconds");
            assert!((1..=5).contains(&retry), "Retry-After {retry}");
            longest_retry = longest_retry.max(retry);
            let (status, why) = http_get(api, "/readyz");
            if status == 503 {
                reasons.push(why);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    println!(
        "quiet: {refused} binary requests closed (longest {longest:?}), {unavailable} HTTP 503s, ids after {served:?}; {:?}",
        reasons.last()
    );
    assert!(served >= TTL * 2, "ids before the quiet: {served:?}");
    assert!(refused > 10, "turned away while waiting: {refused}");
    assert!(
        longest < Duration::from_secs(1),
        "a request held {longest:?}"
    );
    assert!(unavailable > 0);
    // The quiet is 4 s: the first answers say to come back in seconds.
    assert!(longest_retry >= 2, "Retry-After at most {longest_retry}");
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("more before the first id")),
        "{reasons:?}"
    );
}

/// A lease that ends before its first id (its claim deleted while the
/// server waits out the quiet of a node id without a horizon) is followed
/// by another, as while serving: the start goes on, and the server serves
/// once the new lease's quiet is over, instead of exiting.
#[test]
fn a_lease_lost_before_the_first_id_is_leased_again() {
    let Some(redis) = support::redis() else {
        return;
    };
    let url = redis.url();
    let mut server = ChildServer::binary_quiet(&lease_args(&url, "test/relost"), |_| {});
    let claim = "test/relost:node:0";
    eventually(Duration::from_secs(10), "the claim of node 0", || {
        let held: bool = redis::cmd("EXISTS")
            .arg(claim)
            .query(&mut redis.connection())
            .ok()?;
        held.then_some(())
    });
    let _: () = redis::cmd("DEL")
        .arg(claim)
        .query(&mut redis.connection())
        .expect("DEL");
    let ids = eventually(Duration::from_secs(30), "ids after a second lease", || {
        assert!(
            server.child.try_wait().unwrap().is_none(),
            "exited: {}",
            server.output_so_far()
        );
        try_ask(server.addr, 5)
    });
    assert_eq!(node_of(&ids), 0);
    let out = server.output_so_far();
    assert!(out.contains("ended before its first id"), "{out}");
    assert_eq!(out.matches("node 0 leased from redis").count(), 2, "{out}");
    server.kill();
}
