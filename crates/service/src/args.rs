//! `guid serve` flags, as noeqd users type them, and its `main`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, UNIX_EPOCH};

use guid::flake::{self, Layout};

use tracing::{error, info, warn};

use crate::config::{
    Config, ConnConfig, IdConfig, LeaseConfig, LeaseStore, Listeners, ProcessConfig, TimeConfig,
};
use crate::error::Error;
use crate::flag_file;
use crate::protocol::MAX_TOKEN;
use crate::server::run;

/// The flags of `guid serve` (noeqd's `-l`, `-d`, `-w`, `-t`, and more).
///
/// The token comes from the `NOEQ_TOKEN` environment variable, as in noeqd,
/// or from `--token-file`.
#[derive(clap::Args, Clone, Debug)]
pub struct ServeArgs {
    /// Address for 64-bit ids (":4444" means every interface, as in noeqd).
    #[arg(
        short = 'l',
        long = "listen",
        value_name = "ADDR",
        default_value = "127.0.0.1:4444"
    )]
    pub listen: String,

    /// Datacenter id, 0..=31 (node = datacenter << 5 | worker).
    #[arg(
        short = 'd',
        long = "datacenter",
        value_name = "ID",
        default_value_t = 0
    )]
    pub datacenter: u64,

    /// Worker id, 0..=31.
    #[arg(short = 'w', long = "worker", value_name = "ID", default_value_t = 0)]
    pub worker: u64,

    /// Take the worker id from this pod's ordinal: $POD_INDEX (set it from
    /// the label apps.kubernetes.io/pod-index), else the trailing number of
    /// the host name (guid-3: 3). With -d, as -w; refused unless it fits.
    #[arg(long, conflicts_with_all = ["worker", "node", "etcd", "redis"])]
    pub node_from_ordinal: bool,

    /// Node id for layouts whose node is not datacenter/worker.
    #[arg(long, value_name = "ID", conflicts_with_all = ["datacenter", "worker"])]
    pub node: Option<u64>,

    /// Issue no id at or before this Unix time in milliseconds: after 2001
    /// and at most an hour ahead (the server waits for it before serving).
    #[arg(short = 't', value_name = "MS")]
    pub not_before_ms: Option<u64>,

    /// Layout of 64-bit ids: noeqd (= twitter), snowcast, snowcast:NODE_BITS, redis, or TIME/NODE/SEQ bits.
    #[arg(long, value_name = "LAYOUT", default_value = "noeqd", value_parser = parse_layout)]
    pub layout: Layout,

    /// Epoch of the layout in Unix milliseconds (default: Twitter's, 1288834974657).
    #[arg(long, value_name = "MS")]
    pub epoch_ms: Option<u64>,

    /// Time unit of the layout (default 1ms).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub unit: Option<Duration>,

    /// How far ids may run ahead of the clock when a unit's sequence runs out.
    #[arg(long, value_name = "DURATION", default_value = "100ms", value_parser = parse_duration)]
    pub max_lead: Duration,

    /// State file: a time horizon saved ahead of the ids, so a restart never reuses time.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,

    /// Connections served at once; more are closed at once (with a token:
    /// counted from their auth).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_conns: usize,

    /// Connections the HTTP API (--http) serves at once, apart from
    /// --max-conns; past it the one idle longest is closed, else the new one.
    #[arg(long, value_name = "N", default_value_t = 1_024)]
    pub http_max_conns: usize,

    /// With a token: close a connection that has not sent its whole auth
    /// frame this long after accept (while --max-unauthed is full, 2 s of
    /// it are guaranteed to clients of an address other than the flood's).
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub auth_timeout: Duration,

    /// With a token: connections waiting to authenticate, apart from
    /// --max-conns; past it one is closed to make room: the oldest if it
    /// waited 2 s, else the oldest of the address holding the most places.
    #[arg(long, value_name = "N", default_value_t = 1_024)]
    pub max_unauthed: usize,

    /// Close connections idle this long (0: never).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub idle_timeout: Duration,

    /// Also serve 96-bit global ids (N x 12 bytes) on this address.
    #[arg(long = "listen-g", value_name = "ADDR")]
    pub listen_g: Option<String>,

    /// Serve v3's global ids on --listen-g rather than v2's.
    #[arg(long, requires = "listen_g")]
    pub v3: bool,

    /// Also serve v3's 128-bit X ids (UUIDv8, N x 16 bytes) on this address.
    #[arg(long = "listen-x", value_name = "ADDR")]
    pub listen_x: Option<String>,

    /// Serve the HTTP API on this address: GET /ids?kind=flake|g|l|x|sno&n=N&v=2|3&meta=M
    /// (JSON, or lines with Accept: text/plain), /metrics, /healthz, /readyz.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,

    /// Read the token from this file instead of NOEQ_TOKEN: a regular
    /// file, its one trailing LF or CRLF dropped (an empty token is
    /// refused, as is an empty NOEQ_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// Before sleeping, watch the sockets this long (e.g. 50us): faster
    /// lock-step replies for some CPU after each request (0: off; Linux).
    #[arg(long, value_name = "DURATION", default_value = "0", value_parser = parse_duration)]
    pub busy_poll: Duration,

    /// Serve GET /metrics (Prometheus), /healthz and /readyz over HTTP on
    /// this address (":9464" means every interface); off by default.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,

    /// Log only errors (RUST_LOG is ignored then).
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// How log lines look on stderr: human (a time, a level and a sentence)
    /// or json (one object per line, with every value as a field).
    /// RUST_LOG filters them, e.g. RUST_LOG=warn (default: info).
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub log_format: LogFormat,

    // The lease flags are there without the stores' features too: `--etcd`
    // and `--redis` are then refused by `Config::check` with a line saying
    // how to get them.
    /// Lease the node id from etcd at these comma-separated URLs instead of
    /// -d/-w/--node.
    #[arg(
        long,
        value_name = "ENDPOINTS",
        value_delimiter = ',',
        group = "lease",
        conflicts_with_all = ["datacenter", "worker", "node"]
    )]
    pub etcd: Vec<String>,

    /// Lease the node id from Redis at this URL (redis://HOST:PORT/DB)
    /// instead of -d/-w/--node.
    #[arg(
        long,
        value_name = "URL",
        group = "lease",
        conflicts_with_all = ["datacenter", "worker", "node"]
    )]
    pub redis: Option<String>,

    /// Lease the node id from the Hazelcast cluster of these
    /// comma-separated members (HOST:PORT) instead of -d/-w/--node.
    #[arg(
        long,
        value_name = "ADDRS",
        value_delimiter = ',',
        group = "lease",
        conflicts_with_all = ["datacenter", "worker", "node"]
    )]
    pub hazelcast: Vec<String>,

    /// The Hazelcast cluster's name (Hazelcast's default: dev).
    #[arg(
        long,
        value_name = "NAME",
        default_value = "dev",
        requires = "hazelcast"
    )]
    pub hazelcast_cluster: String,

    /// A user name for members that check credentials (with
    /// --hazelcast-password-file).
    #[arg(long, value_name = "NAME", requires_all = ["hazelcast", "hazelcast_password_file"])]
    pub hazelcast_user: Option<String>,

    /// A file holding the password of --hazelcast-user (one line).
    #[arg(long, value_name = "FILE", requires = "hazelcast_user")]
    pub hazelcast_password_file: Option<PathBuf>,

    /// Key prefix under which servers lease distinct node ids (--etcd,
    /// --redis, --hazelcast).
    #[arg(long, value_name = "P", default_value = "/guid", requires = "lease")]
    pub prefix: String,

    /// TTL of the lease: ids stop within it when its store is unreachable.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration, requires = "lease")]
    pub lease_ttl: Duration,
}

