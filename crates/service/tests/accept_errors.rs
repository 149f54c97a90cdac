//! Out of file descriptors: accept fails, the server logs, backs off and
//! keeps serving the connections it has (noeqd's process panics here).

mod common;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{ChildServer, ask, raw, silent};

/// Open files allowed to the server: enough to start, a few connections.
const NOFILE: u64 = 16;

/// Whether one request on `s` is answered within `wait`.
fn answered(s: &mut TcpStream, wait: Duration) -> bool {
    use std::io::{Read, Write};
    if s.write_all(&[1]).is_err() {
        return false;
    }
    s.set_read_timeout(Some(wait)).unwrap();
    let mut id = [0u8; 8];
    let ok = s.read_exact(&mut id).is_ok();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    ok
}

#[test]
fn accept_fails_with_emfile_and_the_server_keeps_serving() {
    // Started with room for its caps (it checks them against the limit),
    // then left with a few descriptors: the limit as a busy system meets it.
    let mut server = ChildServer::binary(&[], |_| {});
    let lim = libc::rlimit {
        rlim_cur: NOFILE,
        rlim_max: NOFILE,
    };
    // SAFETY: prlimit reads `lim` and writes nothing (no old limit asked).
    let set = unsafe {
        libc::prlimit(
            server.child.id() as libc::pid_t,
            libc::RLIMIT_NOFILE,
            &lim,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(set, 0, "{}", std::io::Error::last_os_error());
    // Connect until one is not served: the server is out of descriptors.
    let mut served = Vec::new();
    let mut stuck = None;
    for _ in 0..NOFILE {
        let mut s = raw(server.addr);
        if answered(&mut s, Duration::from_secs(1)) {
            served.push(s);
        } else {
            stuck = Some(s);
            break;
        }
    }
    let mut stuck = stuck.expect("the descriptor limit was reached");
    assert!(!served.is_empty(), "some connections fit under the limit");
    // The log says so, once, not once per retry.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server.output_so_far().contains("accept failed") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = server.output_so_far();
    assert!(log.contains("Too many open files"), "{log}");
    assert_eq!(log.matches("accept failed").count(), 1, "{log}");
    // Open connections keep being served while accept keeps failing.
    for _ in 0..5 {
        for s in &mut served {
            assert_eq!(ask(s, 3).len(), 3);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(silent(&mut stuck, Duration::from_millis(100)));
    // A descriptor comes free: the waiting connection is accepted and served.
    drop(served.pop());
    assert!(
        answered(&mut stuck, Duration::from_secs(3)),
        "served after the back-off"
    );
    assert!(server.child.try_wait().unwrap().is_none(), "still running");
}
