//! One connection: read request bytes, answer each with its ids in one
//! write, close on `N = 0`, a wrong token, idleness or shutdown.
//!
//! A connection keeps only a small input buffer; replies are made in one
//! scratch buffer per thread and written straight to the socket. Only what
//! the socket does not take at once is copied into the connection's own
//! buffer, and further input waits until that is sent.

use std::cell::RefCell;
use std::io;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use guid::{Drift, Guid};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::protocol::{self, Auth, MAX_IDS, Request};
use crate::server::{Flake, Kind, Refused, Shared};

/// Input buffer: the longest auth preamble (257 bytes) and some requests.
const INPUT: usize = 320;

/// Replies are written once this much is made.
const FLUSH_AT: usize = 32 * 1024;

/// Room for the replies of one read, at most.
const SCRATCH: usize = FLUSH_AT + MAX_IDS * Guid::BYTES;

thread_local! {
    static OUT: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(SCRATCH));
}

/// Why a connection ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// The client closed or sent `N = 0`.
    Client,
    Auth,
    Idle,
    Shutdown,
    /// The socket failed.
    Io,
    /// An id could not be made or the horizon saved.
    Fault,
    /// The leased node id may not be used now.
    #[cfg(feature = "etcd")]
    Lease,
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

/// Ids and requests of one connection, added to the server's counts when
/// it closes.
#[derive(Default)]
struct Tally {
    ids: u64,
    requests: u64,
}

/// Serves one connection until it ends.
pub(crate) async fn serve(
    stream: TcpStream,
    kind: Kind,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) {
    crate::busy_poll::watch(&stream);
    let mut conn = Conn {
        stream: &stream,
        shared: &shared,
        flake: shared.flake(),
        kind,
        input: [0; INPUT],
        len: 0,
        authed: shared.token.is_none(),
        pending: Vec::new(),
        tally: Tally::default(),
    };
    let idle = shared.idle;
    let mut last_active = Instant::now();
    let timer = tokio::time::sleep(idle.unwrap_or(Duration::MAX / 4));
    tokio::pin!(timer);
    let mut closing = None;
    let mut paced = None;

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
            tokio::time::sleep(pace).await;
        }
        match conn.process() {
            Step::Read => crate::busy_poll::served(),
            Step::Flush => continue,
            Step::Close(why) => {
                closing = Some(why);
                continue;
            }
            Step::Pace(pace) => {
                paced = Some(pace);
                continue;
            }
        }
        if *stop.borrow() {
            break End::Shutdown;
        }
        tokio::select! {
            biased;
            _ = stop.changed() => break End::Shutdown,
            r = stream.readable() => if r.is_err() { break End::Io },
            () = &mut timer, if idle.is_some() => {
                if expired(last_active, idle, timer.as_mut()) {
                    break End::Idle;
                }
                continue;
            }
        }
        match stream.try_read(&mut conn.input[conn.len..]) {
            Ok(0) => break End::Client,
            Ok(n) => {
                conn.len += n;
                last_active = Instant::now();
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(_) => break End::Io,
        }
    };

    let c = &shared.counts;
    match kind {
        Kind::Flake => c.ids.fetch_add(conn.tally.ids, Relaxed),
        Kind::Global => c.global_ids.fetch_add(conn.tally.ids, Relaxed),
    };
    c.requests.fetch_add(conn.tally.requests, Relaxed);
    match end {
        End::Auth => c.auth_failures.fetch_add(1, Relaxed),
        End::Idle => c.idle_closed.fetch_add(1, Relaxed),
        End::Fault => c.faults.fetch_add(1, Relaxed),
        End::Client | End::Shutdown | End::Io => 0,
        #[cfg(feature = "etcd")]
        End::Lease => 0,
    };
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
    flake: Arc<Flake>,
    kind: Kind,
    input: [u8; INPUT],
    len: usize,
    authed: bool,
    /// Reply bytes the socket has not taken yet.
    pending: Vec<u8>,
    tally: Tally,
}

impl Conn<'_> {
    /// Answers every complete request in the input, writing replies as it
    /// goes; stops early when the socket is full.
    fn process(&mut self) -> Step {
        let mut pos = 0;
        if !self.authed {
            match protocol::auth(&self.input[..self.len]) {
                Auth::Incomplete => return Step::Read,
                Auth::Missing => return Step::Close(End::Auth),
                Auth::Token { token, used } => {
                    let expected = self.shared.token.as_deref().unwrap_or_default();
                    if !protocol::token_matches(token, expected) {
                        return Step::Close(End::Auth);
                    }
                    self.authed = true;
                    pos = used;
                }
            }
        }
        OUT.with_borrow_mut(|out| {
            out.clear();
            let mut step = Step::Read;
            while pos < self.len {
                let byte = self.input[pos];
                pos += 1;
                let n = match Request::from_byte(byte) {
                    Request::Close => {
                        step = Step::Close(End::Client);
                        break;
                    }
                    Request::Ids(n) => usize::from(n.get()),
                };
                if self.kind == Kind::Flake {
                    let pace = self.flake.clock.pace(n);
                    if !pace.is_zero() {
                        pos -= 1; // answered after the wait
                        step = Step::Pace(pace);
                        break;
                    }
                }
                if let Err(end) = self.reply(n, out) {
                    step = Step::Close(end);
                    break;
                }
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
            if let Err(end) = self.write(out) {
                return Step::Close(end);
            }
            // Keep what is not answered yet (after a full socket) at the front.
            self.input.copy_within(pos..self.len, 0);
            self.len -= pos;
            if matches!(step, Step::Read) && !self.pending.is_empty() {
                step = Step::Flush;
            }
            step
        })
    }

    /// Appends the ids of one request.
    #[inline]
    fn reply(&mut self, n: usize, out: &mut Vec<u8>) -> Result<(), End> {
        let shared = self.shared;
        shared.guard(self.kind).map_err(|_| End::Fault)?;
        match self.kind {
            Kind::Flake => {
                let mut ids = [0u64; MAX_IDS];
                self.flake.fill(&mut ids[..n]).map_err(|r| match r {
                    Refused::Clock => End::Fault,
                    #[cfg(feature = "etcd")]
                    Refused::Lease => End::Lease,
                })?;
                for id in &ids[..n] {
                    out.extend_from_slice(&id.to_be_bytes());
                }
            }
            Kind::Global => {
                let mut ids = [Guid::zero(Drift::DEFAULT); MAX_IDS];
                shared.global.fill(&mut ids[..n]);
                for id in &ids[..n] {
                    out.extend_from_slice(&id.to_bytes());
                }
                shared.issued_global(&ids[n - 1]);
            }
        }
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
