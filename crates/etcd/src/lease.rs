//! A node id leased from etcd: claimed by a transaction, kept alive in the
//! background, fenced by a stored time horizon, given back by a revoke.

use std::fmt;
use std::future::Future;
use std::ops::RangeBounds;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use etcd_client::{
    Client, Compare, CompareOp, GetOptions, LeaseKeepAliveStream, LeaseKeeper, PutOptions, Txn,
    TxnOp, TxnOpResponse, TxnResponse, WatchFilterType, WatchOptions,
};
use guid::{TimeSource, WallClock, nanos};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::keys::{self, Keys};
use crate::options::{self, Options, Timing, WhenFull};
use crate::validity::Validity;

/// Claim attempts per acquire: each failed one means another process took
/// an id, so this bounds the loop under churn without limiting real use.
const MAX_ATTEMPTS: usize = 4096;

/// Fence write attempts per reservation: each failed one means an earlier
/// write of this holder, given up on here, reached etcd since.
const FENCE_ATTEMPTS: usize = 8;

/// A node id held through an etcd lease.
///
/// While it lives, a background task sends keep-alives and moves the
/// stored horizon ahead of the ids. Clocks made from it
/// ([`NodeLease::clock`]) check it before every id. Dropping it ends the
/// lease locally at once (its clocks stop) and lets etcd expire it after
/// the TTL, as a crash would; [`NodeLease::release`] revokes it at once.
pub struct NodeLease {
    holding: Holding,
    not_before: u64,
    task: JoinHandle<()>,
}

impl NodeLease {
    /// Claims the lowest free node id in `range` under `prefix`, bound to
    /// an etcd lease of `ttl` (rounded up to whole seconds; etcd may raise
    /// it to its minimum), with the default [`Options`].
    ///
    /// Must be called within a tokio runtime, which runs the keep-alive.
    pub async fn acquire(
        client: Client,
        prefix: &str,
        range: impl RangeBounds<u32>,
        ttl: Duration,
    ) -> Result<NodeLease> {
        Options::default().acquire(client, prefix, range, ttl).await
    }

    /// The leased node id.
    pub fn node(&self) -> u32 {
        self.holding.node
    }

    /// The horizon the previous holder of this node id left (the Unix
    /// epoch if there was none): ids made with this lease are later.
    pub fn not_before(&self) -> SystemTime {
        system_time(self.not_before)
    }

    /// The horizon stored now: no id of this lease carries a later time.
    pub fn horizon(&self) -> SystemTime {
        system_time(self.holding.validity.horizon())
    }

    /// The instant from which ids are held back unless a keep-alive gets
    /// through before it.
    pub fn valid_until(&self) -> Instant {
        self.holding.validity.deadline()
    }

    /// The TTL etcd granted.
    pub fn ttl(&self) -> Duration {
        self.holding.timing.ttl
    }

    /// The etcd lease id.
    pub fn lease_id(&self) -> i64 {
        self.holding.lease
    }

    /// Whether ids may be issued now: [`Error::Expired`] while keep-alives
    /// fail past the margin (it may recover), [`Error::Lost`] once the
    /// lease is gone.
    pub fn check(&self) -> Result<()> {
        self.holding.validity.check()
    }

    /// Revokes the lease: its clocks stop, and the node id is free for the
    /// next holder, which starts after this holder's horizon.
    ///
    /// In a forked child it fails with [`Error::Forked`] and leaves the
    /// parent's lease alone.
    pub async fn release(self) -> Result<()> {
        if self.holding.validity.forked() {
            return Err(Error::Forked);
        }
        self.holding.validity.release();
        self.task.abort();
        let mut client = self.holding.client.clone();
        timed(
            self.holding.timing.timeout,
            client.lease_revoke(self.holding.lease),
        )
        .await?;
        Ok(())
    }

