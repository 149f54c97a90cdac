//! `guid gen --remote`: ids taken from a running `guid serve`, with
//! failover across addresses and noeqd's token.

mod common;

use guid::Id;
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStderr, Command, Stdio};

use common::{command, guid, run_with};
use guid::Guid;

/// A `guid serve` child on ports chosen by the system.
struct Serve {
    child: Child,
    flake: String,
    global: String,
    _log: BufReader<ChildStderr>,
}

impl Serve {
    fn start(token: Option<&str>) -> Serve {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_guid"));
        cmd.args(["serve", "-l", "127.0.0.1:0", "--listen-g", "127.0.0.1:0"])
            .args(["-d", "3", "-w", "9"])
            .env_remove("NOEQ_TOKEN")
            .stderr(Stdio::piped());
        if let Some(token) = token {
            cmd.env("NOEQ_TOKEN", token);
        }
        let mut child = cmd.spawn().expect("guid serve starts");
        let mut log = BufReader::new(child.stderr.take().unwrap());
        // "guid serve: listening on 127.0.0.1:PORT for 64-bit ids: ...", then
        // the same for 96-bit ids.
        let mut addr = || {
            let mut line = String::new();
            log.read_line(&mut line).unwrap();
            line.split_whitespace()
                .find(|w| w.starts_with("127.0.0.1:"))
                .unwrap_or_else(|| panic!("no address in {line:?}"))
                .to_owned()
        };
        let (flake, global) = (addr(), addr());
        Serve {
            child,
            flake,
            global,
            _log: log,
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn global_ids_from_the_service() {
    let serve = Serve::start(None);
    for form in ["string", "json", "base62", "hex"] {
        let run = guid([
            "gen",
            "--remote",
            &serve.global,
            "-n",
            "1000",
            "--format",
            form,
        ]);
        assert_eq!(run.code, 0, "{run:?}");
        let lines = run.lines();
        assert_eq!(lines.len(), 1000);
        let ids: Vec<Guid> = lines
            .iter()
            .map(|l| {
                let run = guid(["inspect", "--from", form, l]);
                assert_eq!(run.code, 0, "{form} {l}: {run:?}");
                run.objects()[0]["string"]
                    .as_str()
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .take(3)
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }
    let run = guid(["gen", "--remote", &serve.global, "-n", "5000"]);
    let ids: Vec<Guid> = run.lines().iter().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ids.len(), 5000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert!(ids.iter().all(|id| id.node() == ids[0].node()));
}

#[test]
fn flake_ids_from_the_service() {
    let serve = Serve::start(None);
    let run = guid(["gen", "--remote", &serve.flake, "--flake", "-n", "3000"]);
    assert_eq!(run.code, 0, "{run:?}");
    let ids: Vec<u64> = run.lines().iter().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ids.len(), 3000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // noeqd: ((ms - epoch) << 22) | (dc << 17) | (worker << 12) | seq
    assert!(
        ids.iter()
            .all(|id| (id >> 17) & 31 == 3 && (id >> 12) & 31 == 9)
    );

    let run = guid([
        "gen",
        "--remote",
        &serve.flake,
        "--flake",
        "--format",
        "hex",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let hex = run.stdout.trim();
    assert_eq!(hex.len(), 16);
    assert_eq!((u64::from_str_radix(hex, 16).unwrap() >> 17) & 31, 3);

    let run = guid([
        "gen",
        "--remote",
        &serve.flake,
        "--flake",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("int or hex"), "{}", run.stderr);
}

#[test]
fn a_dead_address_is_skipped_and_all_dead_is_an_error() {
    let serve = Serve::start(None);
    // Port 1 on loopback refuses connections.
    let addrs = format!("127.0.0.1:1,{}", serve.global);
    for _ in 0..4 {
        let run = guid(["gen", "--remote", &addrs, "-n", "10"]);
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(run.lines().len(), 10);
    }
    let run = guid(["gen", "--remote", "127.0.0.1:1", "-n", "1"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .starts_with("error: cannot get ids from the id service"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_token_comes_from_noeq_token() {
    let serve = Serve::start(Some("s3cret"));
    let mut cmd = command(["gen", "--remote", &serve.global, "-n", "3"]);
    cmd.env("NOEQ_TOKEN", "s3cret");
    let run = run_with(cmd, b"");
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.lines().len(), 3);

    let mut cmd = command(["gen", "--remote", &serve.global, "-n", "3"]);
    cmd.env("NOEQ_TOKEN", "wrong");
    let run = run_with(cmd, b"");
    assert_eq!(run.code, 1, "{run:?}");
}

#[test]
fn remote_conflicts_with_local_clock_flags() {
    for extra in [["--local", ""], ["--node", "7"], ["--drift", "2"]] {
        let args: Vec<&str> = ["gen", "--remote", "127.0.0.1:4445"]
            .into_iter()
            .chain(extra.into_iter().filter(|a| !a.is_empty()))
            .collect();
        let run = guid(args);
        assert_eq!(run.code, 2, "{extra:?}: {run:?}");
    }
    let run = guid(["gen", "--flake"]);
    assert_eq!(run.code, 2, "{run:?}");
}

/// A listener of the other kind is named, quickly and with status 1: the
/// 96-bit one's 12-byte replies printed as flake ids were garbage with
/// status 0 (`7141978313362056826`: year 2064), and the 64-bit one's 8
/// bytes left a request for 96-bit ids waiting 6 s for "Resource
/// temporarily unavailable".
#[test]
fn a_listener_of_the_other_kind_is_named() {
    let serve = Serve::start(None);
    for (addr, flake, hint) in [
        (
            &serve.global,
            true,
            "96-bit listener (--listen-g): drop --flake",
        ),
        (&serve.flake, false, "64-bit listener (-l): add --flake"),
    ] {
        let mut args = vec!["gen", "--remote", addr.as_str(), "-n", "3"];
        if flake {
            args.push("--flake");
        }
        let started = std::time::Instant::now();
        let run = guid(&args);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (1, ""),
            "{args:?}: {run:?}"
        );
        assert!(run.stderr.contains(hint), "{args:?}: {}", run.stderr);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(3),
            "{args:?}"
        );
    }
}

/// A reply of the right length whose time is not now (a server of another
/// layout or kind) is refused with status 1, naming the likely mistake.
#[test]
fn a_reply_from_another_time_is_refused() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let server = std::thread::spawn(move || {
        // Answer every request byte of each connection with 8 bytes of a
        // "flake id" from 2064.
        for conn in listener.incoming().take(2) {
            let mut conn = conn.expect("a connection");
            let mut n = [0u8; 1];
            while conn.read_exact(&mut n).is_ok() {
                for _ in 0..n[0] {
                    if conn
                        .write_all(&7_141_978_313_362_056_826u64.to_be_bytes())
                        .is_err()
                    {
                        return;
                    }
                }
            }
        }
    });
    let run = guid(["gen", "--remote", &addr, "--flake"]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""), "{run:?}");
    assert!(run.stderr.contains("flake ids made now"), "{}", run.stderr);
    assert!(run.stderr.contains("drop --flake"), "{}", run.stderr);
    drop(server);
}
