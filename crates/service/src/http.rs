//! The HTTP server (`--http`, `--metrics`): hyper's HTTP/1.1 on a thread of
//! its own, so that scrapes, health checks and HTTP clients never wait for
//! the binary listeners nor make them wait. Ids over HTTP come from the
//! same clocks, lock-free, with the same horizon and lease checks.
//!
//! | request | answer |
//! |---|---|
//! | `GET /ids?kind=K&n=N&v=V&meta=M` (`--http` only) | 200, `N` ids of kind `K` (see [`Query`]) as a JSON array of strings, or one per line with `Accept: text/plain`; 400 naming a bad parameter (or `kind=sno` on a server that makes no sno ids, and why); 401 without the token; 503 while ids are not handed out |
//! | `GET /metrics` | 200, the exposition of [`metrics`](crate::metrics) |
//! | `GET /healthz` | 200 `ok`: the process runs |
//! | `GET /readyz` | 200 `ok` while ids are handed out, else 503 and why, in one line |
//! | another path | 404 |
//! | another method | 405 |
//!
//! The path is matched once its `%XX` escapes are decoded (`/%69ds` is
//! `/ids`); the query is read as a form's ([`Query::parse`]). An escape
//! that is not `%` and two hex digits is a 400. `HEAD` is answered as
//! `GET` without the body. `--metrics` answers one
//! request per connection, as a scrape needs; `--http` keeps connections
//! alive. Connections cannot starve each other:
//!
//! | limit | `--metrics` | `--http` | past it |
//! |---|---|---|---|
//! | a request head, from its first byte | [`HEAD_TIMEOUT`] | [`HEAD_TIMEOUT`] | closed unanswered |
//! | its size | [`MAX_HEAD`] | [`MAX_HEAD`] | 431, closed |
//! | no request (the first one too) | [`HEAD_TIMEOUT`] | `--idle-timeout` | closed |
//! | an answer taken by the client: no byte of it taken for | [`ANSWER_TIMEOUT`] | [`ANSWER_TIMEOUT`] | closed |
//! | connections open | [`MONITOR_CONNS`] | `--http-max-conns` | the one idle longest (no request in progress; a client that never read its answer included) is closed to make room; if every one is making ids, the new one |
//!
//! So however many connections sit idle or stop reading (a pool of
//! keep-alive clients, a client that pipelines and never reads), a new
//! client gets its place at once.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
use std::sync::{Arc, OnceLock};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use bytes::Bytes;
use guid::Id;
use guid::sno::Sno;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;
use tracing::warn;

use crate::config::{ConnConfig, LeaseConfig};
use crate::error::Error;
use crate::issue::{IdKind, NotIssued, Sink, issue};
use crate::log::Recurring;
use crate::metrics;
use crate::shared::{Closed, Listener, Phase, Shared};

/// Connections open at once on `--metrics`.
const MONITOR_CONNS: usize = 64;

/// How long a request head may take from its first byte, and how long a
/// `--metrics` connection may wait before sending one.
pub(crate) const HEAD_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a connection may take to take an answer once it is idle.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest request head read (hyper's smallest buffer).
pub(crate) const MAX_HEAD: usize = 8 * 1024;

/// The most ids one request asks for.
pub(crate) const MAX_N: usize = 10_000;

/// What the HTTP thread watches: the server, once it has its clocks.
type Watched = Arc<OnceLock<Arc<Shared>>>;

/// What a listener serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Metrics and health checks (`--metrics`).
    Monitor,
    /// Those and ids (`--http`).
    Api,
}

/// A listener's role and limits.
#[derive(Clone, Copy, Debug)]
struct Site {
    role: Role,
    max_conns: usize,
    /// Close a connection without a request this long.
    idle: Option<Duration>,
}

/// What every connection of the HTTP thread shares.
struct Context {
    watched: Watched,
    /// The token `/ids` asks for, if auth is on.
    token: Option<Box<[u8]>>,
    /// Why nothing is served before the server has its clocks.
    starting: Starting,
}

/// What the server does before it has its clocks, and until when, once
/// it knows (a node id's quiet, a fence ahead of the wall clock).
struct Starting {
    what: String,
    /// Unix ns; 0 while unknown.
    until: Arc<AtomicU64>,
}

impl Starting {
    /// How long until the first id, as far as is known.
    fn wait(&self) -> Duration {
        let until = self.until.load(Relaxed);
        Duration::from_nanos(until.saturating_sub(guid::TimeSource::now(&guid::WallClock)))
    }

    /// Why nothing is served, and for how long if that is known.
    fn why(&self) -> String {
        match self.wait() {
            Duration::ZERO => self.what.clone(),
            left => format!("{}: {left:?} more before the first id", self.what),
        }
    }
}