    /// Revokes the lease as [`NodeLease::release`] does, after lowering
    /// the stored horizon to `last`: the time of the last id that any
    /// clock of this lease issued (for a flake clock, its
    /// [`last_time`](guid::flake::Clock::last_time)). The next holder then
    /// starts right after that id rather than after the whole reserve, so
    /// restarts do not push ids ahead of the clock. The horizon never goes
    /// below where this lease started, and stays where it was if etcd
    /// changed it meanwhile or cannot be reached (the safe side).
    ///
    /// The clocks stop first; a `last` earlier than an id they issued
    /// would let the next holder repeat it.
    pub async fn release_after(self, last: SystemTime) -> Result<()> {
        if self.holding.validity.forked() {
            return Err(Error::Forked);
        }
        self.holding.validity.release();
        self.task.abort();
        let last = guid::unix_nanos(last).max(self.not_before);
        let lowered = self.holding.lower(last).await;
        let mut client = self.holding.client.clone();
        timed(
            self.holding.timing.timeout,
            client.lease_revoke(self.holding.lease),
        )
        .await?;
        lowered
    }

    pub(crate) fn validity(&self) -> &Arc<Validity> {
        &self.holding.validity
    }

    /// [`Error::Forked`] in a forked child, before a clock is built there.
    pub(crate) fn check_fork(&self) -> Result<()> {
        match self.holding.validity.forked() {
            true => Err(Error::Forked),
            false => Ok(()),
        }
    }

    /// Before a clock starts at `start` (Unix ns): reserves the horizon
    /// past it now unless it is already at least half the reserve ahead.
    pub(crate) async fn cover(&self, start: u64) -> Result<()> {
        let half = nanos(self.holding.timing.ahead) / 2;
        let need = start.saturating_add(half);
        if need > self.validity().horizon() {
            self.holding.reserve(start, need).await?;
        }
        Ok(())
    }
}

impl Drop for NodeLease {
    fn drop(&mut self) {
        // A forked child has no keep-alive task to stop, and the wake-up
        // would take a lock another thread of the parent may have held.
        if self.holding.validity.forked() {
            return;
        }
        self.holding.validity.release();
        self.task.abort();
    }
}

impl fmt::Debug for NodeLease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeLease")
            .field("node", &self.holding.node)
            .field("lease", &format_args!("{:#x}", self.holding.lease))
            .field("keys", &self.holding.keys)
            .field("holder", &self.holding.holder)
            .field("not_before", &self.not_before)
            .field("validity", &self.holding.validity)
            .finish()
    }
}

impl Options {
    /// Claims the lowest free node id in `range` under `prefix`, bound to
    /// an etcd lease of `ttl`, with these options (see
    /// [`NodeLease::acquire`]).
    pub async fn acquire(
        &self,
        mut client: Client,
        prefix: &str,
        range: impl RangeBounds<u32>,
        ttl: Duration,
    ) -> Result<NodeLease> {
        let (first, last) = options::bounds(range)?;
        let asked = options::ttl_seconds(ttl)?;
        let pre = self.timing(Duration::from_secs(asked.unsigned_abs()))?;
        let granted_at = Instant::now();
        let grant = timed(pre.timeout, client.lease_grant(asked, None)).await?;
        let lease = grant.id();
        match self
            .hold(
                &mut client,
                prefix,
                first,
                last,
                lease,
                grant.ttl(),
                granted_at,
            )
            .await
        {
            Ok(lease) => Ok(lease),
            Err(e) => {
                // Best effort: the lease would expire by itself anyway.
                let _ = timed(pre.timeout, client.lease_revoke(lease)).await;
                Err(e)
            }
        }
    }

    /// Claims an id with a granted lease and starts keeping it.
    #[allow(clippy::too_many_arguments)]
    async fn hold(
        &self,
        client: &mut Client,
        prefix: &str,
        first: u32,
        last: u32,
        lease: i64,
        granted_ttl: i64,
        granted_at: Instant,
    ) -> Result<NodeLease> {
        if granted_ttl <= 0 {
            return Err(Error::Lost);
        }
        let timing = self.timing(Duration::from_secs(granted_ttl.unsigned_abs()))?;
        let mut claim = Claim {
            client,
            keys: Keys::new(prefix),
            holder: &self.holder,
            lease,
            timing,
            confirmed: granted_at,
        };
        let (node, fence) = claim.run(first, last, self.when_full).await?;
        let not_before = fence.horizon;
        let deadline = claim.confirmed + timing.ttl - timing.margin;
        let holding = Holding {
            client: claim.client.clone(),
            keys: claim.keys,
            holder: self.holder.clone(),
            lease,
            node,
            timing,
            validity: Arc::new(Validity::new(deadline, not_before, timing.ahead)),
            fence: Arc::new(Mutex::new(fence)),
        };
        // The first horizon is stored before any id can be issued.
        holding.reserve(WallClock.now(), u64::MAX).await?;
        let task = tokio::spawn(holding.clone().keep());
        Ok(NodeLease {
            holding,
            not_before,
            task,
        })
    }
}

