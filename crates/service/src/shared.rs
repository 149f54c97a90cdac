//! What every connection shares: the clocks, the horizon, the token, the
//! gate of seats and the counts, and the [`Report`] made from them.

use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use guid::{Health, TimeSource};

use crate::clock::FlakeClock;
use crate::config::ConnConfig;
use crate::gate::Gate;
use crate::horizon::Horizon;
use crate::issue::{CLOCKS, IdKind};
use crate::sno::SnoIds;

/// What a server did, returned when it stops.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Report {
    /// Connections accepted (those closed at the cap included).
    pub connections: u64,
    /// 64-bit ids sent (on connections cut short at shutdown too).
    pub ids: u64,
    /// 96-bit global ids sent (v2 or v3, on connections cut short at
    /// shutdown too).
    pub global_ids: u64,
    /// 128-bit v3 X ids (UUIDv8) sent on the binary listener.
    pub x_ids: u64,
    /// Ids of every kind sent over HTTP.
    pub http_ids: u64,
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
    /// The rare events of the v3 clock (v3 global, local and X ids).
    pub v3_health: Health,
}

/// Which listener a connection came on: what connections, requests and
/// ids are counted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listener {
    /// 64-bit flake ids, 8 bytes.
    Flake = 0,
    /// 96-bit global ids (v2, or v3 with [`IdConfig::v3`](crate::IdConfig::v3)), 12 bytes.
    Global = 1,
    /// v3's 128-bit X ids (UUIDv8), 16 bytes.
    X = 2,
    /// Every kind, as text over HTTP.
    Http = 3,
}

/// How many listeners there are.
pub(crate) const LISTENERS: usize = 4;

impl Listener {
    pub(crate) const ALL: [Listener; LISTENERS] = [
        Listener::Flake,
        Listener::Global,
        Listener::X,
        Listener::Http,
    ];

    /// The ids it serves, with the 96-bit ones of v3 if `global_v3`;
    /// none for HTTP, whose requests name their kind.
    pub(crate) fn ids(self, global_v3: bool) -> Option<IdKind> {
        match self {
            Listener::Flake => Some(IdKind::Flake),
            Listener::Global => Some(IdKind::Global { v3: global_v3 }),
            Listener::X => Some(IdKind::X),
            Listener::Http => None,
        }
    }

    /// Its name in metrics and logs.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Listener::Flake => "flake",
            Listener::Global => "global",
            Listener::X => "x",
            Listener::Http => "http",
        }
    }
}

/// Why the server closed a connection (or the client did).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Closed {
    /// The client closed or sent `N = 0`.
    Client = 0,
    /// The socket failed.
    Io,
    /// The connection cap: at accept, or when it authenticated.
    Cap,
    /// A missing or wrong token, none within the auth timeout, or room made
    /// in the full line of connections authenticating.
    Auth,
    Idle,
    /// An id could not be made or the horizon saved.
    Fault,
    /// The leased node id was not confirmed.
    Lease,
    Shutdown,
    /// Accepted while the server could not serve yet (leasing its node
    /// id, waiting out the ids of its previous run): told to go elsewhere
    /// at once rather than kept waiting.
    Starting,
    /// Closed to make room for a new connection at the cap: the one idle
    /// longest.
    Evicted,
    /// A reply the client did not take within the answer timeout.
    Unread,
}

impl Closed {
    pub(crate) const ALL: [Closed; 11] = [
        Closed::Client,
        Closed::Io,
        Closed::Cap,
        Closed::Auth,
        Closed::Idle,
        Closed::Fault,
        Closed::Lease,
        Closed::Shutdown,
        Closed::Starting,
        Closed::Evicted,
        Closed::Unread,
    ];

    /// Its name in metrics.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Closed::Client => "client",
            Closed::Io => "io",
            Closed::Cap => "cap",
            Closed::Auth => "auth",
            Closed::Idle => "idle",
            Closed::Fault => "fault",
            Closed::Lease => "lease",
            Closed::Shutdown => "shutdown",
            Closed::Starting => "starting",
            Closed::Evicted => "evicted",
            Closed::Unread => "unread",
        }
    }
}

/// Why a connection failed to authenticate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AuthFailure {
    /// A wrong token, or a request before the auth frame.
    Token = 0,
    /// No whole auth frame within the auth timeout.
    Timeout,
    /// Closed to make room in the full line of connections authenticating.
    Evicted,
}

impl AuthFailure {
    pub(crate) const ALL: [AuthFailure; 3] = [
        AuthFailure::Token,
        AuthFailure::Timeout,
        AuthFailure::Evicted,
    ];

    /// Its name in metrics.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AuthFailure::Token => "token",
            AuthFailure::Timeout => "timeout",
            AuthFailure::Evicted => "evicted",
        }
    }
}

