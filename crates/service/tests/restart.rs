//! Restart safety: kill -9, the clock set back, restart with the state file;
//! and a graceful stop on SIGTERM.

mod common;

use guid::Id;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::{ChildServer, ask, closed, raw, temp_dir};

/// Serves from a child process (see `common::child_main`); not a test of
/// its own.
#[test]
#[ignore = "runs only as the child process of the restart tests"]
fn child_server() {
    if std::env::var_os("KGUID_TEST_CHILD").is_some() {
        common::child_main();
    }
}

/// Takes ids from `addr` for `span` from the first reply, in requests of
/// 255, once the server serves (it turns clients away while it waits for
/// its clock to pass its start bound).
fn take_for(addr: std::net::SocketAddr, span: Duration) -> Vec<u64> {
    let mut s = served(addr);
    let mut ids = Vec::new();
    let start = Instant::now();
    while start.elapsed() < span && ids.len() < 2_000_000 {
        ids.extend(ask(&mut s, 255));
    }
    ids
}

/// A connection the server serves (one id taken to know it): tried again
/// while the server turns clients away, for at most 30 s.
fn served(addr: std::net::SocketAddr) -> std::net::TcpStream {
    common::eventually(Duration::from_secs(30), "served", || {
        let mut s = raw(addr);
        s.write_all(&[1]).ok()?;
        let mut id = [0u8; 8];
        s.read_exact(&mut id).ok()?;
        Some(s)
    })
}

/// Run, kill -9, set the clock back 5 s, restart: with the state file every
/// id after the restart is later than every id before it; without it the
/// restarted server goes back into time it had used.
#[test]
fn restart_after_kill_with_the_clock_set_back() {
    let dir = temp_dir("restart");
    let state = dir.join("state").display().to_string();
    let env = |back_ms: u64, state: bool| {
        let mut env = vec![("KGUID_CHILD_BACK_MS", back_ms.to_string())];
        if state {
            env.push(("KGUID_CHILD_STATE", dir.join("state").display().to_string()));
        }
        env
    };

    let mut first = ChildServer::test_child(&env(0, true));
    let before = take_for(first.addr, Duration::from_millis(300));
    first.kill();
    assert!(std::fs::metadata(&state).is_ok(), "the horizon was saved");

    let mut second = ChildServer::test_child(&env(5_000, true));
    let after = take_for(second.addr, Duration::from_millis(300));
    second.kill();

    let last_before = *before.iter().max().unwrap();
    let first_after = *after.iter().min().unwrap();
    assert!(
        first_after > last_before,
        "{} ids before, {} after: the restart went back",
        before.len(),
        after.len()
    );
    let mut all: Vec<u64> = before.iter().chain(&after).copied().collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), before.len() + after.len());

    // The control: a restart without the state file goes back in time
    // (set back further: the restart above waited for its clock).
    let _ = std::fs::remove_file(&state);
    let mut third = ChildServer::test_child(&env(60_000, false));
    let unguarded = take_for(third.addr, Duration::from_millis(50));
    third.kill();
    assert!(*unguarded.iter().min().unwrap() < last_before);
}

/// SIGTERM: the binary stops accepting, answers what it has read, saves
/// the state and exits 0, logging one line per event.
#[test]
fn sigterm_is_graceful() {
    let dir = temp_dir("sigterm");
    let state = dir.join("state");
    let mut server = ChildServer::binary(&["--state", state.to_str().unwrap(), "-w", "9"], |_| {});
    let mut s = raw(server.addr);
    let ids = ask(&mut s, 255);
    // Requests read before the signal are answered in full.
    s.write_all(&[255; 32]).unwrap();
    let mut first = [0u8; 8];
    s.read_exact(&mut first).unwrap();
    // SAFETY: kill only sends a signal to the child we started.
    unsafe {
        libc::kill(server.child.id() as libc::pid_t, libc::SIGTERM);
    }
    let mut rest = vec![0u8; 32 * 255 * 8 - 8];
    s.read_exact(&mut rest).unwrap();
    assert!(closed(&mut s));
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let log = server.rest_of_stderr();
    assert!(log.contains("SIGTERM received"), "{log}");
    assert!(
        log.contains("stopped: 1 connections, 33 requests, 8415 64-bit ids"),
        "{log}"
    );
    assert!(
        log.lines().count() <= 8,
        "one line per event, not per request:\n{log}"
    );
    // The state holds the time of the last id exactly.
    let saved: u64 = std::fs::read_to_string(&state)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let last = u64::from_be_bytes(rest[rest.len() - 8..].try_into().unwrap());
    let layout = guid::flake::Layout::NOEQD;
    let last_ms = layout.decompose(last).unwrap().time + guid::flake::TWITTER_EPOCH_MS;
    assert_eq!(saved / 1_000_000, last_ms);
    assert!(ids[0] < last);
}