/// The claim loop of one acquire.
struct Claim<'a> {
    client: &'a mut Client,
    keys: Keys,
    holder: &'a str,
    lease: i64,
    timing: Timing,
    /// Send time of the last keep-alive etcd answered.
    confirmed: Instant,
}

impl Claim<'_> {
    /// The claimed node id and the fence its previous holder left.
    async fn run(&mut self, first: u32, last: u32, when_full: WhenFull) -> Result<(u32, Fence)> {
        let wait_until = match when_full {
            WhenFull::Fail => None,
            WhenFull::Wait(d) => Some(Instant::now() + d),
        };
        let (mut taken, mut revision) = self.list(first, last).await?;
        for _ in 0..MAX_ATTEMPTS {
            let Some(id) = keys::lowest_free(first, last, &taken) else {
                match wait_until {
                    Some(until) if self.wait_for_release(first, last, revision, until).await? => {
                        (taken, revision) = self.list(first, last).await?;
                        continue;
                    }
                    _ => return Err(Error::Full { first, last }),
                }
            };
            self.keep_alive_if_due().await?;
            let claim = self.keys.claim(id);
            let fence = self.keys.fence(id);
            let txn = Txn::new()
                .when([Compare::create_revision(claim.clone(), CompareOp::Equal, 0)])
                .and_then([
                    TxnOp::put(
                        claim,
                        keys::value(0, self.holder),
                        Some(PutOptions::new().with_lease(self.lease)),
                    ),
                    TxnOp::get(fence.clone(), None),
                ])
                .or_else([TxnOp::get(
                    self.keys.claim(first),
                    Some(self.range_options(last)),
                )]);
            let response = timed(self.timing.timeout, self.client.txn(txn)).await?;
            if response.succeeded() {
                return Ok((id, Fence::of(&fence, get_kvs(&response, 1).first())?));
            }
            // Another process took it first: the else branch listed the range.
            (taken, revision) = self.parse_listing(&response)?;
        }
        Err(Error::Full { first, last })
    }

    fn range_options(&self, last: u32) -> GetOptions {
        GetOptions::new()
            .with_range(self.keys.claim_end(last))
            .with_keys_only()
    }

    /// The claimed ids in the range, sorted, and the revision read at.
    async fn list(&mut self, first: u32, last: u32) -> Result<(Vec<u32>, i64)> {
        let options = self.range_options(last);
        let response = timed(
            self.timing.timeout,
            self.client.get(self.keys.claim(first), Some(options)),
        )
        .await?;
        let revision = response.header().map_or(0, |h| h.revision());
        let ids = response
            .kvs()
            .iter()
            .map(|kv| self.keys.id_of_claim(kv.key()))
            .collect::<Result<Vec<u32>>>()?;
        Ok((sorted(ids), revision))
    }

    fn parse_listing(&self, response: &TxnResponse) -> Result<(Vec<u32>, i64)> {
        let revision = response.header().map_or(0, |h| h.revision());
        let ids = get_kvs(response, 0)
            .iter()
            .map(|kv| self.keys.id_of_claim(kv.key()))
            .collect::<Result<Vec<u32>>>()?;
        Ok((sorted(ids), revision))
    }

    /// Waits for a claim in the range to go (`true`) or `until` to pass
    /// (`false`), keeping this acquire's own lease alive meanwhile.
    async fn wait_for_release(
        &mut self,
        first: u32,
        last: u32,
        revision: i64,
        until: Instant,
    ) -> Result<bool> {
        let options = WatchOptions::new()
            .with_range(self.keys.claim_end(last))
            .with_start_revision(revision + 1)
            .with_filters([WatchFilterType::NoPut]);
        let mut watch = timed(
            self.timing.timeout,
            self.client.watch(self.keys.claim(first), Some(options)),
        )
        .await?;
        loop {
            let now = Instant::now();
            if now >= until {
                return Ok(false);
            }
            let slice = (until - now).min(self.timing.interval);
            match tokio::time::timeout(slice, watch.message()).await {
                Ok(Ok(Some(event))) if event.events().is_empty() && !event.canceled() => {}
                // A release, a cancelled watch or a closed stream: list again.
                Ok(Ok(_)) => return Ok(true),
                Ok(Err(e)) => return Err(e.into()),
                Err(_) => self.keep_alive_if_due().await?,
            }
        }
    }

    async fn keep_alive_if_due(&mut self) -> Result<()> {
        if self.confirmed.elapsed() < self.timing.interval {
            return Ok(());
        }
        let sent = Instant::now();
        // Opening the stream sends one keep-alive and fails if the lease is gone.
        timed(
            self.timing.timeout,
            self.client.lease_keep_alive(self.lease),
        )
        .await?;
        self.confirmed = sent;
        Ok(())
    }
}

