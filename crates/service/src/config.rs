//! The settings of the service, grouped by concern, and the sockets it
//! serves.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use guid::TimeSource;
use guid::flake::{self, Layout};

/// Settings of the service, grouped by concern as the stages of
/// [`run`](crate::run) take them: each stage is handed only the groups it
/// needs, so that what it depends on can be read from its signature.
///
/// Start from [`Config::default`] and change fields
/// (`config.ids.node = 1`, `config.time.state = Some(path)`); then
/// [`Config::check`] checks them all, once, and gives what `run` serves.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Config {
    /// Which ids the clocks make, and with which node ids.
    pub ids: IdConfig,
    /// Where ids start, how far ahead of the time they may run, the state
    /// file that keeps a restart from reusing time, and the time source.
    pub time: TimeConfig,
    /// Who is served, how many at once, and for how long.
    pub conns: ConnConfig,
    /// Lease the 64-bit node id from etcd or Redis instead of using
    /// [`IdConfig::node`] (needs the store's feature, `etcd` or `redis`:
    /// without it, the service refuses to start).
    pub lease: Option<LeaseConfig>,
    /// The process around the server: its end, its runtime, its memory.
    pub process: ProcessConfig,
}

/// Which ids the clocks make, and with which node ids: what the clocks
/// are built from, apart from their time ([`Config::ids`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct IdConfig {
    /// The layout of 64-bit ids (default [`Layout::NOEQD`]).
    pub layout: Layout,
    /// The node id in 64-bit ids (noeqd: `datacenter << 5 | worker`).
    pub node: u64,
    /// The node id of 96-bit ids (default: `CONFIG_GUID_NODE_ID`, else random).
    pub global_node: Option<u32>,
    /// The 96-bit listener serves v3's global ids rather than v2's.
    pub v3: bool,
}

/// The time rules' settings ([`Config::time`]): where ids start, how far
/// ahead of the time they may run, the state file that keeps a restart
/// from reusing time, and the time source.
#[derive(Clone)]
#[non_exhaustive]
pub struct TimeConfig {
    /// Issue no id at or before this time (noeqd's `-t`): after 2001 and
    /// at most an hour ahead; the server waits for it before serving.
    pub not_before: Option<SystemTime>,
    /// How far 64-bit ids may run ahead of the clock when a millisecond's
    /// sequence runs out (default [`flake::DEFAULT_MAX_LEAD`]).
    pub max_lead: Duration,
    /// The state file that keeps a restart from reusing time. Its links
    /// and `..` are resolved by [`Config::check`], and the file they lead
    /// to is read, saved and locked (a link to no file is refused); no
    /// other server may hold that file, under whatever name, from the
    /// check until this one's end.
    pub state: Option<PathBuf>,
    /// How far ahead of the ids the state file's horizon is kept.
    pub reserve: Duration,
    /// Where the clocks read the time (default: the system clock).
    pub source: Option<Arc<dyn TimeSource>>,
}

/// Who is served, how many at once, and for how long ([`Config::conns`]).
/// No `Debug`: it holds the token.
#[derive(Clone)]
#[non_exhaustive]
pub struct ConnConfig {
    /// The token clients must send first; `None` or empty: no auth
    /// (`guid serve` refuses an empty `--token-file` or `NOEQ_TOKEN`).
    pub token: Option<Vec<u8>>,
    /// Connections served at once; more are accepted and closed at once.
    /// With a token, only connections that authenticated take a place
    /// here; one that authenticates past the cap is closed. At the check
    /// it must fit, with [`ConnConfig::max_unauthed`] (with a token) and
    /// 128 more descriptors, in the open-file limit: the process's soft
    /// limit is raised to fit when the hard limit allows (Linux), else the
    /// start is refused with [`Error::Config`](crate::Error::Config).
    pub max_conns: usize,
    /// Connections the HTTP API serves at once, apart from
    /// [`ConnConfig::max_conns`] (default 1,024: HTTP clients keep a pool
    /// of connections alive and send many requests on each). Past it the
    /// one idle longest is closed to make room, else the new one. Counted
    /// in the open-file limit as `max_conns` is, when the API listens.
    pub http_max_conns: usize,
    /// With a token: how long after accept a connection may take to send
    /// its whole auth frame, however it trickles in (default 5 s). While
    /// the line of [`ConnConfig::max_unauthed`] is full, only the first
    /// 2 s of it are guaranteed to a client whose address does not hold
    /// the most places in the line.
    pub auth_timeout: Duration,
    /// With a token: connections that have not authenticated yet, apart
    /// from [`ConnConfig::max_conns`] (default 1,024). Past it one is
    /// closed to make room: the oldest if it has waited 2 s, else the
    /// oldest of the source address (IPv6: /64) holding the most places,
    /// so that a flood from one address does not keep out the clients of
    /// another.
    pub max_unauthed: usize,
    /// Close a connection after this long without a request (`None`: never).
    pub idle_timeout: Option<Duration>,
}

