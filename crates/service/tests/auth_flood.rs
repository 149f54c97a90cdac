//! With a token, a connect flood (connections that never send a byte) does
//! not keep out clients that have the token: `guid-serve` (the real
//! binary) with the default `--max-unauthed` and `--auth-timeout`, a
//! flooder on 127.0.0.1 and clients with the token on 127.0.0.2.
#![cfg(feature = "cli")]

mod common;

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{ChildServer, eventually, scrape};

const TOKEN: &str = "s3cret";

/// The default `--max-unauthed`.
const LINE: u64 = 1024;

/// When the clients with the token send it, after connecting.
const DELAYS_MS: [u64; 8] = [50, 200, 500, 1_000, 50, 200, 500, 1_000];

/// The flood lasts at least this long, and at most `FLOOD_MAX`.
const FLOOD_MIN: Duration = Duration::from_secs(3);
const FLOOD_MAX: Duration = Duration::from_secs(20);

/// A connection to `to` from the address `from`.
fn connect_from(from: IpAddr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(SocketAddr::new(from, 0))?;
        let stream = socket.connect(to).await?.into_std()?;
        stream.set_nonblocking(false)?;
        Ok(stream)
    })
}

/// Connects from 127.0.0.2, sends the token `delay` later with a request
/// for 3 ids: whether they came, or why not.
fn legit(addr: SocketAddr, delay: Duration) -> Result<(), String> {
    let mut s = connect_from(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), addr)
        .map_err(|e| format!("connect: {e}"))?;
    std::thread::sleep(delay);
    let mut frame = kguid_service::protocol::auth_preamble(TOKEN.as_bytes()).unwrap();
    frame.push(3);
    s.write_all(&frame)
        .map_err(|e| format!("send the token: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut ids = [0u8; 24];
    s.read_exact(&mut ids)
        .map_err(|e| format!("read the ids: {e}"))
}

/// Opens connections from 127.0.0.1 as fast as it can, `IN_FLIGHT` at
/// a time, until `stop` (and at least `FLOOD_MIN`, at most `FLOOD_MAX`),
/// sending nothing; keeps the last 4,096 open. Counts them in `opened`.
fn flood(addr: SocketAddr, opened: Arc<AtomicU64>, stop: Arc<AtomicBool>) {
    const IN_FLIGHT: usize = 1024;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let start = Instant::now();
        let mut held = VecDeque::with_capacity(4096);
        let mut connecting = tokio::task::JoinSet::new();
        while start.elapsed() < FLOOD_MAX
            && (start.elapsed() < FLOOD_MIN || !stop.load(Ordering::Relaxed))
        {
            while connecting.len() < IN_FLIGHT {
                connecting.spawn(tokio::time::timeout(
                    Duration::from_secs(1),
                    tokio::net::TcpStream::connect(addr),
                ));
            }
            match connecting.join_next().await {
                Some(Ok(Ok(Ok(s)))) => {
                    opened.fetch_add(1, Ordering::Relaxed);
                    if held.len() == 4096 {
                        held.pop_front();
                    }
                    held.push_back(s);
                }
                // Out of ports or descriptors for a moment.
                Some(Ok(Ok(Err(_)))) => tokio::time::sleep(Duration::from_millis(1)).await,
                _ => {}
            }
        }
        connecting.shutdown().await;
    });
}

/// A flooder opens connections as fast as it can and never sends a byte;
/// once it has filled the line of connections waiting to authenticate
/// twice over, eight clients on another address connect and send the
/// token 50 ms to 1 s later: every one gets its ids.
#[test]
fn token_holders_are_served_during_a_connect_flood() {
    let server = ChildServer::binary(&["--metrics", "127.0.0.1:0"], |cmd| {
        cmd.env("NOEQ_TOKEN", TOKEN);
    });
    let metrics = server.metrics_addr();
    let addr = server.addr;
    let opened = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let flooder = {
        let (opened, stop) = (Arc::clone(&opened), Arc::clone(&stop));
        std::thread::spawn(move || flood(addr, opened, stop))
    };
    eventually(
        Duration::from_secs(15),
        "the flooder filled the line",
        || (opened.load(Ordering::Relaxed) >= 2 * LINE).then_some(()),
    );
    let clients: Vec<_> = DELAYS_MS
        .iter()
        .enumerate()
        .map(|(i, &ms)| {
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100 * i as u64));
                legit(addr, Duration::from_millis(ms))
            })
        })
        .collect();
    let results: Vec<_> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    stop.store(true, Ordering::Relaxed);
    flooder.join().unwrap();
    let served = results.iter().filter(|r| r.is_ok()).count();
    let m = scrape(metrics);
    let evicted = m["guid_auth_failures_total{cause=\"evicted\"}"];
    println!(
        "served {served} of {} clients with the token; the flooder opened {} connections, {evicted} closed to make room",
        DELAYS_MS.len(),
        opened.load(Ordering::Relaxed)
    );
    assert!(evicted > 0.0, "the flood never filled the line");
    let failed: Vec<_> = DELAYS_MS
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.is_err())
        .collect();
    assert!(failed.is_empty(), "not served (delay ms, why): {failed:?}");
}