/// One holder's claim: what the keep-alive task and the lease share.
#[derive(Clone)]
struct Holding {
    client: Client,
    keys: Keys,
    holder: String,
    lease: i64,
    node: u32,
    timing: Timing,
    validity: Arc<Validity>,
    /// The fence as etcd last showed it to this holder; locked by the one
    /// fence write in progress.
    fence: Arc<Mutex<Fence>>,
}

/// The fence key as this holder knows it: a write must find it unchanged
/// since, so that a write that was given up on here but reaches etcd later
/// can never lower it.
#[derive(Clone, Copy, Debug)]
struct Fence {
    /// Its modification revision (0: no key).
    revision: i64,
    /// The horizon it holds, Unix ns.
    horizon: u64,
}

impl Fence {
    fn of(key: &str, kv: Option<&etcd_client::KeyValue>) -> Result<Fence> {
        Ok(match kv {
            Some(kv) => Fence {
                revision: kv.mod_revision(),
                horizon: keys::horizon_of(key, kv.value())?,
            },
            None => Fence {
                revision: 0,
                horizon: 0,
            },
        })
    }
}

/// What one keep-alive learned.
enum Beat {
    /// etcd renewed the lease for this TTL.
    Alive(Duration),
    /// etcd no longer knows the lease.
    Gone,
}

impl Holding {
    /// The background task: a keep-alive and a horizon refresh every
    /// interval (or sooner when a clock nears the horizon), until the
    /// lease ends.
    async fn keep(mut self) {
        let mut stream = None;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(self.timing.interval) => {}
                _ = self.validity.nudge.notified() => {}
            }
            if self.validity.ended() {
                return;
            }
            let sent = Instant::now();
            match tokio::time::timeout(self.timing.timeout, self.beat(&mut stream)).await {
                Ok(Ok(Beat::Alive(ttl))) => {
                    self.validity
                        .extend(sent + ttl.saturating_sub(self.timing.margin));
                }
                Ok(Ok(Beat::Gone)) => return self.validity.lose(),
                // A late answer on this stream would be read against a
                // later send time: start a new stream.
                Ok(Err(_)) | Err(_) => stream = None,
            }
            // Also after a failed keep-alive: the compare tells a lost
            // lease from an unreachable etcd.
            let _ = self.reserve(0, u64::MAX).await;
            if self.validity.ended() {
                return;
            }
        }
    }

    async fn beat(
        &mut self,
        stream: &mut Option<(LeaseKeeper, LeaseKeepAliveStream)>,
    ) -> Result<Beat> {
        match stream {
            None => {
                // Opening the stream sends one keep-alive; it fails (as a
                // transport error would) if the lease is gone, which the
                // horizon compare then tells apart.
                *stream = Some(self.client.lease_keep_alive(self.lease).await?);
                Ok(Beat::Alive(self.timing.ttl))
            }
            Some((keeper, responses)) => {
                keeper.keep_alive().await?;
                match responses.message().await? {
                    Some(r) if r.ttl() > 0 => {
                        Ok(Beat::Alive(Duration::from_secs(r.ttl().unsigned_abs())))
                    }
                    Some(_) => Ok(Beat::Gone),
                    None => Err(Error::Timeout),
                }
            }
        }
    }

    /// Stores a horizon past both `t` (Unix ns) and the clocks' needs, if
    /// the claim is still bound to this lease ([`Error::Lost`] if not),
    /// unless the horizon is at least `need` by then.
    ///
    /// One write at a time, each only if the fence is as this holder last
    /// saw it: the fence in etcd never goes down, and the horizon the
    /// clocks use is raised only to a fence etcd holds.
    async fn reserve(&self, t: u64, need: u64) -> Result<()> {
        self.validity.want(t);
        let limit = self.timing.timeout;
        let mut fence = match tokio::time::timeout(limit, self.fence.lock()).await {
            Ok(fence) => fence,
            Err(_) => return Err(Error::Timeout),
        };
        // The write this one waited for may have done it.
        if self.validity.horizon() >= need {
            return Ok(());
        }
        let until = tokio::time::Instant::now() + limit;
        let claim = self.keys.claim(self.node);
        let fence_key = self.keys.fence(self.node);
        let mut client = self.client.clone();
        for _ in 0..FENCE_ATTEMPTS {
            let horizon = self
                .validity
                .next_horizon(WallClock.now())
                .max(fence.horizon);
            let value = keys::value(horizon, &self.holder);
            let txn = Txn::new()
                .when(self.unchanged(&fence))
                .and_then([
                    TxnOp::put(
                        claim.clone(),
                        value.clone(),
                        Some(PutOptions::new().with_lease(self.lease)),
                    ),
                    TxnOp::put(fence_key.clone(), value, None),
                ])
                .or_else([
                    TxnOp::get(claim.clone(), None),
                    TxnOp::get(fence_key.clone(), None),
                ]);
            let response = match tokio::time::timeout_at(until, client.txn(txn)).await {
                Ok(response) => response?,
                Err(_) => return Err(Error::Timeout),
            };
            if response.succeeded() {
                let revision = response.header().map_or(0, |h| h.revision());
                *fence = Fence { revision, horizon };
                self.validity.store_horizon(horizon);
                return Ok(());
            }
            let ours = get_kvs(&response, 0)
                .first()
                .is_some_and(|kv| kv.lease() == self.lease);
            if !ours {
                self.validity.lose();
                return Err(Error::Lost);
            }
            // Still ours, so an earlier write of this holder, given up on
            // here, has reached etcd since: take what it stored, try again.
            *fence = Fence::of(&fence_key, get_kvs(&response, 1).first())?;
            self.validity.store_horizon(fence.horizon);
            if self.validity.horizon() >= need {
                return Ok(());
            }
        }
        Err(Error::Timeout)
    }
}

