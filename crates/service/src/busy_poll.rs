//! Busy polling: before the event loop's thread sleeps, it watches its
//! sockets for a short while, so that a client answered in lock-step finds
//! the server awake instead of waiting for its thread to be woken (on a
//! virtual machine, waking an idle CPU costs more than the whole reply).
//!
//! The sockets are watched through an epoll set of their own, so a request
//! on any of them ends the watch. It costs CPU only after a request was
//! served and for at most the budget; a watch that runs out is not repeated
//! until the next request, so an idle server never spins.

use std::cell::Cell;
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

thread_local! {
    /// The epoll set of this thread's event loop, while it busy-polls.
    #[cfg(target_os = "linux")]
    static SET: Cell<Option<RawFd>> = const { Cell::new(None) };
    /// Whether a request was served since the last watch.
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

/// Busy polling for the event loop on this thread, until dropped.
pub(crate) struct BusyPoll {
    #[cfg(target_os = "linux")]
    set: OwnedFd,
}

impl BusyPoll {
    /// Starts busy polling on this thread; `None` where the platform has no
    /// epoll (the loop then sleeps as usual).
    pub(crate) fn start() -> Option<BusyPoll> {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: no pointers; the result is checked before use.
            let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
            if fd < 0 {
                return None;
            }
            SET.set(Some(fd));
            // SAFETY: `fd` was just opened and is owned by nothing else.
            Some(BusyPoll {
                set: unsafe { OwnedFd::from_raw_fd(fd) },
            })
        }
        #[cfg(not(target_os = "linux"))]
        None
    }
}

impl Drop for BusyPoll {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if SET.get() == Some(self.set.as_raw_fd()) {
            SET.set(None);
        }
    }
}

/// Adds a socket (a connection or a listener) to the watched set; closing
/// it removes it.
#[cfg(target_os = "linux")]
pub(crate) fn watch(socket: &impl AsRawFd) {
    let Some(set) = SET.get() else { return };
    let mut event = libc::epoll_event {
        events: libc::EPOLLIN as u32,
        u64: 0,
    };
    // SAFETY: a valid event for the call to read. A failure only leaves the
    // socket unwatched: it is still served, after the watch.
    unsafe { libc::epoll_ctl(set, libc::EPOLL_CTL_ADD, socket.as_raw_fd(), &mut event) };
}

/// Adds a socket to the watched set (not on this platform).
#[cfg(not(target_os = "linux"))]
pub(crate) fn watch<S>(_: &S) {}

/// Notes that a request was served: the next sleep is watched first.
#[inline]
pub(crate) fn served() {
    ARMED.set(true);
}

/// Waits for at most `budget` until a watched socket has something to read
/// (or is closed), then lets the thread sleep as usual. Runs before the
/// event loop parks.
pub(crate) fn before_park(budget: Duration) {
    if !ARMED.take() {
        return;
    }
    let until = Instant::now() + budget;
    while Instant::now() < until {
        if ready() {
            return;
        }
        std::hint::spin_loop();
    }
}

/// Whether a watched socket has input, an error or a hang-up, without
/// waiting.
#[cfg(target_os = "linux")]
fn ready() -> bool {
    let Some(set) = SET.get() else { return true };
    let mut event = libc::epoll_event { events: 0, u64: 0 };
    // SAFETY: room for the one event asked for; a zero timeout.
    unsafe { libc::epoll_wait(set, &mut event, 1, 0) != 0 }
}

#[cfg(not(target_os = "linux"))]
fn ready() -> bool {
    true
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        (client, listener.accept().unwrap().0)
    }

    const LONG: Duration = Duration::from_secs(10);

    #[test]
    fn nothing_served_nothing_watched() {
        let _on = BusyPoll::start().unwrap();
        let (_client, server) = pair();
        watch(&server);
        let started = Instant::now();
        before_park(LONG);
        assert!(started.elapsed() < LONG / 2);
    }

    #[test]
    fn a_request_on_any_socket_ends_the_watch_at_once() {
        let _on = BusyPoll::start().unwrap();
        let (_a, a) = pair();
        let (mut b, b_served) = pair();
        watch(&a);
        watch(&b_served);
        served();
        b.write_all(&[1]).unwrap();
        let started = Instant::now();
        before_park(LONG);
        assert!(started.elapsed() < LONG / 2);
    }

    #[test]
    fn quiet_sockets_are_watched_for_the_budget_then_not_again() {
        let _on = BusyPoll::start().unwrap();
        let (_client, server) = pair();
        watch(&server);
        served();
        let budget = Duration::from_millis(50);
        let started = Instant::now();
        before_park(budget);
        assert!(started.elapsed() >= budget);
        let started = Instant::now();
        before_park(LONG);
        assert!(started.elapsed() < LONG / 2, "an idle server never spins");
    }
}
