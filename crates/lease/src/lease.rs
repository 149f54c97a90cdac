//! A node id leased from a store: claimed, renewed in the background,
//! fenced by a stored time horizon, given back by a release.

use std::fmt;
use std::future::Future;
use std::ops::RangeBounds;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use guid::{TimeSource, WallClock, nanos};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::options::{self, Options, Timing, WhenFull};
use crate::store::{AnyStore, Claim, Claimed, Fence, FenceWrite, Held, Renewal, Store};
use crate::validity::Validity;

/// Fence write attempts per reservation: each failed one means an earlier
/// write of this holder, given up on here, reached the store since.
const FENCE_ATTEMPTS: usize = 8;

/// A node id held through a lease in a [`Store`].
///
/// While it lives, a background task renews the lease and moves the
/// stored horizon ahead of the ids. Clocks made from it
/// ([`NodeLease::clock`]) check it before every id. Dropping it ends the
/// lease locally at once (its clocks stop) and lets the store expire it
/// after the TTL, as a crash would; [`NodeLease::release`] frees the node
/// id at once.
pub struct NodeLease {
    holding: Holding,
    not_before: u64,
    task: JoinHandle<()>,
}

impl NodeLease {
    /// Claims the lowest free node id in `range` under `prefix` in
    /// `store`, for a lease of `ttl` (the store may round it up or raise
    /// it to its minimum), with the default [`Options`].
    ///
    /// Must be called within a tokio runtime, which runs the renewals.
    pub async fn acquire(
        store: impl Store,
        prefix: &str,
        range: impl RangeBounds<u32>,
        ttl: Duration,
    ) -> Result<NodeLease> {
        Options::default().acquire(store, prefix, range, ttl).await
    }

    /// The leased node id.
    pub fn node(&self) -> u32 {
        self.holding.held.node
    }

    /// The horizon the previous holder of this node id left (the Unix
    /// epoch if there was none), or, when the store could not vouch for
    /// the node id ([`Claimed::quiet`](crate::store::Claimed::quiet)), the
    /// wall clock at the claim plus the quiet if that is later: ids made
    /// with this lease are later.
    pub fn not_before(&self) -> SystemTime {
        system_time(self.not_before)
    }

    /// The horizon stored now: no id of this lease carries a later time.
    pub fn horizon(&self) -> SystemTime {
        system_time(self.holding.validity.horizon())
    }

    /// The instant from which ids are held back unless a renewal gets
    /// through before it.
    pub fn valid_until(&self) -> Instant {
        self.holding.validity.deadline()
    }

    /// The TTL the store granted.
    pub fn ttl(&self) -> Duration {
        self.holding.timing.ttl
    }

    /// The store's id of this holding (etcd: the lease id).
    pub fn token(&self) -> u64 {
        self.holding.held.token
    }

    /// Whether ids may be issued now: [`Error::Expired`] while renewals
    /// fail past the margin (it may recover), [`Error::Lost`] once the
    /// lease is gone.
    pub fn check(&self) -> Result<()> {
        self.holding.validity.check()
    }

    /// Releases the lease: its clocks stop, and the node id is free for
    /// the next holder, which starts after this holder's horizon.
    ///
    /// In a forked child it fails with [`Error::Forked`] and leaves the
    /// parent's lease alone.
    pub async fn release(self) -> Result<()> {
        if self.holding.validity.forked() {
            return Err(Error::Forked);
        }
        self.holding.validity.release();
        self.task.abort();
        self.holding.release().await
    }

    /// Releases the lease as [`NodeLease::release`] does, after lowering
    /// the stored horizon to `last`: the time of the last id that any
    /// clock of this lease issued (for a flake clock, its
    /// [`last_time`](guid::flake::Clock::last_time)). The next holder then
    /// starts right after that id rather than after the whole reserve, so
    /// restarts do not push ids ahead of the clock. The horizon never goes
    /// below where this lease started, and stays where it was if the store
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
        self.holding.release().await?;
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
    ///
    /// It first waits out a quiet, and then until the wall clock reaches
    /// [`NodeLease::not_before`]: a horizon stored before would run that
    /// far past the wall clock, so that hand-overs in quick succession
    /// (each next holder starting after the last one's horizon) would push
    /// the ids of a node id ever further ahead, past what a quiet covers
    /// when the store loses them.
    pub(crate) async fn cover(&self, start: u64) -> Result<()> {
        if let Some(left) = self.validity().quiet_left() {
            tokio::time::sleep(left).await;
        }
        let early = self.not_before.saturating_sub(WallClock.now());
        if early > 0 {
            tokio::time::sleep(Duration::from_nanos(early)).await;
        }
        if self.validity().due(start) {
            let need = start.saturating_add(nanos(self.holding.timing.ahead) / 2);
            self.holding.reserve(start, need).await?;
        }
        Ok(())
    }
}

