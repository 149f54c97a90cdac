//! The metrics listener (`--metrics`): a minimal HTTP/1.1 responder on a
//! thread of its own, so that scrapes and health checks never wait for
//! the id path nor make it wait.
//!
//! | request | answer |
//! |---|---|
//! | `GET /metrics` | 200, the exposition of [`metrics`](crate::metrics) |
//! | `GET /healthz` | 200 `ok`: the process runs |
//! | `GET /readyz` | 200 `ok` while ids are handed out, else 503 and why, in one line |
//! | another path | 404 |
//! | another method | 405 |
//!
//! `HEAD` is answered as `GET` without the body. Each connection gets one
//! answer and is closed. Connections cannot starve the health checks:
//!
//! | limit | value | past it |
//! |---|---|---|
//! | the whole request head, from accept | [`HEAD_TIMEOUT`] (1 s) | closed unanswered |
//! | the answer taken by the client | [`ANSWER_TIMEOUT`] (10 s) | closed |
//! | connections open at once | [`MAX_CONNS`] (64) | a new one is accepted all the same: the oldest connection that has not sent its whole head yet is closed to make room (if every one has, the oldest) |
//!
//! So however many connections sit idle, a client that sends its request
//! as it connects (as Prometheus and health probes do) gets its place at
//! once, and loses it only if [`MAX_CONNS`] newer connections come before
//! its head is read.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::{Acquire, Release};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{AbortHandle, JoinSet};
use tracing::warn;

use crate::error::Error;
use crate::log::Recurring;
use crate::metrics;
use crate::shared::{Phase, Shared};

/// Connections open at once; a new one past it takes the place of the
/// oldest that has not sent its whole request head.
const MAX_CONNS: usize = 64;

/// How long after accept a connection may take to send its whole request
/// head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a connection may take to take its answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest request head read.
const MAX_HEAD: usize = 8 * 1024;

/// What the monitor thread watches: the server, once it has its clocks.
type Watched = Arc<OnceLock<Arc<Shared>>>;

