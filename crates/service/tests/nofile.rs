//! The connection limits are checked against the open-file limit before a
//! listener opens: the soft limit is raised to fit when the hard limit
//! allows, else the settings are refused (exit 2) rather than left to fail
//! with EMFILE before `--max-conns` is reached. The real binary, under a
//! limit set between fork and exec.
#![cfg(all(feature = "cli", target_os = "linux"))]

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::ChildServer;

/// How a run under a limit went.
enum Run {
    /// It printed its start line: running.
    Started(Child),
    /// It exited: the code and what it wrote.
    Exited(Option<i32>, String),
}

/// Sets the open-file limit of the child before it runs.
fn limit(cmd: &mut Command, soft: u64, hard: u64) {
    // SAFETY: runs in the child between fork and exec, calling only
    // setrlimit, which is async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: soft,
                rlim_max: hard,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Runs `guid-serve` with `args` on 127.0.0.1:0 under the open-file limit
/// `soft:hard`, with `NOEQ_TOKEN` set if `token`; waits (at most 10 s) for
/// its start line or its exit.
fn run(soft: u64, hard: u64, token: bool, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_guid-serve"));
    cmd.args(["-l", "127.0.0.1:0"]).args(args);
    if token {
        cmd.env("NOEQ_TOKEN", "s3cret");
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    limit(&mut cmd, soft, hard);
    let mut child = cmd.spawn().expect("spawn guid-serve");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut out = String::new();
    loop {
        while let Ok(line) = rx.try_recv() {
            if line.contains("listening on") {
                return Run::Started(child);
            }
            out.push_str(&line);
            out.push('\n');
        }
        if let Some(status) = child.try_wait().unwrap() {
            // What it wrote before it exited.
            while let Ok(line) = rx.recv_timeout(Duration::from_secs(1)) {
                out.push_str(&line);
                out.push('\n');
            }
            return Run::Exited(status.code(), out);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("neither started nor exited within 10 s: {out}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The open-file limits of process `pid`, from /proc.
fn nofile(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("a Max open files line");
    let mut words = line["Max open files".len()..].split_whitespace();
    let mut next = || {
        words
            .next()
            .and_then(|w| w.parse().ok())
            .unwrap_or(u64::MAX)
    };
    (next(), next())
}

/// This process's hard open-file limit.
fn hard_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
    lim.rlim_max
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Under 1024 open files, the defaults (10,000 connections, and 1,024
/// more waiting for the token) are refused with exit 2, the message naming
/// the flags and the limit.
#[test]
fn the_defaults_past_1024_open_files_are_refused() {
    for token in [false, true] {
        match run(1024, 1024, token, &[]) {
            Run::Started(child) => {
                stop(child);
                panic!("started with --max-conns 10000 under 1024 open files (token: {token})");
            }
            Run::Exited(code, out) => {
                assert_eq!(code, Some(2), "{out}");
                assert!(out.contains("--max-conns 10000"), "{out}");
                assert!(out.contains("1024"), "{out}");
                assert_eq!(out.contains("--max-unauthed 1024"), token, "{out}");
                assert_eq!(out.lines().count(), 1, "{out}");
                println!("token: {token}: {out}");
            }
        }
    }
}

/// Limits that fit under 1024 open files start, and serve.
#[test]
fn limits_that_fit_start() {
    match run(
        1024,
        1024,
        true,
        &["--max-conns", "500", "--max-unauthed", "200"],
    ) {
        Run::Started(child) => {
            assert_eq!(nofile(child.id()), (1024, 1024));
            stop(child);
        }
        Run::Exited(code, out) => panic!("refused ({code:?}): {out}"),
    }
}

/// With a soft limit of 1024 and a hard limit that allows more, the soft
/// limit is raised to fit the defaults, and the server starts.
#[test]
fn the_soft_limit_is_raised_to_fit() {
    let hard = hard_limit();
    let need = 10_000 + 1_024 + 128;
    if hard < need {
        println!("skipped: the hard open-file limit here is {hard}, below the {need} to show");
        return;
    }
    let server = ChildServer::binary(&[], |cmd| {
        cmd.env("NOEQ_TOKEN", "s3cret");
        limit(cmd, 1024, hard);
    });
    let (soft, raised_hard) = nofile(server.child.id());
    assert_eq!(raised_hard, hard);
    assert!(soft >= need && soft <= hard, "soft limit {soft}");
    println!("soft limit raised from 1024 to {soft} (hard {hard})");
}
