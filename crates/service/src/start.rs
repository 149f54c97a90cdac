//! The start: every setting checked before a listener opens, and the time
//! the clocks start after (the [`bounds`](crate::bounds) of the time). A
//! setting the service could not honour is refused here, not found out by
//! the first client.

use guid::flake::Layout;
use guid::{TimeSource, WallClock};

use crate::bounds::{self, Start};
use crate::config::{Config, Connections, LeaseConfig, LeaseStore, Settings, TimeBounds};
use crate::error::Error;
use crate::protocol::MAX_TOKEN;

impl Config {
    /// Checks every setting as [`run`](crate::run) does before it serves,
    /// reading the state file if there is one: call it before opening the
    /// listeners. The messages name the `guid serve` flags. The open files
    /// are counted for the binary listeners: [`run`](crate::run) counts
    /// `--max-conns` more with [`Listeners::http`](crate::Listeners::http).
    pub fn check(&self) -> Result<(), Error> {
        self.check_serving(false).map(drop)
    }

    /// Checks every setting as [`run`](crate::run) does, with the HTTP
    /// API's connections counted if it `http` listens: where the clocks
    /// start.
    pub(crate) fn check_serving(&self, http: bool) -> Result<Start, Error> {
        let s = Settings::from(self.clone());
        check(s.ids.layout, &s.time, &s.conns, s.lease.as_ref(), http)
    }
}

/// Checks every setting but the process's (the 64-bit `layout` against
/// the time bounds) and reads the state file; with `http`, the open files
/// of the HTTP API's connections are counted too.
pub(crate) fn check(
    layout: Layout,
    time: &TimeBounds,
    conns: &Connections,
    lease: Option<&LeaseConfig>,
    http: bool,
) -> Result<Start, Error> {
    let now = match &time.time {
        Some(time) => time.now(),
        None => WallClock.now(),
    };
    built(lease)?;
    limits(conns, lease, http)?;
    bounds::start(layout, time, now)
}

/// Settings that need a feature this build does not have.
fn built(lease: Option<&LeaseConfig>) -> Result<(), Error> {
    let Some(lease) = lease else {
        return Ok(());
    };
    let built = match lease.store {
        LeaseStore::Etcd { .. } => cfg!(feature = "etcd"),
        LeaseStore::Redis { .. } => cfg!(feature = "redis"),
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
fn limits(conns: &Connections, lease: Option<&LeaseConfig>, http: bool) -> Result<(), Error> {
    let fail = |why: String| Err(Error::Config(why));
    if let Some(t) = &conns.token
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
    use std::sync::Arc;
    use std::time::{Duration, UNIX_EPOCH};

    /// The check of every setting of `c`.
    fn check(c: &Config, http: bool) -> Result<Start, Error> {
        let s = Settings::from(c.clone());
        super::check(s.ids.layout, &s.time, &s.conns, s.lease.as_ref(), http)
    }

    const NOW: u64 = 1_700_000_000_000_000_000;

    fn config() -> Config {
        Config {
            time: Some(Arc::new(guid::MockTime::new(NOW))),
            ..Config::default()
        }
    }

    fn refused(c: &Config) -> String {
        match check(c, false) {
            Err(e) => e.to_string(),
            Ok(start) => panic!("accepted: {start:?}"),
        }
    }

    #[test]
    fn the_defaults_start_now() {
        assert_eq!(check(&config(), false).unwrap().not_before, None);
    }

    #[test]
    fn layouts_that_cannot_hold_now_are_refused() {
        let mut c = config();
        c.layout = Layout::NOEQD.with_epoch_ms(NOW / 1_000_000 + 1);
        assert!(refused(&c).starts_with("--epoch-ms 1700000000001 is in the future"));
        c.layout = Layout::NOEQD.with_unit(Duration::from_nanos(1)).unwrap();
        assert!(refused(&c).contains("--unit 1ns"), "{}", refused(&c));
        c.layout = Layout::new(30, 21, 12).unwrap().with_epoch_ms(0);
        assert!(refused(&c).contains("--layout 30/21/12 --epoch-ms 0"));
        c.layout = Layout::new(1, 61, 1).unwrap();
        assert!(refused(&c).contains("--layout 1/61/1"));
        // Now fits, now plus the lead does not.
        let left = Duration::from_secs(3600);
        let units = 1u64 << 30;
        c.layout = Layout::new(30, 21, 12)
            .unwrap()
            .with_epoch_ms((NOW - units * 1_000_000) / 1_000_000 + left.as_millis() as u64);
        c.max_lead = left * 2;
        assert!(
            refused(&c).starts_with("--max-lead 7200s"),
            "{}",
            refused(&c)
        );
        c.max_lead = left / 2;
        check(&c, false).unwrap();
    }

    #[test]
    fn t_in_the_wrong_unit_is_refused() {
        let mut c = config();
        let ms = |ms: u64| Some(UNIX_EPOCH + Duration::from_millis(ms));
        let now_ms = NOW / 1_000_000;
        c.not_before = ms(now_ms * 1_000);
        let why = refused(&c);
        assert!(
            why.starts_with("-t 1700000000000000 is more than 3600s ahead"),
            "{why}"
        );
        c.not_before = ms(now_ms / 1_000);
        let why = refused(&c);
        assert!(why.starts_with("-t 1700000000 is before Unix ms"), "{why}");
        assert!(why.contains("seconds"), "{why}");
        c.not_before = ms(now_ms + 2 * 3_600_000);
        assert!(refused(&c).contains("ahead of now"));
        c.not_before = ms(now_ms + 1_800_000);
        assert_eq!(
            check(&c, false).unwrap().not_before,
            Some(NOW + 1_800_000_000_000)
        );
        c.not_before = ms(now_ms - 86_400_000);
        assert_eq!(
            check(&c, false).unwrap().not_before,
            Some(NOW - 86_400_000_000_000)
        );
    }

    #[test]
    fn limits_are_positive() {
        for (set, flag) in [
            (|c: &mut Config| c.max_conns = 0) as fn(&mut Config),
            |c| c.max_unauthed = 0,
            |c| c.auth_timeout = Duration::ZERO,
            |c| c.token = Some(vec![b'x'; 256]),
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
        c.http_max_conns = 0;
        assert!(check(&c, false).is_ok(), "no HTTP listener, no HTTP cap");
        assert!(
            matches!(check(&c, true), Err(Error::Config(why)) if why.contains("--http-max-conns"))
        );
    }
}
