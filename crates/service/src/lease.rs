//! The 64-bit node id leased from a store (`--etcd`, `--redis`): acquired
//! at start, watched while serving, acquired again in the background when
//! lost, released on shutdown. Ids come from the lease's own clock, so the
//! service fences them as the library does: the horizon is moved as ids
//! near it, and a reply waits for it rather than being refused.
//!
//! The server meets the lease in three places: [`clock`] before it
//! serves, [`Lease::keep`] once the connections share the clock, and
//! [`Keeper::release`] after they are done. Everything past the store's
//! constructors ([`etcd`], [`redis`]) works on any [`Store`](kguid_lease::Store),
//! behind an [`AnyStore`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use guid::flake::{self, Layout};
use kguid_lease::{AnyStore, Error as LeaseError, NodeLease, Options, WhenFull};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{error, info, warn};

use crate::clock::FlakeClock;
use crate::config::{LeaseConfig, LeaseStore};
use crate::error::Error;
use crate::log::Recurring;
use crate::shared::Shared;

/// Where node ids are leased: a store, and what the leases there are.
#[derive(Clone)]
struct Source {
    store: AnyStore,
    /// Names the store in logs: `etcd` or `redis`.
    name: &'static str,
    /// Where the store is, for errors: its endpoints or URL.
    at: String,
    /// The key prefix shared by the servers that must get distinct node ids.
    prefix: String,
    ttl: Duration,
    /// What an acquire does when no node id is free.
    when_full: WhenFull,
}

/// A node id leased from a store, with what it takes to lease one again.
pub(crate) struct Lease {
    source: Source,
    /// The clock's builder without the node and horizon of a lease: what
    /// a new lease's clock is built from.
    template: flake::Builder,
}

/// The task that keeps the lease while the server serves.
pub(crate) struct Keeper(JoinHandle<()>);

/// The 64-bit clock of `builder` (for `layout`); with `settings`, the
/// clock of a node id leased now: started after its horizon, with the
/// horizon moved past the start.
/// Once leased, `first_id` is set to when the first id is expected (Unix
/// ns): after the node id's quiet, or when the wall clock reaches its
/// fence.
pub(crate) async fn clock(
    settings: Option<&LeaseConfig>,
    layout: Layout,
    builder: flake::Builder,
    first_id: &AtomicU64,
) -> Result<(FlakeClock, Option<Lease>), Error> {
    let Some(settings) = settings else {
        return Ok((FlakeClock::Plain(builder.build()?), None));
    };
    let source = match &settings.store {
        #[cfg(feature = "etcd")]
        LeaseStore::Etcd { endpoints } => etcd(endpoints, settings).await?,
        #[cfg(feature = "redis")]
        LeaseStore::Redis { url } => redis(url, settings)?,
        #[cfg(feature = "hazelcast")]
        LeaseStore::Hazelcast {
            members,
            cluster,
            credentials,
        } => hazelcast(members, cluster, credentials.clone(), settings).await?,
        // Refused by the start's checks before this is reached.
        #[allow(unreachable_patterns)]
        other => {
            return Err(Error::Config(format!(
                "--{0} needs the `{0}` feature",
                other.name()
            )));
        }
    };
    leased_clock(source, layout, builder, first_id).await
}

/// etcd's store, at `endpoints`, once one answers.
#[cfg(feature = "etcd")]
async fn etcd(endpoints: &[String], settings: &LeaseConfig) -> Result<Source, Error> {
    use kguid_etcd::{Client, ConnectOptions};

    if endpoints.is_empty() {
        return Err(Error::Config("no etcd endpoint given".into()));
    }
    let at = endpoints.join(",");
    let fail = |e: &dyn std::fmt::Display| {
        Error::Config(format!("lease a node id from etcd at {at}: {e}"))
    };
    let limit = settings.ttl.max(Duration::from_secs(1));
    let options = ConnectOptions::new()
        .with_connect_timeout(limit)
        .with_timeout(limit);
    let client = match tokio::time::timeout(limit, Client::connect(endpoints, Some(options))).await
    {
        Ok(Ok(client)) => client,
        Ok(Err(e)) => return Err(fail(&e)),
        Err(_) => return Err(fail(&"connect timed out")),
    };
    Ok(Source {
        store: AnyStore::new(client),
        name: "etcd",
        at,
        prefix: settings.prefix.clone(),
        ttl: settings.ttl,
        when_full: WhenFull::Fail,
    })
}

/// Redis's store at `url` (it connects on first use, within the TTL).
#[cfg(feature = "redis")]
fn redis(url: &str, settings: &LeaseConfig) -> Result<Source, Error> {
    let limit = settings.ttl.max(Duration::from_secs(1));
    let store = kguid_redis::RedisStore::open(url)
        .map_err(|e| Error::Config(format!("--redis {url}: {e}")))?
        .timeout(limit);
    Ok(Source {
        store: AnyStore::new(store),
        name: "redis",
        at: url.to_owned(),
        prefix: settings.prefix.clone(),
        ttl: settings.ttl,
        // A Redis that started (or lost its keys) less than its grace, two
        // TTLs, ago answers "full" until a holder it forgot must have
        // stopped: wait that out, and a TTL for a holder's release.
        when_full: WhenFull::Wait(settings.ttl * 3 + Duration::from_secs(1)),
    })
}

