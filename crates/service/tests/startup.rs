//! Settings the service could not honour are refused before any listener
//! opens: exit code 2 and one line on stderr naming the flag.
//!
//! The binary runs on addresses this test holds: had it tried to listen
//! first, it would fail there instead (exit 1, "listen on ..."). Its
//! address space is capped (a binary that read a file without bound fails
//! there) and it is killed after 10 s.

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{ChildServer, ask, raw, run_held_via, temp_dir};

/// Runs the binary with `args`, expects the refusal, returns its line.
fn refused(args: &[&str]) -> String {
    refused_with(args, &[])
}

/// [`refused`] with `env` set.
fn refused_with(args: &[&str], env: &[(&str, &str)]) -> String {
    refused_via(&[], args, env).0
}

/// [`refused_with`] through the command `wrapper` ([`run_held_via`]); also
/// returns how long the binary ran.
fn refused_via(wrapper: &[&str], args: &[&str], env: &[(&str, &str)]) -> (String, Duration) {
    let (code, err, took) = run_held_via(wrapper, args, env);
    assert_eq!(code, Some(2), "{args:?}: after {took:?}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line, not {err:?}");
    assert!(!err.contains("listen"), "{args:?}: {err}");
    (lines[0].to_owned(), took)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// `-t $(date +%s%6N)`: microseconds for milliseconds. The state file is
/// neither created nor changed.
#[test]
fn t_in_microseconds_is_refused_and_the_state_file_left_alone() {
    let dir = temp_dir("startup-t");
    let state = dir.join("state");
    let path = state.to_str().unwrap();
    let micros = (now_ms() * 1_000).to_string();
    let line = refused(&["-t", &micros, "--state", path]);
    assert!(line.starts_with(&format!("error: -t {micros} ")), "{line}");
    assert!(!state.exists(), "the state file was written");

    std::fs::write(&state, "1700000000000000000\n").unwrap();
    refused(&["-t", &micros, "--state", path]);
    assert_eq!(
        std::fs::read_to_string(&state).unwrap(),
        "1700000000000000000\n"
    );
}

/// `-t $(date +%s)`: seconds for milliseconds, a time in 1970 that would
/// guard nothing; and a time more than an hour ahead, which would keep the
/// server from serving until then.
#[test]
fn t_in_seconds_or_far_ahead_is_refused() {
    let seconds = (now_ms() / 1_000).to_string();
    let line = refused(&["-t", &seconds]);
    assert!(
        line.starts_with(&format!("error: -t {seconds} is before")),
        "{line}"
    );
    assert!(line.contains("seconds"), "{line}");
    let ahead = (now_ms() + 2 * 3_600_000).to_string();
    let line = refused(&["-t", &ahead]);
    assert!(line.contains("ahead of now"), "{line}");
}

#[test]
fn an_epoch_in_the_future_is_refused() {
    let line = refused(&["--epoch-ms", "99999999999999"]);
    assert!(
        line.starts_with("error: --epoch-ms 99999999999999 is in the future"),
        "{line}"
    );
    let tomorrow = (now_ms() + 86_400_000).to_string();
    let line = refused(&["--epoch-ms", &tomorrow, "--state", "/nonexistent/state"]);
    assert!(line.contains(&format!("--epoch-ms {tomorrow} ")), "{line}");
}

/// Layouts whose time ended before now: each would start, then close
/// every 64-bit connection.
#[test]
fn layouts_that_cannot_hold_now_are_refused() {
    for (args, flag) in [
        (&["--unit", "1ns"][..], "--unit 1ns"),
        (
            &["--epoch-ms", "0", "--layout", "30/21/12"],
            "--layout 30/21/12",
        ),
        (&["--layout", "1/61/1"], "--layout 1/61/1"),
    ] {
        let line = refused(args);
        assert!(line.contains(flag), "{args:?}: {line}");
    }
}

/// Now fits the layout, now plus the max lead does not.
#[test]
fn a_lead_past_the_layout_is_refused() {
    // 2^30 ms from the epoch: the layout ends an hour from now.
    let epoch = (now_ms() + 3_600_000 - (1 << 30)).to_string();
    let base = ["--layout", "30/21/12", "--epoch-ms", &epoch];
    let line = refused(&[&base[..], &["--max-lead", "2h"]].concat());
    assert!(line.starts_with("error: --max-lead 7200s"), "{line}");
    // The state file's reserve counts too.
    let dir = temp_dir("startup-lead");
    let state = dir.join("state");
    let line = refused(
        &[
            &base[..],
            &["--max-lead", "3599s", "--state", state.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(line.contains("--state reserve"), "{line}");
}

/// A state file that cannot be written for want of its directory, and a
/// token file that is not there.
#[test]
fn missing_files_are_refused() {
    let line = refused(&["--state", "/nonexistent/dir/state"]);
    assert!(
        line.starts_with("error: --state /nonexistent/dir/state: "),
        "{line}"
    );
    let line = refused(&["--token-file", "/nonexistent/token"]);
    assert!(
        line.starts_with("error: --token-file /nonexistent/token: "),
        "{line}"
    );
}

/// A binary built without a store's feature knows its flag and says how
/// to get it, rather than calling it an unexpected argument.
#[cfg(not(feature = "etcd"))]
#[test]
fn etcd_without_its_feature_says_how_to_get_it() {
    let line = refused(&["--etcd", "http://127.0.0.1:2379", "--prefix", "/ids"]);
    assert_eq!(
        line,
        "error: --etcd needs the `etcd` feature, which this build of kguid-service left out: build it with its default features (cargo install --locked --path crates/cli from a checkout)"
    );
}

#[cfg(not(feature = "redis"))]
#[test]
fn redis_without_its_feature_says_how_to_get_it() {
    let line = refused(&["--redis", "redis://127.0.0.1:6379", "--prefix", "/ids"]);
    assert!(
        line.starts_with("error: --redis needs the `redis` feature, which this build"),
        "{line}"
    );
}

#[test]
fn limits_that_serve_nobody_are_refused() {
    for flag in ["--max-conns", "--max-unauthed", "--auth-timeout"] {
        let line = refused(&[flag, "0"]);
        assert!(line.starts_with(&format!("error: {flag} 0 ")), "{line}");
    }
    let line = refused(&["-d", "32"]);
    assert!(line.starts_with("error: -d 32 "), "{line}");
    // Held by this test: a server that got as far as listening fails
    // there instead.
    let http = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let http = http.local_addr().unwrap().to_string();
    let line = refused(&["--http", &http, "--http-max-conns", "0"]);
    assert!(line.starts_with("error: --http-max-conns 0 "), "{line}");
    // Refused before the store is asked (nothing listens on port 1), by
    // the builds that have the store: the others refuse the flag itself
    // (`*_without_its_feature_says_how_to_get_it` above).
    let stores = [
        (cfg!(feature = "redis"), "--redis=redis://127.0.0.1:1"),
        (cfg!(feature = "etcd"), "--etcd=http://127.0.0.1:1"),
    ];
    for store in stores
        .iter()
        .filter(|(built, _)| *built)
        .map(|(_, flag)| *flag)
    {
        for ttl in ["0", "3ns"] {
            let line = refused(&[store, "--lease-ttl", ttl]);
            assert!(line.starts_with("error: --lease-ttl "), "{line}");
        }
    }
}

/// A token that is empty would turn auth off: refused, whether from a
/// file (empty, or a lone newline) or from NOEQ_TOKEN.
#[test]
fn an_empty_token_is_refused_rather_than_auth_turned_off() {
    let dir = temp_dir("startup-token");
    for (name, body) in [("empty", ""), ("newline", "\n"), ("crlf", "\r\n")] {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        let path = path.to_str().unwrap();
        let line = refused(&["--token-file", path]);
        assert!(
            line.starts_with(&format!("error: --token-file {path}: holds no token")),
            "{line}"
        );
    }
    let line = refused_with(&[], &[("NOEQ_TOKEN", "")]);
    assert!(line.starts_with("error: NOEQ_TOKEN "), "{line}");
}

/// A state file that is not one canonical decimal, or out of range, is
/// refused and left as it is: a restart never reads it as another time.
#[test]
fn damaged_or_poisoned_state_files_are_refused() {
    let dir = temp_dir("startup-state");
    let state = dir.join("state");
    let path = state.to_str().unwrap();
    for bad in [
        &b""[..],
        b"\n",
        b"0\n",
        b"0001712345678901234567\n",
        b"171234567890123",
        b"1712345678901234567",
        b"17123456789x\n",
        b"-1\n",
        b"+1712345678901234567\n",
        b" 1712345678901234567\n",
        b"1712345678901234567\n\n",
        b"18446744073709551615\n",
        b"99999999999999999999\n",
        // Past the noeqd layout (2080) though within 64 bits.
        b"4000000000000000000\n",
    ] {
        std::fs::write(&state, bad).unwrap();
        let line = refused(&["--state", path]);
        assert!(
            line.starts_with(&format!("error: --state {path}: ")),
            "{bad:?}: {line}"
        );
        assert_eq!(std::fs::read(&state).unwrap(), bad, "the file was changed");
    }
}

/// The checks let good settings through: the same binary serves.
#[test]
fn good_settings_start() {
    let dir = temp_dir("startup-good");
    let state = dir.join("state");
    std::fs::write(&state, format!("{}\n", now_ms() * 1_000_000)).unwrap();
    let epoch = (now_ms() - 1_000).to_string();
    let t = now_ms().to_string();
    let mut server = common::ChildServer::binary(
        &[
            "--state",
            state.to_str().unwrap(),
            "--epoch-ms",
            &epoch,
            "-t",
            &t,
            "--layout",
            "45/10/8",
        ],
        |_| {},
    );
    let mut s = common::raw(server.addr);
    assert_eq!(common::ask(&mut s, 255).len(), 255);
    drop(s);
    assert!(server.terminate().success());
}

/// The (device, inode) of the file `path` names.
fn inode(path: &Path) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).unwrap();
    (meta.dev(), meta.ino())
}

/// Whether this test may bind-mount a directory in a mount namespace of
/// its own (`unshare -m`, as root or with user namespaces).
fn can_bind(from: &Path, to: &Path) -> bool {
    std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", r#"mount --bind "$0" "$1""#])
        .args([from, to])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Two servers on one state file and node would hand out the same ids,
/// whatever name each reaches it by. While a server holds `dir/state`, a
/// second is refused on a symbolic link to it, on a hard link to it (one
/// made while the first runs, and one its saves have since left on an
/// earlier version of the file), on a path through `..` and on another
/// mount of its directory (a bind, where this test can make one).
#[test]
fn the_state_file_under_another_name_is_refused_while_a_server_holds_it() {
    let dir = temp_dir("startup-alias");
    let state = dir.join("state");
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::create_dir(dir.join("other")).unwrap();
    let mut first = ChildServer::binary(
        &["-d", "1", "-w", "1", "--state", state.to_str().unwrap()],
        |_| {},
    );
    assert_eq!(ask(&mut raw(first.addr), 10).len(), 10);
    let held = |alias: &Path| {
        let alias = alias.to_str().unwrap();
        let (line, _) = refused_via(&[], &["-d", "1", "-w", "1", "--state", alias], &[]);
        assert!(
            line.starts_with(&format!("error: --state {alias}: ")),
            "{line}"
        );
        assert!(line.contains("another server"), "{alias}: {line}");
    };

    let link = dir.join("other").join("link");
    std::os::unix::fs::symlink(&state, &link).unwrap();
    held(&link);
    let relative = dir.join("relative");
    std::os::unix::fs::symlink("state", &relative).unwrap();
    held(&relative);
    held(&dir.join("sub").join("..").join("state"));
    let hard = dir.join("other").join("hard");
    std::fs::hard_link(&state, &hard).unwrap();
    held(&hard);
    // The first server saves a new version of the file (a rename over
    // it) as its ids move on: the hard link is left on the earlier one,
    // which it still holds.
    common::eventually(Duration::from_secs(30), "a save of the state file", || {
        ask(&mut raw(first.addr), 10);
        (inode(&state) != inode(&hard)).then_some(())
    });
    held(&hard);
    held(&link);

    let bound = dir.join("bound");
    std::fs::create_dir(&bound).unwrap();
    if can_bind(&dir, &bound) {
        let script = r#"mount --bind "$0" "$1" && shift && exec "$@""#;
        let (from, to) = (dir.to_str().unwrap(), bound.to_str().unwrap());
        let alias = bound.join("state");
        let alias = alias.to_str().unwrap();
        let (line, _) = refused_via(
            &["unshare", "-m", "sh", "-c", script, from, to],
            &["-d", "1", "-w", "1", "--state", alias],
            &[],
        );
        assert!(line.contains("another server"), "{alias}: {line}");
    } else {
        eprintln!("no bind mount here (unshare -m): its case skipped");
    }

    // The refused ones took nothing from the first.
    assert_eq!(ask(&mut raw(first.addr), 10).len(), 10);
    assert!(first.terminate().success());
}

/// A `--state` link to a file that is not there (its volume not mounted,
/// say) is no first start: refused, naming the flag, and nothing is
/// created, neither where it points nor beside it; the link is left as it
/// is.
#[test]
fn a_state_link_to_nothing_is_refused() {
    let dir = temp_dir("startup-dangling");
    let link = dir.join("link");
    for target in [dir.join("missing"), dir.join("unmounted").join("state")] {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let path = link.to_str().unwrap();
        let line = refused(&["--state", path]);
        assert!(
            line.starts_with(&format!("error: --state {path}: ")),
            "{line}"
        );
        assert!(line.contains(target.to_str().unwrap()), "{line}");
        assert_eq!(std::fs::read_link(&link).unwrap(), target);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["link"], "{target:?}");
    }
}

/// A state file reached through a symbolic link is saved where the link
/// points: the link stays a link (a save's rename over the link itself
/// would replace it with a file of its own, off the volume it pointed to).
#[test]
fn a_state_file_through_a_link_is_saved_where_the_link_points() {
    let dir = temp_dir("startup-link");
    std::fs::create_dir(dir.join("volume")).unwrap();
    let state = dir.join("volume").join("state");
    let before = now_ms() * 1_000_000;
    std::fs::write(&state, format!("{before}\n")).unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&state, &link).unwrap();
    let mut server = ChildServer::binary(&["--state", link.to_str().unwrap()], |_| {});
    assert_eq!(ask(&mut raw(server.addr), 10).len(), 10);
    assert!(server.terminate().success());
    assert_eq!(std::fs::read_link(&link).unwrap(), state);
    let after: u64 = std::fs::read_to_string(&state)
        .unwrap()
        .trim_end()
        .parse()
        .unwrap();
    assert!(after > before, "{after} <= {before}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["link", "volume"]);
}

/// A token file is a small regular file: a device (`/dev/zero` has no
/// end), a FIFO (no writer), a directory or a file longer than any token
/// is refused unread, naming the flag.
#[test]
fn token_files_that_are_not_small_regular_files_are_refused() {
    let dir = temp_dir("startup-token-kinds");
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string for a path in our directory.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let long = dir.join("long");
    std::fs::write(&long, vec![b'x'; 1_000_000]).unwrap();
    for (path, what) in [
        (Path::new("/dev/zero"), "character device"),
        (&fifo, "FIFO"),
        (&dir, "directory"),
        (&long, "1000000 bytes"),
    ] {
        let path = path.to_str().unwrap();
        // A binary that read or waited would take the memory cap or the
        // 10 s kill, not exit 2.
        let line = refused(&["--token-file", path]);
        assert!(
            line.starts_with(&format!("error: --token-file {path}: ")),
            "{line}"
        );
        assert!(line.contains(what), "{line}");
    }
}

/// A token file's line ending, LF or CRLF, is not part of the token: a
/// client sending the token alone gets its ids.
#[test]
fn a_token_file_s_line_ending_is_not_part_of_the_token() {
    let dir = temp_dir("startup-token-crlf");
    let token = dir.join("token");
    for body in ["s3cret", "s3cret\n", "s3cret\r\n"] {
        std::fs::write(&token, body).unwrap();
        let mut server = ChildServer::binary(&["--token-file", token.to_str().unwrap()], |_| {});
        let mut s = raw(server.addr);
        let mut frame = kguid_service::protocol::auth_preamble(b"s3cret").unwrap();
        frame.push(3);
        s.write_all(&frame).unwrap();
        let mut ids = [0u8; 24];
        let read = s.read_exact(&mut ids);
        assert!(read.is_ok(), "{body:?}: {read:?}");
        assert!(server.terminate().success());
    }
}
