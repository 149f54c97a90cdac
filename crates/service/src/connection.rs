//! One connection: read request bytes, answer each with its ids in one
//! write, close on `N = 0`, a wrong token or none within the auth timeout,
//! idleness or shutdown. What the bytes ask for is the [`Session`]'s to
//! say; this module does the sockets, the clocks and the timers.
//!
//! A connection holds an input buffer only while bytes wait in it (the
//! [`Session`]'s), so an idle one holds none; replies are made in one
//! scratch buffer per thread and written straight to the socket. Only what
//! the socket does not take at once is copied into the connection's own
//! buffer, and further input waits until that is sent: a client that
//! stops reading leaves its connection holding at most [`FLUSH_AT`] and
//! one reply (35 KB; about 14 KB measured, the rest in the kernel's
//! socket buffer). Replies are not bounded by asking the socket's room
//! first: the two system calls cost pipelined clients 8 % of their ids.
//!
//! Memory freed by closed connections is given back to the system by
//! [`give_back_memory`], from housekeeping (glibc keeps it otherwise).

use std::cell::RefCell;
use std::io;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use guid::{Id, v3};
use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::busy_poll;
use crate::clock::FlakeClock;
use crate::gate::{Seat, Waiting};
use crate::issue::{IdKind, NotIssued, issue};
use crate::protocol::MAX_IDS;
use crate::session::{Close, Next, Session};
use crate::shared::{AuthFailure, Closed, Counts, Listener, Phase, Shared};

/// Replies are written once this much is made.
const FLUSH_AT: usize = 32 * 1024;

/// Room for the replies of one read, at most.
const SCRATCH: usize = FLUSH_AT + MAX_IDS * v3::Xuid::BYTES;

thread_local! {
    static OUT: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(SCRATCH));
}

/// How a connection was let in.
pub(crate) enum Entry {
    /// Served at once (no token): it holds a seat.
    Seated(Seat),
    /// Waits in line until it authenticates, then takes a seat.
    Waiting(Waiting),
}

/// Why a connection ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// The client closed or sent `N = 0`.
    Client,
    /// A missing or wrong token, or none within the auth timeout.
    Auth(AuthFailure),
    /// It authenticated with every seat taken.
    Rejected,
    Idle,
    Shutdown,
    /// The socket failed.
    Io,
    /// An id could not be made or the horizon saved.
    Fault,
    /// The leased node id may not be used now.
    #[cfg(feature = "lease")]
    Lease,
}

impl End {
    /// A request whose ids were held back past the max lead.
    #[cfg(feature = "lease")]
    const HELD: End = End::Lease;
    #[cfg(not(feature = "lease"))]
    const HELD: End = End::Fault;
}

/// What processing the buffered input left to do.
enum Step {
    /// Wait for more input.
    Read,
    /// Send the pending bytes before reading on.
    Flush,
    /// Close, after sending what is pending.
    Close(End),
    /// The 64-bit clock is at its cap: wait this long (letting other
    /// connections run) before answering the rest.
    Pace(Duration),
}

/// Ids and requests of one connection not yet added to the server's
/// counts: added after each round of replies, so that the counts are
/// current while the connection lasts, at a cost per read, not per id.
struct Tally<'a> {
    counts: &'a Counts,
    listener: Listener,
    ids: u64,
    requests: u64,
}

impl Tally<'_> {
    #[inline]
    fn flush(&mut self) {
        if self.requests == 0 {
            return;
        }
        let (c, k) = (self.counts, self.listener as usize);
        c.ids[k].fetch_add(std::mem::take(&mut self.ids), Relaxed);
        c.requests[k].fetch_add(std::mem::take(&mut self.requests), Relaxed);
    }
}

impl Drop for Tally<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A connection open: counted from its accept until it ends, however it
/// ends (a task aborted before it ran too), with the reason it ended.
pub(crate) struct Open {
    shared: Arc<Shared>,
    listener: Listener,
    /// Set when the connection ends by itself.
    closed: Option<Closed>,
}

