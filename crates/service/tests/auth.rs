//! Clients without the token cannot keep out a client with it: the whole
//! auth frame has a deadline from accept, and connections waiting to
//! authenticate have their own cap, apart from `--max-conns`.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{Server, eventually, raw, read_ids, scrape};
use kguid_service::Config;

const TOKEN: &[u8] = b"s3cret";

fn config(auth_timeout: Duration) -> Config {
    let mut c = Config::default();
    c.conns.token = Some(TOKEN.to_vec());
    c.conns.auth_timeout = auth_timeout;
    c
}

/// Sends the token and a request for 3 ids; the connection and its ids,
/// or `None` if it closed or nothing came within `wait`.
fn with_token(addr: std::net::SocketAddr, wait: Duration) -> Option<(TcpStream, Vec<u64>)> {
    let mut s = raw(addr);
    s.set_read_timeout(Some(wait)).unwrap();
    let mut frame = kguid_service::protocol::auth_preamble(TOKEN).unwrap();
    frame.push(3);
    s.write_all(&frame).ok()?;
    let mut buf = [0u8; 24];
    s.read_exact(&mut buf).ok()?;
    let ids = buf
        .chunks_exact(8)
        .map(|c| u64::from_be_bytes(c.try_into().unwrap()))
        .collect();
    Some((s, ids))
}

/// Waits until the server closes `s` (EOF or reset), at most `limit`;
/// how long that took, or `None`.
fn closed_within(s: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut b = [0u8; 64];
    loop {
        let left = limit.checked_sub(start.elapsed())?;
        s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        match s.read(&mut b) {
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => panic!("bytes sent before auth"),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(start.elapsed());
            }
            Err(_) => {}
        }
    }
}

/// 60 connections that send only `0x00` with `--max-conns 50`: a client
/// with the token is served at once, and the 60 are closed at the
/// deadline.
#[test]
fn half_open_auth_frames_do_not_keep_out_the_token() {
    let deadline = Duration::from_secs(3);
    let mut c = config(deadline);
    c.conns.max_conns = 50;
    let server = Server::start(c);
    let opened = Instant::now();
    let mut half_open: Vec<TcpStream> = (0..60)
        .map(|_| {
            let mut s = raw(server.addr);
            s.write_all(&[0]).unwrap();
            s
        })
        .collect();
    let (client, ids) = with_token(server.addr, deadline).expect("served within the deadline");
    assert_eq!(ids.len(), 3);
    drop(client);
    // The documented deadline, with slack for a busy machine.
    for s in &mut half_open {
        let left = (deadline + Duration::from_secs(2)).saturating_sub(opened.elapsed());
        assert!(
            closed_within(s, left).is_some(),
            "a half-open connection outlived the auth deadline"
        );
    }
    let report = server.stop();
    assert_eq!(report.auth_failures, 60);
    assert_eq!(report.ids, 3);
}

/// A token trickled in one byte at a time keeps the connection from idling
/// out, but not past the auth deadline, counted from accept.
#[test]
fn a_trickled_token_is_closed_at_the_deadline() {
    let deadline = Duration::from_secs(2);
    let mut c = config(deadline);
    c.conns.token = Some(vec![b'x'; 255]);
    c.conns.idle_timeout = Some(Duration::from_secs(3));
    let server = Server::start(c);
    let connected = Instant::now();
    let mut s = raw(server.addr);
    let mut writer = s.try_clone().unwrap();
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let trickle = std::thread::spawn(move || {
        let mut frame = vec![0, 255];
        frame.extend([b'x'; 255]);
        for b in frame {
            if writer.write_all(&[b]).is_err() {
                return;
            }
            if stopped.recv_timeout(Duration::from_millis(500)).is_ok() {
                return;
            }
        }
    });
    let closed = closed_within(&mut s, deadline + Duration::from_secs(2));
    let _ = stop.send(());
    trickle.join().unwrap();
    assert!(closed.is_some(), "still open past the deadline");
    assert!(
        connected.elapsed() >= deadline,
        "closed before the deadline: {:?}",
        connected.elapsed()
    );
    let report = server.stop();
    assert_eq!((report.auth_failures, report.idle_closed), (1, 0));
}

/// With a short line of connections waiting to authenticate, the oldest
/// are closed to make room: however many are held open, a client with the
/// token gets in.
#[test]
fn the_oldest_waiting_connection_makes_room() {
    let mut c = config(Duration::from_secs(60));
    c.conns.max_unauthed = 4;
    c.conns.max_conns = 1;
    let server = Server::start_full(c, false, true);
    let mut waiting: Vec<TcpStream> = (0..10)
        .map(|_| {
            let mut s = raw(server.addr);
            s.write_all(&[0, TOKEN.len() as u8]).unwrap();
            s
        })
        .collect();
    let (client, ids) = with_token(server.addr, Duration::from_secs(5)).expect("served");
    assert_eq!(ids.len(), 3);
    // Ten waited in a line of four, and the client with the token came
    // last: the first seven made room, long before their deadline.
    for (i, s) in waiting.iter_mut().take(7).enumerate() {
        assert!(
            closed_within(s, Duration::from_secs(5)).is_some(),
            "connection {i} still open"
        );
    }
    // The seat is taken: a second client with the token authenticates
    // and is closed at the cap.
    assert!(with_token(server.addr, Duration::from_secs(5)).is_none());
    // The metrics say so: 12 accepted, 7 made room, 1 at the cap, 3
    // waiting and the client served.
    let metrics = server.metrics.unwrap();
    let m = eventually(Duration::from_secs(10), "the closes counted", || {
        let m = scrape(metrics);
        let closed = m["guid_connections_closed_total{reason=\"auth\"}"]
            + m["guid_connections_closed_total{reason=\"cap\"}"];
        (closed == 8.0).then_some(m)
    });
    assert_eq!(m["guid_auth_failures_total{cause=\"evicted\"}"], 7.0);
    assert_eq!(m["guid_auth_failures_total{cause=\"token\"}"], 0.0);
    assert_eq!(m["guid_connections_closed_total{reason=\"cap\"}"], 1.0);
    assert_eq!(
        m["guid_connections_accepted_total{listener=\"flake\"}"],
        12.0
    );
    assert_eq!(m["guid_connections_open{listener=\"flake\"}"], 4.0);
    drop((waiting, client));
    let report = server.stop();
    assert_eq!(report.auth_failures, 7, "{report:?}");
    assert_eq!(report.rejected, 1);
}

/// Without a token nothing changes: the seats are taken at accept.
#[test]
fn without_a_token_the_cap_applies_at_accept() {
    let mut c = Config::default();
    c.conns.max_conns = 1;
    let server = Server::start(c);
    let mut a = raw(server.addr);
    a.write_all(&[2]).unwrap();
    assert_eq!(read_ids(&mut a, 2).len(), 2);
    let mut b = raw(server.addr);
    assert!(common::closed(&mut b));
    drop(a);
    assert_eq!(server.stop().rejected, 1);
}