/// The HTTP thread; stopped, and what it watched let go, when dropped.
pub(crate) struct Monitor {
    addrs: Vec<(Role, Option<SocketAddr>)>,
    watched: Watched,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Monitor {
    /// Answers on `metrics` and `api` from now on (none if neither is
    /// given): not ready, and no ids, until [`Monitor::watch`].
    /// Before the clocks are there, `until` (Unix ns, 0 while unknown)
    /// says when the first id is expected; with a `lease`, readiness says
    /// the node id is being leased meanwhile.
    pub(crate) fn start(
        metrics: Option<std::net::TcpListener>,
        api: Option<std::net::TcpListener>,
        conns: &ConnConfig,
        lease: Option<&LeaseConfig>,
        until: Arc<AtomicU64>,
    ) -> Result<Option<Monitor>, Error> {
        let fail = |e| Error::io("start the HTTP listener", e);
        let monitor = Site {
            role: Role::Monitor,
            max_conns: MONITOR_CONNS,
            idle: Some(HEAD_TIMEOUT),
        };
        let site = Site {
            role: Role::Api,
            max_conns: conns.http_max_conns,
            idle: conns.idle_timeout.filter(|d| !d.is_zero()),
        };
        let listeners: Vec<_> = [(monitor, metrics), (site, api)]
            .into_iter()
            .filter_map(|(site, l)| l.map(|l| (site, l)))
            .collect();
        if listeners.is_empty() {
            return Ok(None);
        }
        let mut addrs = Vec::new();
        for (site, l) in &listeners {
            l.set_nonblocking(true).map_err(fail)?;
            addrs.push((site.role, l.local_addr().ok()));
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(fail)?;
        metrics::note_start();
        let watched = Watched::default();
        let context = Arc::new(Context {
            watched: Arc::clone(&watched),
            token: conns.token().map(Box::from),
            starting: Starting {
                what: match lease {
                    Some(lease) => format!(
                        "starting: leasing the 64-bit node id from {}",
                        lease.store.name()
                    ),
                    None => "starting: the clocks are not ready".into(),
                },
                until,
            },
        });
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("guid-http".into())
            .spawn(move || runtime.block_on(serve_all(listeners, context, stopped)))
            .map_err(fail)?;
        Ok(Some(Monitor {
            addrs,
            watched,
            stop: Some(stop),
            thread: Some(thread),
        }))
    }

    /// The address of the metrics listener, and of the API's.
    pub(crate) fn addrs(&self) -> (Option<String>, Option<String>) {
        let of = |role| {
            self.addrs
                .iter()
                .find(|(r, _)| *r == role)
                .map(|(_, a)| a.map_or_else(|| "(unknown address)".to_owned(), |a| a.to_string()))
        };
        (of(Role::Monitor), of(Role::Api))
    }

    /// Reports on `shared`, and serves ids from it, from now on.
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

/// Serves every listener until `stopped`.
async fn serve_all(
    listeners: Vec<(Site, std::net::TcpListener)>,
    context: Arc<Context>,
    stopped: oneshot::Receiver<()>,
) {
    let mut tasks = JoinSet::new();
    for (site, listener) in listeners {
        tasks.spawn(serve(listener, site, Arc::clone(&context)));
    }
    let _ = stopped.await;
    tasks.shutdown().await;
}

/// A connection open: what it is doing, and its task.
struct Slot {
    activity: Arc<Activity>,
    task: AbortHandle,
}

/// Accepts on one listener, answering each connection in a task; at the
/// cap, makes room for each new connection.
async fn serve(listener: std::net::TcpListener, site: Site, context: Arc<Context>) {
    let listener = match TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            warn!(error = %e, "an HTTP listener failed: {e}; it answers nothing");
            return;
        }
    };
    let mut tasks = JoinSet::new();
    // Oldest first.
    let mut open: VecDeque<Slot> = VecDeque::new();
    let mut errors = 0u64;
    let mut reported = Recurring::default();
    loop {
        tokio::select! {
            biased;
            Some(_) = tasks.join_next() => {}
            r = listener.accept() => match r {
                Ok((stream, _)) => {
                    let activity = Arc::new(Activity::new());
                    let counted = (site.role == Role::Api)
                        .then(|| context.watched.get().map(|s| Counted::new(Arc::clone(s), Arc::clone(&activity))))
                        .flatten();
                    if !make_room(&mut open, site.max_conns) {
                        if let Some(c) = counted {
                            c.close(Closed::Cap);
                        }
                        continue;
                    }
                    let conn = connection(stream, site, Arc::clone(&context), Arc::clone(&activity), counted);
                    let task = tasks.spawn(conn);
                    open.push_back(Slot { activity, task });
                    // Lets the new connection read a head already there
                    // before more connections come.
                    tokio::task::yield_now().await;
                }
                Err(e) => {
                    errors += 1;
                    if let Some(prev) = reported.due(&errors, std::time::Instant::now()) {
                        let since = errors - prev;
                        warn!(error = %e, since, "HTTP listener: accept failed ({since} since the last report): {e}");
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// Leaves room for one more connection under `cap`: closes the one idle
/// longest, whether or not it made requests; `false` if every one is
/// making ids (the new one is refused).
fn make_room(open: &mut VecDeque<Slot>, cap: usize) -> bool {
    open.retain(|s| !s.task.is_finished());
    if open.len() < cap {
        return true;
    }
    let idle_longest = open
        .iter()
        .enumerate()
        .filter_map(|(at, s)| s.activity.idle_since().map(|since| (since, at)))
        .min();
    let Some((_, at)) = idle_longest else {
        return false;
    };
    if let Some(slot) = open.remove(at) {
        slot.activity.evicted.store(true, Relaxed);
        slot.task.abort();
    }
    true
}

/// An `--http` connection counted in the server's metrics from its accept
/// until it ends, however it ends.
struct Counted {
    shared: Arc<Shared>,
    activity: Arc<Activity>,
    closed: Closed,
}

impl Counted {
    fn new(shared: Arc<Shared>, activity: Arc<Activity>) -> Counted {
        let k = Listener::Http as usize;
        shared.counts.accepted[k].fetch_add(1, Relaxed);
        shared.counts.open[k].fetch_add(1, Relaxed);
        Counted {
            shared,
            activity,
            // Aborted at shutdown (or to make room, which it marks),
            // unless it says otherwise.
            closed: Closed::Shutdown,
        }
    }

    fn close(mut self, why: Closed) {
        self.closed = why;
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let c = &self.shared.counts;
        c.open[Listener::Http as usize].fetch_sub(1, Relaxed);
        c.close(match self.activity.evicted.load(Relaxed) {
            true => Closed::Evicted,
            false => self.closed,
        });
    }
}

/// When a connection last started or ended a request, how many it has in
/// flight, and since when its answers wait for the client to read them:
/// what its timeouts and its place at the cap are measured from.
struct Activity {
    since: Instant,
    /// Milliseconds after `since`.
    last: AtomicU64,
    busy: AtomicU32,
    /// Milliseconds after `since`, plus one, from which the socket has
    /// taken nothing of an answer; 0 while it takes what is written.
    blocked: AtomicU64,
    /// Closed to make room for a new connection.
    evicted: AtomicBool,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            since: Instant::now(),
            last: AtomicU64::new(0),
            busy: AtomicU32::new(0),
            blocked: AtomicU64::new(0),
            evicted: AtomicBool::new(false),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn at(&self, ms: u64) -> Instant {
        self.since + Duration::from_millis(ms)
    }

    /// Since when the connection is idle: no request in flight (its
    /// accept, if it made none); `None` while it makes ids.
    fn idle_since(&self) -> Option<Instant> {
        (self.busy.load(Relaxed) == 0).then(|| self.at(self.last.load(Relaxed)))
    }

    /// Since when the client has taken nothing written to it, if it has
    /// not.
    fn blocked_since(&self) -> Option<Instant> {
        match self.blocked.load(Relaxed) {
            0 => None,
            ms => Some(self.at(ms - 1)),
        }
    }

    /// Notes how a write to the socket went.
    fn wrote(&self, r: &Poll<io::Result<usize>>) {
        match r {
            Poll::Pending => {
                let now = self.now().saturating_add(1);
                let _ = self.blocked.compare_exchange(0, now, Relaxed, Relaxed);
            }
            Poll::Ready(Ok(n)) if *n > 0 => self.blocked.store(0, Relaxed),
            Poll::Ready(_) => {}
        }
    }

    fn begin(&self) {
        self.busy.fetch_add(1, Relaxed);
        self.last.store(self.now(), Relaxed);
    }

    fn end(&self) {
        self.last.store(self.now(), Relaxed);
        self.busy.fetch_sub(1, Relaxed);
    }
}

/// A connection's socket that tells its [`Activity`] when the client stops
/// taking what is written.
struct Tracked<S> {
    stream: S,
    activity: Arc<Activity>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Tracked<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tracked<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.activity.wrote(&r);
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.activity.wrote(&r);
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Serves one connection until the client closes it, it idles past the
/// site's timeout, it leaves an answer untaken past [`ANSWER_TIMEOUT`], or
/// it is aborted.
async fn connection(
    stream: TcpStream,
    site: Site,
    context: Arc<Context>,
    activity: Arc<Activity>,
    counted: Option<Counted>,
) {
    // Answers are whole: send each at once.
    let _ = stream.set_nodelay(true);
    let service = {
        let activity = Arc::clone(&activity);
        service_fn(move |request: Request<Incoming>| {
            let (context, activity) = (Arc::clone(&context), Arc::clone(&activity));
            async move {
                activity.begin();
                let answer = answer(&request, site.role, &context).await;
                activity.end();
                Ok::<_, Infallible>(answer)
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_buf_size(MAX_HEAD)
        // As the headers have always been written, for clients that look.
        .title_case_headers(true)
        .keep_alive(site.role == Role::Api);
    let tracked = Tracked {
        stream,
        activity: Arc::clone(&activity),
    };
    let conn = builder.serve_connection(TokioIo::new(tracked), service);
    tokio::pin!(conn);
    let end = loop {
        let due = site
            .idle
            .and_then(|idle| Some(activity.idle_since()? + idle));
        let unread = activity.blocked_since().map(|t| t + ANSWER_TIMEOUT);
        // Looked at again at least every HEAD_TIMEOUT: an answer may stop
        // being taken meanwhile.
        let wake = [due, unread]
            .into_iter()
            .flatten()
            .fold(Instant::now() + HEAD_TIMEOUT, Instant::min);
        tokio::select! {
            r = conn.as_mut() => break if r.is_ok() { Closed::Client } else { Closed::Io },
            () = tokio::time::sleep_until(wake) => {
                let now = Instant::now();
                if activity.blocked_since().is_some_and(|t| t + ANSWER_TIMEOUT <= now) {
                    break Closed::Unread;
                }
                if due.is_some_and(|d| d <= now) {
                    // Closes once the answer in progress, if any, is taken.
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(ANSWER_TIMEOUT, conn.as_mut()).await;
                    break Closed::Idle;
                }
            }
        }
    };
    if let Some(c) = counted {
        c.close(end);
    }
}

/// The whole answer to one request.
async fn answer(
    request: &Request<Incoming>,
    role: Role,
    context: &Context,
) -> Response<Full<Bytes>> {
    let shared = context.watched.get();
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let Some(path) = decode(request.uri().path(), false) else {
        return text(
            StatusCode::BAD_REQUEST,
            "bad request: the path has an invalid %-escape (% and two hex digits, of UTF-8)\n",
        );
    };
    match (&*path, role) {
        ("/ids", Role::Api) => match authorized(request, context) {
            true => ids(request, shared, &context.starting).await,
            false => {
                let mut r = json_error(
                    StatusCode::UNAUTHORIZED,
                    "Authorization: Bearer with the server's token is required",
                    None,
                );
                r.headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                r
            }
        },
        ("/metrics", _) => {
            let mut r = Response::new(Full::new(Bytes::from(metrics::encode(shared))));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(metrics::CONTENT_TYPE),
            );
            no_store(r)
        }
        ("/healthz", _) => text(StatusCode::OK, "ok\n"),
        ("/readyz", _) => match ready(shared.map(|s| &**s), &context.starting.why()) {
            Ok(()) => text(StatusCode::OK, "ok\n"),
            Err(why) => text(StatusCode::SERVICE_UNAVAILABLE, &format!("{why}\n")),
        },
        (_, Role::Api) => text(
            StatusCode::NOT_FOUND,
            "not found: /ids, /metrics, /healthz or /readyz\n",
        ),
        (_, Role::Monitor) => text(
            StatusCode::NOT_FOUND,
            "not found: /metrics, /healthz or /readyz\n",
        ),
    }
}

/// Whether the request carries the token, when one is set, as
/// `Authorization: Bearer <token>` (compared in constant time).
fn authorized(request: &Request<Incoming>, context: &Context) -> bool {
    let Some(token) = &context.token else {
        return true;
    };
    // The scheme's name is case-insensitive (RFC 9110).
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().split_at_checked(7))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"bearer "))
        .map(|(_, token)| token);
    given.is_some_and(|given| crate::protocol::token_matches(given, token))
}

/// `GET /ids`'s parameters: `kind` (`flake`, the default; `g`, `l`, `x`,
/// `sno`), `n` (1..=10000, default 1), `v` (2, the default, or 3; for `g`
/// and `l`, and `x`'s 3) and `meta` (sno's metabyte, 0..=255, default 0;
/// for `sno` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Query {
    pub(crate) kind: IdKind,
    pub(crate) n: usize,
}

/// A parameter `GET /ids` cannot take: its name and why.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadParameter {
    pub(crate) parameter: String,
    pub(crate) why: &'static str,
}

/// Why a name or a value of the query is refused before it is read.
const BAD_ESCAPE: &str =
    "not a valid %-escape: each % takes two hex digits, and the bytes must be UTF-8";

impl Query {
    /// The query of `GET /ids?{query}`, read as a form's
    /// (`application/x-www-form-urlencoded`, as browsers'
    /// `URLSearchParams`, Go's `ParseQuery` and Python's `parse_qs` read
    /// it): pairs split at `&` (empty ones skipped) and at their first
    /// `=` (none: an empty value), then names and values decoded, `%XX`
    /// the byte `XX` and `+` a space ([`decode`]). An invalid escape (`%zz`,
    /// a `%` at the end) or bytes that are not UTF-8 are refused, naming
    /// the parameter (the name as given if it is the name that is bad);
    /// so are a parameter given twice, an empty value, and a name
    /// `/ids` does not take.
    pub(crate) fn parse(query: &str) -> Result<Query, BadParameter> {
        let bad = |parameter: &str, why| BadParameter {
            parameter: parameter.to_owned(),
            why,
        };
        let (mut kind, mut n, mut v, mut meta) = (None, None, None, None);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = decode(name, true).ok_or_else(|| bad(name, BAD_ESCAPE))?;
            let slot = match &*name {
                "kind" => &mut kind,
                "n" => &mut n,
                "v" => &mut v,
                "meta" => &mut meta,
                _ => {
                    return Err(bad(
                        &name,
                        "unknown parameter: /ids takes kind, n, v and meta",
                    ));
                }
            };
            let value = decode(value, true).ok_or_else(|| bad(&name, BAD_ESCAPE))?;
            if slot.replace(value).is_some() {
                return Err(bad(&name, "given twice"));
            }
        }
        let (kind, v) = (kind.as_deref(), v.as_deref());
        let n = match n {
            None => 1,
            Some(n) => match n.parse::<usize>() {
                Ok(n) if (1..=MAX_N).contains(&n) => n,
                _ => return Err(bad("n", "n must be an integer in 1..=10000")),
            },
        };
        let v3 = match v {
            None | Some("2") => false,
            Some("3") => true,
            Some(_) => return Err(bad("v", "v must be 2 or 3")),
        };
        let kind = kind.unwrap_or("flake");
        let meta = match meta.as_deref() {
            None => 0,
            Some(_) if kind != "sno" => return Err(bad("meta", "meta applies to kind sno")),
            Some(m) => match m.parse::<u8>() {
                Ok(m) => m,
                Err(_) => return Err(bad("meta", "meta must be an integer in 0..=255")),
            },
        };
        let kind = match (kind, v) {
            ("flake" | "sno", Some(_)) => return Err(bad("v", "v applies to kind g, l and x")),
            ("flake", None) => IdKind::Flake,
            ("g", _) => IdKind::Global { v3 },
            ("l", _) => IdKind::Local { v3 },
            ("x", Some("2")) => return Err(bad("v", "kind x is v3's: v must be 3")),
            ("x", _) => IdKind::X,
            ("sno", None) => IdKind::Sno { meta },
            _ => return Err(bad("kind", "kind must be flake, g, l, x or sno")),
        };
        Ok(Query { kind, n })
    }
}

/// `s` with its `%XX` escapes decoded, each the byte `XX` (and, with
/// `plus`, as in a form's query, each `+` a space); `None` if a `%` is not
/// followed by two hex digits or the bytes are not UTF-8.
fn decode(s: &str, plus: bool) -> Option<Cow<'_, str>> {
    if !s.bytes().any(|b| b == b'%' || (plus && b == b'+')) {
        return Some(Cow::Borrowed(s));
    }
    let hex = |b: Option<u8>| char::from(b?).to_digit(16);
    let mut bytes = s.bytes();
    let mut out = Vec::with_capacity(s.len());
    while let Some(b) = bytes.next() {
        out.push(match b {
            b'%' => (hex(bytes.next())? << 4 | hex(bytes.next())?) as u8,
            b'+' if plus => b' ',
            b => b,
        });
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// `GET /ids`: the ids, or why none. `HEAD /ids` answers as `GET` would,
/// without making the ids.
async fn ids(
    request: &Request<Incoming>,
    shared: Option<&Arc<Shared>>,
    starting: &Starting,
) -> Response<Full<Bytes>> {
    let query = match Query::parse(request.uri().query().unwrap_or("")) {
        Ok(q) => q,
        Err(e) => return json_error(StatusCode::BAD_REQUEST, e.why, Some(&e.parameter)),
    };
    let lines = wants_text(request);
    let unavailable = |why: &str| {
        let mut r = json_error(StatusCode::SERVICE_UNAVAILABLE, why, None);
        let wait = shared.map_or_else(|| starting.wait(), |s| s.unavailable_for());
        // Whole seconds, rounded up: a client retrying then finds ids.
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        r
    };
    let Some(shared) = shared else {
        return unavailable(&starting.why());
    };
    if let IdKind::Sno { .. } = query.kind
        && let Err(why) = shared.sno.generator()
    {
        return json_error(StatusCode::BAD_REQUEST, why, Some("kind"));
    }
    if let Err(why) = ready(Some(shared), &starting.what) {
        return unavailable(&why);
    }
    if request.method() == Method::HEAD {
        return no_store(content_type(Response::default(), lines));
    }
    // Counted in flight, so that shutdown saves the state only after it.
    let Some(_turn) = shared.turn() else {
        return unavailable("shutting down");
    };
    let mut out = Vec::with_capacity(query.n * 40 + 2);
    let made = make(shared, query, lines, &mut out).await;
    if let Err(why) = made {
        return unavailable(why);
    }
    let k = Listener::Http as usize;
    shared.counts.ids[k].fetch_add(query.n as u64, Relaxed);
    shared.counts.requests[k].fetch_add(1, Relaxed);
    let r = Response::new(Full::new(Bytes::from(out)));
    no_store(content_type(r, lines))
}

/// `r` with the content type of a list of ids as JSON or as lines.
fn content_type(mut r: Response<Full<Bytes>>, lines: bool) -> Response<Full<Bytes>> {
    let kind = match lines {
        true => "text/plain; charset=utf-8",
        false => "application/json",
    };
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    r
}

/// Whether the client asks for one id per line (`Accept: text/plain`)
/// rather than JSON (the default): the first of the two it names.
fn wants_text(request: &Request<Incoming>) -> bool {
    let accept = request
        .headers()
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.split(';').next().unwrap_or_default().trim());
    for media in accept {
        match media {
            "text/plain" => return true,
            "application/json" => return false,
            _ => {}
        }
    }
    false
}

/// Writes the ids `query` asks for to `out`, as JSON or lines; or why
/// none could be made. The 64-bit clock's pace (its cap, or a horizon
/// being stored) is waited for, but with a lease never past the max lead.
async fn make(
    shared: &Shared,
    query: Query,
    lines: bool,
    out: &mut Vec<u8>,
) -> Result<(), &'static str> {
    let flake = shared.flake();
    let mut list = List::new(out, lines);
    let asked = Instant::now();
    loop {
        match issue(shared, &flake, query.kind, query.n, &mut list) {
            Ok(()) => break,
            Err(NotIssued::Pace(pace)) => {
                // Measured, not summed: each nap lasts longer than asked.
                let waited = asked.elapsed() + pace;
                if flake.max_wait().is_some_and(|max| waited > max) {
                    return Err("the node id's horizon is not stored in time");
                }
                tokio::time::sleep(pace).await;
            }
            Err(NotIssued::Horizon) => return Err("the state file could not be saved"),
            Err(NotIssued::Clock) => {
                return Err(match query.kind {
                    IdKind::Sno { .. } => "the sno generator cannot make ids",
                    _ => "the 64-bit clock cannot make ids",
                });
            }
            Err(NotIssued::NoSno) => return Err("this server makes no sno ids"),
            #[cfg(feature = "lease")]
            Err(NotIssued::Lease) => return Err("the node id's lease is not confirmed"),
        }
    }
    list.end();
    Ok(())
}

/// `GET /ids`'s answer: 64-bit ids in decimal, the others as their
/// strings (sortable, or UUIDs for X ids; sno's 16 characters).
impl Sink for List<'_> {
    fn flake(&mut self, ids: &[u64]) {
        let mut buf = itoa::Buffer::new();
        for &id in ids {
            self.push(buf.format(id));
        }
    }

    fn ids<I: Id>(&mut self, ids: &[I]) {
        let mut buf = [0u8; 36];
        for &id in ids {
            self.push(id.encode(&mut buf));
        }
    }

    fn sno(&mut self, ids: &[Sno]) {
        let mut buf = [0u8; 16];
        for &id in ids {
            self.push(id.encode(&mut buf));
        }
    }
}

/// Ids written as a JSON array of strings or as lines.
struct List<'a> {
    out: &'a mut Vec<u8>,
    lines: bool,
    first: bool,
}

impl<'a> List<'a> {
    fn new(out: &'a mut Vec<u8>, lines: bool) -> List<'a> {
        if !lines {
            out.push(b'[');
        }
        List {
            out,
            lines,
            first: true,
        }
    }

    /// One id's text: digits, or an id string's alphabet, which JSON
    /// needs no escape for.
    #[inline]
    fn push(&mut self, id: &str) {
        if self.lines {
            self.out.extend_from_slice(id.as_bytes());
            self.out.push(b'\n');
            return;
        }
        if !std::mem::take(&mut self.first) {
            self.out.push(b',');
        }
        self.out.push(b'"');
        self.out.extend_from_slice(id.as_bytes());
        self.out.push(b'"');
    }

    fn end(self) {
        if !self.lines {
            self.out.extend_from_slice(b"]\n");
        }
    }
}

/// An error as JSON: `{"error": why, "parameter": name}`.
fn json_error(status: StatusCode, why: &str, parameter: Option<&str>) -> Response<Full<Bytes>> {
    let body = match parameter {
        Some(p) => serde_json::json!({ "error": why, "parameter": p }),
        None => serde_json::json!({ "error": why }),
    };
    let mut r = Response::new(Full::new(Bytes::from(format!("{body}\n"))));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    no_store(r)
}

/// A plain-text answer.
fn text(status: StatusCode, body: &str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::copy_from_slice(body.as_bytes())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    no_store(r)
}

/// Answers are never cached: every id is new, and health is now.
fn no_store(mut r: Response<Full<Bytes>>) -> Response<Full<Bytes>> {
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Whether ids are handed out now, and if not, why: the server is
/// serving, the node id's lease (with `--etcd` or `--redis`) is confirmed, and the last
/// write of the state file (with `--state`) succeeded.
pub(crate) fn ready(shared: Option<&Shared>, starting: &str) -> Result<(), String> {
    let Some(shared) = shared else {
        return Err(starting.into());
    };
    match shared.phase() {
        Phase::Starting => return Err(shared.starting()),
        Phase::Stopping => return Err("shutting down".into()),
        Phase::Serving => {}
    }
    #[cfg(feature = "lease")]
    if let Some(lease) = shared.flake().lease() {
        let node = lease.node();
        match lease.check() {
            Ok(()) => {}
            Err(kguid_lease::Error::Expired) => {
                return Err(format!(
                    "the lease of node {node} is not confirmed by its store: 64-bit ids refused"
                ));
            }
            Err(kguid_lease::Error::Unfenced { left }) => {
                return Err(format!(
                    "node {node} had no horizon in its store: 64-bit ids wait {left:?} more for any holder the store forgot to stop"
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

    fn parse(q: &str) -> Result<Query, String> {
        Query::parse(q).map_err(|e| e.parameter)
    }

    #[test]
    fn queries_and_the_parameter_each_refusal_names() {
        let q = |kind, n| Ok(Query { kind, n });
        assert_eq!(parse(""), q(IdKind::Flake, 1));
        assert_eq!(
            parse("kind=g&n=1000"),
            q(IdKind::Global { v3: false }, 1000)
        );
        assert_eq!(parse("n=7&kind=l&v=3"), q(IdKind::Local { v3: true }, 7));
        assert_eq!(parse("kind=x&v=3&n=10000"), q(IdKind::X, 10_000));
        assert_eq!(parse("kind=x"), q(IdKind::X, 1));
        assert_eq!(parse("kind=sno"), q(IdKind::Sno { meta: 0 }, 1));
        assert_eq!(
            parse("meta=255&kind=sno&n=10000"),
            q(IdKind::Sno { meta: 255 }, 10_000)
        );
        assert_eq!(parse("kind=sno&meta=07"), q(IdKind::Sno { meta: 7 }, 1));
        for (query, parameter) in [
            ("kind=y", "kind"),
            ("kind=", "kind"),
            ("kind=G", "kind"),
            ("n=0", "n"),
            ("n=10001", "n"),
            ("n=-1", "n"),
            ("n=1e3", "n"),
            ("n=", "n"),
            ("n=99999999999999999999999", "n"),
            ("kind=g&v=4", "v"),
            ("kind=x&v=2", "v"),
            ("v=3", "v"),
            ("kind=flake&v=2", "v"),
            ("kind=g&kind=l", "kind"),
            ("n=1&n=2", "n"),
            ("count=3", "count"),
            ("kind=g&%6e=3&n=2", "n"),
            ("co%75nt=3", "count"),
            ("kind=snoo", "kind"),
            ("kind=SNO", "kind"),
            ("kind=sno&meta=256", "meta"),
            ("kind=sno&meta=-1", "meta"),
            ("kind=sno&meta=x", "meta"),
            ("kind=sno&meta=", "meta"),
            ("kind=sno&meta=1&meta=1", "meta"),
            ("kind=sno&v=3", "v"),
            ("kind=g&meta=1", "meta"),
            ("meta=0", "meta"),
        ] {
            assert_eq!(parse(query), Err(parameter.to_owned()), "{query}");
        }
    }

    /// Names and values are decoded as a form's: `%XX` a byte, `+` a
    /// space; an invalid escape names the parameter.
    #[test]
    fn queries_are_percent_decoded() {
        let q = |kind, n| Ok(Query { kind, n });
        assert_eq!(parse("kind=sno&meta=%2B1"), q(IdKind::Sno { meta: 1 }, 1));
        assert_eq!(parse("kind=s%6eo"), q(IdKind::Sno { meta: 0 }, 1));
        assert_eq!(
            parse("kind=s%6Eo&%6e=%31%30"),
            q(IdKind::Sno { meta: 0 }, 10)
        );
        assert_eq!(parse("k%69nd=g&v=%33"), q(IdKind::Global { v3: true }, 1));
        assert_eq!(parse("&&n=2&"), q(IdKind::Flake, 2));
        for (query, parameter) in [
            // A space, not a sign.
            ("kind=sno&meta=+1", "meta"),
            ("n=+2", "n"),
            ("kind=g+", "kind"),
            ("n=%zz", "n"),
            ("n=%", "n"),
            ("n=1%", "n"),
            ("n=%3", "n"),
            ("kind=%ff", "kind"),
            ("%zz=1", "%zz"),
            ("kind%=g", "kind%"),
            ("n=%00", "n"),
            ("n", "n"),
            ("kind=g&kind=%67", "kind"),
            ("=3", ""),
        ] {
            assert_eq!(parse(query), Err(parameter.to_owned()), "{query}");
        }
        let why = |q: &str| Query::parse(q).unwrap_err().why;
        assert_eq!(why("n=%zz"), BAD_ESCAPE);
        assert_eq!(why("%zz=1"), BAD_ESCAPE);
        assert_eq!(decode("/%69ds", false).as_deref(), Some("/ids"));
        assert_eq!(decode("a+b%2b", false).as_deref(), Some("a+b+"));
        assert_eq!(decode("a+b%2B", true).as_deref(), Some("a b+"));
        assert_eq!(decode("%e2%82%ac", true).as_deref(), Some("\u{20ac}"));
        assert_eq!(decode("%e2%82", true), None);
        assert_eq!(decode("%-1", true), None);
        assert_eq!(decode("%+1", true), None);
    }

    #[test]
    fn lists_are_json_arrays_or_lines() {
        let mut out = Vec::new();
        let mut list = List::new(&mut out, false);
        list.push("1");
        list.push("2");
        list.end();
        assert_eq!(
            serde_json::from_slice::<Vec<String>>(&out).unwrap(),
            ["1", "2"]
        );
        let mut out = Vec::new();
        let mut list = List::new(&mut out, true);
        list.push("a");
        list.push("b");
        list.end();
        assert_eq!(out, b"a\nb\n");
    }

    #[tokio::test]
    async fn room_is_made_from_the_connection_idle_longest() {
        let mut tasks = JoinSet::new();
        let mut open = VecDeque::new();
        let cap = 8;
        // Oldest first, each idle since its request (or accept) ended.
        for i in 0..cap {
            let activity = Arc::new(Activity::new());
            activity.last.store(1_000 - i as u64, Relaxed);
            if i == 0 {
                activity.begin(); // making ids: never closed to make room
            }
            let task = tasks.spawn(std::future::pending::<()>());
            open.push_back(Slot { activity, task });
        }
        // The newest connection has been idle longest (it made no request
        // after its accept, say, or asked once and never read the answer).
        let idle_longest = open[cap - 1].task.clone();
        let evicted = Arc::clone(&open[cap - 1].activity);
        assert!(make_room(&mut open, cap));
        assert_eq!(open.len(), cap - 1);
        tokio::task::yield_now().await;
        assert!(idle_longest.is_finished());
        assert!(evicted.evicted.load(Relaxed));
        assert!(!open[0].task.is_finished());
        // With every connection making ids, the new one is refused.
        for slot in &open {
            slot.activity.begin();
        }
        open.push_back(Slot {
            activity: Arc::new(Activity::new()),
            task: tasks.spawn(std::future::pending::<()>()),
        });
        open.back().unwrap().activity.begin();
        assert!(!make_room(&mut open, cap));
        assert_eq!(open.len(), cap);
    }

    #[test]
    fn a_write_the_socket_does_not_take_marks_the_connection_blocked() {
        let activity = Activity::new();
        assert_eq!(activity.blocked_since(), None);
        activity.wrote(&Poll::Pending);
        let since = activity.blocked_since().expect("blocked");
        activity.wrote(&Poll::Pending);
        assert_eq!(activity.blocked_since(), Some(since), "from the first");
        activity.wrote(&Poll::Ready(Ok(0)));
        assert_eq!(activity.blocked_since(), Some(since));
        activity.wrote(&Poll::Ready(Ok(10)));
        assert_eq!(activity.blocked_since(), None);
    }
}