impl Open {
    pub(crate) fn new(shared: Arc<Shared>, listener: Listener) -> Open {
        shared.counts.open[listener as usize].fetch_add(1, Relaxed);
        Open {
            shared,
            listener,
            closed: None,
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        let c = &self.shared.counts;
        c.open[self.listener as usize].fetch_sub(1, Relaxed);
        // Not ended by itself: aborted at shutdown, or to make room in the
        // line of connections authenticating.
        let why = self.closed.unwrap_or_else(|| match self.shared.phase() {
            Phase::Stopping => Closed::Shutdown,
            _ => {
                c.auth_failed(AuthFailure::Evicted);
                Closed::Auth
            }
        });
        c.close(why);
    }
}

/// Closed connections after which [`give_back_memory`] trims the heap.
const TRIM_AFTER: u64 = 1_000;

/// How often [`give_back_memory`] trims the heap, at most.
const TRIM_EVERY: Duration = Duration::from_secs(1);

/// Gives the memory that closed connections freed back to the system, once
/// [`TRIM_AFTER`] connections closed since the last time, at most every
/// [`TRIM_EVERY`]: glibc keeps freed memory in its heap for later
/// allocations unless it is at the top, and `malloc_trim` returns the free
/// pages within. It runs on a blocking thread, off the event loop (an
/// allocation waits for it only while it holds that heap's lock, a moment
/// per heap). Housekeeping calls it every tick, on the server's thread.
pub(crate) fn give_back_memory(counts: &Counts) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::cell::Cell;
        thread_local! {
            /// Connections closed at the last trim, and when.
            static LAST: Cell<(u64, Option<Instant>)> = const { Cell::new((0, None)) };
        }
        let closed: u64 = counts.closed.iter().map(|c| c.load(Relaxed)).sum();
        let (then, at) = LAST.get();
        let now = Instant::now();
        if closed.saturating_sub(then) < TRIM_AFTER || at.is_some_and(|at| now - at < TRIM_EVERY) {
            return;
        }
        LAST.set((closed, Some(now)));
        // SAFETY: malloc_trim only gives free pages back.
        tokio::task::spawn_blocking(|| unsafe { libc::malloc_trim(0) });
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = counts;
}