/// The process around the server ([`Config::process`]): its end, its
/// runtime, its memory.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ProcessConfig {
    /// How long shutdown waits for replies in flight.
    pub grace: Duration,
    /// How long the event loop watches its sockets for the next request
    /// before it sleeps (zero: never; Linux only). Cuts the round trip of
    /// lock-step clients, for at most this much CPU after each request;
    /// timers and shutdown may wait this long too, so keep it to tens of
    /// microseconds.
    pub busy_poll: Duration,
    /// Unmap the executable's code and read-only data pages once serving
    /// (`guid serve` only: the executable is its own), so that the
    /// resident set holds the pages the server goes on to touch rather
    /// than those of its start.
    pub(crate) release_code_pages: bool,
}

impl ConnConfig {
    /// The token, if auth is on: an empty one is none.
    pub(crate) fn token(&self) -> Option<&[u8]> {
        self.token.as_deref().filter(|t| !t.is_empty())
    }
}

impl Default for IdConfig {
    fn default() -> Self {
        IdConfig {
            layout: Layout::NOEQD,
            node: 0,
            global_node: None,
            v3: false,
        }
    }
}

impl Default for TimeConfig {
    fn default() -> Self {
        TimeConfig {
            not_before: None,
            max_lead: flake::DEFAULT_MAX_LEAD,
            state: None,
            reserve: Duration::from_secs(1),
            source: None,
        }
    }
}

impl Default for ConnConfig {
    fn default() -> Self {
        ConnConfig {
            token: None,
            max_conns: 10_000,
            http_max_conns: 1_024,
            auth_timeout: Duration::from_secs(5),
            max_unauthed: 1_024,
            idle_timeout: Some(Duration::from_secs(300)),
        }
    }
}

impl Default for ProcessConfig {
    fn default() -> Self {
        ProcessConfig {
            grace: Duration::from_secs(5),
            busy_poll: Duration::ZERO,
            release_code_pages: false,
        }
    }
}

/// The sockets to serve: 64-bit ids on `flake`, 96-bit ids on `global`,
/// 128-bit ids on `x`, every kind over HTTP on `http`, and metrics and
/// health checks over HTTP on `metrics` (and `http`).
#[derive(Debug, Default)]
pub struct Listeners {
    /// Serves 64-bit flake ids (N × 8 bytes).
    pub flake: Option<std::net::TcpListener>,
    /// Serves 96-bit global ids (N × 12 bytes): v2's, or v3's with
    /// [`IdConfig::v3`].
    pub global: Option<std::net::TcpListener>,
    /// Serves v3's 128-bit X ids, UUIDv8 (N × 16 bytes).
    pub x: Option<std::net::TcpListener>,
    /// Serves the HTTP API, on the thread of `metrics`: `GET /ids` (every
    /// kind, as JSON or text) besides `/metrics`, `/healthz` and `/readyz`.
    pub http: Option<std::net::TcpListener>,
    /// Serves, on a thread of its own, `GET /metrics` (Prometheus'
    /// exposition), `/healthz` (200 while the process runs) and `/readyz`
    /// (200 while ids are handed out, else 503 and why); off when `None`.
    pub metrics: Option<std::net::TcpListener>,
}

impl From<std::net::TcpListener> for Listeners {
    fn from(flake: std::net::TcpListener) -> Self {
        Listeners {
            flake: Some(flake),
            ..Listeners::default()
        }
    }
}

/// Where and how the 64-bit node id is leased.
#[derive(Clone, Debug)]
pub struct LeaseConfig {
    /// The store that hands out the node ids.
    pub store: LeaseStore,
    /// Key prefix shared by the servers that must get distinct node ids.
    pub prefix: String,
    /// Lease TTL: how long after a crash the node id stays taken, and how
    /// long the store may be unreachable before ids stop.
    pub ttl: Duration,
}

/// A store of node-id leases.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum LeaseStore {
    /// etcd, at these client URLs (e.g. `http://127.0.0.1:2379`), through
    /// its v3 JSON gateway (feature `etcd`).
    Etcd {
        /// The client URLs; one that fails is left for the next.
        endpoints: Vec<String>,
    },
    /// Redis at this URL (e.g. `redis://127.0.0.1:6379/0`; feature `redis`).
    Redis {
        /// The server's URL.
        url: String,
    },
    /// A Hazelcast cluster, through these members (`HOST:PORT`; feature
    /// `hazelcast`).
    Hazelcast {
        /// Members to connect to first; the client learns the others.
        members: Vec<String>,
        /// The cluster's name.
        cluster: String,
        /// A user name and password, for members that check them.
        credentials: Option<(String, String)>,
    },
}

impl LeaseStore {
    /// Its name in flags and logs.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            LeaseStore::Etcd { .. } => "etcd",
            LeaseStore::Redis { .. } => "redis",
            LeaseStore::Hazelcast { .. } => "hazelcast",
        }
    }
}
