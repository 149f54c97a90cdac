//! The server: [`run`] builds what the connections share from the
//! checked settings, stage by stage, then runs the accept loop until
//! shutdown.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::task::Poll;
use std::time::{Duration, Instant};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use tracing::{info, warn};

use crate::bounds::{self, Clocks, Start};
use crate::busy_poll::{self, BusyPoll};
use crate::config::{Config, ConnConfig, Listeners};
use crate::connection::{self, Entry, Open};
use crate::error::Error;
use crate::housekeeping::Housekeeping;
use crate::http::Monitor;
use crate::log::{Recurring, describe};
use crate::shared::{Closed, Listener, Phase, Report, Shared};
use crate::start::Checked;

/// Serves ids on `listeners` with the settings `checked` (what
/// [`Config::check`] returned) until `shutdown` completes, then stops
/// accepting, finishes the replies in flight (for at most
/// [`ProcessConfig::grace`](crate::ProcessConfig::grace)), saves the
/// state and returns what it did.
///
/// The settings are not checked again: the check counted an HTTP API's
/// connections if it was told to, and `run` refuses
/// [`Listeners::http`] if it was not.
///
/// Runs its own single-threaded runtime on the calling thread (and, with
/// [`Listeners::metrics`], one more thread that answers scrapes and health
/// checks). Tests bind port 0 and stop it for real:
///
/// ```
/// use std::net::TcpListener;
/// use kguid_service::{Client, Config, run};
///
/// let checked = Config::default().check(false)?; // no HTTP API
/// let listener = TcpListener::bind("127.0.0.1:0")?;
/// let addr = listener.local_addr()?;
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// let server = std::thread::spawn(move || run(listener, checked, async { let _ = stopped.await; }));
///
/// let mut client = Client::connect([addr], None)?;
/// let ids = client.next_n(1_000)?;
/// assert!(ids.windows(2).all(|w| w[0] < w[1]));
///
/// stop.send(()).ok();
/// let report = server.join().expect("server thread")?;
/// assert_eq!(report.ids, 1_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Start
///
/// Ids start after a bound: `-t`
/// ([`TimeConfig::not_before`](crate::TimeConfig::not_before)), the state
/// file's horizon, the etcd lease's fence, and, when neither a state file
/// nor a lease says where the previous run's ids ended, now plus the max
/// lead (as far as they could have run ahead). The server waits until the
/// time source reaches that bound before serving: `/readyz` is 503 with
/// the reason meanwhile, and connections are closed at once (so clients
/// go to another server) until only the max lead is left. Ids therefore
/// never start ahead of the clock, so restarts cannot push them further
/// ahead. A start with the defaults waits the max lead (100 ms).
///
/// # Logs
///
/// It logs through [`tracing`](https://docs.rs/tracing): one event per
/// occurrence (start, errors, shutdown, the lease), never one per request,
/// and recurring trouble at most every 10 s. Events go to the subscriber
/// of the calling thread, or the global one: a program that embeds the
/// server installs its own (`tracing_subscriber::fmt().init()`, or
/// `tracing::subscriber::with_default` around `run`) and filters on the
/// target `kguid_service`; with none, nothing is logged. Each message says
/// it all in words and carries the same values as fields.
pub fn run(
    listeners: impl Into<Listeners>,
    checked: Checked,
    shutdown: impl Future<Output = ()>,
) -> Result<Report, Error> {
    let listeners = listeners.into();
    let (config, http_counted, start) = checked.into_parts();
    if listeners.http.is_some() && !http_counted {
        return Err(Error::Config(
            "the HTTP API's listener is given, but the check did not count its connections: check the settings with http (Config::check(true))".into(),
        ));
    }
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder.enable_io().enable_time();
    let budget = config.process.busy_poll;
    // Kept until the runtime is done with it.
    let busy_poll = (!budget.is_zero()).then(BusyPoll::start).flatten();
    if busy_poll.is_some() {
        builder.on_thread_park(move || busy_poll::before_park(budget));
    }
    let runtime = builder
        .build()
        .map_err(|e| Error::io("start the runtime", e))?;
    runtime.block_on(serve(listeners, config, start, shutdown))
}

/// Bounds of the accept back-off.
const BACKOFF_MIN: Duration = Duration::from_millis(5);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// How often housekeeping runs (the horizon, health and event lines).
const TICK: Duration = Duration::from_millis(100);