/// The monitor thread; stopped, and what it watched let go, when dropped.
pub(crate) struct Monitor {
    addr: Option<SocketAddr>,
    watched: Watched,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Monitor {
    /// Answers on `listener` from now on: not ready until [`Monitor::watch`].
    pub(crate) fn start(listener: std::net::TcpListener) -> Result<Monitor, Error> {
        let fail = |e| Error::io("start the metrics listener", e);
        let addr = listener.local_addr().ok();
        listener.set_nonblocking(true).map_err(fail)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(fail)?;
        metrics::note_start();
        let watched = Watched::default();
        let (stop, stopped) = oneshot::channel();
        let thread = {
            let watched = Arc::clone(&watched);
            std::thread::Builder::new()
                .name("guid-metrics".into())
                .spawn(move || runtime.block_on(serve(listener, watched, stopped)))
                .map_err(fail)?
        };
        Ok(Monitor {
            addr,
            watched,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The address it answers on.
    pub(crate) fn addr(&self) -> String {
        self.addr
            .map_or_else(|| "(unknown address)".to_owned(), |a| a.to_string())
    }

    /// Reports on `shared` from now on.
    pub(crate) fn watch(&self, shared: Arc<Shared>) {
        let _ = self.watched.set(shared);
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A connection open: whether it has sent its whole head, and its task.
struct Slot {
    head: Arc<AtomicBool>,
    task: AbortHandle,
}

/// Accepts until `stopped`, answering each connection in a task; past
/// [`MAX_CONNS`], makes room for each new connection.
async fn serve(
    listener: std::net::TcpListener,
    watched: Watched,
    mut stopped: oneshot::Receiver<()>,
) {
    let listener = match TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            warn!(error = %e, "the metrics listener failed: {e}; no metrics or health checks");
            return;
        }
    };
    let mut tasks = JoinSet::new();
    // Oldest first.
    let mut open: VecDeque<Slot> = VecDeque::with_capacity(MAX_CONNS + 1);
    let mut errors = 0u64;
    let mut reported = Recurring::default();
    loop {
        tokio::select! {
            biased;
            _ = &mut stopped => return,
            Some(_) = tasks.join_next() => {}
            r = listener.accept() => match r {
                Ok((stream, _)) => {
                    make_room(&mut open);
                    let head = Arc::new(AtomicBool::new(false));
                    let task = tasks.spawn(answer(stream, Arc::clone(&watched), Arc::clone(&head)));
                    open.push_back(Slot { head, task });
                    // Lets the new connection read a head already there
                    // before more connections come.
                    tokio::task::yield_now().await;
                }
                Err(e) => {
                    errors += 1;
                    if let Some(prev) = reported.due(&errors, Instant::now()) {
                        let since = errors - prev;
                        warn!(error = %e, since, "metrics listener: accept failed ({since} since the last report): {e}");
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// Leaves room for one more connection: with [`MAX_CONNS`] open, closes
/// the oldest that has not sent its whole head, or else the oldest.
fn make_room(open: &mut VecDeque<Slot>) {
    open.retain(|s| !s.task.is_finished());
    if open.len() < MAX_CONNS {
        return;
    }
    let at = open.iter().position(|s| !s.head.load(Acquire)).unwrap_or(0);
    if let Some(slot) = open.remove(at) {
        slot.task.abort();
    }
}

/// Reads one request head (within [`HEAD_TIMEOUT`] of accept) and answers
/// it (within [`ANSWER_TIMEOUT`]), then closes.
async fn answer(mut stream: TcpStream, watched: Watched, read: Arc<AtomicBool>) {
    let head = tokio::time::timeout(HEAD_TIMEOUT, async {
        let mut head = Vec::with_capacity(512);
        let mut buf = [0u8; 1024];
        while !ends_head(&head) {
            let n = stream.read(&mut buf).await?;
            if n == 0 {
                return Ok(None);
            }
            head.extend_from_slice(&buf[..n]);
            if head.len() > MAX_HEAD {
                break;
            }
        }
        Ok::<_, std::io::Error>(Some(head))
    })
    .await;
    let Ok(Ok(Some(head))) = head else { return };
    read.store(true, Release);
    let reply = respond(&head, watched.get());
    let _ = tokio::time::timeout(ANSWER_TIMEOUT, async {
        stream.write_all(&reply).await?;
        stream.shutdown().await
    })
    .await;
}

/// Whether `head` holds a whole request head (the empty line after it).
fn ends_head(head: &[u8]) -> bool {
    head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n")
}

/// The answer to a request head, whole.
fn respond(head: &[u8], shared: Option<&Arc<Shared>>) -> Vec<u8> {
    const TEXT: &str = "text/plain; charset=utf-8";
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return reply(400, TEXT, "bad request\n", true, &[]);
    };
    if !ends_head(head) || !version.starts_with("HTTP/1.") {
        return reply(400, TEXT, "bad request\n", true, &[]);
    }
    let body = match method {
        "GET" => true,
        "HEAD" => false,
        _ => {
            return reply(
                405,
                TEXT,
                "method not allowed\n",
                true,
                &[("Allow", "GET, HEAD")],
            );
        }
    };
    let path = target.split('?').next().unwrap_or_default();
    match path {
        "/metrics" => reply(
            200,
            metrics::CONTENT_TYPE,
            &metrics::encode(shared),
            body,
            &[],
        ),
        "/healthz" => reply(200, TEXT, "ok\n", body, &[]),
        "/readyz" => match ready(shared.map(|s| &**s)) {
            Ok(()) => reply(200, TEXT, "ok\n", body, &[]),
            Err(why) => reply(503, TEXT, &format!("{why}\n"), body, &[]),
        },
        _ => reply(
            404,
            TEXT,
            "not found: /metrics, /healthz or /readyz\n",
            body,
            &[],
        ),
    }
}

/// A whole HTTP/1.1 response that closes the connection.
fn reply(
    status: u16,
    content_type: &str,
    text: &str,
    body: bool,
    headers: &[(&str, &str)],
) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Service Unavailable",
    };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n",
        text.len()
    );
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    if body {
        out.push_str(text);
    }
    out.into_bytes()
}

/// Whether ids are handed out now, and if not, why: the server is
/// serving, the node id's lease (with `--etcd`) is confirmed, and the last
/// write of the state file (with `--state`) succeeded.
pub(crate) fn ready(shared: Option<&Shared>) -> Result<(), String> {
    let Some(shared) = shared else {
        return Err("starting: the clocks are not ready".into());
    };
    match shared.phase() {
        Phase::Starting => return Err(shared.starting()),
        Phase::Stopping => return Err("shutting down".into()),
        Phase::Serving => {}
    }
    #[cfg(feature = "etcd")]
    if let Some(lease) = shared.flake().lease() {
        let node = lease.node();
        match lease.check() {
            Ok(()) => {}
            Err(kguid_etcd::Error::Expired) => {
                return Err(format!(
                    "the lease of node {node} is not confirmed by etcd: 64-bit ids refused"
                ));
            }
            Err(e) => {
                return Err(format!(
                    "the lease of node {node} ended ({e}): 64-bit ids refused until a node id is leased again"
                ));
            }
        }
    }
    if let Some(h) = &shared.horizon
        && let Some(why) = h.failed()
    {
        return Err(format!(
            "the state file {} could not be saved: {why}",
            h.path().display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(head: &str) -> String {
        let out = respond(head.as_bytes(), None);
        let text = String::from_utf8(out).unwrap();
        text.lines().next().unwrap().to_owned()
    }

    #[test]
    fn routes_and_refusals() {
        assert_eq!(
            status("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
            "HTTP/1.1 200 OK"
        );
        assert_eq!(
            status("GET /readyz HTTP/1.0\n\n"),
            "HTTP/1.1 503 Service Unavailable"
        );
        assert_eq!(
            status("GET /metrics?x=1 HTTP/1.1\r\n\r\n"),
            "HTTP/1.1 200 OK"
        );
        assert_eq!(status("GET / HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 Not Found");
        assert_eq!(
            status("POST /metrics HTTP/1.1\r\n\r\n"),
            "HTTP/1.1 405 Method Not Allowed"
        );
        for bad in [
            "GET /metrics\r\n\r\n",
            "\r\n\r\n",
            "GET /metrics SPDY/3\r\n\r\n",
            "GET /metrics HTTP/1.1\r\n",
        ] {
            assert_eq!(status(bad), "HTTP/1.1 400 Bad Request", "{bad:?}");
        }
        let head = String::from_utf8(respond(b"HEAD /healthz HTTP/1.1\r\n\r\n", None)).unwrap();
        assert!(
            head.ends_with(
                "Content-Length: 3\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
            ),
            "{head}"
        );
    }

    #[tokio::test]
    async fn room_is_made_from_the_oldest_idle_connection() {
        let mut tasks = JoinSet::new();
        let mut open = VecDeque::new();
        for i in 0..MAX_CONNS {
            let head = Arc::new(AtomicBool::new(i % 2 == 0));
            let task = tasks.spawn(std::future::pending::<()>());
            open.push_back(Slot { head, task });
        }
        let first_idle = open[1].task.clone();
        make_room(&mut open);
        assert_eq!(open.len(), MAX_CONNS - 1);
        tokio::task::yield_now().await;
        assert!(first_idle.is_finished());
        // With every head read, the oldest goes.
        for slot in &open {
            slot.head.store(true, Release);
        }
        open.push_back(Slot {
            head: Arc::new(AtomicBool::new(true)),
            task: tasks.spawn(std::future::pending::<()>()),
        });
        let oldest = open[0].task.clone();
        make_room(&mut open);
        tokio::task::yield_now().await;
        assert!(oldest.is_finished());
        assert_eq!(open.len(), MAX_CONNS - 1);
    }
}
