//! The metrics listener: `/metrics` scraped with a real HTTP request while
//! clients load the server, its counters checked against the ids the
//! clients received, and the health checks.

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{Server, eventually, http_get, raw, scrape, temp_dir};
use kguid_service::Config;

/// One client's work: `requests` requests on one connection, lock-step or
/// 16 at a time; returns how many ids it received.
fn client(addr: SocketAddr, width: usize, requests: usize, pipelined: bool) -> (u64, u64) {
    let mut s = raw(addr);
    let (mut ids, mut sent) = (0u64, 0u64);
    let mut buf = vec![0u8; 16 * 255 * width];
    let mut i = 0;
    while (sent as usize) < requests {
        let depth = if pipelined { 16 } else { 1 };
        let batch: Vec<u8> = (0..depth).map(|k| 1 + ((i + k) % 255) as u8).collect();
        i += depth;
        s.write_all(&batch).unwrap();
        let n: usize = batch.iter().map(|&n| usize::from(n)).sum();
        s.read_exact(&mut buf[..n * width]).unwrap();
        ids += n as u64;
        sent += depth as u64;
    }
    (ids, sent)
}

fn get(m: &BTreeMap<String, f64>, series: &str) -> u64 {
    let v = *m
        .get(series)
        .unwrap_or_else(|| panic!("no {series} in {m:#?}"));
    assert!(v >= 0.0 && v.fract() == 0.0, "{series} = {v}");
    v as u64
}

/// Clients on both listeners, lock-step and pipelined, while another
/// thread scrapes `/metrics` over HTTP: every scrape parses, no counter
/// goes down, and once the clients are done the counters equal what they
/// received, connection by connection, and the server's report.
#[test]
fn metrics_count_the_ids_the_clients_received_during_a_load_test() {
    let server = Server::start_full(Config::default(), true, true);
    let metrics = server.metrics.unwrap();
    let (flake, global) = (server.addr, server.global.unwrap());

    let done = Arc::new(AtomicBool::new(false));
    let scraper = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut scrapes: Vec<BTreeMap<String, f64>> = Vec::new();
            // Bounded: at most 2,000 scrapes, however slow the clients.
            while !done.load(Ordering::Relaxed) && scrapes.len() < 2_000 {
                let now = scrape(metrics);
                if let Some(before) = scrapes.last() {
                    for (series, v) in before {
                        if series.contains("_total") {
                            assert!(
                                now[series] >= *v,
                                "{series} went down: {v} -> {}",
                                now[series]
                            );
                        }
                    }
                }
                scrapes.push(now);
                std::thread::sleep(Duration::from_millis(5));
            }
            scrapes.len()
        })
    };
    // (listener, id width, requests, pipelined)
    let plan = [
        (flake, 8, 2_000, false),
        (flake, 8, 4_000, true),
        (flake, 8, 4_000, true),
        (global, 12, 2_000, false),
        (global, 12, 4_000, true),
    ];
    let clients: Vec<_> = plan
        .iter()
        .map(|&(addr, width, requests, pipelined)| {
            std::thread::spawn(move || client(addr, width, requests, pipelined))
        })
        .collect();
    let received: Vec<(u64, u64)> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    done.store(true, Ordering::Relaxed);
    let scrapes = scraper.join().unwrap();

    let sum = |width| -> (u64, u64) {
        plan.iter()
            .zip(&received)
            .filter(|((_, w, _, _), _)| *w == width)
            .fold((0, 0), |(i, r), (_, (ids, reqs))| (i + ids, r + reqs))
    };
    let ((flake_ids, flake_reqs), (global_ids, global_reqs)) = (sum(8), sum(12));
    // The clients closed: wait for the server to see every close.
    let m = eventually(Duration::from_secs(10), "every connection closed", || {
        let m = scrape(metrics);
        let open = get(&m, "guid_connections_open{listener=\"flake\"}")
            + get(&m, "guid_connections_open{listener=\"global\"}");
        (open == 0).then_some(m)
    });
    assert_eq!(
        get(&m, "guid_ids_issued_total{listener=\"flake\"}"),
        flake_ids
    );
    assert_eq!(
        get(&m, "guid_ids_issued_total{listener=\"global\"}"),
        global_ids
    );
    assert_eq!(
        get(&m, "guid_requests_total{listener=\"flake\"}"),
        flake_reqs
    );
    assert_eq!(
        get(&m, "guid_requests_total{listener=\"global\"}"),
        global_reqs
    );
    assert_eq!(
        get(&m, "guid_connections_accepted_total{listener=\"flake\"}"),
        3
    );
    assert_eq!(
        get(&m, "guid_connections_accepted_total{listener=\"global\"}"),
        2
    );
    assert_eq!(
        get(&m, "guid_connections_closed_total{reason=\"client\"}"),
        5
    );
    for reason in ["io", "cap", "auth", "idle", "fault", "lease", "shutdown"] {
        let series = format!("guid_connections_closed_total{{reason=\"{reason}\"}}");
        assert_eq!(get(&m, &series), 0, "{series}");
    }
    assert_eq!(get(&m, "guid_accept_errors_total"), 0);
    assert!(m["process_start_time_seconds"] > 1.6e9, "{m:#?}");
    for clock in ["flake", "global"] {
        for series in ["guid_clock_steps_back_total", "guid_clock_waits_total"] {
            assert_eq!(get(&m, &format!("{series}{{clock=\"{clock}\"}}")), 0);
        }
    }

    let report = server.stop();
    assert_eq!(report.ids, flake_ids);
    assert_eq!(report.global_ids, global_ids);
    assert_eq!(report.requests, flake_reqs + global_reqs);
    assert_eq!(report.connections, 5);
    println!(
        "{scrapes} scrapes during the load; {flake_ids} 64-bit and {global_ids} 96-bit ids in \
         {} requests, counted exactly",
        flake_reqs + global_reqs
    );
}