/// The service settings the flags ask for, every flag checked (the token
/// read from `--token-file` or `NOEQ_TOKEN`): the one conversion of the
/// flags.
///
/// What needs the time, the state file or the process's limits is checked
/// by [`Config::check`]; [`serve_main`] runs both before it listens.
impl TryFrom<ServeArgs> for Config {
    type Error = Error;

    fn try_from(mut args: ServeArgs) -> Result<Config, Error> {
        let fail = |why: String| Err(Error::Config(why));
        let mut layout = args.layout;
        if let Some(ms) = args.epoch_ms {
            // Checked here too, to name the value as given (the layout
            // holds it in u64 nanoseconds).
            let now = std::time::SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            if u128::from(ms) > now {
                return fail(format!(
                    "--epoch-ms {ms} is in the future (now is Unix ms {now})"
                ));
            }
            layout = layout.with_epoch_ms(ms);
        }
        if let Some(unit) = args.unit {
            layout = match layout.with_unit(unit) {
                Ok(layout) => layout,
                Err(e) => return fail(format!("--unit {unit:?}: {e}")),
            };
        }
        for (flag, id) in [("-d", args.datacenter), ("-w", args.worker)] {
            if id > 31 {
                return fail(format!("{flag} {id} is not in 0..=31"));
            }
        }
        let ordinal = args.node_from_ordinal.then(ordinal::from_env).transpose()?;
        if let Some(o) = ordinal
            && o > 31
        {
            return fail(format!(
                "--node-from-ordinal: ordinal {o} does not fit the worker bits (0..=31)"
            ));
        }
        let worker = ordinal.unwrap_or(args.worker);
        let node = match args.node {
            Some(node) => node,
            None => flake::noeqd_node(args.datacenter, worker)?,
        };
        if node > layout.max_node() {
            let named = match (args.node, ordinal) {
                (Some(_), _) => format!("--node {node}"),
                (None, Some(o)) => format!(
                    "-d {} with --node-from-ordinal {o} (node {node})",
                    args.datacenter
                ),
                (None, None) => format!("-d {} -w {} (node {node})", args.datacenter, worker),
            };
            return fail(format!(
                "{named} does not fit the layout's {} node bits (0..={})",
                layout.node_bits(),
                layout.max_node()
            ));
        }
        let token = match &args.token_file {
            Some(path) => Some(read_token(path)?),
            None => std::env::var_os("NOEQ_TOKEN").map(|t| t.into_encoded_bytes()),
        };
        if token.as_ref().is_some_and(Vec::is_empty) {
            return fail("NOEQ_TOKEN is set but empty: auth would be off (unset it to serve without a token)".into());
        }
        let lease = args.lease_store()?.map(|store| LeaseConfig {
            store,
            prefix: args.prefix,
            ttl: args.lease_ttl,
        });
        Ok(Config {
            ids: IdConfig {
                layout,
                node,
                // A node of its own in every pod: the 96-bit ids' too,
                // unless CONFIG_GUID_NODE_ID says otherwise.
                global_node: ordinal
                    .filter(|_| std::env::var_os("CONFIG_GUID_NODE_ID").is_none())
                    .map(|_| node as u32),
                v3: args.v3,
            },
            time: TimeConfig {
                not_before: args
                    .not_before_ms
                    .map(|ms| UNIX_EPOCH + Duration::from_millis(ms)),
                max_lead: args.max_lead,
                state: args.state,
                ..TimeConfig::default()
            },
            conns: ConnConfig {
                token,
                max_conns: args.max_conns,
                http_max_conns: args.http_max_conns,
                auth_timeout: args.auth_timeout,
                max_unauthed: args.max_unauthed,
                idle_timeout: Some(args.idle_timeout).filter(|d| !d.is_zero()),
            },
            lease,
            process: ProcessConfig {
                busy_poll: args.busy_poll,
                release_code_pages: true,
                ..ProcessConfig::default()
            },
        })
    }
}