impl Drop for NodeLease {
    fn drop(&mut self) {
        // A forked child has no renewal task to stop, and the wake-up
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
        let held = &self.holding.held;
        f.debug_struct("NodeLease")
            .field("node", &held.node)
            .field("token", &format_args!("{:#x}", held.token))
            .field("prefix", &held.prefix)
            .field("holder", &held.holder)
            .field("not_before", &self.not_before)
            .field("validity", &self.holding.validity)
            .finish()
    }
}

impl Options {
    /// Claims the lowest free node id in `range` under `prefix` in
    /// `store`, for a lease of `ttl`, with these options (see
    /// [`NodeLease::acquire`]).
    pub async fn acquire(
        &self,
        store: impl Store,
        prefix: &str,
        range: impl RangeBounds<u32>,
        ttl: Duration,
    ) -> Result<NodeLease> {
        let (first, last) = options::bounds(range)?;
        // Settings that cannot work fail before the store is asked.
        let asked = self.timing(ttl)?;
        let store = AnyStore::new(store);
        let wait_until = match self.when_full {
            WhenFull::Fail => None,
            WhenFull::Wait(d) => Some(Instant::now() + d),
        };
        loop {
            let sent = Instant::now();
            // Past the TTL the store may have expired the claim already.
            let claim = timed(ttl, store.claim(prefix, first, last, ttl, &self.holder)).await?;
            let seen = match claim {
                Claim::Held(claimed) => return self.hold(store, prefix, claimed, sent).await,
                Claim::Full { seen } => seen,
            };
            let now = Instant::now();
            let wait = match wait_until {
                Some(until) if until > now => until - now,
                _ => return Err(Error::Full { first, last }),
            };
            let released = store.wait_release(prefix, first, last, seen, wait);
            if !timed(wait + asked.timeout, released).await? {
                return Err(Error::Full { first, last });
            }
        }
    }

    /// Starts keeping a claimed node id; releases it if that fails.
    async fn hold(
        &self,
        store: AnyStore,
        prefix: &str,
        claimed: Claimed,
        sent: Instant,
    ) -> Result<NodeLease> {
        let held = Arc::new(Held {
            prefix: prefix.to_owned(),
            holder: self.holder.clone(),
            node: claimed.node,
            token: claimed.token,
        });
        let timeout = self
            .timing(claimed.ttl)
            .map_or(claimed.ttl / 4, |t| t.timeout);
        match self
            .start(store.clone(), held.clone(), &claimed, sent)
            .await
        {
            Ok(lease) => Ok(lease),
            Err(e) => {
                // Best effort: the lease would expire by itself anyway.
                let _ = timed(timeout, store.release(&held)).await;
                Err(e)
            }
        }
    }

    async fn start(
        &self,
        store: AnyStore,
        held: Arc<Held>,
        claimed: &Claimed,
        sent: Instant,
    ) -> Result<NodeLease> {
        if claimed.ttl.is_zero() {
            return Err(Error::Lost);
        }
        let timing = self.timing(claimed.ttl)?;
        // Without a fence the store vouches for, the ids wait out the
        // quiet from the claim's answer (the store may have lost the
        // records of a holder at any time before it), and start after
        // where the wall clock then is: after every id of a holder the
        // store forgot, whose ids are no later than its last horizon, a
        // look-ahead past its wall clock, as far as the clocks agree.
        let quiet = Instant::now() + claimed.quiet;
        let not_before = match claimed.quiet.is_zero() {
            true => claimed.fence.horizon,
            false => claimed
                .fence
                .horizon
                .max(WallClock.now().saturating_add(nanos(claimed.quiet))),
        };
        // The store cannot expire the claim before the claim was sent + TTL.
        let mut deadline = sent + timing.ttl - timing.margin;
        // A claim slowed down by contention is renewed at once, rather
        // than starting with ids held back until the first renewal.
        if sent.elapsed() >= timing.interval {
            let renewed = Instant::now();
            match timed(timing.timeout, store.renew(&held)).await? {
                Renewal::Alive(ttl) => {
                    deadline = deadline.max(renewed + ttl.saturating_sub(timing.margin));
                }
                Renewal::Gone => return Err(Error::Lost),
            }
        }
        let holding = Holding {
            store,
            held,
            timing,
            validity: Arc::new(Validity::new(quiet, deadline, not_before, timing.ahead)),
            fence: Arc::new(Mutex::new(claimed.fence)),
        };
        // The first horizon is stored before any id can be issued; after
        // a quiet, once it ends (see `Holding::keep`).
        if claimed.quiet.is_zero() {
            holding.reserve(WallClock.now(), u64::MAX).await?;
        }
        let task = tokio::spawn(holding.clone().keep());
        Ok(NodeLease {
            holding,
            not_before,
            task,
        })
    }
}

