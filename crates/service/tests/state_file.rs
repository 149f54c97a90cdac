//! The state file belongs to one server: a second server on it is refused,
//! saves never go through a path another writer could share, and what is
//! read from `--state` is a small regular file in a directory the server
//! can write. Every refusal comes before listening: exit 2 and one line
//! naming `--state`.
#![cfg(feature = "cli")]

mod common;

use std::path::Path;
use std::time::Duration;

use common::{ChildServer, ask, raw, temp_dir};

/// Runs the binary with `--state state` on addresses this process holds
/// (had it listened, it would fail there: exit 1, "listen on"), its address
/// space capped and killed after 10 s ([`common::run_held_via`]); expects
/// the refusal and returns its one line and how long the binary ran.
fn refused(state: &Path) -> (String, Duration) {
    let path = state.to_str().unwrap();
    let (code, err, took) = common::run_held_via(&[], &["--state", path], &[]);
    let what = format!("--state {path}");
    assert_eq!(code, Some(2), "{what}: after {took:?}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one line, not {err:?}");
    assert!(
        lines[0].starts_with(&format!("error: {what}: ")),
        "{what}: {err}"
    );
    (lines[0].to_owned(), took)
}

/// Two servers on one state file and node would hand out the same ids:
/// the second is refused before it listens, as long as the first runs,
/// and the file is free again once the first has stopped.
#[test]
fn a_second_server_on_one_state_file_is_refused_while_the_first_runs() {
    let dir = temp_dir("state-file-twice");
    let state = dir.join("state");
    let path = state.to_str().unwrap();
    let args = ["-d", "1", "-w", "1", "--state", path];
    let mut first = ChildServer::binary(&args, |_| {});
    assert_eq!(ask(&mut raw(first.addr), 10).len(), 10);

    let (line, _) = refused(&state);
    assert!(line.contains("another server"), "{line}");
    assert!(line.contains(&format!("{path}.lock")), "{line}");
    // The refused one took nothing from the first.
    assert_eq!(ask(&mut raw(first.addr), 10).len(), 10);
    assert!(first.terminate().success());
    let saved = std::fs::read_to_string(&state).unwrap();

    let mut next = ChildServer::binary(&args, |_| {});
    let ids = ask(&mut raw(next.addr), 10);
    assert!(next.terminate().success());
    let after: u64 = std::fs::read_to_string(&state)
        .unwrap()
        .trim_end()
        .parse()
        .unwrap();
    assert!(after > saved.trim_end().parse::<u64>().unwrap());
    assert_eq!(ids.len(), 10);
}

/// Saves go through a temporary file of their own, created anew: a
/// `state.tmp` already there (here a link to another file) is neither
/// written through nor moved, and no temporary file is left behind.
#[test]
fn saves_never_write_through_a_fixed_temporary_file() {
    let dir = temp_dir("state-file-tmp");
    let state = dir.join("state");
    let victim = dir.join("victim");
    std::fs::write(&victim, "not the server's\n").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("state.tmp")).unwrap();

    let mut server = ChildServer::binary(&["--state", state.to_str().unwrap()], |_| {});
    assert_eq!(ask(&mut raw(server.addr), 10).len(), 10);
    assert!(server.terminate().success());

    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "not the server's\n"
    );
    assert_eq!(std::fs::read_link(dir.join("state.tmp")).unwrap(), victim);
    let meta = std::fs::symlink_metadata(&state).unwrap();
    assert!(meta.is_file(), "{meta:?}");
    let saved = std::fs::read_to_string(&state).unwrap();
    assert!(saved.trim_end().parse::<u64>().is_ok(), "{saved:?}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["state", "state.lock", "state.tmp", "victim"]);
}

/// The lock file is never written through a link: a `state.lock` that
/// links to another file is refused, and that file left as it is.
#[test]
fn the_lock_file_is_never_written_through_a_link() {
    let dir = temp_dir("state-file-lock-link");
    let state = dir.join("state");
    let victim = dir.join("victim");
    std::fs::write(&victim, "not the server's\n").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("state.lock")).unwrap();
    let (line, _) = refused(&state);
    assert!(line.contains("state.lock"), "{line}");
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "not the server's\n"
    );
}

/// A device, a FIFO or a directory is no state file: refused at once,
/// without reading (`/dev/zero` has no end, a FIFO no writer).
#[test]
fn what_is_not_a_regular_file_is_refused_unread() {
    let dir = temp_dir("state-file-kinds");
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string for a path in our directory.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for (path, kind) in [
        (Path::new("/dev/zero"), "character device"),
        (&fifo, "FIFO"),
        (&dir, "directory"),
    ] {
        let (line, took) = refused(path);
        assert!(line.contains(kind), "{line}");
        assert!(took < Duration::from_secs(5), "{line}: {took:?}");
    }
    // Nothing was created next to them.
    assert!(!Path::new("/dev/zero.lock").exists());
    assert!(!dir.join("fifo.lock").exists());
}

/// A regular file longer than any horizon is refused by its length,
/// without reading it all.
#[test]
fn a_state_file_longer_than_any_horizon_is_refused() {
    let dir = temp_dir("state-file-long");
    let state = dir.join("state");
    let mut digits = vec![b'1'; 1_000_000];
    digits.push(b'\n');
    std::fs::write(&state, &digits).unwrap();
    let (line, took) = refused(&state);
    assert!(line.contains("1000001 bytes"), "{line}");
    assert!(took < Duration::from_secs(5), "{line}: {took:?}");
    assert_eq!(
        std::fs::read(&state).unwrap(),
        digits,
        "the file was changed"
    );
}

/// A directory the server cannot write in is refused before listening,
/// not found out by the first save. Root may write anywhere permissions
/// allow, so the directory is one of sysfs (which takes no new files), and
/// also, when not root, one without write permission.
#[test]
fn a_directory_that_cannot_be_written_is_refused() {
    let sysfs = Path::new("/sys/kernel");
    if sysfs.is_dir() {
        let state = sysfs.join(format!("kguid-state-{}", std::process::id()));
        let (line, _) = refused(&state);
        assert!(line.contains("cannot write"), "{line}");
        assert!(!state.exists());
    } else {
        eprintln!("no {}: its case skipped", sysfs.display());
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("state-file-read-only");
        let state = dir.join("state");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        let (line, _) = refused(&state);
        assert!(line.contains("cannot write"), "{line}");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
