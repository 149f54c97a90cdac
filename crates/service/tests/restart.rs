//! Restart safety: kill -9, the clock set back, restart with the state file;
//! and a graceful stop on SIGTERM.

mod common;

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

/// Takes ids from `addr` for `span`, in requests of 255.
fn take_for(addr: std::net::SocketAddr, span: Duration) -> Vec<u64> {
    let mut s = raw(addr);
    let mut ids = Vec::new();
    let start = Instant::now();
    while start.elapsed() < span && ids.len() < 2_000_000 {
        ids.extend(ask(&mut s, 255));
    }
    ids
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

    // The control: the same restart without the state file goes back in time.
    let _ = std::fs::remove_file(&state);
    let mut third = ChildServer::test_child(&env(5_000, false));
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