/// [`run`] on its runtime: each stage is handed the groups of settings
/// it needs. Every setting was checked, and the state file read and
/// locked, before anything was opened (`start`).
async fn serve(
    listeners: Listeners,
    config: Config,
    start: Start,
    shutdown: impl Future<Output = ()>,
) -> Result<Report, Error> {
    let Config {
        ids,
        time: time_bounds,
        conns,
        lease: lease_config,
        process,
    } = config;
    let not_before = start.not_before;
    let Listeners {
        flake,
        global,
        x,
        http,
        metrics,
    } = listeners;
    let http_on = http.is_some();
    let binary = listen([flake, global, x], http_on)?;
    // Health checks answer from now on: not ready until serving.
    // When the first id is expected, once the lease knows (Unix ns).
    let first_id = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let monitor = Monitor::start(
        metrics,
        http,
        &conns,
        lease_config.as_ref(),
        Arc::clone(&first_id),
    )?;
    let Clocks {
        time,
        horizon,
        flake,
        global,
        v3,
        sno,
    } = bounds::clocks(&ids, &time_bounds, lease_config.is_some(), start)?;
    if http_on && let Err(why) = sno.generator() {
        warn!(node = ids.node, "{why}");
    }

    // Polled once now, so that the signal handlers it installs are in
    // place before the node id is leased (which may take a store's quiet)
    // and before anyone who reads the start line can signal.
    let mut shutdown = std::pin::pin!(shutdown);
    let stopped_early =
        std::future::poll_fn(|cx| Poll::Ready(shutdown.as_mut().poll(cx).is_ready())).await;
    // With --etcd or --redis, the 64-bit node id is leased here, kept
    // while serving and released at the end; meanwhile clients are
    // turned away at once. Shutdown ends the wait.
    #[cfg(feature = "lease")]
    let leasing = async {
        let lease = crate::lease::clock(lease_config.as_ref(), ids.layout, flake, &first_id);
        tokio::select! {
            biased;
            () = &mut shutdown, if !stopped_early => None,
            leased = lease => Some(leased),
        }
    };
    #[cfg(feature = "lease")]
    let (leased, turned_away) = refusing(&binary, leasing).await;
    #[cfg(feature = "lease")]
    let Some(leased) = leased else {
        info!("stopped while leasing the node id: no id issued");
        return Ok(Report::default());
    };
    #[cfg(feature = "lease")]
    let (flake, lease) = leased?;
    #[cfg(not(feature = "lease"))]
    let (flake, turned_away) = (crate::clock::FlakeClock::Plain(flake.build()?), [0; 3]);
    // The state file keeps the bounds it was told of, not the margin: a
    // run that issues nothing leaves no file, and the next start without
    // one takes the margin again.
    let shared = Arc::new(Shared::new(
        &conns,
        flake,
        (global, v3, sno),
        ids.v3,
        horizon,
        time,
        not_before,
    ));

    shared.counts.turned_away(turned_away);

    log_start(&shared, &binary, monitor.as_ref(), &conns);

    let mut server = Server::new(Arc::clone(&shared), binary);
    #[cfg(feature = "lease")]
    let lease = lease.map(|lease| lease.keep(Arc::clone(&shared), server.stopping()));
    if let Some(monitor) = &monitor {
        monitor.watch(Arc::clone(&shared));
    }
    if !stopped_early
        && server
            .wait_to_start(shared.start_bound(), &mut shutdown)
            .await
    {
        shared.set_phase(Phase::Serving);
        if process.release_code_pages {
            let bytes = crate::code_pages::release();
            tracing::debug!(
                bytes,
                "unmapped the executable's pages of its start: {bytes} bytes of mappings"
            );
        }
        server.accept(shutdown).await;
    }
    shared.set_phase(Phase::Stopping);
    let result = server.shutdown(process.grace).await;
    // The monitor lets go of what the connections shared before the lease
    // is released.
    drop(monitor);
    #[cfg(feature = "lease")]
    if let Some(lease) = lease {
        lease.release(shared).await;
    }
    result
}