/// Serves one connection until it ends.
pub(crate) async fn serve(
    stream: TcpStream,
    mut open: Open,
    entry: Entry,
    accepted: Instant,
    mut stop: watch::Receiver<bool>,
) {
    let (shared, listener) = (Arc::clone(&open.shared), open.listener);
    busy_poll::watch(&stream);
    let (seat, waiting) = match entry {
        Entry::Seated(seat) => (Some(seat), None),
        Entry::Waiting(waiting) => (None, Some(waiting)),
    };
    let mut conn = Conn {
        stream: &stream,
        shared: &shared,
        flake: shared.flake(),
        ids: listener.ids(shared.global_v3),
        session: Session::new(shared.token.as_deref()),
        seat,
        waiting,
        pending: Vec::new(),
        answered: 0,
        tally: Tally {
            counts: &shared.counts,
            listener,
            ids: 0,
            requests: 0,
        },
    };
    let idle = shared.idle;
    let mut last_active = Instant::now();
    let timer = tokio::time::sleep(idle.unwrap_or(Duration::MAX / 4));
    tokio::pin!(timer);
    // The whole auth frame by then, however slowly it trickles in; on the
    // heap, so that connections without a token do not carry it.
    let mut auth_deadline = conn
        .waiting
        .is_some()
        .then(|| Box::pin(tokio::time::sleep_until(accepted + shared.auth_timeout)));
    let mut closing = None;
    let mut paced = None;
    // How long the request at hand has waited: with a lease, never past
    // the max lead (a horizon the store does not take in time).
    let (mut waiting_since, mut answered) = (None, 0);
    let max_wait = conn.flake.max_wait();

    let end = 'conn: loop {
        // Send what the socket did not take; shutdown waits for it too.
        while !conn.pending.is_empty() {
            tokio::select! {
                biased;
                r = stream.writable() => if r.is_err() { break 'conn End::Io },
                () = &mut timer, if idle.is_some() => {
                    match expired(last_active, idle, timer.as_mut()) {
                        true => break 'conn End::Idle,
                        false => continue,
                    }
                }
            }
            match stream.try_write(&conn.pending) {
                Ok(n) => {
                    conn.pending.drain(..n);
                    last_active = Instant::now();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => break 'conn End::Io,
            }
        }
        if conn.pending.capacity() > 0 {
            conn.pending = Vec::new(); // idle connections hold no reply buffer
        }
        if let Some(why) = closing.take() {
            break why;
        }
        if let Some(pace) = paced.take() {
            // A wait at the cap ends early on shutdown and on idleness, so
            // a wait longer than expected cannot hold the connection.
            if *stop.borrow() {
                break End::Shutdown;
            }
            let wake = tokio::time::sleep(pace);
            tokio::pin!(wake);
            loop {
                tokio::select! {
                    biased;
                    _ = stop.changed() => break 'conn End::Shutdown,
                    () = &mut wake => break,
                    () = &mut timer, if idle.is_some() => {
                        if expired(last_active, idle, timer.as_mut()) {
                            break 'conn End::Idle;
                        }
                    }
                }
            }
        }
        let step = conn.process();
        if conn.answered != answered || !matches!(step, Step::Pace(_)) {
            (waiting_since, answered) = (None, conn.answered);
        }
        match step {
            Step::Read => busy_poll::served(),
            Step::Flush => continue,
            Step::Close(why) => {
                closing = Some(why);
                continue;
            }
            Step::Pace(pace) => {
                // Measured, not summed: each nap lasts longer than asked.
                let waited = waiting_since.get_or_insert_with(Instant::now).elapsed() + pace;
                // Ids held back longer (a horizon the store does not take
                // in time): closed, so that the client goes elsewhere.
                match max_wait.is_some_and(|max| waited > max) {
                    true => closing = Some(End::HELD),
                    false => paced = Some(pace),
                }
                continue;
            }
        }
        if *stop.borrow() {
            break End::Shutdown;
        }
        let authenticating = conn.waiting.is_some();
        tokio::select! {
            biased;
            _ = stop.changed() => break End::Shutdown,
            r = stream.readable() => if r.is_err() { break End::Io },
            () = until(&mut auth_deadline), if authenticating => break End::Auth(AuthFailure::Timeout),
            () = &mut timer, if idle.is_some() => {
                if expired(last_active, idle, timer.as_mut()) {
                    break End::Idle;
                }
                continue;
            }
        }
        let space = conn.session.space();
        let room = space.len();
        match stream.try_read(space) {
            Ok(0) => break End::Client,
            Ok(n) => {
                conn.session.filled(n);
                last_active = Instant::now();
                if n < room {
                    drained(&stream);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(_) => break End::Io,
        }
    };

    drop(conn);
    open.closed = Some(match end {
        End::Client => Closed::Client,
        End::Auth(why) => {
            shared.counts.auth_failed(why);
            Closed::Auth
        }
        End::Rejected => Closed::Cap,
        End::Idle => Closed::Idle,
        End::Shutdown => Closed::Shutdown,
        End::Io => Closed::Io,
        End::Fault => Closed::Fault,
        #[cfg(feature = "lease")]
        End::Lease => Closed::Lease,
    });
}

/// Marks the socket as having nothing more to read, after a read that
/// returned less than it asked for: on a stream socket that read emptied
/// the receive buffer (epoll(7)), so the next wait for input need not
/// first read again to be told `EAGAIN`. Bytes that arrive after the read
/// raise a new edge-triggered event, and an end of input seen already is
/// kept, so nothing is missed. A lock-step request then costs the server
/// three system calls (the wait, the read, the reply) instead of four.
fn drained(stream: &TcpStream) {
    let _ = stream.try_io(Interest::READABLE, || {
        Err::<(), _>(io::ErrorKind::WouldBlock.into())
    });
}

/// Waits for `deadline`, or forever without one.
async fn until(deadline: &mut Option<std::pin::Pin<Box<tokio::time::Sleep>>>) {
    match deadline {
        Some(deadline) => deadline.await,
        None => std::future::pending().await,
    }
}

/// Whether the connection has been idle for the whole timeout; if not, the
/// timer is set to the end of the timeout counted from the last activity.
fn expired(
    last_active: Instant,
    idle: Option<Duration>,
    timer: std::pin::Pin<&mut tokio::time::Sleep>,
) -> bool {
    let Some(idle) = idle else { return false };
    let deadline = last_active + idle;
    if Instant::now() >= deadline {
        return true;
    }
    timer.reset(deadline);
    false
}

struct Conn<'a> {
    stream: &'a TcpStream,
    shared: &'a Shared,
    /// The 64-bit clock when the connection opened: a connection never
    /// mixes the ids of two leases.
    flake: Arc<FlakeClock>,
    /// The ids its listener serves (none: never a binary listener's).
    ids: Option<IdKind>,
    session: Session<'a>,
    /// Held once served (at once without a token, else from its auth).
    seat: Option<Seat>,
    /// Held until it authenticates.
    waiting: Option<Waiting>,
    /// Reply bytes the socket has not taken yet.
    pending: Vec<u8>,
    /// Requests answered so far.
    answered: u64,
    tally: Tally<'a>,
}

impl Conn<'_> {
    /// Answers every complete request in the input, writing replies as it
    /// goes; stops early when the socket is full.
    fn process(&mut self) -> Step {
        OUT.with_borrow_mut(|out| {
            out.clear();
            let mut step = Step::Read;
            loop {
                let n = match self.session.next_step() {
                    Next::Read => break,
                    Next::Authenticated => {
                        self.waiting = None;
                        self.seat = self.shared.gate.seat();
                        if self.seat.is_none() {
                            step = Step::Close(End::Rejected);
                            break;
                        }
                        continue;
                    }
                    Next::Close(Close::Client) => {
                        step = Step::Close(End::Client);
                        break;
                    }
                    Next::Close(Close::Auth) => {
                        step = Step::Close(End::Auth(AuthFailure::Token));
                        break;
                    }
                    Next::Ids(n) => usize::from(n.get()),
                };
                if let Err(stop) = self.reply(n, out) {
                    step = stop;
                    break;
                }
                self.session.answered();
                self.answered += 1;
                if out.len() >= FLUSH_AT {
                    if let Err(end) = self.write(out) {
                        return Step::Close(end);
                    }
                    if !self.pending.is_empty() {
                        step = Step::Flush;
                        break;
                    }
                }
            }
            self.tally.flush();
            if let Err(end) = self.write(out) {
                return Step::Close(end);
            }
            if matches!(step, Step::Read) && !self.pending.is_empty() {
                step = Step::Flush;
            }
            step
        })
    }

    /// Appends the ids of one request; or what to do instead: wait for
    /// the 64-bit clock's pace (answered after the wait), or close.
    #[inline]
    fn reply(&mut self, n: usize, out: &mut Vec<u8>) -> Result<(), Step> {
        // Never a binary connection's: HTTP is served apart.
        let kind = self.ids.ok_or(Step::Close(End::Fault))?;
        issue(self.shared, &self.flake, kind, n, out).map_err(|e| match e {
            NotIssued::Pace(pace) => Step::Pace(pace),
            NotIssued::Horizon | NotIssued::Clock | NotIssued::NoSno => Step::Close(End::Fault),
            #[cfg(feature = "lease")]
            NotIssued::Lease => Step::Close(End::Lease),
        })?;
        self.tally.ids += n as u64;
        self.tally.requests += 1;
        Ok(())
    }

    /// Writes `out` to the socket; what it does not take goes to `pending`.
    fn write(&mut self, out: &mut Vec<u8>) -> Result<(), End> {
        if out.is_empty() {
            return Ok(());
        }
        let sent = if self.pending.is_empty() {
            match self.stream.try_write(out) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
                Err(_) => return Err(End::Io),
            }
        } else {
            0
        };
        self.pending.extend_from_slice(&out[sent..]);
        out.clear();
        Ok(())
    }
}
