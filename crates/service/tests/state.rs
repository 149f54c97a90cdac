//! The state file while serving and at shutdown: failures to save are
//! logged at the promised rate, and a run that issued nothing leaves
//! nothing behind.

mod common;

use std::time::{Duration, Instant};

use common::{ChildServer, ask, raw, temp_dir};

/// The state directory disappears while serving: the failed saves are
/// reported at once, then at most once per 10 s (here: once in 3 s), not
/// on every 100 ms tick.
#[test]
fn a_missing_state_directory_is_logged_at_most_every_10_s() {
    let dir = temp_dir("state-gone");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let state = sub.join("state");
    let mut server = ChildServer::binary(&["--state", state.to_str().unwrap()], |_| {});
    // The server may be writing its next horizon in there meanwhile.
    while let Err(e) = std::fs::remove_dir_all(&sub) {
        assert_eq!(e.kind(), std::io::ErrorKind::DirectoryNotEmpty, "{e}");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while !server.output_so_far().contains("saving") {
        assert!(Instant::now() < deadline, "{}", server.output_so_far());
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_secs(3));
    server.kill();
    let log = server.rest_of_stderr();
    assert_eq!(log.matches("saving").count(), 1, "{log}");
    assert!(log.contains("No such file or directory"), "{log}");
}

/// A run that issued no id leaves no state file; one started from a state
/// file leaves it as it was.
#[test]
fn a_run_that_issued_nothing_leaves_nothing() {
    let dir = temp_dir("state-nothing");
    let state = dir.join("state");
    let path = state.to_str().unwrap();
    let mut idle = ChildServer::binary(&["--state", path], |_| {});
    assert!(state.exists(), "the horizon is reserved before serving");
    assert!(idle.terminate().success());
    assert!(!state.exists());

    let mut busy = ChildServer::binary(&["--state", path], |_| {});
    assert_eq!(ask(&mut raw(busy.addr), 5).len(), 5);
    assert!(busy.terminate().success());
    let saved = std::fs::read_to_string(&state).unwrap();

    let mut idle = ChildServer::binary(&["--state", path], |_| {});
    assert!(idle.terminate().success());
    assert_eq!(std::fs::read_to_string(&state).unwrap(), saved);
}