/// A Hazelcast cluster's store, through `members`, once one of them has
/// taken this client: a wrong address, cluster name or credentials fail
/// the start.
#[cfg(feature = "hazelcast")]
async fn hazelcast(
    members: &[String],
    cluster: &str,
    credentials: Option<(String, String)>,
    settings: &LeaseConfig,
) -> Result<Source, Error> {
    use kguid_hazelcast::{Client, Config, HazelcastStore};

    let at = members.join(",");
    let fail = |e: &dyn std::fmt::Display| {
        Error::Config(format!(
            "lease a node id from Hazelcast cluster {cluster} at {at}: {e}"
        ))
    };
    let mut config = Config::new(members.iter().cloned());
    config.cluster = cluster.to_owned();
    config.credentials = credentials;
    config.timeout = settings.ttl.max(Duration::from_secs(1)) / 2;
    let client = Client::new(config).map_err(|e| fail(&e))?;
    client.connect().await.map_err(|e| fail(&e))?;
    Ok(Source {
        store: AnyStore::new(HazelcastStore::new(client)),
        name: "hazelcast",
        at,
        prefix: settings.prefix.clone(),
        ttl: settings.ttl,
        // A holder that crashed keeps its claim for a TTL: a server
        // restarted in its place may find the range full until then.
        when_full: WhenFull::Wait(settings.ttl + Duration::from_secs(1)),
    })
}

/// The clock of a node id leased from `source` now. A lease that ends
/// before its first id (its claim expired or taken while it waited out a
/// quiet, or not confirmed in time) is followed by another, as while
/// serving; a store that grants none fails the start.
async fn leased_clock(
    source: Source,
    layout: Layout,
    builder: flake::Builder,
    first_id: &AtomicU64,
) -> Result<(FlakeClock, Option<Lease>), Error> {
    loop {
        let lease = acquire(&source, layout).await?;
        first_id.store(guid::unix_nanos(lease.not_before()), Relaxed);
        match leased(Arc::clone(&lease), builder.clone()).await {
            Ok(clock) => {
                let lease = Lease {
                    source,
                    template: builder,
                };
                return Ok((clock, Some(lease)));
            }
            Err(LeaseError::Id(e)) => return Err(Error::Clock(e)),
            // The store's doing, passing: lease again.
            Err(e @ (LeaseError::Lost | LeaseError::Expired | LeaseError::Timeout)) => {
                let node = lease.node();
                warn!(
                    node,
                    error = %e,
                    "lease of node {node} ended before its first id ({e}): acquiring a node id again"
                );
                let_go(lease).await;
                tokio::time::sleep(RETRY_MIN).await;
            }
            Err(e) => {
                return Err(Error::Config(format!(
                    "a clock for node {} leased from {}: {e}",
                    lease.node(),
                    source.name
                )));
            }
        }
    }
}

/// Releases a lease whose clock could not be built, if nothing else holds
/// it; else the store expires it after its TTL.
async fn let_go(lease: Arc<NodeLease>) {
    let node = lease.node();
    if let Ok(lease) = Arc::try_unwrap(lease)
        && let Err(e) = lease.release().await
    {
        warn!(node, error = %e, "releasing the lease failed: {e}");
    }
}

async fn leased(lease: Arc<NodeLease>, builder: flake::Builder) -> kguid_lease::Result<FlakeClock> {
    let clock = lease.flake_clock(builder).await?;
    Ok(FlakeClock::Leased { clock, lease })
}

impl Lease {
    /// Watches the lease in the background until `stop` (see [`keep`]).
    pub(crate) fn keep(self, shared: Arc<Shared>, stop: watch::Receiver<bool>) -> Keeper {
        Keeper(tokio::spawn(keep(shared, self, stop)))
    }
}

impl Keeper {
    /// Stops watching, then releases the lease once nothing else holds
    /// `shared`, so that the node id is free at once; otherwise the store
    /// expires it after its TTL.
    pub(crate) async fn release(self, shared: Arc<Shared>) {
        self.0.abort();
        let _ = self.0.await;
        release(shared).await;
    }
}

/// How often the lease is looked at while serving.
const WATCH: Duration = Duration::from_millis(100);

/// Bounds of the wait between attempts to acquire a lost lease again.
const RETRY_MIN: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(5);

/// Leases a node id in `0..=layout.max_node()` from `source`.
async fn acquire(source: &Source, layout: Layout) -> Result<Arc<NodeLease>, Error> {
    let lease = lease(source, layout).await.map_err(|e| {
        Error::Config(format!(
            "lease a node id from {} at {}: {e}",
            source.name, source.at
        ))
    })?;
    log_leased(source, &lease);
    Ok(Arc::new(lease))
}

async fn lease(source: &Source, layout: Layout) -> Result<NodeLease, LeaseError> {
    let last = u32::try_from(layout.max_node()).unwrap_or(u32::MAX);
    let store = source.store.clone();
    Options::default()
        .when_full(source.when_full)
        .acquire(store, &source.prefix, 0..=last, source.ttl)
        .await
}

