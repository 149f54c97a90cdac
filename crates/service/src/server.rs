//! The server: settings, the accept loop, housekeeping and shutdown.

use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, RwLock};
use std::task::Poll;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use guid::flake::{self, Layout};
use guid::{Guid, Health, TimeSource, WallClock};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

use crate::connection::{self, Entry};
use crate::error::Error;
use crate::gate::Gate;
use crate::horizon::{self, Horizon};
use crate::log::{Log, Recurring};

/// Settings of the service. Start from [`Config::default`] and change
/// fields.
#[derive(Clone)]
#[non_exhaustive]
pub struct Config {
    /// The layout of 64-bit ids (default [`Layout::NOEQD`]).
    pub layout: Layout,
    /// The node id in 64-bit ids (noeqd: `datacenter << 5 | worker`).
    pub node: u64,
    /// Issue no id at or before this time (noeqd's `-t`).
    pub not_before: Option<SystemTime>,
    /// How far 64-bit ids may run ahead of the clock when a millisecond's
    /// sequence runs out (default [`flake::DEFAULT_MAX_LEAD`]).
    pub max_lead: Duration,
    /// The node id of 96-bit ids (default: `CONFIG_GUID_NODE_ID`, else random).
    pub global_node: Option<u32>,
    /// The token clients must send first; `None` or empty: no auth.
    pub token: Option<Vec<u8>>,
    /// Connections served at once; more are accepted and closed at once.
    /// With a token, only connections that authenticated take a place
    /// here; one that authenticates past the cap is closed.
    pub max_conns: usize,
    /// With a token: how long after accept a connection may take to send
    /// its whole auth frame, however it trickles in (default 5 s).
    pub auth_timeout: Duration,
    /// With a token: connections that have not authenticated yet, apart
    /// from [`Config::max_conns`]; past it the oldest is closed to make room
    /// (default 1,024).
    pub max_unauthed: usize,
    /// Close a connection after this long without a request (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// The state file that keeps a restart from reusing time.
    pub state: Option<PathBuf>,
    /// How far ahead of the ids the state file's horizon is kept.
    pub reserve: Duration,
    /// How long shutdown waits for replies in flight.
    pub grace: Duration,
    /// Where the clocks read the time (default: the system clock).
    pub time: Option<Arc<dyn TimeSource>>,
    /// How long the event loop watches its sockets for the next request
    /// before it sleeps (zero: never; Linux only). Cuts the round trip of
    /// lock-step clients, for at most this much CPU after each request;
    /// timers and shutdown may wait this long too, so keep it to tens of
    /// microseconds.
    pub busy_poll: Duration,
    /// Whether to log events on stderr.
    pub log: bool,
    /// Lease the 64-bit node id from etcd instead of using [`Config::node`].
    #[cfg(feature = "etcd")]
    pub etcd: Option<crate::lease::EtcdLease>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            layout: Layout::NOEQD,
            node: 0,
            not_before: None,
            max_lead: flake::DEFAULT_MAX_LEAD,
            global_node: None,
            token: None,
            max_conns: 10_000,
            auth_timeout: Duration::from_secs(5),
            max_unauthed: 1_024,
            idle_timeout: Some(Duration::from_secs(300)),
            state: None,
            reserve: Duration::from_secs(1),
            grace: Duration::from_secs(5),
            time: None,
            busy_poll: Duration::ZERO,
            log: true,
            #[cfg(feature = "etcd")]
            etcd: None,
        }
    }
}

/// The sockets to serve: 64-bit ids on `flake`, 96-bit ids on `global`.
#[derive(Debug, Default)]
pub struct Listeners {
    /// Serves 64-bit flake ids (N × 8 bytes).
    pub flake: Option<std::net::TcpListener>,
    /// Serves 96-bit global ids (N × 12 bytes).
    pub global: Option<std::net::TcpListener>,
}

impl From<std::net::TcpListener> for Listeners {
    fn from(flake: std::net::TcpListener) -> Self {
        Listeners {
            flake: Some(flake),
            global: None,
        }
    }
}

