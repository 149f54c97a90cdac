//! `guid serve` runs the id service from the command: a real listener,
//! noeqd's protocol, a clean exit on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::Duration;

/// `guid serve -l 127.0.0.1:0 ARGS`, its log, and the log's first line.
fn serve(args: &[&str]) -> (Child, BufReader<ChildStderr>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_guid"))
        .args(["serve", "-l", "127.0.0.1:0"])
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .expect("guid serve starts");
    let mut log = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    log.read_line(&mut first).unwrap();
    (child, log, first)
}

#[test]
fn serve_answers_noeqd_requests_and_stops_on_sigterm() {
    let (mut child, mut log, first) = serve(&["-d", "3", "-w", "9"]);
    // "guid serve: listening on 127.0.0.1:PORT for 64-bit ids: ..."
    let addr = first
        .split_whitespace()
        .find(|w| w.starts_with("127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_owned();

    let mut conn = TcpStream::connect(&addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    conn.write_all(&[2]).unwrap();
    let mut reply = [0u8; 16];
    conn.read_exact(&mut reply).unwrap();
    let a = u64::from_be_bytes(reply[..8].try_into().unwrap());
    let b = u64::from_be_bytes(reply[8..].try_into().unwrap());
    assert!(b > a);
    for id in [a, b] {
        // noeqd: ((ms - epoch) << 22) | (dc << 17) | (worker << 12) | seq
        assert_eq!((id >> 17) & 31, 3);
        assert_eq!((id >> 12) & 31, 9);
    }

    // SIGTERM: stop accepting, finish, log the totals, exit 0.
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
    let mut rest = String::new();
    log.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("2 64-bit ids"), "{rest}");
}

/// Durations are read by `humantime`, bare numbers as seconds: each of
/// these starts the service, where a hand-written parser refused them
/// ("too long", "unknown unit").
#[test]
fn serve_takes_durations_in_any_unit() {
    for duration in ["5000000000ns", "1m30s", "1.5s", "2.5", "30"] {
        let (mut child, _, first) = serve(&["--idle-timeout", duration]);
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            first.contains("listening on 127.0.0.1:"),
            "--idle-timeout {duration}: {first:?}"
        );
    }
    let run = Command::new(env!("CARGO_BIN_EXE_guid"))
        .args(["serve", "-l", "127.0.0.1:0", "--idle-timeout", "-1s"])
        .output()
        .expect("guid serve runs");
    assert_eq!(run.status.code(), Some(2), "{run:?}");
}
