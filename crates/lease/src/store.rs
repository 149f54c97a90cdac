//! What a node-id lease needs from the store that keeps it: etcd, Redis,
//! or any store that can take a key only if it is free, bind it to a time
//! to live, and compare before it writes.
//!
//! The lease ([`NodeLease`](crate::NodeLease)) does the timing: it calls
//! each method under its request timeout (dropping the future when the
//! timeout passes, so a write may still land later: the fence version
//! covers that), sends renewals, decides when ids stop, and moves the
//! horizon. A store only has to keep each method's contract below.
//!
//! Per node id the store keeps two records under the lease's `prefix`:
//!
//! - the **claim**, which exists while one holding has the node id and is
//!   gone once that holding expires or is released;
//! - the **fence**, which outlives every holding: the latest horizon
//!   (Unix ns) a holder of the node id stored, read by the next holder.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::error::Result;

/// The fence of one node id as the store showed it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fence {
    /// The store's marker of the fence's last write: it changes with
    /// every write of the fence (etcd: the key's modification revision),
    /// and is 0 when the node id has no fence yet.
    pub version: u64,
    /// The horizon stored, Unix ns; 0 when there is none. No id of an
    /// earlier holder of the node id carries a later time.
    pub horizon: u64,
}

/// A node id just claimed: what [`Store::claim`] returns when it took one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claimed {
    /// The node id claimed.
    pub node: u32,
    /// The store's id of this holding (etcd: the lease id), passed back
    /// in [`Held::token`]. Never reused for another holding while this
    /// one may live.
    pub token: u64,
    /// The time to live the store granted: at least the one asked for
    /// (a store may round it up or raise it to its minimum), never less.
    pub ttl: Duration,
    /// The fence of `node`, read in the same atomic step as the claim.
    pub fence: Fence,
    /// How long after the claim's answer no id may be issued: zero when
    /// the store vouches that no earlier holder of `node` is still
    /// issuing ids it no longer knows of. A store that may lose records
    /// (a wipe, an eviction, a restart without persistence, a failover)
    /// and finds no fence cannot tell a node id never used from one whose
    /// holder it forgot; it asks for the longest lease such a holder may
    /// still believe in.
    pub quiet: Duration,
}

/// What [`Store::claim`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// A node id was claimed.
    Held(Claimed),
    /// Every node id in the range is claimed; nothing is held.
    Full {
        /// Where the store was when it saw the range full (etcd: the
        /// revision read at), for [`Store::wait_release`] to watch from
        /// so that no release in between is missed; 0 for stores that
        /// poll.
        seen: u64,
    },
}

/// One holding, as the lease names it to the store after the claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    /// The lease's prefix, as given to [`Store::claim`].
    pub prefix: String,
    /// The holder's name, as given to [`Store::claim`], for people
    /// reading the store.
    pub holder: String,
    /// The node id claimed.
    pub node: u32,
    /// [`Claimed::token`].
    pub token: u64,
}

/// What one renewal learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renewal {
    /// The store renewed the holding for this time to live, counted from
    /// no earlier than when the renewal was sent.
    Alive(Duration),
    /// The store no longer knows the holding (expired or released): it
    /// is final.
    Gone,
}

/// What one fence write did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenceWrite {
    /// The horizon is stored: the fence as it now is.
    Stored(Fence),
    /// Nothing written: the claim is still this holding's, but the fence
    /// is no longer the one seen (an earlier write of this holder, given
    /// up on, landed since). The fence as it now is.
    Moved(Fence),
    /// Nothing written: the claim is not this holding's any more.
    Lost,
}

