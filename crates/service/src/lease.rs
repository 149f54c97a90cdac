//! The 64-bit node id leased from etcd: acquired at start, watched while
//! serving, acquired again in the background when lost, released on
//! shutdown. Ids come from the lease's own clock, so the service fences
//! them as the library does: the horizon is moved as ids near it, and a
//! reply waits for it rather than being refused.

use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant};

use etcd_client::{Client, ConnectOptions};
use guid::flake::{self, Layout};
use kguid_etcd::{Error as LeaseError, LeasedFlakeClock, NodeLease};
use tokio::sync::watch;

use crate::error::Error;
use crate::log::{Log, Recurring};
use crate::server::{Flake, Refused, Shared};

/// Where and how the 64-bit node id is leased.
#[derive(Clone, Debug)]
pub struct EtcdLease {
    /// etcd client URLs, e.g. `http://127.0.0.1:2379`.
    pub endpoints: Vec<String>,
    /// Key prefix shared by the servers that must get distinct node ids.
    pub prefix: String,
    /// Lease TTL: how long after a crash the node id stays taken, and how
    /// long etcd may be unreachable before ids stop.
    pub ttl: Duration,
}

/// The 64-bit clock: a plain one, or the clock of a lease (with the lease,
/// kept until the clock goes). Reads reach the clock inside.
pub(crate) enum FlakeClock {
    Plain(flake::Clock),
    Leased {
        clock: LeasedFlakeClock,
        lease: Arc<NodeLease>,
    },
}

impl FlakeClock {
    /// A clock from `builder`, the lease's when there is one: started
    /// after its horizon, with the horizon moved past the start.
    pub(crate) async fn new(
        builder: flake::Builder,
        lease: Option<&Arc<NodeLease>>,
    ) -> Result<FlakeClock, Error> {
        let Some(lease) = lease else {
            return Ok(FlakeClock::Plain(builder.build()?));
        };
        match FlakeClock::leased(Arc::clone(lease), builder).await {
            Ok(clock) => Ok(clock),
            Err(LeaseError::Id(e)) => Err(Error::Clock(e)),
            Err(e) => Err(Error::Config(format!(
                "a clock for node {} leased from etcd: {e}",
                lease.node()
            ))),
        }
    }

    async fn leased(lease: Arc<NodeLease>, builder: flake::Builder) -> kguid_etcd::Result<Self> {
        let clock = lease.flake_clock(builder).await?;
        Ok(FlakeClock::Leased { clock, lease })
    }

    /// Fills `ids`, if the lease (when there is one) holds.
    #[inline]
    pub(crate) fn fill(&self, ids: &mut [u64]) -> kguid_etcd::Result<()> {
        match self {
            FlakeClock::Plain(clock) => Ok(clock.fill(ids)?),
            FlakeClock::Leased { clock, .. } => clock.fill(ids),
        }
    }

    /// How long to wait before a fill of `n`: for the source, or for the
    /// next horizon to be stored in etcd.
    #[inline]
    pub(crate) fn pace(&self, n: usize) -> Duration {
        match self {
            FlakeClock::Plain(clock) => clock.pace(n),
            FlakeClock::Leased { clock, .. } => clock.pace(n),
        }
    }

    pub(crate) fn lease(&self) -> Option<&Arc<NodeLease>> {
        match self {
            FlakeClock::Plain(_) => None,
            FlakeClock::Leased { lease, .. } => Some(lease),
        }
    }
}

impl Deref for FlakeClock {
    type Target = flake::Clock;

    fn deref(&self) -> &flake::Clock {
        match self {
            FlakeClock::Plain(clock) => clock,
            FlakeClock::Leased { clock, .. } => clock.clock(),
        }
    }
}

impl From<LeaseError> for Refused {
    fn from(e: LeaseError) -> Refused {
        match e {
            LeaseError::Id(_) => Refused::Clock,
            _ => Refused::Lease,
        }
    }
}

/// How often the lease is looked at while serving.
const WATCH: Duration = Duration::from_millis(100);

/// Bounds of the wait between attempts to acquire a lost lease again.
const RETRY_MIN: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(5);

/// Connects to etcd and leases a node id in `0..=layout.max_node()`.
pub(crate) async fn acquire(
    settings: &EtcdLease,
    layout: Layout,
    log: Log,
) -> Result<(Client, Arc<NodeLease>), Error> {
    if settings.endpoints.is_empty() {
        return Err(Error::Config("no etcd endpoint given".into()));
    }
    let fail = |e: &dyn std::fmt::Display| {
        Error::Config(format!(
            "lease a node id from etcd at {}: {e}",
            settings.endpoints.join(",")
        ))
    };
    let limit = settings.ttl.max(Duration::from_secs(1));
    let options = ConnectOptions::new()
        .with_connect_timeout(limit)
        .with_timeout(limit);
    let client = match tokio::time::timeout(
        limit,
        Client::connect(settings.endpoints.clone(), Some(options)),
    )
    .await
    {
        Ok(Ok(client)) => client,
        Ok(Err(e)) => return Err(fail(&e)),
        Err(_) => return Err(fail(&"connect timed out")),
    };
    let lease = lease(&client, settings, layout)
        .await
        .map_err(|e| fail(&e))?;
    log_leased(log, settings, &lease);
    Ok((client, Arc::new(lease)))
}

