//! What every connection shares: the clocks, the horizon, the token, the
//! gate of seats and the counts, and the [`Report`] made from them.

use std::io;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use guid::flake;
use guid::{Guid, Health, TimeSource};

use crate::clock::FlakeClock;
use crate::config::Config;
use crate::gate::Gate;
use crate::horizon::Horizon;
use crate::log::Log;

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
    pub(crate) flake: RwLock<Arc<FlakeClock>>,
    pub(crate) global: guid::Clock,
    /// The time of the last 96-bit id (Unix ns), for the horizon.
    global_last: AtomicU64,
    /// The time of the last 64-bit id issued (Unix ns): unlike the clock's
    /// own last time, never a bound no id was issued at.
    flake_last: AtomicU64,
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

impl Shared {
    /// The state of a server with `config`, its clocks and its horizon;
    /// no id is issued at or before `not_before` (Unix ns).
    pub(crate) fn new(
        config: &Config,
        flake: FlakeClock,
        global: guid::Clock,
        horizon: Option<Arc<Horizon>>,
        time: Arc<dyn TimeSource>,
        not_before: Option<u64>,
    ) -> Shared {
        let token = config.token.clone().filter(|t| !t.is_empty());
        Shared {
            flake: RwLock::new(Arc::new(flake)),
            global,
            global_last: AtomicU64::new(not_before.unwrap_or(0)),
            flake_last: AtomicU64::new(not_before.unwrap_or(0)),
            token: token.map(Vec::into_boxed_slice),
            auth_timeout: config.auth_timeout,
            gate: Arc::new(Gate::new(config.max_conns, config.max_unauthed)),
            idle: config.idle_timeout.filter(|d| !d.is_zero()),
            horizon,
            time,
            counts: Counts::default(),
            log: Log {
                enabled: config.log,
            },
        }
    }

    /// The current 64-bit clock.
    pub(crate) fn flake(&self) -> Arc<FlakeClock> {
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
            Kind::Flake => guid::unix_nanos(self.flake().last_time()),
            Kind::Global => self.global_last.load(Relaxed),
        }
    }

    /// The time of the last id issued of either kind (or of the start
    /// bound), Unix ns: what the horizon must cover, and nothing else.
    pub(crate) fn issued(&self) -> u64 {
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
        let t = guid::unix_nanos(clock.last_time());
        // It moves once per unit: skip the locked write for every other reply.
        if t > self.flake_last.load(Relaxed) {
            self.flake_last.fetch_max(t, Relaxed);
        }
    }

    /// What the connections did, with the server's own counts.
    pub(crate) fn report(&self, connections: u64, accept_errors: u64) -> Report {
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
            health: self.flake().health(),
            global_health: self.global.health(),
        }
    }
}