/// What a server did, returned when it stops.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Report {
    /// Connections accepted (those closed at the cap included).
    pub connections: u64,
    /// 64-bit ids sent (on connections cut short at shutdown too).
    pub ids: u64,
    /// 96-bit ids sent (on connections cut short at shutdown too).
    pub global_ids: u64,
    /// Requests answered.
    pub requests: u64,
    /// Connections closed because of the connection cap (with a token:
    /// when they authenticated).
    pub rejected: u64,
    /// Connections closed for a missing or wrong token, for one not sent
    /// within the auth timeout, or to make room for newer connections
    /// waiting to authenticate.
    pub auth_failures: u64,
    /// Connections closed by the idle timeout.
    pub idle_closed: u64,
    /// Failed accepts.
    pub accept_errors: u64,
    /// Connections closed because an id could not be made or saved.
    pub faults: u64,
    /// The rare events of the 64-bit clock.
    pub health: Health,
    /// The rare events of the 96-bit clock.
    pub global_health: Health,
}

/// Which ids a listener serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Flake,
    Global,
}

/// Counters that connections add to when they close, or on rare events.
#[derive(Default)]
pub(crate) struct Counts {
    pub(crate) ids: AtomicU64,
    pub(crate) global_ids: AtomicU64,
    pub(crate) requests: AtomicU64,
    pub(crate) rejected: AtomicU64,
    pub(crate) auth_failures: AtomicU64,
    pub(crate) idle_closed: AtomicU64,
    pub(crate) faults: AtomicU64,
}

/// What every connection shares.
pub(crate) struct Shared {
    /// The 64-bit clock; replaced only when a lost lease is acquired again.
    pub(crate) flake: RwLock<Arc<Flake>>,
    pub(crate) global: guid::Clock,
    /// The time of the last 96-bit id (Unix ns), for the horizon.
    pub(crate) global_last: AtomicU64,
    /// The time of the last 64-bit id issued (Unix ns): unlike the clock's
    /// own last time, never a bound no id was issued at.
    pub(crate) flake_last: AtomicU64,
    pub(crate) token: Option<Box<[u8]>>,
    /// Deadline of the whole auth frame, from accept.
    pub(crate) auth_timeout: Duration,
    pub(crate) gate: Arc<Gate>,
    pub(crate) idle: Option<Duration>,
    pub(crate) horizon: Option<Arc<Horizon>>,
    /// The time source, not capped by the horizon.
    pub(crate) time: Arc<dyn TimeSource>,
    pub(crate) counts: Counts,
    pub(crate) log: Log,
}

/// The 64-bit clock; when its node id is leased, the lease's own clock,
/// whose checks every reply passes.
pub(crate) struct Flake {
    #[cfg(feature = "etcd")]
    pub(crate) clock: crate::lease::FlakeClock,
    #[cfg(not(feature = "etcd"))]
    pub(crate) clock: flake::Clock,
}

/// Why no 64-bit ids were made.
pub(crate) enum Refused {
    /// The clock failed (its layout ran out of time).
    Clock,
    /// The leased node id may not be used now.
    #[cfg(feature = "etcd")]
    Lease,
}

impl Flake {
    /// Fills `ids` if the lease, when there is one, holds.
    #[inline]
    pub(crate) fn fill(&self, ids: &mut [u64]) -> Result<(), Refused> {
        self.clock.fill(ids).map_err(Refused::from)
    }
}

impl From<guid::Error> for Refused {
    fn from(_: guid::Error) -> Refused {
        Refused::Clock
    }
}