/// Runs `work` while closing every connection to the binary listeners as
/// it arrives, so that clients go to another server at once rather than
/// wait in the listen queue; returns its result and the connections
/// closed, by [`Listener`].
async fn refusing<T>(
    listeners: &[Option<TcpListener>; 3],
    work: impl Future<Output = T>,
) -> (T, [u64; 3]) {
    let mut work = std::pin::pin!(work);
    let mut turned_away = [0; 3];
    loop {
        tokio::select! {
            biased;
            done = &mut work => return (done, turned_away),
            r = accept_any(listeners) => {
                if let Ok((stream, listener)) = r {
                    turned_away[listener as usize] += 1;
                    drop(stream);
                }
            }
        }
    }
}

/// The binary id listeners on the runtime, by [`Listener`]; at least one id
/// listener, binary or `http`, is needed.
fn listen(
    listeners: [Option<std::net::TcpListener>; 3],
    http: bool,
) -> Result<[Option<TcpListener>; 3], Error> {
    if !http && listeners.iter().all(Option::is_none) {
        return Err(Error::Config("nothing to listen on".into()));
    }
    let [flake, global, x] = listeners;
    Ok([
        tokio_listener(flake)?,
        tokio_listener(global)?,
        tokio_listener(x)?,
    ])
}

fn tokio_listener(l: Option<std::net::TcpListener>) -> Result<Option<TcpListener>, Error> {
    let Some(l) = l else { return Ok(None) };
    busy_poll::watch(&l);
    l.set_nonblocking(true)
        .and_then(|()| TcpListener::from_std(l))
        .map(Some)
        .map_err(|e| Error::io("listen", e))
}

/// The accept loop: the listeners, the connections it started, and what it
/// counts itself.
struct Server {
    shared: Arc<Shared>,
    /// The binary listeners, by [`Listener`].
    listeners: [Option<TcpListener>; 3],
    tasks: JoinSet<()>,
    /// Set at shutdown: connections finish the replies they read, then close.
    stop: watch::Sender<bool>,
    housekeeping: Housekeeping,
    reported_errors: Recurring<u64>,
}

impl Server {
    fn new(shared: Arc<Shared>, listeners: [Option<TcpListener>; 3]) -> Self {
        Server {
            shared,
            listeners,
            tasks: JoinSet::new(),
            stop: watch::Sender::new(false),
            housekeeping: Housekeeping::default(),
            reported_errors: Recurring::default(),
        }
    }

    /// Tells when shutdown begins.
    fn stopping(&self) -> watch::Receiver<bool> {
        self.stop.subscribe()
    }

    /// Accepts connections until `shutdown` completes, backing off when
    /// accepting fails for a reason that is not one connection's.
    async fn accept(&mut self, mut shutdown: Pin<&mut impl Future<Output = ()>>) {
        let mut ticker = tokio::time::interval(TICK);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut backoff = Duration::ZERO;
        loop {
            let accepted = tokio::select! {
                biased;
                () = &mut shutdown => return,
                Some(_) = self.tasks.join_next() => continue,
                r = accept_any(&self.listeners) => r,
                _ = ticker.tick() => {
                    self.housekeeping.tick(&self.shared).await;
                    continue;
                }
            };
            match accepted {
                Ok((stream, listener)) => {
                    backoff = Duration::ZERO;
                    self.start(stream, listener);
                }
                Err(e) => {
                    self.failed(&e);
                    if is_per_connection(&e) {
                        continue;
                    }
                    backoff = (backoff * 2).clamp(BACKOFF_MIN, BACKOFF_MAX);
                    tokio::select! {
                        () = &mut shutdown => return,
                        () = tokio::time::sleep(backoff) => {}
                    }
                }
            }
        }
    }

