//! The HTTP server (`--http`, `--metrics`): hyper's HTTP/1.1 on a thread of
//! its own, so that scrapes, health checks and HTTP clients never wait for
//! the binary listeners nor make them wait. Ids over HTTP come from the
//! same clocks, lock-free, with the same horizon and lease checks.
//!
//! | request | answer |
//! |---|---|
//! | `GET /ids?kind=K&n=N&v=V` (`--http` only) | 200, `N` ids of kind `K` (see [`Query`]) as a JSON array of strings, or one per line with `Accept: text/plain`; 400 naming a bad parameter; 401 without the token; 503 while ids are not handed out |
//! | `GET /metrics` | 200, the exposition of [`metrics`](crate::metrics) |
//! | `GET /healthz` | 200 `ok`: the process runs |
//! | `GET /readyz` | 200 `ok` while ids are handed out, else 503 and why, in one line |
//! | another path | 404 |
//! | another method | 405 |
//!
//! `HEAD` is answered as `GET` without the body. `--metrics` answers one
//! request per connection, as a scrape needs; `--http` keeps connections
//! alive. Connections cannot starve each other:
//!
//! | limit | `--metrics` | `--http` | past it |
//! |---|---|---|---|
//! | a request head, from its first byte | [`HEAD_TIMEOUT`] | [`HEAD_TIMEOUT`] | closed unanswered |
//! | its size | [`MAX_HEAD`] | [`MAX_HEAD`] | 431, closed |
//! | no request (the first one too) | [`HEAD_TIMEOUT`] | `--idle-timeout` | closed |
//! | an answer taken by the client | [`ANSWER_TIMEOUT`] | [`ANSWER_TIMEOUT`] | closed |
//! | connections open | [`MONITOR_CONNS`] | `--max-conns` | the oldest that has sent no request is closed to make room; if every one has, the new one |
//!
//! So however many connections sit idle, a client that sends its request
//! as it connects (as Prometheus and health probes do) gets its place at
//! once.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use guid::{Id, v3};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;
use tracing::warn;