impl Shared {
    /// The current 64-bit clock.
    pub(crate) fn flake(&self) -> Arc<Flake> {
        Arc::clone(&self.flake.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Moves the horizon on, fsynced, if the next reply could pass it.
    #[inline]
    pub(crate) fn guard(&self, kind: Kind) -> io::Result<()> {
        let Some(horizon) = &self.horizon else {
            return Ok(());
        };
        let t = self.last(kind).max(self.time.now());
        if horizon.needs(t) {
            horizon.reserve(t)?;
        }
        Ok(())
    }

    /// Where the next ids of `kind` start, Unix ns: the last id, or a
    /// bound the clock starts after.
    fn last(&self, kind: Kind) -> u64 {
        match kind {
            Kind::Flake => unix_nanos(self.flake().clock.last_time()),
            Kind::Global => self.global_last.load(Relaxed),
        }
    }

    /// The time of the last id issued of either kind (or of the start
    /// bound), Unix ns: what the horizon must cover, and nothing else.
    fn issued(&self) -> u64 {
        self.flake_last
            .load(Relaxed)
            .max(self.global_last.load(Relaxed))
    }

    /// Records the last 96-bit id sent.
    #[inline]
    pub(crate) fn issued_global(&self, last: &Guid) {
        self.global_last.store(last.time(), Relaxed);
    }

    /// Records 64-bit ids up to the time of `clock`'s last id.
    #[inline]
    pub(crate) fn issued_flake(&self, clock: &flake::Clock) {
        let t = unix_nanos(clock.last_time());
        // It moves once per unit: skip the locked write for every other reply.
        if t > self.flake_last.load(Relaxed) {
            self.flake_last.fetch_max(t, Relaxed);
        }
    }

    fn report(&self, connections: u64, accept_errors: u64) -> Report {
        let c = &self.counts;
        Report {
            connections,
            ids: c.ids.load(Relaxed),
            global_ids: c.global_ids.load(Relaxed),
            requests: c.requests.load(Relaxed),
            rejected: c.rejected.load(Relaxed),
            auth_failures: c.auth_failures.load(Relaxed),
            idle_closed: c.idle_closed.load(Relaxed),
            accept_errors,
            faults: c.faults.load(Relaxed),
            health: self.flake().clock.health(),
            global_health: self.global.health(),
        }
    }
}

pub(crate) fn unix_nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn from_unix_nanos(ns: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(ns)
}

/// Serves ids on `listeners` until `shutdown` completes, then stops
/// accepting, finishes the replies in flight (for at most
/// [`Config::grace`]), saves the state and returns what it did.
///
/// Runs its own single-threaded runtime on the calling thread.
pub fn run(
    listeners: impl Into<Listeners>,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<Report, Error> {
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder.enable_io().enable_time();
    let budget = config.busy_poll;
    // Kept until the runtime is done with it.
    let busy_poll = (!budget.is_zero())
        .then(crate::busy_poll::BusyPoll::start)
        .flatten();
    if busy_poll.is_some() {
        builder.on_thread_park(move || crate::busy_poll::before_park(budget));
    }
    let runtime = builder
        .build()
        .map_err(|e| Error::io("start the runtime", e))?;
    runtime.block_on(serve(listeners.into(), config, shutdown))
}

/// Bounds of the accept back-off.
const BACKOFF_MIN: Duration = Duration::from_millis(5);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// How often housekeeping runs (the horizon, health and event lines).
const TICK: Duration = Duration::from_millis(100);

async fn serve(
    listeners: Listeners,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<Report, Error> {
    let log = Log {
        enabled: config.log,
    };
    let start = crate::start::check(&config)?;
    let token = config.token.clone().filter(|t| !t.is_empty());
    if listeners.flake.is_none() && listeners.global.is_none() {
        return Err(Error::Config("nothing to listen on".into()));
    }
    let flake_listener = tokio_listener(listeners.flake)?;
    let global_listener = tokio_listener(listeners.global)?;

    let real: Arc<dyn TimeSource> = config.time.clone().unwrap_or_else(|| Arc::new(WallClock));
    let layout = config.layout;

    // Restart safety: start past the saved horizon (checked above), and
    // reserve a new one before the first id.
    let not_before = start.not_before;
    let horizon = match &config.state {
        None => None,
        Some(path) => {
            let from = real.now().max(not_before.unwrap_or(0));
            let reserve = u64::try_from(config.reserve.as_nanos()).unwrap_or(u64::MAX);
            Some(Arc::new(Horizon::create(
                path.clone(),
                from,
                horizon::span(layout),
                reserve,
            )?))
        }
    };

    // The clocks read the real time, capped below the horizon if there is one.
    let source: Option<Arc<dyn TimeSource>> = match (&horizon, &config.time) {
        (Some(h), _) => {
            let (h, real) = (Arc::clone(h), Arc::clone(&real));
            Some(Arc::new(move || real.now().min(h.cap())))
        }
        (None, Some(time)) => Some(Arc::clone(time)),
        (None, None) => None,
    };
    let mut fb = flake::Clock::builder(layout)
        .node(config.node)
        .max_lead(config.max_lead);
    #[cfg(feature = "etcd")]
    let leased = match &config.etcd {
        Some(settings) => Some(crate::lease::acquire(settings, layout, log).await?),
        None => None,
    };
    let mut gb = guid::Clock::builder().node_from_env();
    if let Some(node) = config.global_node {
        gb = gb.node(node);
    }
    if let Some(source) = &source {
        let (a, b) = (Arc::clone(source), Arc::clone(source));
        fb = fb.time(move || a.now());
        gb = gb.time(move || b.now());
    }
    if let Some(t) = not_before {
        fb = fb.not_before(from_unix_nanos(t));
        gb = gb.not_before(from_unix_nanos(t))?;
    }
    // Without the node and horizon of a lease: what a new lease's clock is built from.
    #[cfg(feature = "etcd")]
    let template = fb.clone();
    let flake = Flake {
        #[cfg(feature = "etcd")]
        clock: crate::lease::FlakeClock::new(fb, leased.as_ref().map(|(_, l)| l)).await?,
        #[cfg(not(feature = "etcd"))]
        clock: fb.build()?,
    };
    let shared = Arc::new(Shared {
        flake: RwLock::new(Arc::new(flake)),
        global: gb.build(),
        global_last: AtomicU64::new(not_before.unwrap_or(0)),
        flake_last: AtomicU64::new(not_before.unwrap_or(0)),
        token: token.map(Vec::into_boxed_slice),
        auth_timeout: config.auth_timeout,
        gate: Arc::new(Gate::new(config.max_conns, config.max_unauthed)),
        idle: config.idle_timeout.filter(|d| !d.is_zero()),
        horizon,
        time: real,
        counts: Counts::default(),
        log,
    });

    // Polled once before the start line, so that the signal handlers it
    // installs are in place before anyone who reads that line can signal.
    let mut shutdown = std::pin::pin!(shutdown);
    let stopped_early =
        std::future::poll_fn(|cx| Poll::Ready(shutdown.as_mut().poll(cx).is_ready())).await;
    log_start(
        &shared,
        &flake_listener,
        &global_listener,
        &config,
        not_before,
    );

    let (stop, stopped) = watch::channel(false);
    #[cfg(feature = "etcd")]
    let keeper = match (leased, &config.etcd) {
        (Some((client, _)), Some(settings)) => Some(tokio::spawn(crate::lease::keep(
            Arc::clone(&shared),
            client,
            settings.clone(),
            template,
            stopped.clone(),
        ))),
        _ => None,
    };
    let mut tasks = JoinSet::new();
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut saving: Option<JoinHandle<io::Result<()>>> = None;
    let mut events = Events::default();
    let (mut connections, mut accept_errors) = (0u64, 0u64);
    let mut backoff = Duration::ZERO;

    'serve: loop {
        if stopped_early {
            break;
        }
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            Some(_) = tasks.join_next() => continue,
            r = accept(&flake_listener) => r.map(|s| (s, Kind::Flake)),
            r = accept(&global_listener) => r.map(|s| (s, Kind::Global)),
            _ = ticker.tick() => {
                housekeeping(&shared, &mut saving, &mut events).await;
                continue;
            }
        };
        match accepted {
            Ok((stream, kind)) => {
                backoff = Duration::ZERO;
                connections += 1;
                let accepted = tokio::time::Instant::now();
                // Replies are whole: send each at once.
                let _ = stream.set_nodelay(true);
                let start = |entry| {
                    let conn = connection::serve(
                        stream,
                        kind,
                        Arc::clone(&shared),
                        entry,
                        accepted,
                        stopped.clone(),
                    );
                    tasks.spawn(conn)
                };
                if shared.token.is_some() {
                    // Not served before it authenticates: no seat yet.
                    let closed = shared.gate.wait(|w| start(Entry::Waiting(w)));
                    shared.counts.auth_failures.fetch_add(closed, Relaxed);
                } else if let Some(seat) = shared.gate.seat() {
                    start(Entry::Seated(seat));
                } else {
                    shared.counts.rejected.fetch_add(1, Relaxed);
                }
            }
            Err(e) => {
                accept_errors += 1;
                if let Some(prev) = events.accept.due(&accept_errors, Instant::now()) {
                    shared.log.line(format_args!(
                        "accept failed ({} since the last report): {e}; backing off, open connections keep being served",
                        accept_errors - prev
                    ));
                }
                if is_per_connection(&e) {
                    continue;
                }
                backoff = (backoff * 2).clamp(BACKOFF_MIN, BACKOFF_MAX);
                tokio::select! {
                    () = &mut shutdown => break 'serve,
                    () = tokio::time::sleep(backoff) => {}
                }
            }
        }
    }

    // Shutdown: stop accepting, let connections finish what they read.
    drop((flake_listener, global_listener));
    shared.log.line(format_args!(
        "shutting down: {} connections finishing their replies",
        tasks.len()
    ));
    let _ = stop.send(true);
    let grace = tokio::time::sleep(config.grace);
    tokio::pin!(grace);
    loop {
        tokio::select! {
            next = tasks.join_next() => if next.is_none() { break },
            () = &mut grace => {
                shared.log.line(format_args!("{} connections did not finish within {:?}; closing them", tasks.len(), config.grace));
                tasks.shutdown().await;
                break;
            }
        }
    }
    if let Some(save) = saving.take() {
        let _ = save.await;
    }
    let mut result = Ok(());
    if let Some(h) = &shared.horizon {
        // The last id issued, not a bound of a clock that issued none.
        if let Err(e) = h.finish(shared.issued()) {
            result = Err(Error::io(format!("save {}", h.path().display()), e));
        }
    }
    let report = shared.report(connections, accept_errors);
    log_totals(&shared, &report);
    #[cfg(feature = "etcd")]
    if let Some(keeper) = keeper {
        keeper.abort();
        let _ = keeper.await;
        crate::lease::release(shared).await;
    }
    result.map(|()| report)
}

fn tokio_listener(l: Option<std::net::TcpListener>) -> Result<Option<TcpListener>, Error> {
    let Some(l) = l else { return Ok(None) };
    crate::busy_poll::watch(&l);
    l.set_nonblocking(true)
        .and_then(|()| TcpListener::from_std(l))
        .map(Some)
        .map_err(|e| Error::io("listen", e))
}

async fn accept(l: &Option<TcpListener>) -> io::Result<TcpStream> {
    match l {
        Some(l) => l.accept().await.map(|(stream, _)| stream),
        None => std::future::pending().await,
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

/// The last reports of recurring events.
#[derive(Default)]
struct Events {
    accept: Recurring<u64>,
    save_failures: u64,
    save: Recurring<u64>,
    rejected: Recurring<u64>,
    auth: Recurring<u64>,
    faults: Recurring<u64>,
    health: Recurring<Health>,
    global_health: Recurring<Health>,
}

async fn housekeeping(
    shared: &Shared,
    saving: &mut Option<JoinHandle<io::Result<()>>>,
    events: &mut Events,
) {
    let now = Instant::now();
    let log = shared.log;
    // Keep the horizon ahead off the request path, from the ids issued
    // and the time (not from a bound of a clock that issued nothing).
    if let Some(h) = &shared.horizon {
        if let Some(done) = saving.take_if(|s| s.is_finished()) {
            if let Ok(Err(e)) = done.await {
                events.save_failures += 1;
                if let Some(prev) = events.save.due(&events.save_failures, now) {
                    log.line(format_args!(
                        "saving {} failed ({} times since the last report): {e}",
                        h.path().display(),
                        events.save_failures - prev
                    ));
                }
            }
        }
        if saving.is_none() {
            let t = shared.issued().max(shared.time.now());
            if h.due(t) {
                let h = Arc::clone(h);
                *saving = Some(tokio::task::spawn_blocking(move || h.reserve(t)));
            }
        }
    }
    let c = &shared.counts;
    let rejected = c.rejected.load(Relaxed);
    if let Some(prev) = events.rejected.due(&rejected, now) {
        log.line(format_args!(
            "connection cap reached: {} connections closed at once since the last report",
            rejected - prev
        ));
    }
    let auth = c.auth_failures.load(Relaxed);
    if let Some(prev) = events.auth.due(&auth, now) {
        log.line(format_args!(
            "{} connections closed for a missing or wrong token since the last report",
            auth - prev
        ));
    }
    let faults = c.faults.load(Relaxed);
    if let Some(prev) = events.faults.due(&faults, now) {
        log.line(format_args!(
            "{} connections closed because ids could not be made or the state saved",
            faults - prev
        ));
    }
    let health = shared.flake().clock.health();
    if events.health.due(&health, now).is_some() {
        log.line(format_args!("64-bit clock: {}", describe(&health)));
    }
    let health = shared.global.health();
    if events.global_health.due(&health, now).is_some() {
        log.line(format_args!("96-bit clock: {}", describe(&health)));
    }
}

fn describe(h: &Health) -> String {
    format!(
        "source stepped back {} times (largest {:?}), {} units borrowed, largest lead {:?}, {} waits for the source",
        h.steps_back, h.max_step_back, h.borrowed, h.max_lead, h.waits
    )
}

fn log_start(
    shared: &Shared,
    flake_listener: &Option<TcpListener>,
    global_listener: &Option<TcpListener>,
    config: &Config,
    not_before: Option<u64>,
) {
    let log = shared.log;
    if let Some(l) = flake_listener {
        let flake = shared.flake();
        let node = flake.clock.node();
        log.line(format_args!(
            "listening on {} for 64-bit ids: layout {}, node {node} (datacenter {}, worker {}), max lead {:?}",
            addr(l),
            flake.clock.layout(),
            node >> 5,
            node & 31,
            flake.clock.max_lead(),
        ));
    }
    if let Some(l) = global_listener {
        log.line(format_args!(
            "listening on {} for 96-bit ids: node {:#010x}",
            addr(l),
            shared.global.node()
        ));
    }
    if let Some(h) = &shared.horizon {
        log.line(format_args!(
            "state {}: horizon reserved to Unix ns {}",
            h.path().display(),
            h.saved()
        ));
    }
    if let Some(t) = not_before {
        log.line(format_args!("issuing no id at or before Unix ns {t}"));
    }
    let auth = match shared.token {
        Some(_) => format!(
            "auth on (the token within {:?} of accept, at most {} connections waiting for it)",
            config.auth_timeout, config.max_unauthed
        ),
        None => "auth off".to_owned(),
    };
    log.line(format_args!(
        "{auth}, at most {} connections, idle timeout {}",
        config.max_conns,
        shared
            .idle
            .map_or_else(|| "off".to_owned(), |d| format!("{d:?}")),
    ));
}

fn addr(l: &TcpListener) -> String {
    l.local_addr()
        .map_or_else(|e| format!("(unknown address: {e})"), |a| a.to_string())
}

fn log_totals(shared: &Shared, r: &Report) {
    shared.log.line(format_args!(
        "stopped: {} connections, {} requests, {} 64-bit ids, {} 96-bit ids; closed: {} at the cap, {} for auth, {} idle, {} on faults; {} accept errors; 64-bit clock: {}; 96-bit clock: {}",
        r.connections,
        r.requests,
        r.ids,
        r.global_ids,
        r.rejected,
        r.auth_failures,
        r.idle_closed,
        r.faults,
        r.accept_errors,
        describe(&r.health),
        describe(&r.global_health)
    ));
}