/// Counters the connections and the accept loop add to, read by reports,
/// log lines and metrics. Each is a plain relaxed atomic: the id path
/// takes no lock to count.
#[derive(Default)]
pub(crate) struct Counts {
    /// Ids sent, by [`Listener`].
    pub(crate) ids: [AtomicU64; LISTENERS],
    /// Requests answered, by [`Listener`].
    pub(crate) requests: [AtomicU64; LISTENERS],
    /// Connections accepted, by [`Listener`].
    pub(crate) accepted: [AtomicU64; LISTENERS],
    /// Connections open now (served or authenticating), by [`Listener`].
    pub(crate) open: [AtomicU64; LISTENERS],
    /// Connections closed, by [`Closed`].
    pub(crate) closed: [AtomicU64; Closed::ALL.len()],
    /// Failed authentications, by [`AuthFailure`].
    pub(crate) auth_failures: [AtomicU64; AuthFailure::ALL.len()],
    /// Failed accepts.
    pub(crate) accept_errors: AtomicU64,
}

impl Counts {
    pub(crate) fn close(&self, why: Closed) {
        self.closed[why as usize].fetch_add(1, Relaxed);
    }

    /// Counts connections to the binary listeners, by [`Listener`], closed at
    /// once while the server could not serve yet.
    pub(crate) fn turned_away(&self, by_kind: [u64; 3]) {
        for (accepted, n) in self.accepted.iter().zip(by_kind) {
            accepted.fetch_add(n, Relaxed);
            self.closed[Closed::Starting as usize].fetch_add(n, Relaxed);
        }
    }

    pub(crate) fn closed(&self, why: Closed) -> u64 {
        self.closed[why as usize].load(Relaxed)
    }

    pub(crate) fn auth_failed(&self, why: AuthFailure) {
        self.auth_failures[why as usize].fetch_add(1, Relaxed);
    }

    /// Failed authentications of every cause.
    pub(crate) fn auth_failures(&self) -> u64 {
        self.auth_failures.iter().map(|c| c.load(Relaxed)).sum()
    }
}

/// Where the server is in its life, for readiness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Built, not accepting yet.
    Starting = 0,
    Serving,
    /// Shutdown began: no more accepts.
    Stopping,
}

/// What every connection shares.
pub(crate) struct Shared {
    /// The 64-bit clock; replaced only when a lost lease is acquired again.
    pub(crate) flake: RwLock<Arc<FlakeClock>>,
    pub(crate) global: guid::Clock,
    pub(crate) v3: guid::v3::Clock,
    /// The sno ids of `GET /ids?kind=sno`, or why there are none.
    pub(crate) sno: SnoIds,
    /// Whether the 96-bit listener serves v3's global ids.
    pub(crate) global_v3: bool,
    /// The time of the last id of each clock (Unix ns, by
    /// [`IdKind::clock`]), for the horizon: unlike a clock's own last
    /// time, never a bound no id was issued at.
    pub(crate) last: [AtomicU64; CLOCKS],
    pub(crate) token: Option<Box<[u8]>>,
    /// Deadline of the whole auth frame, from accept.
    pub(crate) auth_timeout: Duration,
    pub(crate) gate: Arc<Gate>,
    pub(crate) idle: Option<Duration>,
    pub(crate) horizon: Option<Arc<Horizon>>,
    /// The time source, not capped by the horizon.
    pub(crate) time: Arc<dyn TimeSource>,
    pub(crate) counts: Counts,
    /// The rare events of 64-bit clocks replaced since the start (a lost
    /// lease), so that the health of the 64-bit ids only grows.
    retired: Mutex<Health>,
    phase: AtomicU8,
    /// Requests making ids over HTTP now, on a thread apart: shutdown
    /// waits for them before it saves the state.
    http_turns: AtomicUsize,
    /// While starting: the Unix ns the server waits for before its first
    /// id (0: not waiting).
    waiting_until: AtomicU64,
}

impl Shared {
    /// The state of a server serving `conns`, with its clocks (the 96-bit
    /// listener serving v3's if `global_v3`) and its horizon; no id is
    /// issued at or before `not_before` (Unix ns).
    pub(crate) fn new(
        conns: &ConnConfig,
        flake: FlakeClock,
        (global, v3, sno): (guid::Clock, guid::v3::Clock, SnoIds),
        global_v3: bool,
        horizon: Option<Arc<Horizon>>,
        time: Arc<dyn TimeSource>,
        not_before: Option<u64>,
    ) -> Shared {
        Shared {
            flake: RwLock::new(Arc::new(flake)),
            global,
            v3,
            sno,
            global_v3,
            last: [(); CLOCKS].map(|()| AtomicU64::new(not_before.unwrap_or(0))),
            token: conns.token().map(Box::from),
            auth_timeout: conns.auth_timeout,
            gate: Arc::new(Gate::new(conns.max_conns, conns.max_unauthed)),
            idle: conns.idle_timeout.filter(|d| !d.is_zero()),
            horizon,
            time,
            counts: Counts::default(),
            retired: Mutex::new(Health::default()),
            phase: AtomicU8::new(Phase::Starting as u8),
            http_turns: AtomicUsize::new(0),
            waiting_until: AtomicU64::new(0),
        }
    }