async fn lease(
    client: &Client,
    settings: &EtcdLease,
    layout: Layout,
) -> Result<NodeLease, LeaseError> {
    let last = u32::try_from(layout.max_node()).unwrap_or(u32::MAX);
    NodeLease::acquire(client.clone(), &settings.prefix, 0..=last, settings.ttl).await
}

fn log_leased(log: Log, settings: &EtcdLease, lease: &NodeLease) {
    log.line(format_args!(
        "node {} leased from etcd under {} (ttl {:?}); 64-bit ids start after Unix ns {}",
        lease.node(),
        settings.prefix,
        lease.ttl(),
        crate::server::unix_nanos(lease.not_before()),
    ));
}

/// Watches the lease until `stop`: logs once when ids stop and when they
/// resume, and when the lease is lost, acquires a node id again and puts a
/// clock with it in place of the old one (`template` with the new node id,
/// starting after both the old clock and the new lease's horizon).
pub(crate) async fn keep(
    shared: Arc<Shared>,
    client: Client,
    settings: EtcdLease,
    template: flake::Builder,
    mut stop: watch::Receiver<bool>,
) {
    let log = shared.log;
    let mut refusing = false;
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            () = tokio::time::sleep(WATCH) => {}
        }
        let flake = shared.flake();
        let Some(lease) = flake.clock.lease() else {
            return;
        };
        match lease.check() {
            Ok(()) => {
                if refusing {
                    log.line(format_args!(
                        "lease of node {} confirmed again: serving 64-bit ids",
                        lease.node()
                    ));
                    refusing = false;
                }
            }
            Err(LeaseError::Expired) => {
                if !refusing {
                    log.line(format_args!(
                        "lease of node {} not confirmed by etcd: refusing 64-bit ids until it is",
                        lease.node()
                    ));
                    refusing = true;
                }
            }
            Err(e) => {
                log.line(format_args!(
                    "lease of node {} ended ({e}): refusing 64-bit ids, acquiring a node id again",
                    lease.node()
                ));
                let Some(next) =
                    reacquire(&shared, &client, &settings, &template, &flake, &mut stop).await
                else {
                    return;
                };
                *shared.flake.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(next);
                refusing = false;
            }
        }
    }
}

/// Acquires a lease and builds its clock, retrying with a bounded back-off
/// until it works; `None` on `stop`.
async fn reacquire(
    shared: &Shared,
    client: &Client,
    settings: &EtcdLease,
    template: &flake::Builder,
    old: &Flake,
    stop: &mut watch::Receiver<bool>,
) -> Option<Flake> {
    let log = shared.log;
    let layout = old.clock.layout();
    let mut failures = 0u64;
    let mut reported = Recurring::default();
    let mut wait = Duration::ZERO;
    loop {
        tokio::select! {
            _ = stop.changed() => return None,
            () = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).clamp(RETRY_MIN, RETRY_MAX);
        let lease = match lease(client, settings, layout).await {
            Ok(lease) => lease,
            Err(e) => {
                failures += 1;
                if reported.due(&failures, Instant::now()).is_some() {
                    log.line(format_args!(
                        "acquiring a node id failed ({failures} times so far): {e}"
                    ));
                }
                continue;
            }
        };
        let (node, lease) = (lease.node(), Arc::new(lease));
        let builder = template.clone().not_before(old.clock.last_time());
        match FlakeClock::leased(Arc::clone(&lease), builder).await {
            Ok(clock) => {
                log_leased(log, settings, &lease);
                return Some(Flake { clock });
            }
            Err(e) => {
                log.line(format_args!("no clock for node {node}: {e}"));
                if let Ok(lease) = Arc::try_unwrap(lease) {
                    if let Err(e) = lease.release().await {
                        log.line(format_args!("releasing the lease failed: {e}"));
                    }
                }
            }
        }
    }
}

/// Revokes the lease once nothing else holds it, so that the node id is
/// free at once; otherwise etcd expires it after its TTL.
pub(crate) async fn release(shared: Arc<Shared>) {
    let log = shared.log;
    let Ok(shared) = Arc::try_unwrap(shared) else {
        return log.line(format_args!("lease still in use: left to expire"));
    };
    let flake = shared.flake.into_inner().unwrap_or_else(|e| e.into_inner());
    let lease = match Arc::try_unwrap(flake).map(|f| f.clock) {
        Ok(FlakeClock::Leased { clock, lease }) => {
            drop(clock);
            Arc::try_unwrap(lease).ok()
        }
        _ => None,
    };
    let Some(lease) = lease else {
        return log.line(format_args!("lease still in use: left to expire"));
    };
    let node = lease.node();
    match lease.release().await {
        Ok(()) => log.line(format_args!("lease of node {node} released")),
        Err(e) => log.line(format_args!(
            "releasing the lease of node {node} failed ({e}): etcd expires it after its ttl"
        )),
    }
}