/// `/healthz` answers while the process runs, `/readyz` says whether ids
/// are handed out: 503 with the reason while the state file cannot be
/// saved, 200 again once it can; other paths are 404 and other methods 405.
#[test]
fn readiness_follows_the_state_file() {
    let dir = temp_dir("metrics-ready");
    let state = dir.join("state");
    let mut config = Config::default();
    config.time.state = Some(state.clone());
    // Saves often, so that a missing directory is found out soon.
    config.time.reserve = Duration::from_millis(20);
    let server = Server::start_full(config, false, true);
    let metrics = server.metrics.unwrap();
    assert_eq!(http_get(metrics, "/healthz"), (200, "ok\n".into()));
    eventually(Duration::from_secs(10), "ready", || {
        (http_get(metrics, "/readyz") == (200, "ok\n".into())).then_some(())
    });
    assert_eq!(http_get(metrics, "/").0, 404);
    assert_eq!(http_get(metrics, "/metrics/extra").0, 404);
    let mut post = TcpStream::connect(metrics).unwrap();
    post.write_all(b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    post.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 405 "), "{answer}");
    assert!(answer.contains("\r\nAllow: GET, HEAD\r\n"), "{answer}");

    // The state's directory goes: saves fail, ids too once they pass the
    // horizon, and readiness says why.
    // (Moved away at once: removing it could race with a save in it.)
    let gone = dir.with_extension("gone");
    let _ = std::fs::remove_dir_all(&gone);
    std::fs::rename(&dir, &gone).unwrap();
    let why = eventually(Duration::from_secs(10), "not ready", || {
        let (status, body) = http_get(metrics, "/readyz");
        (status == 503).then_some(body)
    });
    assert!(why.starts_with("the state file "), "{why}");
    assert!(why.contains("could not be saved"), "{why}");
    assert_eq!(why.lines().count(), 1, "{why}");
    assert_eq!(http_get(metrics, "/healthz").0, 200);
    let m = scrape(metrics);
    assert!(get(&m, "guid_state_save_failures_total") > 0, "{m:#?}");
    assert!(get(&m, "guid_state_saves_total") > 0, "{m:#?}");

    std::fs::create_dir_all(&dir).unwrap();
    eventually(Duration::from_secs(10), "ready again", || {
        (http_get(metrics, "/readyz").0 == 200).then_some(())
    });
    let mut s = raw(server.addr);
    assert_eq!(common::ask(&mut s, 3).len(), 3);
    drop(s);
    server.stop();
    assert!(state.exists());
}

/// The process's own metrics are there, and once the server stops, its
/// metrics listener is closed.
#[test]
fn the_metrics_listener_closes_with_the_server() {
    let server = Server::start_full(Config::default(), false, true);
    let metrics = server.metrics.unwrap();
    let m = scrape(metrics);
    let build = format!(
        "guid_build_info{{version=\"{}\"}}",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(get(&m, &build), 1);
    assert!(m["process_start_time_seconds"] > 1.6e9, "{m:#?}");
    server.stop();
    assert!(TcpStream::connect(metrics).is_err(), "still answering");
}