    /// The current 64-bit clock.
    pub(crate) fn flake(&self) -> Arc<FlakeClock> {
        Arc::clone(&self.flake.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Puts `next` in place of the 64-bit clock (connections open keep
    /// the one they started with); the old clock's health is kept.
    #[cfg(feature = "lease")]
    pub(crate) fn replace_flake(&self, next: FlakeClock) {
        let old = std::mem::replace(
            &mut *self.flake.write().unwrap_or_else(|e| e.into_inner()),
            Arc::new(next),
        );
        let mut retired = self.retired.lock().unwrap_or_else(|e| e.into_inner());
        *retired = add(&retired, &old.health());
    }

    /// The rare events of the 64-bit clocks since the start.
    pub(crate) fn flake_health(&self) -> Health {
        let retired = *self.retired.lock().unwrap_or_else(|e| e.into_inner());
        add(&retired, &self.flake().health())
    }

    /// Where the server is in its life.
    pub(crate) fn phase(&self) -> Phase {
        match self.phase.load(SeqCst) {
            0 => Phase::Starting,
            1 => Phase::Serving,
            _ => Phase::Stopping,
        }
    }

    /// Moves the server on in its life. Sequentially consistent with
    /// [`Shared::turn`]: once stopping is set, a request that did not see
    /// it is counted in flight.
    pub(crate) fn set_phase(&self, phase: Phase) {
        self.phase.store(phase as u8, SeqCst);
    }

    /// A turn to make ids off the event loop while serving, held while
    /// they are made; `None` once shutdown began.
    pub(crate) fn turn(&self) -> Option<Turn<'_>> {
        self.http_turns.fetch_add(1, SeqCst);
        let turn = Turn(self);
        (self.phase() == Phase::Serving).then_some(turn)
    }

    /// Waits until no turn is held, for at most `grace`: `false` if one
    /// still is then.
    pub(crate) async fn turns_done(&self, grace: Duration) -> bool {
        let end = tokio::time::Instant::now() + grace;
        while self.http_turns.load(SeqCst) > 0 {
            if tokio::time::Instant::now() >= end {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        true
    }

    /// The rare events of a clock.
    pub(crate) fn health(&self, kind: IdKind) -> Health {
        match kind.clock() {
            0 => self.flake_health(),
            1 => self.global.health(),
            _ => self.v3.health(),
        }
    }

    /// Records that the server waits for Unix ns `until` before serving.
    pub(crate) fn wait_until(&self, until: u64) {
        self.waiting_until.store(until, Relaxed);
    }

    /// Why the server is not serving yet: its start wait, if any.
    pub(crate) fn starting(&self) -> String {
        match self.waiting_until.load(Relaxed) {
            0 => "starting: not accepting yet".into(),
            until => {
                let left = Duration::from_nanos(until.saturating_sub(self.time.now()));
                format!(
                    "starting: waiting {left:?} more, until Unix ns {until}, so that no id repeats one issued before the restart"
                )
            }
        }
    }

    /// How long until ids are handed out, as far as the server knows:
    /// the start's wait, or a new lease's quiet; zero when it cannot tell.
    pub(crate) fn unavailable_for(&self) -> Duration {
        let starting = match (self.phase(), self.waiting_until.load(Relaxed)) {
            (Phase::Starting, until) if until > 0 => {
                Duration::from_nanos(until.saturating_sub(self.time.now()))
            }
            _ => Duration::ZERO,
        };
        #[cfg(feature = "lease")]
        if let Some(Err(kguid_lease::Error::Unfenced { left })) =
            self.flake().lease().map(|l| l.check())
        {
            return starting.max(left);
        }
        starting
    }

    /// What the server did so far.
    pub(crate) fn report(&self) -> Report {
        let c = &self.counts;
        let all = |a: &[AtomicU64; LISTENERS]| a.iter().map(|n| n.load(Relaxed)).sum();
        let ids = |l: Listener| c.ids[l as usize].load(Relaxed);
        Report {
            connections: all(&c.accepted),
            ids: ids(Listener::Flake),
            global_ids: ids(Listener::Global),
            x_ids: ids(Listener::X),
            http_ids: ids(Listener::Http),
            requests: all(&c.requests),
            rejected: c.closed(Closed::Cap),
            auth_failures: c.auth_failures(),
            idle_closed: c.closed(Closed::Idle),
            accept_errors: c.accept_errors.load(Relaxed),
            faults: c.closed(Closed::Fault),
            health: self.flake_health(),
            global_health: self.global.health(),
            v3_health: self.v3.health(),
        }
    }
}

/// A request's turn to make ids (see [`Shared::turn`]).
pub(crate) struct Turn<'a>(&'a Shared);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.0.http_turns.fetch_sub(1, SeqCst);
    }
}

/// The events of two clocks, or of one clock's two lives: counts added,
/// the largest of the largest.
fn add(a: &Health, b: &Health) -> Health {
    Health {
        steps_back: a.steps_back + b.steps_back,
        max_step_back: a.max_step_back.max(b.max_step_back),
        borrowed: a.borrowed + b.borrowed,
        max_lead: a.max_lead.max(b.max_lead),
        waits: a.waits + b.waits,
    }
}