    /// Waits, before the first id, until the time source reaches `until`
    /// (Unix ns), so that ids start with no lead: connections that arrive
    /// while more than the max lead is left are closed at once (clients go
    /// to another server, as noeqd's do when its clock is behind), later
    /// ones wait in the listen queue. `false` if `shutdown` came first.
    async fn wait_to_start(
        &mut self,
        until: u64,
        shutdown: &mut Pin<&mut impl Future<Output = ()>>,
    ) -> bool {
        let shared = Arc::clone(&self.shared);
        let left = Duration::from_nanos(until.saturating_sub(shared.time.now()));
        if left.is_zero() {
            info!(
                not_before = until,
                "issuing no id at or before Unix ns {until}"
            );
            return true;
        }
        shared.wait_until(until);
        info!(
            not_before = until,
            wait = ?left,
            "issuing no id at or before Unix ns {until}: waiting {left:?} for the clock to reach it before the first id"
        );
        // Measured on the runtime's clock, so that a time source that does
        // not move (a test's) cannot keep the server from starting.
        let end = tokio::time::Instant::now() + left;
        let refuse_until = bounds::turn_away_until(end, shared.flake().max_lead());
        // A timer already due fires only at the next tick: no refusal
        // then, for connections that came in meanwhile are to be served.
        if tokio::time::Instant::now() < refuse_until {
            let refused = async {
                tokio::select! {
                    biased;
                    () = &mut *shutdown => true,
                    () = tokio::time::sleep_until(refuse_until) => false,
                }
            };
            let (stopped, turned_away) = refusing(&self.listeners, refused).await;
            shared.counts.turned_away(turned_away);
            if stopped {
                return false;
            }
        }
        tokio::select! {
            biased;
            () = &mut *shutdown => return false,
            () = tokio::time::sleep_until(end) => {}
        }
        true
    }

    /// Serves a new connection: at once in a seat without a token, in the
    /// line of those authenticating with one, or not at all at the cap.
    fn start(&mut self, stream: TcpStream, listener: Listener) {
        let accepted = tokio::time::Instant::now();
        let stopping = self.stopping();
        let (shared, tasks) = (&self.shared, &mut self.tasks);
        shared.counts.accepted[listener as usize].fetch_add(1, Relaxed);
        // Replies are whole: send each at once.
        let _ = stream.set_nodelay(true);
        let peer = stream.peer_addr().ok().map(|a| a.ip());
        let start = |entry| {
            let open = Open::new(Arc::clone(shared), listener);
            tasks.spawn(connection::serve(stream, open, entry, accepted, stopping))
        };
        if shared.token.is_some() {
            // Not served before it authenticates: no seat yet. Those
            // closed to make room count themselves as they go.
            shared.gate.wait(peer, |w| start(Entry::Waiting(w)));
        } else if let Some(seat) = shared.gate.seat() {
            start(Entry::Seated(seat));
        } else {
            shared.counts.close(Closed::Cap);
        }
    }

    /// Counts a failed accept, and reports it when due.
    fn failed(&mut self, e: &io::Error) {
        let errors = self.shared.counts.accept_errors.fetch_add(1, Relaxed) + 1;
        if let Some(prev) = self.reported_errors.due(&errors, Instant::now()) {
            let since = errors - prev;
            warn!(
                error = %e,
                since,
                "accept failed ({since} since the last report): {e}; backing off, open connections keep being served"
            );
        }
    }

    /// Stops accepting, lets connections finish what they read (for at
    /// most `grace`), saves the state and reports.
    async fn shutdown(mut self, grace: Duration) -> Result<Report, Error> {
        drop(std::mem::take(&mut self.listeners));
        let shared = Arc::clone(&self.shared);
        let connections = self.tasks.len();
        info!(
            connections,
            "shutting down: {connections} connections finishing their replies"
        );
        self.stop.send_replace(true);
        let deadline = tokio::time::sleep(grace);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                next = self.tasks.join_next() => if next.is_none() { break },
                () = &mut deadline => {
                    let connections = self.tasks.len();
                    warn!(connections, grace = ?grace, "{connections} connections did not finish within {grace:?}; closing them");
                    self.tasks.shutdown().await;
                    break;
                }
            }
        }
        // Ids over HTTP are made on a thread apart: none may follow the
        // last one saved.
        let quiet = shared.turns_done(grace).await;
        self.housekeeping.finish().await;
        let result = shared.finish_horizon(quiet);
        let report = shared.report();
        log_totals(&report);
        result.map(|()| report)
    }
}

async fn accept(l: &Option<TcpListener>) -> io::Result<TcpStream> {
    match l {
        Some(l) => l.accept().await.map(|(stream, _)| stream),
        None => std::future::pending().await,
    }
}

/// The next connection of any binary listener, with its listener.
async fn accept_any(listeners: &[Option<TcpListener>; 3]) -> io::Result<(TcpStream, Listener)> {
    let [flake, global, x] = listeners;
    tokio::select! {
        r = accept(flake) => r.map(|s| (s, Listener::Flake)),
        r = accept(global) => r.map(|s| (s, Listener::Global)),
        r = accept(x) => r.map(|s| (s, Listener::X)),
    }
}

/// Accept errors about one connection (it was reset before it was
/// accepted), as opposed to the process or system running out of something.
fn is_per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