use crate::clock::Refused;
use crate::config::Config;
use crate::error::Error;
use crate::log::Recurring;
use crate::metrics;
use crate::shared::{Closed, Kind, Phase, Shared, Source};

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
    pub(crate) fn start(
        metrics: Option<std::net::TcpListener>,
        api: Option<std::net::TcpListener>,
        config: &Config,
    ) -> Result<Option<Monitor>, Error> {
        let fail = |e| Error::io("start the HTTP listener", e);
        let monitor = Site {
            role: Role::Monitor,
            max_conns: MONITOR_CONNS,
            idle: Some(HEAD_TIMEOUT),
        };
        let site = Site {
            role: Role::Api,
            max_conns: config.http_max_conns,
            idle: config.idle_timeout.filter(|d| !d.is_zero()),
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
            token: config.auth_token().map(Box::from),
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

/// A connection open: whether it has sent a request, and its task.
struct Slot {
    asked: Arc<AtomicBool>,
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
                    let counted = (site.role == Role::Api)
                        .then(|| context.watched.get().map(|s| Counted::new(Arc::clone(s))))
                        .flatten();
                    if !make_room(&mut open, site.max_conns) {
                        if let Some(c) = counted {
                            c.close(Closed::Cap);
                        }
                        continue;
                    }
                    let asked = Arc::new(AtomicBool::new(false));
                    let conn = connection(stream, site, Arc::clone(&context), Arc::clone(&asked), counted);
                    let task = tasks.spawn(conn);
                    open.push_back(Slot { asked, task });
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

/// Leaves room for one more connection under `cap`: closes the oldest that
/// has sent no request; `false` if every one has (the new one is refused).
fn make_room(open: &mut VecDeque<Slot>, cap: usize) -> bool {
    open.retain(|s| !s.task.is_finished());
    if open.len() < cap {
        return true;
    }
    let Some(at) = open.iter().position(|s| !s.asked.load(Acquire)) else {
        return false;
    };
    if let Some(slot) = open.remove(at) {
        slot.task.abort();
    }
    true
}

/// An `--http` connection counted in the server's metrics from its accept
/// until it ends, however it ends.
struct Counted {
    shared: Arc<Shared>,
    closed: Closed,
}

impl Counted {
    fn new(shared: Arc<Shared>) -> Counted {
        let k = Kind::Http as usize;
        shared.counts.accepted[k].fetch_add(1, Relaxed);
        shared.counts.open[k].fetch_add(1, Relaxed);
        Counted {
            shared,
            // Aborted to make room or at shutdown, unless it says otherwise.
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
        c.open[Kind::Http as usize].fetch_sub(1, Relaxed);
        c.close(self.closed);
    }
}

/// When a connection last started or ended a request, and how many it
/// has in flight: what its idle timeout is measured from.
struct Activity {
    since: Instant,
    /// Milliseconds after `since`.
    last: AtomicU64,
    busy: AtomicU32,
}

impl Activity {
    fn now(&self) -> u64 {
        u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn begin(&self) {
        self.busy.fetch_add(1, Relaxed);
        self.last.store(self.now(), Relaxed);
    }

    fn end(&self) {
        self.last.store(self.now(), Relaxed);
        self.busy.fetch_sub(1, Relaxed);
    }

    /// When the connection is idle past `idle`, if it has no request in
    /// flight.
    fn idle_at(&self, idle: Duration) -> Option<Instant> {
        (self.busy.load(Relaxed) == 0)
            .then(|| self.since + Duration::from_millis(self.last.load(Relaxed)) + idle)
    }
}

/// Serves one connection until the client closes it, it idles past the
/// site's timeout, or it is aborted.
async fn connection(
    stream: TcpStream,
    site: Site,
    context: Arc<Context>,
    asked: Arc<AtomicBool>,
    counted: Option<Counted>,
) {
    // Answers are whole: send each at once.
    let _ = stream.set_nodelay(true);
    let activity = Arc::new(Activity {
        since: Instant::now(),
        last: AtomicU64::new(0),
        busy: AtomicU32::new(0),
    });
    let service = {
        let activity = Arc::clone(&activity);
        service_fn(move |request: Request<Incoming>| {
            let (context, activity, asked) = (
                Arc::clone(&context),
                Arc::clone(&activity),
                Arc::clone(&asked),
            );
            async move {
                asked.store(true, Release);
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
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let end = loop {
        let due = site.idle.and_then(|idle| activity.idle_at(idle));
        let wake = due.unwrap_or_else(|| Instant::now() + HEAD_TIMEOUT);
        tokio::select! {
            r = conn.as_mut() => break if r.is_ok() { Closed::Client } else { Closed::Io },
            () = tokio::time::sleep_until(wake) => {
                if due.is_some_and(|d| d <= Instant::now()) {
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
    match (request.uri().path(), role) {
        ("/ids", Role::Api) => match authorized(request, context) {
            true => ids(request, shared).await,
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
        ("/readyz", _) => match ready(shared.map(|s| &**s)) {
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

/// Which ids a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdKind {
    /// 64-bit flake ids, in decimal.
    Flake,
    /// Global ids of v2 or v3, as their sortable strings.
    Global { v3: bool },
    /// Local ids of v2 or v3, as their sortable strings.
    Local { v3: bool },
    /// v3's X ids, as UUID strings.
    X,
}

/// `GET /ids`'s parameters: `kind` (`flake`, the default; `g`, `l`, `x`),
/// `n` (1..=10000, default 1) and `v` (2, the default, or 3; for `g` and
/// `l`, and `x`'s 3).
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

impl Query {
    /// The query of `GET /ids?{query}`.
    pub(crate) fn parse(query: &str) -> Result<Query, BadParameter> {
        let bad = |parameter: &str, why| BadParameter {
            parameter: parameter.to_owned(),
            why,
        };
        let (mut kind, mut n, mut v) = (None, None, None);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let slot = match name {
                "kind" => &mut kind,
                "n" => &mut n,
                "v" => &mut v,
                _ => return Err(bad(name, "unknown parameter: /ids takes kind, n and v")),
            };
            if slot.replace(value).is_some() {
                return Err(bad(name, "given twice"));
            }
        }
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
        let kind = match (kind.unwrap_or("flake"), v) {
            ("flake", Some(_)) => return Err(bad("v", "v applies to kind g, l and x")),
            ("flake", None) => IdKind::Flake,
            ("g", _) => IdKind::Global { v3 },
            ("l", _) => IdKind::Local { v3 },
            ("x", Some("2")) => return Err(bad("v", "kind x is v3's: v must be 3")),
            ("x", _) => IdKind::X,
            _ => return Err(bad("kind", "kind must be flake, g, l or x")),
        };
        Ok(Query { kind, n })
    }
}

/// `GET /ids`: the ids, or why none.
async fn ids(request: &Request<Incoming>, shared: Option<&Arc<Shared>>) -> Response<Full<Bytes>> {
    let query = match Query::parse(request.uri().query().unwrap_or("")) {
        Ok(q) => q,
        Err(e) => return json_error(StatusCode::BAD_REQUEST, e.why, Some(&e.parameter)),
    };
    let lines = wants_text(request);
    let unavailable = |why: &str| {
        let mut r = json_error(StatusCode::SERVICE_UNAVAILABLE, why, None);
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        r
    };
    let Some(shared) = shared else {
        return unavailable("starting: the clocks are not ready");
    };
    if let Err(why) = ready(Some(shared)) {
        return unavailable(&why);
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
    let k = Kind::Http as usize;
    shared.counts.ids[k].fetch_add(query.n as u64, Relaxed);
    shared.counts.requests[k].fetch_add(1, Relaxed);
    let mut r = Response::new(Full::new(Bytes::from(out)));
    let kind = match lines {
        true => "text/plain; charset=utf-8",
        false => "application/json",
    };
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    no_store(r)
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
/// none could be made.
async fn make(
    shared: &Shared,
    query: Query,
    lines: bool,
    out: &mut Vec<u8>,
) -> Result<(), &'static str> {
    let n = query.n;
    let mut list = List::new(out, lines);
    match query.kind {
        IdKind::Flake => {
            let flake = shared.flake();
            // The layout's cap: wait for the units the ids need.
            loop {
                let pace = flake.pace(n);
                if pace.is_zero() {
                    break;
                }
                tokio::time::sleep(pace).await;
            }
            shared.guard(Source::Flake).map_err(|_| SAVE_FAILED)?;
            let mut ids = vec![0u64; n];
            flake.fill(&mut ids).map_err(|r| match r {
                Refused::Clock => "the 64-bit clock cannot make ids",
                #[cfg(feature = "lease")]
                Refused::Lease => "the node id's lease is not confirmed",
            })?;
            shared.issued_flake(&flake);
            let mut buf = itoa::Buffer::new();
            for id in ids {
                list.push(buf.format(id));
            }
        }
        IdKind::Global { v3: false } => {
            issue(shared, Source::V2, |i| shared.global.fill(i), n, &mut list)?;
        }
        IdKind::Global { v3: true } => {
            issue(shared, Source::V3, |i| shared.v3.fill(i), n, &mut list)?;
        }
        IdKind::Local { v3: false } => {
            issue(
                shared,
                Source::V2,
                |i| shared.global.fill_l(i),
                n,
                &mut list,
            )?;
        }
        IdKind::Local { v3: true } => {
            issue(shared, Source::V3, |i| shared.v3.fill_l(i), n, &mut list)?;
        }
        IdKind::X => {
            issue::<v3::Xuid>(shared, Source::V3, |i| shared.v3.fill_x(i), n, &mut list)?;
        }
    }
    list.end();
    Ok(())
}

const SAVE_FAILED: &str = "the state file could not be saved";

/// Makes `n` ids of `source` with `fill`, once the horizon is past them,
/// and lists their strings.
fn issue<I: Id>(
    shared: &Shared,
    source: Source,
    fill: impl FnOnce(&mut [I]),
    n: usize,
    list: &mut List<'_>,
) -> Result<(), &'static str> {
    shared.guard(source).map_err(|_| SAVE_FAILED)?;
    let mut ids = vec![I::MIN; n];
    fill(&mut ids);
    if let Some(last) = ids.last() {
        shared.issued_at(source, last.time());
    }
    let mut buf = [0u8; 36];
    for id in ids {
        list.push(id.encode(&mut buf));
    }
    Ok(())
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
pub(crate) fn ready(shared: Option<&Shared>) -> Result<(), String> {
    let Some(shared) = shared else {
        return Err("starting: the clocks are not ready".into());
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
            ("kind=g&%6e=3", "%6e"),
        ] {
            assert_eq!(parse(query), Err(parameter.to_owned()), "{query}");
        }
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
    async fn room_is_made_from_the_oldest_connection_without_a_request() {
        let mut tasks = JoinSet::new();
        let mut open = VecDeque::new();
        let cap = 8;
        for i in 0..cap {
            let asked = Arc::new(AtomicBool::new(i % 2 == 0));
            let task = tasks.spawn(std::future::pending::<()>());
            open.push_back(Slot { asked, task });
        }
        let first_idle = open[1].task.clone();
        assert!(make_room(&mut open, cap));
        assert_eq!(open.len(), cap - 1);
        tokio::task::yield_now().await;
        assert!(first_idle.is_finished());
        // With every connection past its first request, the new one is refused.
        for slot in &open {
            slot.asked.store(true, Release);
        }
        open.push_back(Slot {
            asked: Arc::new(AtomicBool::new(true)),
            task: tasks.spawn(std::future::pending::<()>()),
        });
        assert!(!make_room(&mut open, cap));
        assert_eq!(open.len(), cap);
    }
}