/// The token in the file `--token-file` names: a regular file of at most
/// [`MAX_TOKEN`] bytes and one line ending, which is dropped (`\n` or
/// `\r\n`, once; nothing else is). Anything else is refused unread (a
/// device may have no end, a FIFO no writer), as is a file that holds no
/// token.
fn read_token(path: &Path) -> Result<Vec<u8>, Error> {
    read_line_file(
        "--token-file",
        path,
        MAX_TOKEN,
        "token",
        "auth would be off",
    )
}

/// The one line of the small regular file `path` that `flag` names (a
/// token, a password): at most `max` bytes, its line ending dropped.
fn read_line_file(
    flag: &str,
    path: &Path,
    max: usize,
    what: &str,
    empty: &str,
) -> Result<Vec<u8>, Error> {
    let fail = |why: &str| Error::Config(format!("{flag} {}: {why}", path.display()));
    let expected = format!("a {what} is at most {max} bytes and one line ending");
    let mut t = match flag_file::read(path, max as u64 + 2, &expected) {
        Ok(Some(t)) => t,
        Ok(None) => return Err(fail("no such file")),
        Err(why) => return Err(fail(&why)),
    };
    if t.ends_with(b"\r\n") {
        t.truncate(t.len() - 2);
    } else if t.ends_with(b"\n") {
        t.pop();
    }
    if t.is_empty() {
        return Err(fail(&format!("holds no {what}: {empty}")));
    }
    Ok(t)
}

