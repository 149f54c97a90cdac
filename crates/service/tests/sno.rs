//! sno ids over HTTP (`GET /ids?kind=sno&n=N&meta=M`): strictly
//! increasing as strings and as bytes, stamped with the node id as their
//! partition and the metabyte asked for; bad parameters named; no id
//! while starting nor at or before the start bound; a node id that does
//! not fit the partition refused by name; and a restart with the state
//! file, after a clean stop or a crash, with a clock that stands behind,
//! never goes back into the previous run's ids.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{Extra, Server, http, scrape};
use guid::MockTime;
use guid::flake::Layout;
use guid::sno::Sno;
use kguid_service::Config;

/// A server with the HTTP API, once it is ready.
fn api(config: Config) -> Server {
    let extra = Extra {
        http: true,
        ..Extra::default()
    };
    let server = Server::start_extra(config, extra);
    let addr = server.http.unwrap();
    common::eventually(Duration::from_secs(10), "ready", || {
        (http(addr, "GET /readyz", &[]).status == 200).then_some(())
    });
    server
}

/// The sno ids of `GET /ids?{query}` as JSON, checked to be `n` strings
/// that strictly increase as strings and as the ids' bytes.
fn snos(addr: SocketAddr, query: &str, n: usize) -> Vec<Sno> {
    let a = http(addr, &format!("GET /ids?{query}"), &[]);
    assert_eq!(a.status, 200, "{query}: {a:?}");
    assert_eq!(
        a.header("Content-Type").as_deref(),
        Some("application/json")
    );
    let strings: Vec<String> = serde_json::from_str(&a.body).expect("a JSON array of strings");
    assert_eq!(strings.len(), n, "{query}");
    assert!(strings.iter().all(|s| s.len() == 16), "{query}");
    assert!(
        strings.windows(2).all(|w| w[0] < w[1]),
        "{query}: strings out of order"
    );
    let ids: Vec<Sno> = strings.iter().map(|s| s.parse().unwrap()).collect();
    assert!(
        ids.windows(2)
            .all(|w| w[0].to_bytes() < w[1].to_bytes() && w[0] < w[1]),
        "{query}: ids out of order"
    );
    ids
}

/// The JSON error of a 400 to `GET /ids?{query}`: the parameter named,
/// and why.
fn refused(addr: SocketAddr, query: &str) -> (String, String) {
    let a = http(addr, &format!("GET /ids?{query}"), &[]);
    assert_eq!(a.status, 400, "{query}: {a:?}");
    let body: serde_json::Value = serde_json::from_str(&a.body).unwrap();
    let why = body["error"].as_str().unwrap_or_default().to_owned();
    assert!(!why.is_empty(), "{body}");
    (body["parameter"].as_str().unwrap().to_owned(), why)
}

#[test]
fn sno_ids_of_the_node_ids_partition_with_the_metabyte_asked_for() {
    let mut config = Config::default();
    config.ids.node = 0x2a5; // -d 21 -w 5
    let server = api(config);
    let addr = server.http.unwrap();
    let ids = snos(addr, "kind=sno&n=1000", 1_000);
    assert!(
        ids.iter()
            .all(|id| id.partition() == 0x2a5 && id.meta() == 0)
    );
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let time = Duration::from_nanos(ids[0].unix_ns());
    assert!(
        time <= now && now - time < Duration::from_secs(10),
        "{ids:?}"
    );
    let mut all = ids;
    for (meta, n) in [(7, 1), (255, 10_000), (0, 2)] {
        let more = snos(addr, &format!("kind=sno&meta={meta}&n={n}"), n);
        assert!(
            more.iter()
                .all(|id| id.partition() == 0x2a5 && id.meta() == meta)
        );
        assert!(all.last() < more.first(), "after the ids before");
        all.extend(more);
    }
    // One per line with Accept: text/plain.
    let a = http(
        addr,
        "GET /ids?kind=sno&n=500&meta=9",
        &[("Accept", "text/plain")],
    );
    assert_eq!(
        (a.status, a.header("Content-Type").as_deref()),
        (200, Some("text/plain; charset=utf-8"))
    );
    let lines: Vec<Sno> = a.body.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(lines.len(), 500);
    assert!(lines.windows(2).all(|w| w[0] < w[1]));
    assert!(
        lines
            .iter()
            .all(|id| id.meta() == 9 && id.partition() == 0x2a5)
    );
    assert!(all.last() < lines.first());
    // Counted with every id of the HTTP API; the generator's lead shown.
    let m = scrape(addr);
    assert_eq!(m["guid_ids_issued_total{listener=\"http\"}"], 11_503.0);
    assert!(
        m.contains_key("guid_clock_lead_seconds{clock=\"sno\"}"),
        "{m:?}"
    );
    assert_eq!(server.stop().http_ids, 11_503);
}