/// SIGTERM as soon as the start line is out: the signal handlers are
/// already in place, so the stop is graceful (exit 0, state saved), not
/// the default death by signal.
#[test]
fn sigterm_right_after_the_start_line_is_graceful() {
    let dir = temp_dir("sigterm-early");
    let state = dir.join("state");
    std::fs::write(&state, "1700000000000000000\n").unwrap();
    for _ in 0..5 {
        let mut server = ChildServer::binary(&["--state", state.to_str().unwrap()], |_| {});
        let status = server.terminate();
        assert!(status.success(), "{status:?}");
        assert_eq!(
            std::fs::read_to_string(&state).unwrap(),
            "1700000000000000000\n"
        );
    }
}

/// Takes 64-bit and 96-bit ids, 255 at a time.
fn take_both(server: &ChildServer) -> (Vec<u64>, Vec<guid::Guid>) {
    let mut f = served(server.addr);
    let mut g = raw(server.global_addr());
    let mut flake = Vec::new();
    let mut global = Vec::new();
    for _ in 0..20 {
        flake.extend(ask(&mut f, 255));
        g.write_all(&[255]).unwrap();
        global.extend(
            common::read_n(&mut g, 255 * 12)
                .chunks_exact(12)
                .map(|b| guid::Guid::from_slice(b).unwrap()),
        );
    }
    (flake, global)
}

/// A run with `-t` three seconds ahead and the state file, stopped; a
/// restart without `-t`: both kinds of ids continue after the earlier ones,
/// and the file holds the time of the last id issued, in its one format.
#[test]
fn a_restart_without_t_continues_after_the_last_run() {
    let dir = temp_dir("restart-t");
    let state = dir.join("state");
    let path = state.to_str().unwrap();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let t = (now_ms + 3_000).to_string();
    let g = ["--listen-g", "127.0.0.1:0"];
    let mut first = ChildServer::binary(&[&g[..], &["--state", path, "-t", &t]].concat(), |_| {});
    let (flake1, global1) = take_both(&first);
    assert!(first.terminate().success());

    let text = std::fs::read_to_string(&state).unwrap();
    let saved: u64 = text.strip_suffix('\n').unwrap().parse().unwrap();
    assert_eq!(format!("{saved}\n"), text);
    let layout = guid::flake::Layout::NOEQD;
    let last_flake = layout.time_of(*flake1.iter().max().unwrap()).unwrap();
    let last_flake = guid::unix_nanos(last_flake);
    let last_global = global1.iter().max().unwrap().time();
    assert_eq!(saved, last_flake.max(last_global));
    assert!(saved / 1_000_000 > now_ms + 3_000, "ids after -t");

    let mut second = ChildServer::binary(&[&g[..], &["--state", path]].concat(), |_| {});
    let (flake2, global2) = take_both(&second);
    assert!(second.terminate().success());
    assert!(flake2.iter().min() > flake1.iter().max());
    // A restart draws a new random node: 96-bit ids of two nodes are only
    // k-ordered, their times are ordered.
    let time = |ids: &[guid::Guid]| ids.iter().map(guid::Guid::time).collect::<Vec<u64>>();
    assert!(time(&global2).iter().min() > time(&global1).iter().max());
}