impl ServeArgs {
    /// Where the node id is leased from, if it is.
    fn lease_store(&mut self) -> Result<Option<LeaseStore>, Error> {
        if !self.etcd.is_empty() {
            return Ok(Some(LeaseStore::Etcd {
                endpoints: std::mem::take(&mut self.etcd),
            }));
        }
        if !self.hazelcast.is_empty() {
            let credentials = match (self.hazelcast_user.take(), &self.hazelcast_password_file) {
                (Some(user), Some(path)) => {
                    let password = read_line_file(
                        "--hazelcast-password-file",
                        path,
                        MAX_TOKEN,
                        "password",
                        "give one, or no --hazelcast-user",
                    )?;
                    let password = String::from_utf8(password).map_err(|_| {
                        Error::Config(format!(
                            "--hazelcast-password-file {}: not UTF-8",
                            path.display()
                        ))
                    })?;
                    Some((user, password))
                }
                _ => None,
            };
            return Ok(Some(LeaseStore::Hazelcast {
                members: std::mem::take(&mut self.hazelcast),
                cluster: std::mem::take(&mut self.hazelcast_cluster),
                credentials,
            }));
        }
        Ok(self.redis.take().map(|url| LeaseStore::Redis { url }))
    }

    /// The addresses to listen on, kept for after the flags have become a
    /// [`Config`].
    fn addresses(&self) -> Addresses {
        Addresses {
            flake: self.listen.clone(),
            global: self.listen_g.clone(),
            x: self.listen_x.clone(),
            http: self.http.clone(),
            metrics: self.metrics.clone(),
        }
    }
}

/// The addresses of `-l`, `--listen-g`, `--listen-x`, `--http` and
/// `--metrics`.
struct Addresses {
    flake: String,
    global: Option<String>,
    x: Option<String>,
    http: Option<String>,
    metrics: Option<String>,
}

impl Addresses {
    /// The listeners, bound (":4444" means every interface, as in noeqd).
    fn bind(&self) -> Result<Listeners, Error> {
        let bind = |addr: &str| {
            let addr = if addr.starts_with(':') {
                format!("0.0.0.0{addr}")
            } else {
                addr.to_owned()
            };
            TcpListener::bind(&addr).map_err(|e| Error::io(format!("listen on {addr}"), e))
        };
        Ok(Listeners {
            flake: Some(bind(&self.flake)?),
            global: self.global.as_deref().map(bind).transpose()?,
            x: self.x.as_deref().map(bind).transpose()?,
            http: self.http.as_deref().map(bind).transpose()?,
            metrics: self.metrics.as_deref().map(bind).transpose()?,
        })
    }
}

/// How `guid serve` writes its log lines.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// A time, a level and a sentence that says it all.
    #[default]
    Human,
    /// One JSON object per line: `timestamp`, `level`, `message`, `target`
    /// and every value of the event as a field of its own.
    Json,
}