#[test]
fn bad_sno_parameters_are_named() {
    let server = api(Config::default());
    let addr = server.http.unwrap();
    for (query, parameter) in [
        ("kind=sno&meta=256", "meta"),
        ("kind=sno&meta=x", "meta"),
        ("kind=sno&meta=-1", "meta"),
        ("kind=sno&meta=", "meta"),
        ("kind=snoo", "kind"),
        ("kind=SNO", "kind"),
        ("kind=sno&n=0", "n"),
        ("kind=sno&n=10001", "n"),
        ("kind=sno&v=3", "v"),
        ("kind=g&meta=1", "meta"),
        ("meta=1", "meta"),
        ("kind=sno&meta=1&meta=2", "meta"),
    ] {
        assert_eq!(refused(addr, query).0, parameter, "{query}");
    }
    let (_, why) = refused(addr, "kind=sno&meta=256");
    assert_eq!(why, "meta must be an integer in 0..=255");
    let (_, why) = refused(addr, "kind=snoo");
    assert!(why.contains("sno"), "{why}");
    let m = scrape(addr);
    assert_eq!(m["guid_ids_issued_total{listener=\"http\"}"], 0.0);
    assert_eq!(server.stop().http_ids, 0);
}

/// The partition is the node id: 0xffff is taken, a node id wider than 16
/// bits is refused by name rather than cut to its low bits (which would
/// share a partition with node id 5 here).
#[test]
fn the_partition_is_the_node_id_and_a_wider_one_is_refused() {
    let layout = Layout::new(41, 17, 5).unwrap();
    for (node, partition) in [(0xffff, Some(0xffff)), (0x1_0005, None)] {
        let mut config = Config::default();
        config.ids.layout = layout;
        config.ids.node = node;
        let server = api(config);
        let addr = server.http.unwrap();
        match partition {
            Some(p) => {
                let ids = snos(addr, "kind=sno&n=100", 100);
                assert!(ids.iter().all(|id| id.partition() == p));
            }
            None => {
                let (parameter, why) = refused(addr, "kind=sno&n=100");
                assert_eq!(parameter, "kind");
                assert!(why.contains("node 65541 is wider"), "{why}");
                assert!(why.contains("partition 5 with node 5"), "{why}");
                // The other kinds are served.
                let a = http(addr, "GET /ids?kind=flake&n=3", &[]);
                assert_eq!(a.status, 200, "{a:?}");
            }
        }
        server.stop();
    }
}

/// While the server waits for its start bound (`-t` ahead of the clock),
/// `kind=sno` is a 503; then every sno id is later than the bound.
#[test]
fn no_sno_id_while_starting_nor_at_or_before_the_start_bound() {
    let bound = SystemTime::now() + Duration::from_millis(1_500);
    let mut config = Config::default();
    config.time.not_before = Some(bound);
    let server = Server::start_extra(
        config,
        Extra {
            http: true,
            ..Extra::default()
        },
    );
    let addr = server.http.unwrap();
    let early = http(addr, "GET /ids?kind=sno&n=5", &[]);
    assert_eq!(early.status, 503, "{early:?}");
    assert!(early.header("Retry-After").is_some(), "{early:?}");
    common::eventually(Duration::from_secs(10), "ready", || {
        (http(addr, "GET /readyz", &[]).status == 200).then_some(())
    });
    let ids = snos(addr, "kind=sno&n=10000", 10_000);
    let bound = bound.duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64;
    assert!(ids[0].unix_ns() > bound, "{:?} vs {bound}", ids[0]);
    server.stop();
}

/// Takes `requests` replies of 10,000 sno ids.
fn take(addr: SocketAddr, requests: usize) -> Vec<Sno> {
    let mut ids: Vec<Sno> = Vec::new();
    for _ in 0..requests {
        let more = snos(addr, "kind=sno&n=10000", 10_000);
        assert!(ids.last() < more.first());
        ids.extend(more);
    }
    ids
}

/// With the state file, a clock that stands still behind the previous
/// run's ids: after a crash (the file as it was while serving) and after
/// a clean stop, every sno id after the restart follows every one before.
/// The ids of the first run run ahead of that clock (100,000 ids borrow
/// units past its 65,536 a unit), so the horizon must cover what they
/// borrowed.
#[test]
fn a_restart_with_the_state_file_never_goes_back_into_sno_ids() {
    let dir = common::temp_dir("sno-restart");
    let state = dir.join("state");
    let _ = std::fs::remove_file(&state);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let run = |at: u64| {
        let mut config = Config::default();
        config.ids.node = 3;
        config.time.state = Some(state.clone());
        config.time.source = Some(Arc::new(MockTime::new(at)));
        api(config)
    };

    let first = run(now);
    let before = take(first.http.unwrap(), 10);
    // What a crash now would leave.
    let crashed = std::fs::read(&state).unwrap();
    first.stop();
    std::fs::write(&state, &crashed).unwrap();

    // The clock stands where the first run's did.
    let second = run(now);
    let after_crash = take(second.http.unwrap(), 3);
    second.stop();
    assert!(
        before.last() < after_crash.first(),
        "{:?} then {:?}",
        before.last(),
        after_crash.first()
    );

    let third = run(now);
    let after_stop = take(third.http.unwrap(), 3);
    third.stop();
    assert!(after_crash.last() < after_stop.first());

    let mut all: Vec<Sno> = before
        .into_iter()
        .chain(after_crash)
        .chain(after_stop)
        .collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "an id repeated");
    assert!(all.iter().all(|id| id.partition() == 3 && !id.tick()));
}
