//! The start: every setting checked once, before a listener opens, and
//! the time the clocks start after (the [`bounds`](crate::bounds) of the
//! time), with the state file's lock. A setting the service could not
//! honour is refused here, not found out by the first client.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::{TimeSource, WallClock};

use crate::bounds::{self, Start};
use crate::config::{Config, ConnConfig, LeaseConfig, LeaseStore};
use crate::error::Error;
use crate::protocol::MAX_TOKEN;

/// A [`Config`] that passed [`Config::check`], which [`run`](crate::run)
/// serves: its settings, where its ids start, and the state file's lock.
///
/// The lock is held from the check on, so that no other server, of this
/// process or another, takes the state file between the check and the
/// serving; it goes with this value, or with the server's end once
/// [`run`](crate::run) has it.
#[must_use = "it holds the state file's lock: run it, or drop it to let go"]
pub struct Checked {
    config: Config,
    /// Whether the HTTP API's connections were counted.
    http: bool,
    start: Start,
}

impl Checked {
    /// The settings checked.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The start bound the check found: no id at or before this time, the
    /// later of [`TimeConfig::not_before`](crate::TimeConfig::not_before)
    /// and the state file's horizon (`None` with neither: the server then
    /// starts its ids after now plus the max lead, or after a lease's
    /// fence).
    pub fn not_before(&self) -> Option<SystemTime> {
        self.start
            .not_before
            .map(|ns| UNIX_EPOCH + Duration::from_nanos(ns))
    }

    /// The settings, whether the HTTP API's connections were counted, and
    /// the start, for [`run`](crate::run).
    pub(crate) fn into_parts(self) -> (Config, bool, Start) {
        (self.config, self.http, self.start)
    }
}

impl fmt::Debug for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checked")
            .field("not_before", &self.start.not_before)
            .field("state", &self.start.state.as_ref().map(|(s, _)| s.file()))
            .field("http", &self.http)
            .finish_non_exhaustive()
    }
}

impl Config {
    /// Checks every setting, once, before anything is served: the layout
    /// against the time, `-t`, the state file (its links resolved, read,
    /// and locked from now on: see [`Checked`]), the features the settings
    /// need, the connection limits against the open-file limit (the soft
    /// limit raised to fit where the hard limit allows). `http`: whether
    /// [`run`](crate::run) will be given an HTTP API
    /// ([`Listeners::http`](crate::Listeners::http)), whose connections are
    /// counted too. The messages name the `guid serve` flags.
    ///
    /// Call it before opening the listeners, and hand what it returns to
    /// [`run`](crate::run).
    pub fn check(self, http: bool) -> Result<Checked, Error> {
        let start = check(&self, http)?;
        Ok(Checked {
            config: self,
            http,
            start,
        })
    }
}

/// Checks every setting of `config` but the process's (the 64-bit layout
/// against the time bounds), reads the state file and takes its lock;
/// with `http`, the open files of the HTTP API's connections are counted
/// too.
fn check(config: &Config, http: bool) -> Result<Start, Error> {
    let now = match &config.time.source {
        Some(time) => time.now(),
        None => WallClock.now(),
    };
    let lease = config.lease.as_ref();
    built(lease)?;
    limits(&config.conns, lease, http)?;
    bounds::start(config.ids.layout, &config.time, now)
}

/// Settings that need a feature this build does not have.
fn built(lease: Option<&LeaseConfig>) -> Result<(), Error> {
    let Some(lease) = lease else {
        return Ok(());
    };
    let built = match lease.store {
        LeaseStore::Etcd { .. } => cfg!(feature = "etcd"),
        LeaseStore::Redis { .. } => cfg!(feature = "redis"),
        LeaseStore::Hazelcast { .. } => cfg!(feature = "hazelcast"),
    };
    if built {
        return Ok(());
    }
    let name = lease.store.name();
    Err(Error::Config(format!(
        "--{name} needs the `{name}` feature, which this build of kguid-service left out: build it with its default features (cargo install --locked --path crates/cli from a checkout)"
    )))
}