/// Runs `guid serve` with `args` until SIGTERM or SIGINT: 0 after a
/// graceful shutdown, 1 on an error, 2 on invalid settings.
///
/// Every setting, the token and state files included, is checked before a
/// listener opens; a refusal is status 2 and one line on stderr naming the
/// flag. Events go to stderr through a `tracing` subscriber installed here
/// (see [`ServeArgs::log_format`]), unless the process has one already.
pub fn serve_main(args: ServeArgs) -> ExitCode {
    install_subscriber(&args);
    let format = args.log_format;
    let refuse = |e: Error| {
        match format {
            LogFormat::Human => eprintln!("error: {e}"),
            LogFormat::Json => error!(error = %e, "refused: {e}"),
        }
        ExitCode::from(2)
    };
    let fail = |e: &Error| {
        error!(error = %e, "{e}");
        ExitCode::from(1)
    };
    let addresses = args.addresses();
    let http = addresses.http.is_some();
    let checked = match Config::try_from(args).and_then(|config| config.check(http)) {
        Ok(checked) => checked,
        Err(e) => return refuse(e),
    };
    let listeners = match addresses.bind() {
        Ok(listeners) => listeners,
        Err(e) => return fail(&e),
    };
    match run(listeners, checked, signals()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// Events to stderr, as `--log-format` says, filtered by `-q` or RUST_LOG;
/// nothing is changed if the process has a subscriber already.
fn install_subscriber(args: &ServeArgs) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    use tracing_subscriber::fmt::format::debug_fn;

    let filter = match args.quiet {
        true => EnvFilter::new("error"),
        false => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match args.log_format {
        // The message says what the fields hold: print it alone.
        LogFormat::Human => builder
            .with_target(false)
            .with_ansi(std::io::stderr().is_terminal())
            .fmt_fields(debug_fn(|w, field, value| match field.name() {
                "message" => write!(w, "{value:?}"),
                _ => Ok(()),
            }))
            .try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
}

/// Completes on SIGTERM or SIGINT.
async fn signals() {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => {
            let signal = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            info!(signal, "{signal} received");
        }
        (Err(e), _) | (_, Err(e)) => {
            warn!(
                error = %e,
                "cannot handle SIGTERM/SIGINT ({e}): stopping will not be graceful"
            );
            std::future::pending::<()>().await;
        }
    }
}

/// A pod's ordinal in its StatefulSet.
mod ordinal {
    use crate::error::Error;

    /// The variable the pod-index label is given in.
    pub(crate) const VAR: &str = "POD_INDEX";

    /// `$POD_INDEX`, else the trailing number of the host name.
    pub(crate) fn from_env() -> Result<u64, Error> {
        if let Some(value) = std::env::var_os(VAR) {
            let value = value.to_string_lossy();
            return value.trim().parse().map_err(|_| {
                Error::Config(format!(
                    "--node-from-ordinal: {VAR}={value:?} is not a number"
                ))
            });
        }
        let host = hostname().map_err(|e| {
            Error::Config(format!(
                "--node-from-ordinal: {VAR} is not set and the host name cannot be read: {e}"
            ))
        })?;
        of_host(&host).ok_or_else(|| {
            Error::Config(format!(
                "--node-from-ordinal: {VAR} is not set and the host name {host:?} does not end in -N"
            ))
        })
    }

    /// The ordinal of a StatefulSet pod's host name: `guid-3` is 3.
    pub(crate) fn of_host(host: &str) -> Option<u64> {
        // The pod name, not a domain a host name may go on with.
        let name = host.trim().split('.').next()?;
        let (_, digits) = name.rsplit_once('-')?;
        let canonical = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        canonical.then(|| digits.parse().ok()).flatten()
    }

    /// The kernel's host name (what `hostname` prints).
    fn hostname() -> std::io::Result<String> {
        #[cfg(target_os = "linux")]
        {
            std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_owned())
        }
        #[cfg(not(target_os = "linux"))]
        {
            std::env::var("HOSTNAME").map_err(std::io::Error::other)
        }
    }
}

/// Parses `--layout`: `noeqd`, `twitter`, `snowcast`, `snowcast:N`,
/// `redis` or `TIME/NODE/SEQ`.
pub(crate) fn parse_layout(s: &str) -> Result<Layout, String> {
    let bits = |part: &str| {
        part.trim()
            .parse::<u32>()
            .map_err(|_| format!("{part:?} is not a number of bits"))
    };
    match s.trim() {
        "noeqd" | "twitter" | "redis" => Ok(Layout::NOEQD),
        "snowcast" => Layout::snowcast(13).map_err(|e| e.to_string()),
        spec => {
            if let Some(n) = spec.strip_prefix("snowcast:") {
                return Layout::snowcast(bits(n)?).map_err(|e| e.to_string());
            }
            let parts: Vec<&str> = spec.split('/').collect();
            match parts[..] {
                [t, n, q] => Layout::new(bits(t)?, bits(n)?, bits(q)?).map_err(|e| e.to_string()),
                _ => Err(format!(
                    "unknown layout {spec:?}: expected noeqd, twitter, snowcast, snowcast:N, redis or TIME/NODE/SEQ"
                )),
            }
        }
    }
}

/// Parses a duration: a number with `ns`, `us`, `ms`, `s`, `m` or `h`
/// (seconds when bare), read by `humantime`, so units combine (`1m30s`),
/// numbers may have decimals (`1.5s`) and any count of a unit up to the
/// largest `Duration` is taken (`5000000000ns`).
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    // A bare number is seconds, as the docs have always said.
    let bare = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let text = if bare { format!("{s}s") } else { s.to_owned() };
    humantime::parse_duration(&text)
        .map_err(|e| format!("{s:?} is not a duration like 300ms, 1.5s, 1m30s or 5m: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn parse(args: &[&str]) -> Result<ServeArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("guid-serve").chain(args.iter().copied()))
            .map(|c| c.serve)
    }

    #[test]
    fn ordinals_of_host_names() {
        for (host, ordinal) in [
            ("guid-0", Some(0)),
            ("guid-3", Some(3)),
            ("id-service-eu-17", Some(17)),
            ("guid-3.guid.default.svc.cluster.local", Some(3)),
            ("guid-3\n", Some(3)),
            ("guid", None),
            ("guid-", None),
            ("guid-03", None),
            ("guid-3a", None),
            ("guid-+3", None),
            ("3", None),
            ("guid-99999999999999999999999", None),
        ] {
            assert_eq!(ordinal::of_host(host), ordinal, "{host:?}");
        }
    }

    #[test]
    fn noeqd_flags() {
        let a = parse(&[
            "-l",
            "127.0.0.1:5555",
            "-d",
            "3",
            "-w=7",
            "-t",
            "1700000000000",
        ])
        .unwrap();
        assert_eq!(a.listen, "127.0.0.1:5555");
        let c = Config::try_from(a).unwrap();
        assert_eq!(c.ids.node, 3 << 5 | 7);
        assert_eq!(c.ids.layout, Layout::NOEQD);
        assert_eq!(
            c.time.not_before,
            Some(UNIX_EPOCH + Duration::from_millis(1_700_000_000_000))
        );
        let d = parse(&[]).unwrap();
        assert_eq!(d.listen, "127.0.0.1:4444");
        assert_eq!(
            Config::try_from(d).unwrap().conns.idle_timeout,
            Some(Duration::from_secs(300))
        );
    }

    #[test]
    fn bad_settings_are_errors() {
        assert!(Config::try_from(parse(&["-d", "32"]).unwrap()).is_err());
        assert!(Config::try_from(parse(&["-w", "32"]).unwrap()).is_err());
        assert!(parse(&["--node", "1", "-d", "1"]).is_err());
        assert!(parse(&["--layout", "41/10/13"]).is_err());
        assert!(parse(&["--layout", "snowcast:14"]).is_err());
        assert!(parse(&["--layout", "fancy"]).is_err());
        assert!(parse(&["--idle-timeout", "5 parsecs"]).is_err());
        let big_node = parse(&["--layout", "51/4/8", "--node", "16"]).unwrap();
        assert!(matches!(Config::try_from(big_node), Err(Error::Config(_))));
        assert!(Config::try_from(parse(&["--unit", "0ms"]).unwrap()).is_err());
    }

    #[test]
    fn etcd_flags() {
        let a = parse(&[
            "--etcd",
            "http://127.0.0.1:2379,http://127.0.0.1:22379",
            "--prefix",
            "/ids/eu",
            "--lease-ttl",
            "4s",
        ])
        .unwrap();
        let lease = Config::try_from(a).unwrap().lease.unwrap();
        let LeaseStore::Etcd { endpoints } = &lease.store else {
            panic!("{lease:?}")
        };
        assert_eq!(
            endpoints,
            &["http://127.0.0.1:2379", "http://127.0.0.1:22379"]
        );
        assert_eq!(lease.prefix, "/ids/eu");
        assert_eq!(lease.ttl, Duration::from_secs(4));
        let d = parse(&["--etcd", "http://127.0.0.1:2379"]).unwrap();
        let lease = Config::try_from(d).unwrap().lease.unwrap();
        assert_eq!(
            (lease.prefix.as_str(), lease.ttl),
            ("/guid", Duration::from_secs(10))
        );
        let r = parse(&["--redis", "redis://127.0.0.1:6379/0", "--prefix", "/r"]).unwrap();
        let lease = Config::try_from(r).unwrap().lease.unwrap();
        let LeaseStore::Redis { url } = &lease.store else {
            panic!("{lease:?}")
        };
        assert_eq!(
            (url.as_str(), lease.prefix.as_str()),
            ("redis://127.0.0.1:6379/0", "/r")
        );
        let h = parse(&[
            "--hazelcast",
            "10.0.0.1:5701,10.0.0.2:5701",
            "--hazelcast-cluster",
            "prod",
        ])
        .unwrap();
        let lease = Config::try_from(h).unwrap().lease.unwrap();
        let LeaseStore::Hazelcast {
            members,
            cluster,
            credentials,
        } = &lease.store
        else {
            panic!("{lease:?}")
        };
        assert_eq!(members, &["10.0.0.1:5701", "10.0.0.2:5701"]);
        assert_eq!((cluster.as_str(), credentials), ("prod", &None));
        let file = std::env::temp_dir().join(format!("kguid-hz-password-{}", std::process::id()));
        std::fs::write(&file, "s3cret\r\n").unwrap();
        let path = file.to_str().unwrap();
        let with = [
            "--hazelcast",
            "h:5701",
            "--hazelcast-user",
            "u",
            "--hazelcast-password-file",
            path,
        ];
        let lease = Config::try_from(parse(&with).unwrap())
            .unwrap()
            .lease
            .unwrap();
        assert!(
            matches!(&lease.store, LeaseStore::Hazelcast { credentials: Some((u, p)), .. } if u == "u" && p == "s3cret")
        );
        std::fs::remove_file(&file).unwrap();
        let Err(Error::Config(why)) = Config::try_from(parse(&with).unwrap()) else {
            panic!("a missing password file read")
        };
        assert!(
            why.starts_with(&format!("--hazelcast-password-file {path}: no such file")),
            "{why}"
        );
        let dev = parse(&["--hazelcast", "10.0.0.1:5701"]).unwrap();
        let lease = Config::try_from(dev).unwrap().lease.unwrap();
        assert!(matches!(&lease.store, LeaseStore::Hazelcast { cluster, .. } if cluster == "dev"));
        assert!(
            Config::try_from(parse(&[]).unwrap())
                .unwrap()
                .lease
                .is_none()
        );
        for bad in [
            &["--etcd", "http://127.0.0.1:2379", "-d", "1"][..],
            &["--etcd", "http://127.0.0.1:2379", "-w", "1"],
            &["--etcd", "http://127.0.0.1:2379", "--node", "1"],
            &[
                "--etcd",
                "http://127.0.0.1:2379",
                "--redis",
                "redis://127.0.0.1",
            ],
            &["--redis", "redis://127.0.0.1", "-w", "1"],
            &["--redis", "redis://127.0.0.1", "--node-from-ordinal"],
            &["--prefix", "/ids"],
            &["--lease-ttl", "3s"],
            &[
                "--hazelcast",
                "127.0.0.1:5701",
                "--redis",
                "redis://127.0.0.1",
            ],
            &["--hazelcast", "127.0.0.1:5701", "-w", "1"],
            &["--hazelcast-cluster", "prod"],
            &["--hazelcast", "127.0.0.1:5701", "--hazelcast-user", "u"],
            &[
                "--hazelcast",
                "127.0.0.1:5701",
                "--hazelcast-password-file",
                "/p",
            ],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn layouts() {
        assert_eq!(parse_layout("twitter").unwrap(), Layout::NOEQD);
        assert_eq!(
            parse_layout("snowcast").unwrap(),
            Layout::snowcast(13).unwrap()
        );
        assert_eq!(
            parse_layout("snowcast:7").unwrap(),
            Layout::snowcast(7).unwrap()
        );
        assert_eq!(
            parse_layout("39/16/8").unwrap(),
            Layout::new(39, 16, 8).unwrap()
        );
        let a = parse(&[
            "--layout",
            "redis",
            "--epoch-ms",
            "1420070400000",
            "--unit",
            "10ms",
        ])
        .unwrap();
        let l = Config::try_from(a).unwrap().ids.layout;
        assert_eq!(
            l.epoch(),
            UNIX_EPOCH + Duration::from_millis(1_420_070_400_000)
        );
        assert_eq!(l.unit(), Duration::from_millis(10));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("0").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(
            parse_duration("5000000000ns").unwrap(),
            Duration::from_secs(5)
        );
        assert_eq!(parse_duration("2.5").unwrap(), Duration::from_millis(2500));
        assert_eq!(
            parse_duration("4294967296s").unwrap(),
            Duration::from_secs(1 << 32)
        );
        assert_eq!(parse_duration("1h 30m").unwrap(), Duration::from_secs(5400));
        for bad in [
            "",
            "ms",
            "-1s",
            "3 parsecs",
            "1..5s",
            "99999999999999999999999h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
