//! The start: every setting checked before a listener opens, and the time
//! the clocks start after. A setting the service could not honour is
//! refused here, not found out by the first client.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::flake::Layout;
use guid::{TimeSource, WallClock, unix_nanos};

use crate::config::{Config, LeaseStore};
use crate::error::Error;
use crate::horizon::{self, Horizon};
use crate::protocol::MAX_TOKEN;

/// Where the clocks start.
#[derive(Debug)]
pub(crate) struct Start {
    /// No id at or before this time (Unix ns): the later of `-t` and the
    /// state file's horizon.
    pub(crate) not_before: Option<u64>,
}

const NS_PER_MS: u128 = 1_000_000;

/// The earliest `-t` taken, Unix ns (2001-09-09): a smaller value is
/// seconds or a typo, and would guard nothing.
const MIN_T_NS: u64 = 1_000_000_000_000 * 1_000_000;

/// How far ahead of now `-t` may be: the server issues no id until then.
const MAX_T_AHEAD: Duration = Duration::from_secs(3600);

impl Config {
    /// Checks every setting as [`run`](crate::run) does before it serves,
    /// reading the state file if there is one: call it before opening the
    /// listeners. The messages name the `guid serve` flags. The open files
    /// are counted for the binary listeners: [`run`](crate::run) counts
    /// `--max-conns` more with [`Listeners::http`](crate::Listeners::http).
    pub fn check(&self) -> Result<(), Error> {
        check(self, false).map(drop)
    }
}

/// Checks `config` and reads its state file; with `http`, the open files
/// of the HTTP API's connections are counted too.
pub(crate) fn check(config: &Config, http: bool) -> Result<Start, Error> {
    let now = match &config.time {
        Some(time) => time.now(),
        None => WallClock.now(),
    };
    built(config)?;
    limits(config, http)?;
    let range = Range::new(config);
    range.check_now(now)?;
    let flag_t = match config.not_before {
        Some(t) => Some(range.check_t(t, now)?),
        None => None,
    };
    let saved = match &config.state {
        Some(path) => {
            // The file is judged before anything is created next to it.
            if let Some(ns) = Horizon::load(path)? {
                range.check_state(path, ns)?;
            }
            check_dir(path)?;
            horizon::lock(path)?;
            // Read again under the lock: a server that held it until now
            // may have moved the horizon on since.
            match Horizon::load(path)? {
                Some(ns) => Some(range.check_state(path, ns)?),
                None => None,
            }
        }
        None => None,
    };
    Ok(Start {
        not_before: flag_t.max(saved),
    })
}

/// The state file's directory must be there, and files can be created in
/// it and removed, as every save does: tried with a save's own temporary
/// file, so that a directory the server cannot write is refused before
/// listening rather than found out by the first save.
fn check_dir(path: &Path) -> Result<(), Error> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let why = match dir.is_dir() {
        false => format!("no directory {} to keep it in", dir.display()),
        true => match horizon::try_write(path) {
            Ok(()) => return Ok(()),
            Err(e) => format!("cannot write in {}: {e}", dir.display()),
        },
    };
    Err(Error::State {
        path: path.to_owned(),
        why,
    })
}