impl Holding {
    /// What a fence write requires: the claim still bound to this lease,
    /// and the fence as this holder last saw it.
    fn unchanged(&self, fence: &Fence) -> [Compare; 2] {
        [
            Compare::lease(self.keys.claim(self.node), CompareOp::Equal, self.lease),
            Compare::mod_revision(self.keys.fence(self.node), CompareOp::Equal, fence.revision),
        ]
    }

    /// Stores `horizon` in the fence key, only if the claim is still this
    /// lease's and the fence is as this holder last saw it.
    async fn lower(&self, horizon: u64) -> Result<()> {
        let limit = self.timing.timeout;
        let fence = match tokio::time::timeout(limit, self.fence.lock()).await {
            Ok(fence) => *fence,
            Err(_) => return Err(Error::Timeout),
        };
        if horizon >= fence.horizon {
            return Ok(());
        }
        let fence_key = self.keys.fence(self.node);
        let txn = Txn::new()
            .when(self.unchanged(&fence))
            .and_then([TxnOp::put(
                fence_key,
                keys::value(horizon, &self.holder),
                None,
            )]);
        let mut client = self.client.clone();
        let response = timed(limit, client.txn(txn)).await?;
        match response.succeeded() {
            true => Ok(()),
            false => Err(Error::Lost),
        }
    }
}

/// The key-values of the `index`-th operation of a transaction, if a get.
fn get_kvs(response: &TxnResponse, index: usize) -> Vec<etcd_client::KeyValue> {
    match response.op_responses().into_iter().nth(index) {
        Some(TxnOpResponse::Get(mut get)) => get.take_kvs(),
        _ => Vec::new(),
    }
}

fn sorted(mut ids: Vec<u32>) -> Vec<u32> {
    ids.sort_unstable();
    ids
}

/// Runs an etcd request with a time limit.
async fn timed<T, E: Into<Error>>(
    limit: Duration,
    request: impl Future<Output = Result<T, E>>,
) -> Result<T> {
    match tokio::time::timeout(limit, request).await {
        Ok(result) => result.map_err(Into::into),
        Err(_) => Err(Error::Timeout),
    }
}

pub(crate) fn system_time(unix_ns: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(unix_ns)
}