fn log_start(
    shared: &Shared,
    binary: &[Option<TcpListener>; 3],
    monitor: Option<&Monitor>,
    conns: &ConnConfig,
) {
    let [flake_listener, global_listener, x_listener] = binary;
    if let Some(l) = flake_listener {
        let flake = shared.flake();
        let (addr, layout, node, max_lead) =
            (addr(l), flake.layout(), flake.node(), flake.max_lead());
        let (datacenter, worker) = (node >> 5, node & 31);
        info!(
            %addr,
            ids = 64,
            %layout,
            node,
            datacenter,
            worker,
            ?max_lead,
            "listening on {addr} for 64-bit ids: layout {layout}, node {node} (datacenter {datacenter}, worker {worker}), max lead {max_lead:?}"
        );
    }
    if let Some(l) = global_listener {
        let addr = addr(l);
        let (version, node) = match shared.global_v3 {
            true => (3, shared.v3.node()),
            false => (2, u64::from(shared.global.node())),
        };
        info!(
            %addr,
            ids = 96,
            version,
            node,
            "listening on {addr} for 96-bit ids of v{version}: node {node:#010x}"
        );
    }
    if let Some(l) = x_listener {
        let (addr, node) = (addr(l), shared.v3.node());
        info!(
            %addr,
            ids = 128,
            node,
            "listening on {addr} for 128-bit X ids (UUIDv8): node {node:#x}"
        );
    }
    let (metrics, api) = monitor.map(Monitor::addrs).unwrap_or_default();
    if let Some(addr) = api {
        let sno = match shared.sno.generator() {
            Ok(g) => format!("sno ids of partition {}", g.partition()),
            Err(_) => "no sno ids".into(),
        };
        info!(
            %addr,
            "HTTP API on http://{addr}/ids (every id kind; {sno}), metrics on /metrics, health on /healthz and /readyz"
        );
    }
    if let Some(addr) = metrics {
        info!(
            %addr,
            "metrics on http://{addr}/metrics, health on /healthz and /readyz"
        );
    }
    if let Some(h) = &shared.horizon {
        let (path, horizon) = (h.path().display(), h.saved());
        info!(%path, horizon, "state {path}: horizon reserved to Unix ns {horizon}");
    }
    let auth = shared.token.is_some();
    let auth_words = match auth {
        true => format!(
            "auth on (the token within {:?} of accept, at most {} connections waiting for it)",
            conns.auth_timeout, conns.max_unauthed
        ),
        false => "auth off".to_owned(),
    };
    let idle = shared
        .idle
        .map_or_else(|| "off".to_owned(), |d| format!("{d:?}"));
    info!(
        auth,
        auth_timeout = ?conns.auth_timeout,
        max_unauthed = conns.max_unauthed,
        max_conns = conns.max_conns,
        idle_timeout = %idle,
        "{auth_words}, at most {} connections, idle timeout {idle}",
        conns.max_conns,
    );
}

fn addr(l: &TcpListener) -> String {
    l.local_addr()
        .map_or_else(|e| format!("(unknown address: {e})"), |a| a.to_string())
}

fn log_totals(r: &Report) {
    info!(
        connections = r.connections,
        requests = r.requests,
        ids = r.ids,
        global_ids = r.global_ids,
        x_ids = r.x_ids,
        http_ids = r.http_ids,
        closed_at_cap = r.rejected,
        auth_failures = r.auth_failures,
        closed_idle = r.idle_closed,
        closed_on_faults = r.faults,
        accept_errors = r.accept_errors,
        steps_back = r.health.steps_back,
        global_steps_back = r.global_health.steps_back,
        v3_steps_back = r.v3_health.steps_back,
        "stopped: {} connections, {} requests, {} 64-bit ids, {} 96-bit ids, {} 128-bit ids, {} ids over HTTP; closed: {} at the cap, {} for auth, {} idle, {} on faults; {} accept errors; 64-bit clock: {}; 96-bit clock: {}; v3 clock: {}",
        r.connections,
        r.requests,
        r.ids,
        r.global_ids,
        r.x_ids,
        r.http_ids,
        r.rejected,
        r.auth_failures,
        r.idle_closed,
        r.faults,
        r.accept_errors,
        describe(&r.health),
        describe(&r.global_health),
        describe(&r.v3_health)
    );
}