fn log_leased(source: &Source, lease: &NodeLease) {
    let (node, prefix, ttl) = (lease.node(), &source.prefix, lease.ttl());
    let store = source.name;
    let not_before = guid::unix_nanos(lease.not_before());
    info!(
        node,
        %prefix,
        ?ttl,
        not_before,
        "node {node} leased from {store} under {prefix} (ttl {ttl:?}); 64-bit ids start after Unix ns {not_before}"
    );
    if let Err(LeaseError::Unfenced { left }) = lease.check() {
        warn!(
            node,
            wait = ?left,
            "{store} holds no horizon for node {node} (never used, or lost with its data): 64-bit ids wait {left:?} for any holder it forgot to stop; clients are turned away meanwhile"
        );
    }
}

/// Watches the lease until `stop`: logs once when ids stop and when they
/// resume, and when the lease is lost, acquires a node id again and puts a
/// clock with it in place of the old one (the template with the new node
/// id, starting after both the old clock and the new lease's horizon).
async fn keep(shared: Arc<Shared>, held: Lease, mut stop: watch::Receiver<bool>) {
    let mut refusing = false;
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            () = tokio::time::sleep(WATCH) => {}
        }
        let flake = shared.flake();
        let Some(lease) = flake.lease() else {
            return;
        };
        let node = lease.node();
        match lease.check() {
            Ok(()) => {
                if refusing {
                    info!(
                        node,
                        "lease of node {node} confirmed again: serving 64-bit ids"
                    );
                    refusing = false;
                }
            }
            // A new holder waiting out its store's quiet, logged when
            // leased: refused until then, as while unconfirmed.
            Err(LeaseError::Unfenced { .. }) => {}
            Err(LeaseError::Expired) => {
                if !refusing {
                    let store = held.source.name;
                    warn!(
                        node,
                        "lease of node {node} not confirmed by {store}: refusing 64-bit ids until it is"
                    );
                    refusing = true;
                }
            }
            Err(e) => {
                error!(
                    node,
                    error = %e,
                    "lease of node {node} ended ({e}): refusing 64-bit ids, acquiring a node id again"
                );
                let Some(next) = reacquire(&held, &flake, &mut stop).await else {
                    return;
                };
                // Connections open keep the clock they started with.
                shared.replace_flake(next);
                refusing = false;
            }
        }
    }
}

/// Acquires a lease and builds its clock, retrying with a bounded back-off
/// until it works; `None` on `stop`.
async fn reacquire(
    held: &Lease,
    old: &FlakeClock,
    stop: &mut watch::Receiver<bool>,
) -> Option<FlakeClock> {
    let layout = old.layout();
    let mut failures = 0u64;
    let mut reported = Recurring::default();
    let mut wait = Duration::ZERO;
    loop {
        tokio::select! {
            _ = stop.changed() => return None,
            () = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).clamp(RETRY_MIN, RETRY_MAX);
        let lease = match lease(&held.source, layout).await {
            Ok(lease) => lease,
            Err(e) => {
                failures += 1;
                if reported.due(&failures, Instant::now()).is_some() {
                    warn!(
                        failures,
                        error = %e,
                        "acquiring a node id failed ({failures} times so far): {e}"
                    );
                }
                continue;
            }
        };
        let (node, lease) = (lease.node(), Arc::new(lease));
        // The old clock's last time has a later unit unless it used up its
        // layout: then the new one has no id to issue either.
        let clock = match held.template.clone().not_before(old.last_time()) {
            Ok(builder) => leased(Arc::clone(&lease), builder).await,
            Err(e) => Err(e.into()),
        };
        match clock {
            Ok(clock) => {
                log_leased(&held.source, &lease);
                return Some(clock);
            }
            Err(e) => {
                warn!(node, error = %e, "no clock for node {node}: {e}");
                let_go(lease).await;
            }
        }
    }
}

/// Releases the lease once nothing else holds it.
async fn release(shared: Arc<Shared>) {
    let Ok(shared) = Arc::try_unwrap(shared) else {
        return warn!("lease still in use: left to expire");
    };
    let flake = shared.flake.into_inner().unwrap_or_else(|e| e.into_inner());
    let held = match Arc::try_unwrap(flake) {
        Ok(FlakeClock::Leased { clock, lease }) => {
            // Every 64-bit id of this lease is at or before it.
            let last = clock.clock().last_time();
            drop(clock);
            Arc::try_unwrap(lease).ok().map(|lease| (lease, last))
        }
        _ => None,
    };
    let Some((lease, last)) = held else {
        return warn!("lease still in use: left to expire");
    };
    let node = lease.node();
    let at = guid::unix_nanos(last);
    match lease.release_after(last).await {
        Ok(()) => info!(
            node,
            horizon = at,
            "lease of node {node} released; its next holder starts after Unix ns {at}, the last id"
        ),
        Err(e) => warn!(
            node,
            error = %e,
            "releasing the lease of node {node} failed ({e}): the store expires it after its ttl"
        ),
    }
}
