//! A forked child of a lease holder holds a copy of the lease and its
//! clocks but not the keep-alive: it must get errors, not its parent's ids
//! (nor a panic from the core clock, whose node the lease chose), and must
//! not revoke its parent's lease.
#![cfg(unix)]

mod support;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use guid::Guid;
use guid::flake::{self, Layout};
use kguid_etcd::{Error, NodeLease};

/// What the child reports, one byte per check (`1` passed, `0` failed), or
/// `P` for each when it panicked.
const CHECKS: usize = 9;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forked_child_gets_errors_not_ids_and_leaves_the_lease_alone() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let ttl = Duration::from_secs(2);
    let lease = NodeLease::acquire(etcd.client().await, "/fork", 0..1, ttl)
        .await
        .expect("a lease");
    let node = lease.node();
    let clock = lease.clock().await.expect("a clock");
    let flake = lease
        .flake_clock(flake::Clock::builder(Layout::NOEQD))
        .await
        .expect("a flake clock");
    let (g, f) = (clock.g().expect("an id"), flake.next().expect("an id"));

    let mut fds = [0; 2];
    // SAFETY: a pipe into a valid array of two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "a pipe");
    // SAFETY: the child only calls the lease's checks, which take no lock
    // and allocate nothing, writes to the pipe and leaves with _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut release = std::pin::pin!(lease.release());
            let released = release
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()));
            [
                matches!(clock.g(), Err(Error::Forked)),
                matches!(clock.fill(&mut [Guid::default(); 4]), Err(Error::Forked)),
                matches!(clock.check(), Err(Error::Forked)),
                clock.node() == node,
                matches!(flake.next(), Err(Error::Forked)),
                matches!(flake.fill(&mut [0; 4]), Err(Error::Forked)),
                flake.pace(1).is_zero(),
                matches!(flake.check(), Err(Error::Forked)),
                // Refused at once, not sent to etcd.
                matches!(released, Poll::Ready(Err(Error::Forked))),
            ]
        }));
        let report: [u8; CHECKS] = match outcome {
            Ok(checks) => checks.map(|ok| if ok { b'1' } else { b'0' }),
            Err(_) => [b'P'; CHECKS],
        };
        // SAFETY: writes the report to the pipe and ends the child without
        // running anything of the parent's (no destructors, no atexit).
        unsafe {
            libc::write(fds[1], report.as_ptr().cast(), CHECKS);
            libc::_exit(0);
        }
    }

    // SAFETY: the parent's end of the pipe and the child it forked.
    let (report, status) = unsafe {
        libc::close(fds[1]);
        let mut report = [0u8; CHECKS];
        let read = libc::read(fds[0], report.as_mut_ptr().cast(), CHECKS);
        libc::close(fds[0]);
        let mut status = 0;
        assert_eq!(
            libc::waitpid(pid, &mut status, 0),
            pid,
            "wait for the child"
        );
        assert_eq!(read, CHECKS as isize, "the child's report");
        (report, status)
    };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child status {status}"
    );
    assert_eq!(
        std::str::from_utf8(&report).expect("ascii"),
        "1".repeat(CHECKS),
        "the child's checks, in order"
    );

    // The parent's lease is untouched: still bound in etcd, still issuing.
    let admin = etcd.client().await;
    let bound = support::lease_of(&admin, "/fork/claim/0000000000").await;
    assert_eq!(bound, Some(lease.token() as i64));
    assert!(clock.g().expect("the parent issues") > g);
    assert!(flake.next().expect("the parent issues") > f);
    lease.release().await.expect("release");
}