/// One holder's claim: what the renewal task and the lease share.
#[derive(Clone)]
struct Holding {
    store: AnyStore,
    held: Arc<Held>,
    timing: Timing,
    validity: Arc<Validity>,
    /// The fence as the store last showed it to this holder; locked by
    /// the one fence write in progress.
    fence: Arc<Mutex<Fence>>,
}

impl Holding {
    /// The background task: a renewal and a horizon refresh every
    /// interval (or sooner when a clock nears the horizon), until the
    /// lease ends.
    async fn keep(self) {
        loop {
            // Woken at the end of a quiet too, to store the first horizon.
            let wake = match self.validity.quiet_left() {
                Some(left) => left.min(self.timing.interval),
                None => self.timing.interval,
            };
            tokio::select! {
                _ = tokio::time::sleep(wake) => {}
                _ = self.validity.nudge.notified() => {}
            }
            if self.validity.ended() {
                return;
            }
            let sent = Instant::now();
            match tokio::time::timeout(self.timing.timeout, self.store.renew(&self.held)).await {
                Ok(Ok(Renewal::Alive(ttl))) => {
                    self.validity
                        .extend(sent + ttl.saturating_sub(self.timing.margin));
                }
                Ok(Ok(Renewal::Gone)) => return self.validity.lose(),
                // Unconfirmed: the deadline stays where it was.
                Ok(Err(_)) | Err(_) => {}
            }
            // No horizon within the quiet: one stored then would run the
            // quiet past the wall clock, where ids of this holder could
            // not yet be, and the store may forget this holder as well.
            if self.validity.quiet_left().is_some() {
                continue;
            }
            // Also after a failed renewal: the fence write's check tells a
            // lost claim from an unreachable store.
            let _ = self.reserve(0, u64::MAX).await;
            if self.validity.ended() {
                return;
            }
        }
    }

    /// Stores a horizon past both `t` (Unix ns) and the clocks' needs, if
    /// the claim is still this holder's ([`Error::Lost`] if not), unless
    /// the horizon is at least `need` by then.
    ///
    /// One write at a time, each only if the fence is as this holder last
    /// saw it: the fence in the store never goes down, and the horizon the
    /// clocks use is raised only to a fence the store holds.
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
        for _ in 0..FENCE_ATTEMPTS {
            let horizon = self
                .validity
                .next_horizon(WallClock.now())
                .max(fence.horizon);
            let write = self.store.fence(&self.held, *fence, horizon);
            let written = match tokio::time::timeout_at(until, write).await {
                Ok(written) => written?,
                Err(_) => return Err(Error::Timeout),
            };
            match written {
                FenceWrite::Stored(now) => {
                    *fence = now;
                    self.validity.store_horizon(now.horizon);
                    return Ok(());
                }
                FenceWrite::Lost => {
                    self.validity.lose();
                    return Err(Error::Lost);
                }
                // Still ours, so an earlier write of this holder, given up
                // on here, has reached the store since: take what it
                // stored, try again.
                FenceWrite::Moved(now) => {
                    *fence = now;
                    self.validity.store_horizon(now.horizon);
                    if self.validity.horizon() >= need {
                        return Ok(());
                    }
                }
            }
        }
        Err(Error::Timeout)
    }

    /// Stores `horizon` as the fence, only if the claim is still this
    /// holder's. A fence moved meanwhile by a write of this holder that
    /// was given up on (a timeout under load) is lowered all the same:
    /// the clocks have stopped, and no id of theirs is past `horizon`.
    async fn lower(&self, horizon: u64) -> Result<()> {
        let limit = self.timing.timeout;
        let mut fence = match tokio::time::timeout(limit, self.fence.lock()).await {
            Ok(fence) => fence,
            Err(_) => return Err(Error::Timeout),
        };
        for _ in 0..FENCE_ATTEMPTS {
            if horizon >= fence.horizon {
                return Ok(());
            }
            match timed(limit, self.store.fence(&self.held, *fence, horizon)).await? {
                FenceWrite::Stored(_) => return Ok(()),
                FenceWrite::Moved(now) => *fence = now,
                FenceWrite::Lost => return Err(Error::Lost),
            }
        }
        Err(Error::Timeout)
    }

    /// Frees the node id in the store.
    async fn release(&self) -> Result<()> {
        timed(self.timing.timeout, self.store.release(&self.held)).await
    }
}

/// Runs a store request with a time limit.
async fn timed<T>(limit: Duration, request: impl Future<Output = Result<T>>) -> Result<T> {
    match tokio::time::timeout(limit, request).await {
        Ok(result) => result,
        Err(_) => Err(Error::Timeout),
    }
}

pub(crate) fn system_time(unix_ns: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(unix_ns)
}