/// A store that keeps node-id leases.
///
/// Every method may fail with a typed [`Error`](crate::Error): the
/// store's own errors as [`Error::Store`](crate::Error::Store), a record
/// it did not write as [`Error::Corrupt`](crate::Error::Corrupt). None
/// may panic on what the store returns. The lease calls them with a time
/// limit and may drop a call's future at any `.await`.
pub trait Store: Send + Sync + 'static {
    /// Claims the lowest node id in `first..=last` whose claim is free,
    /// under `prefix`, for a new holding that lives `ttl` unless renewed,
    /// and reads that node id's fence.
    ///
    /// Atomic: the claim is created only if none exists, and the fence
    /// returned is the one stored when the claim was made. The holding's
    /// time to live starts no earlier than when this call began, so the
    /// store cannot expire it before that instant plus [`Claimed::ttl`].
    /// If another process takes the id first, the store tries the next
    /// free one (boundedly); [`Claim::Full`] when none is free. A call
    /// that fails or returns `Full` leaves no live holding behind, or
    /// only one that expires after `ttl` on its own.
    fn claim(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        ttl: Duration,
        holder: &str,
    ) -> impl Future<Output = Result<Claim>> + Send;

    /// Renews the holding for its time to live, counted from no earlier
    /// than when this call began. [`Renewal::Alive`] only once the store
    /// confirmed it; [`Renewal::Gone`] when the store no longer knows it.
    /// A failure (unreachable store) says nothing either way: the lease
    /// then stops ids at the last confirmed renewal's deadline.
    fn renew(&self, held: &Held) -> impl Future<Output = Result<Renewal>> + Send;

    /// Stores `horizon` (Unix ns) as the node id's fence, only if the
    /// claim is still `held`'s and the fence is still `seen` (same
    /// [`Fence::version`]); both checked and the write made in one atomic
    /// step. The store may also record the horizon in the claim.
    ///
    /// This fencing is what keeps a write that the lease gave up on, but
    /// that reaches the store later, from replacing a newer horizon. The
    /// store writes whatever `horizon` it is given: the lease raises it,
    /// except when it lowers it on release to the last id issued.
    fn fence(
        &self,
        held: &Held,
        seen: Fence,
        horizon: u64,
    ) -> impl Future<Output = Result<FenceWrite>> + Send;

    /// Waits until a claim in `first..=last` under `prefix` may have gone
    /// since `seen` ([`Claim::Full::seen`]): `true` then (a spurious
    /// `true` only costs another claim), `false` when `wait` passes first.
    /// A store without notifications polls.
    fn wait_release(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        seen: u64,
        wait: Duration,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Ends the holding at once: its claim goes, so the node id is free;
    /// the fence stays. Releasing a holding that is already gone succeeds.
    fn release(&self, held: &Held) -> impl Future<Output = Result<()>> + Send;
}

/// A boxed future of the object-safe twin of [`Store`].
type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// [`Store`] with boxed futures, so that stores of any type fit one handle.
trait DynStore: Send + Sync + 'static {
    fn claim<'a>(
        &'a self,
        prefix: &'a str,
        first: u32,
        last: u32,
        ttl: Duration,
        holder: &'a str,
    ) -> Boxed<'a, Claim>;
    fn renew<'a>(&'a self, held: &'a Held) -> Boxed<'a, Renewal>;
    fn fence<'a>(&'a self, held: &'a Held, seen: Fence, horizon: u64) -> Boxed<'a, FenceWrite>;
    fn wait_release<'a>(
        &'a self,
        prefix: &'a str,
        first: u32,
        last: u32,
        seen: u64,
        wait: Duration,
    ) -> Boxed<'a, bool>;
    fn release<'a>(&'a self, held: &'a Held) -> Boxed<'a, ()>;
}

impl<S: Store> DynStore for S {
    fn claim<'a>(
        &'a self,
        prefix: &'a str,
        first: u32,
        last: u32,
        ttl: Duration,
        holder: &'a str,
    ) -> Boxed<'a, Claim> {
        Box::pin(Store::claim(self, prefix, first, last, ttl, holder))
    }
    fn renew<'a>(&'a self, held: &'a Held) -> Boxed<'a, Renewal> {
        Box::pin(Store::renew(self, held))
    }
    fn fence<'a>(&'a self, held: &'a Held, seen: Fence, horizon: u64) -> Boxed<'a, FenceWrite> {
        Box::pin(Store::fence(self, held, seen, horizon))
    }
    fn wait_release<'a>(
        &'a self,
        prefix: &'a str,
        first: u32,
        last: u32,
        seen: u64,
        wait: Duration,
    ) -> Boxed<'a, bool> {
        Box::pin(Store::wait_release(self, prefix, first, last, seen, wait))
    }
    fn release<'a>(&'a self, held: &'a Held) -> Boxed<'a, ()> {
        Box::pin(Store::release(self, held))
    }
}

/// A store of any type behind one cheap, clonable handle: for code that
/// picks its store at run time (etcd or Redis) and keeps one lease code
/// path for all of them. It is itself a [`Store`].
#[derive(Clone)]
pub struct AnyStore(Arc<dyn DynStore>);

impl AnyStore {
    /// Wraps `store`.
    pub fn new(store: impl Store) -> AnyStore {
        AnyStore(Arc::new(store))
    }
}

impl fmt::Debug for AnyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AnyStore")
    }
}

impl Store for AnyStore {
    async fn claim(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        ttl: Duration,
        holder: &str,
    ) -> Result<Claim> {
        self.0.claim(prefix, first, last, ttl, holder).await
    }
    async fn renew(&self, held: &Held) -> Result<Renewal> {
        self.0.renew(held).await
    }
    async fn fence(&self, held: &Held, seen: Fence, horizon: u64) -> Result<FenceWrite> {
        self.0.fence(held, seen, horizon).await
    }
    async fn wait_release(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        seen: u64,
        wait: Duration,
    ) -> Result<bool> {
        self.0.wait_release(prefix, first, last, seen, wait).await
    }
    async fn release(&self, held: &Held) -> Result<()> {
        self.0.release(held).await
    }
}