/// The token, the connection limits and the lease's TTL.
fn limits(conns: &ConnConfig, lease: Option<&LeaseConfig>, http: bool) -> Result<(), Error> {
    let fail = |why: String| Err(Error::Config(why));
    if let Some(t) = conns.token()
        && t.len() > MAX_TOKEN
    {
        return fail(format!(
            "the token (NOEQ_TOKEN or --token-file) is {} bytes; the protocol allows at most {MAX_TOKEN}",
            t.len()
        ));
    }
    if conns.max_conns == 0 {
        return fail("--max-conns 0 would serve no connection".into());
    }
    if http && conns.http_max_conns == 0 {
        return fail("--http-max-conns 0 would serve no HTTP connection".into());
    }
    #[cfg(feature = "lease")]
    if let Some(lease) = lease
        && let Err(e) = kguid_lease::Options::default().check(lease.ttl)
    {
        return fail(format!("--lease-ttl {:?}: {e}", lease.ttl));
    }
    if conns.max_unauthed == 0 {
        return fail("--max-unauthed 0 leaves no room for a client to authenticate".into());
    }
    if conns.auth_timeout.is_zero() {
        return fail("--auth-timeout 0 closes every client before it can authenticate".into());
    }
    #[cfg(not(feature = "lease"))]
    let _ = lease;
    // The caps must fit in the open-file limit, raised if need be.
    crate::rlimit::check(conns, http)
}

#[cfg(test)]
mod tests {
    use super::*;
    use guid::flake::Layout;
    use std::sync::Arc;

    const NOW: u64 = 1_700_000_000_000_000_000;

    fn config() -> Config {
        let mut c = Config::default();
        c.time.source = Some(Arc::new(guid::MockTime::new(NOW)));
        c
    }

    fn refused(c: &Config) -> String {
        match check(c, false) {
            Err(e) => e.to_string(),
            Ok(start) => panic!("accepted: starts after {:?}", start.not_before),
        }
    }

    #[test]
    fn the_defaults_start_now() {
        assert_eq!(check(&config(), false).unwrap().not_before, None);
    }

    #[test]
    fn layouts_that_cannot_hold_now_are_refused() {
        let mut c = config();
        c.ids.layout = Layout::NOEQD.with_epoch_ms(NOW / 1_000_000 + 1);
        assert!(refused(&c).starts_with("--epoch-ms 1700000000001 is in the future"));
        c.ids.layout = Layout::NOEQD.with_unit(Duration::from_nanos(1)).unwrap();
        assert!(refused(&c).contains("--unit 1ns"), "{}", refused(&c));
        c.ids.layout = Layout::new(30, 21, 12).unwrap().with_epoch_ms(0);
        assert!(refused(&c).contains("--layout 30/21/12 --epoch-ms 0"));
        c.ids.layout = Layout::new(1, 61, 1).unwrap();
        assert!(refused(&c).contains("--layout 1/61/1"));
        // Now fits, now plus the lead does not.
        let left = Duration::from_secs(3600);
        let units = 1u64 << 30;
        c.ids.layout = Layout::new(30, 21, 12)
            .unwrap()
            .with_epoch_ms((NOW - units * 1_000_000) / 1_000_000 + left.as_millis() as u64);
        c.time.max_lead = left * 2;
        assert!(
            refused(&c).starts_with("--max-lead 7200s"),
            "{}",
            refused(&c)
        );
        c.time.max_lead = left / 2;
        check(&c, false).unwrap();
    }

