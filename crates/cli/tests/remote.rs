//! `guid gen --remote`: ids taken from a running `guid serve`, with
//! failover across addresses and noeqd's token.

mod common;

use guid::Id;
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStderr, Command, Stdio};

use common::{command, guid, guid_stdin, run_with};
use guid::Guid;
use guid::flake::Layout;
use serde_json::{Value, json};

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

/// The object `inspect --flake` prints of a flake id of noeqd's layout
/// read in `form`, without its `time` text.
fn flake_object(id: u64, form: &str) -> Value {
    let parts = Layout::NOEQD.decompose(id).expect("a flake id");
    let time = guid::unix_nanos(Layout::NOEQD.time(parts.time));
    json!({
        "kind": "flake",
        "form": form,
        "int": id.to_string(),
        "hex": format!("{id:016x}"),
        "time_ns": time,
        "node": parts.node,
        "datacenter": parts.node >> 5,
        "worker": parts.node & 31,
        "seq": parts.seq,
    })
}

/// Each object of `run` without its `time` text (checked to be a string).
fn timeless(run: &common::Run) -> Vec<Value> {
    let mut objects = run.objects();
    for o in &mut objects {
        let time = o.as_object_mut().and_then(|o| o.remove("time"));
        assert!(time.is_some_and(|t| t.is_string()), "{run:?}");
    }
    objects
}

/// What `gen --remote --flake` prints, as int or hex, reads back with
/// `inspect --flake`: in a stream, alone, and found by `--extract
/// --flake`, with the parts of noeqd's layout (time, datacenter, worker,
/// sequence) and every form. And the 96-bit ids of `gen --remote` read
/// back without flags.
#[test]
fn remote_ids_read_back() {
    let serve = Serve::start(None);
    for format in ["int", "hex"] {
        let start = guid::unix_nanos(std::time::SystemTime::now());
        let made = guid([
            "gen",
            "--remote",
            &serve.flake,
            "--flake",
            "--format",
            format,
            "-n",
            "50",
        ]);
        assert_eq!((made.code, made.stderr.as_str()), (0, ""), "{made:?}");
        let ids: Vec<u64> = made
            .lines()
            .iter()
            .map(|l| match format {
                "int" => l.parse().expect("an int"),
                _ => u64::from_str_radix(l, 16).expect("hex"),
            })
            .collect();
        let want: Vec<Value> = ids.iter().map(|&id| flake_object(id, format)).collect();
        for o in &want {
            assert_eq!((&o["datacenter"], &o["worker"]), (&json!(3), &json!(9)));
            let time = o["time_ns"].as_u64().expect("a time");
            assert!(
                time + 1_000_000 >= start && time < start + 60_000_000_000,
                "{o}"
            );
        }
        let run = guid_stdin(["inspect", "--flake"], made.stdout.as_bytes());
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
        assert_eq!(timeless(&run), want);
        let run = guid_stdin(
            ["inspect", "--flake", "--from", format],
            made.stdout.as_bytes(),
        );
        assert_eq!(timeless(&run), want);
        for (line, want) in made.lines().iter().zip(&want).take(3) {
            let run = guid(["inspect", "--flake", line]);
            assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
            assert_eq!(timeless(&run), std::slice::from_ref(want));
        }
        let text: String = made
            .lines()
            .iter()
            .map(|l| format!("at=1 id={l} ok\n"))
            .collect();
        let run = guid_stdin(["inspect", "--extract", "--flake"], text.as_bytes());
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
        let found: Vec<Value> = timeless(&run)
            .into_iter()
            .enumerate()
            .map(|(i, mut o)| {
                let line = o.as_object_mut().and_then(|o| o.remove("line"));
                assert_eq!(line, Some(json!(i + 1)));
                o
            })
            .collect();
        assert_eq!(found, want);
    }

    let made = guid(["gen", "--remote", &serve.global, "-n", "50"]);
    let run = guid_stdin(["inspect"], made.stdout.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let strings: Vec<Value> = run.objects().iter().map(|o| o["string"].clone()).collect();
    assert_eq!(strings, made.lines());
    for line in made.lines().iter().take(3) {
        let run = guid(["inspect", line]);
        assert_eq!(
            (run.code, &run.objects()[0]["string"]),
            (0, &json!(line)),
            "{run:?}"
        );
    }
}

/// A value that is no flake id of noeqd's layout (the sign bit set, not
/// a number, the wrong length of hex) is refused, named; `--flake` goes
/// with no other reading's flag.
#[test]
fn inspect_flake_refuses_what_is_no_flake_id() {
    let run = guid([
        "inspect",
        "--flake",
        "9223372036854775808",
        "12ab",
        "fffffffffffffff",
        "x",
        "5",
    ]);
    assert_eq!(run.code, 3, "{run:?}");
    let objects = timeless(&run);
    assert_eq!(objects, [flake_object(5, "int")]);
    assert_eq!(run.stderr.lines().count(), 4, "{run:?}");
    assert!(
        run.stderr
            .lines()
            .all(|l| l.starts_with("error: invalid id '"))
    );
    assert!(run.stderr.contains("sign bit"), "{run:?}");
    for flags in [
        &["--v3"][..],
        &["--sno"],
        &["--as", "l"],
        &["--from-v2"],
        &["--from", "string"],
    ] {
        let run = guid(["inspect", "--flake"].iter().chain(flags).chain(&["5"]));
        assert_eq!(run.code, 2, "{flags:?}: {run:?}");
    }
}

/// A flake id given without --flake reads as one, its only reading (its
/// int and hex are of drift code 0 as local ids, until 2028); --extract
/// finds flake ids with --flake only (a flake id that is no other id is
/// skipped silently: so are many numbers).
#[test]
fn a_flake_id_reads_without_flake() {
    for (id, form) in [("2129406907130052609", "int"), ("1d8d2c4ccc000001", "hex")] {
        let run = guid(["inspect", id]);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
        let value = match form {
            "int" => id.parse().expect("an int"),
            _ => u64::from_str_radix(id, 16).expect("hex"),
        };
        assert_eq!(timeless(&run), [flake_object(value, form)]);
        let text = format!("t=1 id={id} ok\n");
        let run = guid_stdin(["inspect", "--extract"], text.as_bytes());
        let got = (run.code, run.stdout.as_str(), run.stderr.as_str());
        assert_eq!(got, (0, "", ""), "{run:?}");
        let run = guid_stdin(["inspect", "--extract", "--flake"], text.as_bytes());
        assert_eq!(run.objects().len(), 1, "{run:?}");
    }
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
