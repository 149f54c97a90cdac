//! The metrics listener cannot be starved: connections that never send a
//! request head hold no place a health check needs (`guid-serve
//! --metrics`, the real binary).
#![cfg(feature = "cli")]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::{ChildServer, eventually};

/// Idle connections held open before the probes, and added before each.
const HELD: usize = 200;
const MORE: usize = 5;

/// Probes of each path, each given this long to be answered: three times
/// a liveness probe's usual second, so that a busy machine's scheduling
/// cannot fail it, while a starved listener (slots held 10 s) still does.
const PROBES: usize = 30;
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// One GET of `path` on a new connection, given `PROBE_TIMEOUT` in all:
/// its status, or why there is none.
fn probe(addr: SocketAddr, path: &str) -> Result<u16, String> {
    let start = Instant::now();
    let mut s = TcpStream::connect_timeout(&addr, PROBE_TIMEOUT).map_err(|e| e.to_string())?;
    s.set_write_timeout(Some(PROBE_TIMEOUT)).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").map_err(|e| e.to_string())?;
    let mut reply = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let left = PROBE_TIMEOUT
            .checked_sub(start.elapsed())
            .ok_or("no answer within the timeout")?;
        s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => reply.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("{e} after {} bytes", reply.len())),
        }
    }
    let head = String::from_utf8_lossy(&reply);
    head.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {head:?}"))
}

/// 200 connections that send nothing, and 5 more before each probe: 30
/// probes of `/healthz` and 30 of `/readyz`, each with 1 s to get its
/// answer, are all answered (`ok`: the server is serving).
#[test]
fn idle_connections_do_not_starve_health_checks() {
    let server = ChildServer::binary(&["--metrics", "127.0.0.1:0"], |_| {});
    let addr = server.metrics_addr();
    // Ready once it serves (503 while it starts).
    eventually(Duration::from_secs(10), "ready", || {
        (common::http_get(addr, "/readyz").0 == 200).then_some(())
    });
    let mut held: Vec<TcpStream> = (0..HELD)
        .map(|_| TcpStream::connect(addr).expect("connect an idle client"))
        .collect();
    let mut failed = Vec::new();
    let mut answered = 0;
    for i in 0..PROBES {
        for path in ["/healthz", "/readyz"] {
            held.extend((0..MORE).filter_map(|_| TcpStream::connect(addr).ok()));
            match probe(addr, path) {
                Ok(200) => answered += 1,
                other => failed.push(format!("probe {i} of {path}: {other:?}")),
            }
        }
    }
    println!(
        "{answered} of {} probes answered beside {} idle connections",
        2 * PROBES,
        held.len()
    );
    assert!(failed.is_empty(), "{failed:#?}");
    drop(held);
}