/// Settings that need a feature this build does not have.
fn built(config: &Config) -> Result<(), Error> {
    let Some(lease) = &config.lease else {
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

/// The token and the connection limits.
fn limits(config: &Config, http: bool) -> Result<(), Error> {
    let fail = |why: String| Err(Error::Config(why));
    if let Some(t) = &config.token
        && t.len() > MAX_TOKEN
    {
        return fail(format!(
            "the token (NOEQ_TOKEN or --token-file) is {} bytes; the protocol allows at most {MAX_TOKEN}",
            t.len()
        ));
    }
    if config.max_conns == 0 {
        return fail("--max-conns 0 would serve no connection".into());
    }
    if http && config.http_max_conns == 0 {
        return fail("--http-max-conns 0 would serve no HTTP connection".into());
    }
    #[cfg(feature = "lease")]
    if let Some(lease) = &config.lease
        && let Err(e) = kguid_lease::Options::default().check(lease.ttl)
    {
        return fail(format!("--lease-ttl {:?}: {e}", lease.ttl));
    }
    if config.max_unauthed == 0 {
        return fail("--max-unauthed 0 leaves no room for a client to authenticate".into());
    }
    if config.auth_timeout.is_zero() {
        return fail("--auth-timeout 0 closes every client before it can authenticate".into());
    }
    // The caps must fit in the open-file limit, raised if need be.
    crate::rlimit::check(config, http)
}

/// What the 64-bit layout can represent, in Unix ns (u128: a layout may
/// end centuries past what u64 nanoseconds hold).
struct Range {
    layout: Layout,
    epoch: u128,
    /// The start of the layout's last unit: a clock must start before it.
    last: u128,
    /// How far past its start a clock's ids and horizon may run: the max
    /// lead, and the state file's reserve when there is one.
    reach: u128,
    max_lead: Duration,
    ahead: Duration,
}

impl Range {
    fn new(config: &Config) -> Range {
        let layout = config.layout;
        let epoch = u128::from(unix_nanos(layout.epoch()));
        let ahead = match config.state {
            Some(_) => {
                let reserve = guid::nanos(config.reserve);
                Duration::from_nanos(horizon::ahead(horizon::span(layout), reserve))
            }
            None => Duration::ZERO,
        };
        Range {
            layout,
            epoch,
            last: epoch + u128::from(layout.max_time()) * layout.unit().as_nanos(),
            reach: config.max_lead.as_nanos() + ahead.as_nanos(),
            max_lead: config.max_lead,
            ahead,
        }
    }

    /// The layout's flags and values.
    fn flags(&self) -> String {
        let l = &self.layout;
        format!(
            "(--layout {}/{}/{} --epoch-ms {} --unit {:?})",
            l.time_bits(),
            l.node_bits(),
            l.seq_bits(),
            self.epoch / NS_PER_MS,
            l.unit()
        )
    }

    /// What may run past a start: the max lead and the state's reserve.
    fn lead(&self) -> String {
        match self.ahead.is_zero() {
            true => format!("--max-lead {:?}", self.max_lead),
            false => format!(
                "--max-lead {:?} and the --state reserve of {:?}",
                self.max_lead, self.ahead
            ),
        }
    }

    /// The epoch is past, and the layout holds now and the lead after it.
    fn check_now(&self, now: u64) -> Result<(), Error> {
        let now = u128::from(now);
        if self.epoch > now {
            return Err(Error::Config(format!(
                "--epoch-ms {} is in the future (now is Unix ms {})",
                self.epoch / NS_PER_MS,
                now / NS_PER_MS
            )));
        }
        if now >= self.last {
            return Err(Error::Config(format!(
                "the 64-bit layout {} ends at Unix ms {}, before now (Unix ms {})",
                self.flags(),
                self.last / NS_PER_MS,
                now / NS_PER_MS
            )));
        }
        if now + self.reach >= self.last {
            return Err(Error::Config(format!(
                "{} from now passes the end of the 64-bit layout {} at Unix ms {}",
                self.lead(),
                self.flags(),
                self.last / NS_PER_MS
            )));
        }
        Ok(())
    }

    /// `-t`: a plausible Unix ms time that both clocks can start after,
    /// at most [`MAX_T_AHEAD`] past `now`. Returns it in Unix ns.
    fn check_t(&self, t: SystemTime, now: u64) -> Result<u64, Error> {
        let ns = unix_nanos(t);
        let why = if ns < MIN_T_NS {
            Some(format!(
                "is before Unix ms {} (2001): seconds, not milliseconds?",
                MIN_T_NS / 1_000_000
            ))
        } else if ns > now.saturating_add(guid::nanos(MAX_T_AHEAD)) {
            Some(format!(
                "is more than {MAX_T_AHEAD:?} ahead of now (Unix ms {}): microseconds, not milliseconds? The server would issue no id until then",
                now / 1_000_000
            ))
        } else {
            self.why_not_after(ns)
        };
        why.map_or(Ok(ns), |why| {
            let ms = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
            Err(Error::Config(format!(
                "-t {ms} {why}; -t takes Unix milliseconds"
            )))
        })
    }

    /// The state file's horizon: both clocks can start after it.
    fn check_state(&self, path: &Path, ns: u64) -> Result<u64, Error> {
        self.why_not_after(ns).map_or(Ok(ns), |why| {
            Err(Error::State {
                path: path.to_owned(),
                why: format!("horizon {ns} (Unix ns) {why}"),
            })
        })
    }

    /// Why the clocks cannot start after Unix ns `ns`, if they cannot.
    fn why_not_after(&self, ns: u64) -> Option<String> {
        let t = UNIX_EPOCH + Duration::from_nanos(ns);
        if guid::Clock::builder().not_before(t).is_err() {
            return Some("is past the last tick of 96-bit ids (the year 2554)".into());
        }
        if u128::from(ns) + self.reach >= self.last {
            return Some(format!(
                "leaves no room for {} before the end of the 64-bit layout {} at Unix ms {}",
                self.lead(),
                self.flags(),
                self.last / NS_PER_MS
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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