    #[test]
    fn t_in_the_wrong_unit_is_refused() {
        let mut c = config();
        let ms = |ms: u64| Some(UNIX_EPOCH + Duration::from_millis(ms));
        let now_ms = NOW / 1_000_000;
        c.time.not_before = ms(now_ms * 1_000);
        let why = refused(&c);
        assert!(
            why.starts_with("-t 1700000000000000 is more than 3600s ahead"),
            "{why}"
        );
        c.time.not_before = ms(now_ms / 1_000);
        let why = refused(&c);
        assert!(why.starts_with("-t 1700000000 is before Unix ms"), "{why}");
        assert!(why.contains("seconds"), "{why}");
        c.time.not_before = ms(now_ms + 2 * 3_600_000);
        assert!(refused(&c).contains("ahead of now"));
        c.time.not_before = ms(now_ms + 1_800_000);
        assert_eq!(
            check(&c, false).unwrap().not_before,
            Some(NOW + 1_800_000_000_000)
        );
        c.time.not_before = ms(now_ms - 86_400_000);
        assert_eq!(
            check(&c, false).unwrap().not_before,
            Some(NOW - 86_400_000_000_000)
        );
    }

    #[test]
    fn limits_are_positive() {
        for (set, flag) in [
            (|c: &mut Config| c.conns.max_conns = 0) as fn(&mut Config),
            |c| c.conns.max_unauthed = 0,
            |c| c.conns.auth_timeout = Duration::ZERO,
            |c| c.conns.token = Some(vec![b'x'; 256]),
        ]
        .into_iter()
        .zip([
            "--max-conns",
            "--max-unauthed",
            "--auth-timeout",
            "NOEQ_TOKEN",
        ]) {
            let mut c = config();
            set(&mut c);
            assert!(refused(&c).contains(flag), "{flag}");
        }
        let mut c = config();
        c.conns.http_max_conns = 0;
        assert!(check(&c, false).is_ok(), "no HTTP listener, no HTTP cap");
        assert!(
            matches!(check(&c, true), Err(Error::Config(why)) if why.contains("--http-max-conns"))
        );
    }

    /// The check takes the state file's lock and its `Checked` holds it,
    /// then the server `run` makes of it, to its end: a second check of
    /// the file in this process is refused meanwhile, under another name
    /// too, and passes once the first has let go. The start bound is the
    /// horizon the check read.
    #[test]
    fn the_check_holds_the_state_file_until_its_server_ends() {
        let dir = std::env::temp_dir().join(format!("kguid-start-{}-held", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let state = dir.join("state");
        let saved = NOW - 1_000_000_000;
        std::fs::write(&state, format!("{saved}\n")).unwrap();
        let link = dir.join("link");
        std::os::unix::fs::symlink(&state, &link).unwrap();
        let on = |path: &std::path::Path| {
            let mut c = config();
            c.time.state = Some(path.to_owned());
            c
        };
        let held = |path: &std::path::Path| {
            let why = refused(&on(path));
            assert!(why.contains("another server in this process"), "{why}");
        };

        let first = on(&state).check(false).unwrap();
        assert_eq!(first.start.not_before, Some(saved));
        assert_eq!(
            first.not_before(),
            Some(UNIX_EPOCH + Duration::from_nanos(saved))
        );
        held(&state);
        held(&link);
        drop(first);

        let checked = on(&link).check(false).unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = std::thread::spawn(move || {
            crate::run(listener, checked, async {
                let _ = stopped.await;
            })
        });
        held(&state);
        held(&link);
        stop.send(()).unwrap();
        server.join().unwrap().unwrap();
        drop(on(&state).check(false).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `run` serves an HTTP API only if the check counted its connections.
    #[test]
    fn run_refuses_an_http_api_the_check_did_not_count() {
        let http = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let listeners = crate::Listeners {
            http: Some(http),
            ..crate::Listeners::default()
        };
        let checked = config().check(false).unwrap();
        match crate::run(listeners, checked, std::future::pending()) {
            Err(Error::Config(why)) => assert!(why.contains("HTTP API"), "{why}"),
            r => panic!("{:?}", r.map(|_| ())),
        }
    }
}
