//! Node ids leased from Redis: the [`Store`] of a `kguid-lease` lease,
//! kept by Lua scripts so that every check and write is one atomic step.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use kguid_lease::store::{Claim, Claimed, Fence, FenceWrite, Held, Renewal, Store};
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Value};
use tokio::sync::Mutex;

use crate::error::Error;

/// Node ids one claim script scans, so that a wide range never holds the
/// server for long; a range is claimed window by window, lowest first.
const WINDOW: u32 = 1024;

/// Default time between checks while waiting for a node id to be freed.
const POLL: Duration = Duration::from_millis(100);

/// Default limit on connecting and on each reply.
const TIMEOUT: Duration = Duration::from_secs(1);

macro_rules! script {
    ($file:literal) => {
        LazyLock::new(|| {
            redis::Script::new(concat!(
                include_str!("node/common.lua"),
                include_str!(concat!("node/", $file))
            ))
        })
    };
}

static CLAIM: LazyLock<redis::Script> = script!("claim.lua");
static RENEW: LazyLock<redis::Script> = script!("renew.lua");
static FENCE: LazyLock<redis::Script> = script!("fence.lua");
static RELEASE: LazyLock<redis::Script> = script!("release.lua");

/// A [`Store`] that keeps node-id leases in one Redis server.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use kguid_lease::NodeLease;
/// use kguid_redis::RedisStore;
///
/// let store = RedisStore::open("redis://127.0.0.1:6379")?;
/// // The lowest free node id of 0..1024, renewed in the background.
/// let lease = NodeLease::acquire(store, "guid/fleet", 0..1024, Duration::from_secs(10)).await?;
/// let clock = lease.clock().await?;
/// let id = clock.g()?;
/// # let _ = id;
/// lease.release().await?;
/// # Ok(()) }
/// ```
///
/// The keys under a lease prefix `P`, for each node id `n`:
///
/// | key | holds |
/// |---|---|
/// | `P:node:n` | the claim, a hash `{token, ttl, holder}` expiring after `ttl` ms |
/// | `P:horizon:n` | the fence, a hash `{ns, version, holder}`: the horizon in Unix ns, kept forever |
/// | `P:fence` | the counter of tokens and fence versions, above the server's time in µs |
/// | `P:server` | the run id of the server that last took a claim |
/// | `P:quiet` | while it lives, claims wait (see below) |
///
/// A claim takes the lowest `n` without a claim key and a new token from
/// `P:fence`; a renewal, a fence write and a release each act only while
/// the claim holds that token.
///
/// Redis keeps claims and fences only as long as it keeps its data, and
/// loses them to a `FLUSHALL`, an eviction under `maxmemory`, a restart
/// without persistence, or a replica promoted before the last writes
/// reached it. A holder learns its claim is gone at its next renewal, but
/// until then it may still issue ids. So:
///
/// - a claim that finds **no fence** for its node id (never fenced, or
///   lost) is taken with a quiet of the grace ([`Claimed::quiet`]: by
///   default twice the claim's TTL): the lease issues no id before the
///   grace has passed since the claim, by when every holder the server
///   forgot has stopped, and starts its ids after the wall clock at the
///   claim plus the grace: after that holder's ids, which are no later
///   than its last horizon, as long as the clocks agree within the grace
///   less the lease's look-ahead and the ids' max lead;
/// - when the keys are found on a server with another run id (a restart
///   with persistence, a replica promoted), fences may be older than what
///   their holders issued: claims wait the grace ([`RedisStore::grace`]).
///
/// With `appendonly yes` and `appendfsync always`, a restart loses no
/// fence; with `everysec`, up to a second of writes, which the run id
/// check covers.
///
/// While claims wait, [`Store::claim`] answers [`Claim::Full`]: an acquire
/// fails with `Full`, or waits with `WhenFull::Wait`.
///
/// The scripts reach every key of a prefix: on Redis Cluster (untested)
/// the prefix needs a hash tag (`{guid}/fleet`) to keep them in one slot.
pub struct RedisStore {
    client: redis::Client,
    config: AsyncConnectionConfig,
    grace: Option<Duration>,
    poll: Duration,
    /// Replicas that must acknowledge a fence write, and how long to wait.
    replicas: Option<(u32, Duration)>,
    /// The grace of the latest claim, ms: the waits for a release use it.
    last_grace: AtomicU64,
    /// The shared connection and its generation, made when first needed
    /// and again after it breaks.
    con: Mutex<Option<(u64, MultiplexedConnection)>>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("client", &self.client)
            .field("grace", &self.grace)
            .field("poll", &self.poll)
            .field("replicas", &self.replicas)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store on the Redis server at `url` (`redis://host:port/db`); it
    /// connects when first used.
    pub fn open(url: &str) -> Result<RedisStore, Error> {
        Ok(RedisStore::new(redis::Client::open(url)?))
    }

    /// A store on `client`'s server, with a 1 s connect and reply timeout,
    /// the default grace and 100 ms between checks while waiting.
    pub fn new(client: redis::Client) -> RedisStore {
        RedisStore {
            client,
            config: config(TIMEOUT),
            grace: None,
            poll: POLL,
            replicas: None,
            last_grace: AtomicU64::new(0),
            con: Mutex::new(None),
        }
    }

    /// Limit on connecting and on each reply (default 1 s, at least
    /// 1 ms); the lease's own request timeout applies as well.
    pub fn timeout(mut self, timeout: Duration) -> RedisStore {
        self.config = config(timeout.max(Duration::from_millis(1)));
        self
    }

    /// How long claims wait after the server restarted or changed
    /// (default: twice the TTL of the claim). It must cover the longest
    /// TTL of the prefix's holders, and also the lease's look-ahead for
    /// the next holder to start after the old horizon when the server
    /// lost it. Zero turns the wait off: for a server that never restarts
    /// without its data, or in tests.
    pub fn grace(mut self, grace: Duration) -> RedisStore {
        self.grace = Some(grace);
        self.last_grace = AtomicU64::new(millis(grace).unwrap_or(u64::MAX));
        self
    }

    /// Counts a horizon as stored only once `replicas` replicas hold it
    /// (`WAIT`, for at most `timeout`), so that a replica promoted after a
    /// failover holds every horizon a holder issued ids under: its next
    /// holder starts after them with no skew assumed. A write that too few
    /// replicas acknowledge fails (`Error::Replicas`), and the lease's ids
    /// stop at the horizon they had; the promoted server's new run id makes
    /// claims wait the grace for the claims it may lack. Default: none.
    pub fn replicas(mut self, replicas: u32, timeout: Duration) -> RedisStore {
        self.replicas = (replicas > 0).then_some((replicas, timeout));
        self
    }

    /// Time between checks while waiting for a node id to be freed
    /// (default 100 ms): Redis tells no one when a key expires.
    pub fn poll(mut self, poll: Duration) -> RedisStore {
        self.poll = poll.max(Duration::from_millis(1));
        self
    }

    /// Runs one script, on a new connection if the shared one broke.
    async fn invoke(&self, script: &redis::ScriptInvocation<'_>) -> Result<Value, Error> {
        let mut retried = false;
        loop {
            let (generation, mut con) = self.connection().await?;
            match script.invoke_async::<Value>(&mut con).await {
                Ok(value) => return Ok(value),
                Err(e) if matches!(e.kind(), redis::ErrorKind::Server(_)) => return Err(e.into()),
                Err(e) => {
                    self.forget(generation).await;
                    // A connection the server closed (a restart) fails
                    // before the request is sent: one more on a new one.
                    // Had it been sent, a claim would leave an orphan that
                    // expires after its TTL.
                    if e.is_connection_dropped() && !retried {
                        retried = true;
                        continue;
                    }
                    return Err(e.into());
                }
            }
        }
    }

    async fn connection(&self) -> Result<(u64, MultiplexedConnection), Error> {
        let mut slot = self.con.lock().await;
        if let Some(con) = &*slot {
            return Ok(con.clone());
        }
        let con = self
            .client
            .get_multiplexed_async_connection_with_config(&self.config)
            .await?;
        let generation = GENERATION.fetch_add(1, Relaxed);
        *slot = Some((generation, con.clone()));
        Ok((generation, con))
    }

    /// Waits until the replicas asked for hold every write made so far on
    /// the shared connection.
    async fn replicated(&self) -> Result<(), Error> {
        let Some((wanted, timeout)) = self.replicas else {
            return Ok(());
        };
        let (_, mut con) = self.connection().await?;
        let ms = u64::try_from(timeout.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        let acked: u64 = redis::cmd("WAIT")
            .arg(wanted)
            .arg(ms)
            .query_async(&mut con)
            .await?;
        match acked >= u64::from(wanted) {
            true => Ok(()),
            false => Err(Error::Replicas { acked, wanted }),
        }
    }

    /// Drops the shared connection if it is still the one that failed.
    async fn forget(&self, generation: u64) {
        let mut slot = self.con.lock().await;
        if slot.as_ref().is_some_and(|(g, _)| *g == generation) {
            *slot = None;
        }
    }

    /// One run of the claim script over `first..=last` (at most a window).
    async fn claim_window(&self, keys: &Keys, window: Window<'_>) -> Result<Value, Error> {
        let mut script = CLAIM.key(keys.counter());
        script
            .key(keys.server())
            .key(keys.quiet())
            .arg(&keys.base)
            .arg(window.first)
            .arg(window.last)
            .arg(window.ttl_ms)
            .arg(window.grace_ms)
            .arg(window.holder)
            .arg(if window.probe { "1" } else { "0" });
        self.invoke(&script).await
    }

    /// Whether a node id in `first..=last` could be claimed now.
    async fn probe(&self, keys: &Keys, first: u32, last: u32) -> kguid_lease::Result<bool> {
        for (a, b) in windows(first, last) {
            let window = Window {
                first: a,
                last: b,
                ttl_ms: 1,
                grace_ms: self.last_grace.load(Relaxed),
                holder: "",
                probe: true,
            };
            let reply = self.claim_window(keys, window).await.map_err(store)?;
            match parse_claim(&reply, keys)? {
                ClaimReply::Free => return Ok(true),
                ClaimReply::Full => {}
                ClaimReply::Wait => return Ok(false),
                ClaimReply::Claimed { .. } => return Err(unexpected(&reply)),
            }
        }
        Ok(false)
    }
}

/// Generations of shared connections, across stores.
static GENERATION: AtomicU64 = AtomicU64::new(0);

fn config(timeout: Duration) -> AsyncConnectionConfig {
    AsyncConnectionConfig::new()
        .set_connection_timeout(Some(timeout))
        .set_response_timeout(Some(timeout))
}

/// The arguments of one claim script run.
struct Window<'a> {
    first: u32,
    last: u32,
    ttl_ms: u64,
    grace_ms: u64,
    holder: &'a str,
    probe: bool,
}

/// The windows of at most [`WINDOW`] ids that cover `first..=last`, lowest
/// first.
fn windows(first: u32, last: u32) -> impl Iterator<Item = (u32, u32)> {
    let mut next = Some(first).filter(|&f| f <= last);
    std::iter::from_fn(move || {
        let a = next?;
        let b = a.saturating_add(WINDOW - 1).min(last);
        next = b.checked_add(1).filter(|&n| n <= last);
        Some((a, b))
    })
}

impl Store for RedisStore {
    async fn claim(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        ttl: Duration,
        holder: &str,
    ) -> kguid_lease::Result<Claim> {
        if first > last {
            return Err(kguid_lease::Error::Config("empty node id range"));
        }
        let ttl_ms = millis(ttl)?.max(1);
        let grace_ms = match self.grace {
            Some(grace) => millis(grace)?,
            None => ttl_ms.saturating_mul(2),
        };
        self.last_grace.store(grace_ms, Relaxed);
        let keys = Keys::new(prefix);
        for (a, b) in windows(first, last) {
            let window = Window {
                first: a,
                last: b,
                ttl_ms,
                grace_ms,
                holder,
                probe: false,
            };
            let reply = self.claim_window(&keys, window).await.map_err(store)?;
            match parse_claim(&reply, &keys)? {
                ClaimReply::Claimed { node, token, fence } if (a..=b).contains(&node) => {
                    // No fence: never fenced, or lost with a holder that
                    // may still issue ids until its lease runs out.
                    let quiet = match fence == Fence::default() {
                        true => Duration::from_millis(grace_ms),
                        false => Duration::ZERO,
                    };
                    return Ok(Claim::Held(Claimed {
                        node,
                        token,
                        ttl: Duration::from_millis(ttl_ms),
                        fence,
                        quiet,
                    }));
                }
                ClaimReply::Full => {}
                ClaimReply::Wait => return Ok(Claim::Full { seen: 0 }),
                _ => return Err(unexpected(&reply)),
            }
        }
        Ok(Claim::Full { seen: 0 })
    }

    async fn renew(&self, held: &Held) -> kguid_lease::Result<Renewal> {
        let keys = Keys::new(&held.prefix);
        let claim = keys.node(held.node);
        let mut script = RENEW.key(&claim);
        script.arg(held.token);
        let reply = self.invoke(&script).await.map_err(store)?;
        match fields(&reply)? {
            [Value::Int(1), Value::Int(ms)] if *ms > 0 => {
                Ok(Renewal::Alive(Duration::from_millis(ms.unsigned_abs())))
            }
            [Value::Int(0)] => Ok(Renewal::Gone),
            [Value::Int(-1), key] => Err(corrupt(key, &reply)),
            _ => Err(unexpected(&reply)),
        }
    }

    async fn fence(
        &self,
        held: &Held,
        seen: Fence,
        horizon: u64,
    ) -> kguid_lease::Result<FenceWrite> {
        let keys = Keys::new(&held.prefix);
        let fence_key = keys.horizon(held.node);
        let mut script = FENCE.key(keys.node(held.node));
        script
            .key(&fence_key)
            .key(keys.counter())
            .arg(held.token)
            .arg(seen.version)
            .arg(horizon)
            .arg(&held.holder);
        let reply = self.invoke(&script).await.map_err(store)?;
        match fields(&reply)? {
            [Value::Int(1), version] => match number(version) {
                Some(version) if version > 0 => {
                    self.replicated().await.map_err(store)?;
                    Ok(FenceWrite::Stored(Fence { version, horizon }))
                }
                _ => Err(unexpected(&reply)),
            },
            [Value::Int(2), ns, version] => {
                Ok(FenceWrite::Moved(read_fence(ns, version, &fence_key)?))
            }
            [Value::Int(0)] => Ok(FenceWrite::Lost),
            [Value::Int(-1), key] => Err(corrupt(key, &reply)),
            _ => Err(unexpected(&reply)),
        }
    }

    async fn wait_release(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        _seen: u64,
        wait: Duration,
    ) -> kguid_lease::Result<bool> {
        if first > last {
            return Err(kguid_lease::Error::Config("empty node id range"));
        }
        let keys = Keys::new(prefix);
        // None: a wait too long to count ends only with a release.
        let until = tokio::time::Instant::now().checked_add(wait);
        loop {
            let left = until.map_or(self.poll, |t| {
                t.saturating_duration_since(tokio::time::Instant::now())
            });
            tokio::time::sleep(self.poll.min(left)).await;
            if self.probe(&keys, first, last).await? {
                return Ok(true);
            }
            if until.is_some_and(|t| tokio::time::Instant::now() >= t) {
                return Ok(false);
            }
        }
    }

    async fn release(&self, held: &Held) -> kguid_lease::Result<()> {
        let keys = Keys::new(&held.prefix);
        let mut script = RELEASE.key(keys.node(held.node));
        script.arg(held.token);
        let reply = self.invoke(&script).await.map_err(store)?;
        match fields(&reply)? {
            [Value::Int(0 | 1)] => Ok(()),
            [Value::Int(-1), key] => Err(corrupt(key, &reply)),
            _ => Err(unexpected(&reply)),
        }
    }
}

/// The key names under one lease prefix.
struct Keys {
    /// The prefix and its `:`.
    base: String,
}

impl Keys {
    fn new(prefix: &str) -> Keys {
        Keys {
            base: format!("{}:", prefix.trim_end_matches(':')),
        }
    }

    fn counter(&self) -> String {
        format!("{}fence", self.base)
    }

    fn server(&self) -> String {
        format!("{}server", self.base)
    }

    fn quiet(&self) -> String {
        format!("{}quiet", self.base)
    }

    fn node(&self, node: u32) -> String {
        format!("{}node:{node}", self.base)
    }

    fn horizon(&self, node: u32) -> String {
        format!("{}horizon:{node}", self.base)
    }
}

/// A claim script's reply, checked.
#[derive(Debug)]
enum ClaimReply {
    Claimed { node: u32, token: u64, fence: Fence },
    Full,
    Wait,
    Free,
}

fn parse_claim(reply: &Value, keys: &Keys) -> kguid_lease::Result<ClaimReply> {
    match fields(reply)? {
        [Value::Int(1), Value::Int(node), token, ns, version] => {
            let node = u32::try_from(*node).map_err(|_| unexpected(reply))?;
            let token = number(token)
                .filter(|&t| t > 0)
                .ok_or_else(|| unexpected(reply))?;
            let fence = read_fence(ns, version, &keys.horizon(node))?;
            Ok(ClaimReply::Claimed { node, token, fence })
        }
        [Value::Int(0)] => Ok(ClaimReply::Full),
        [Value::Int(2), Value::Int(ms)] if *ms > 0 => Ok(ClaimReply::Wait),
        [Value::Int(3)] => Ok(ClaimReply::Free),
        [Value::Int(-1), key] => Err(corrupt(key, reply)),
        _ => Err(unexpected(reply)),
    }
}

/// A fence as a script read it: both fields empty (no fence), or a
/// horizon and a version above 0.
fn read_fence(ns: &Value, version: &Value, key: &str) -> kguid_lease::Result<Fence> {
    if text(ns) == Some(b"") && text(version) == Some(b"") {
        return Ok(Fence::default());
    }
    match (number(ns), number(version)) {
        (Some(horizon), Some(version)) if version > 0 => Ok(Fence { version, horizon }),
        _ => Err(kguid_lease::Error::Corrupt {
            key: key.to_owned(),
        }),
    }
}

/// The items of a script's array reply.
fn fields(reply: &Value) -> kguid_lease::Result<&[Value]> {
    match reply {
        Value::Array(items) => Ok(items),
        _ => Err(unexpected(reply)),
    }
}

fn text(value: &Value) -> Option<&[u8]> {
    match value {
        Value::BulkString(bytes) => Some(bytes),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

/// A decimal u64 as the scripts write it: digits only, no sign, no
/// leading zero.
fn number(value: &Value) -> Option<u64> {
    match value {
        Value::Int(n) => u64::try_from(*n).ok(),
        _ => {
            let bytes = text(value)?;
            let canonical =
                bytes == b"0" || (bytes.first().is_some_and(|b| (b'1'..=b'9').contains(b)));
            if !canonical || !bytes.iter().all(u8::is_ascii_digit) {
                return None;
            }
            std::str::from_utf8(bytes).ok()?.parse().ok()
        }
    }
}

fn corrupt(key: &Value, reply: &Value) -> kguid_lease::Error {
    match text(key) {
        Some(key) => kguid_lease::Error::Corrupt {
            key: String::from_utf8_lossy(key).into_owned(),
        },
        None => unexpected(reply),
    }
}

fn unexpected(reply: &Value) -> kguid_lease::Error {
    store(Error::Reply(format!("{reply:?}")))
}

/// A Redis error as the lease's: a timeout as such, anything else as the
/// store's own error.
fn store(error: Error) -> kguid_lease::Error {
    match &error {
        Error::Redis(e) if e.is_timeout() => kguid_lease::Error::Timeout,
        _ => kguid_lease::Error::store(error),
    }
}

fn millis(d: Duration) -> kguid_lease::Result<u64> {
    // Rounded up: a store may grant more than asked, never less.
    let ms = d.as_nanos().div_ceil(1_000_000);
    // Redis keeps expiry times as signed ms since 1970: leave room.
    match u64::try_from(ms) {
        Ok(ms) if ms < 1 << 52 => Ok(ms),
        _ => Err(kguid_lease::Error::Config("duration too long for Redis")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(s: &str) -> Value {
        Value::BulkString(s.as_bytes().to_vec())
    }

    #[test]
    fn windows_cover_the_range_lowest_first() {
        let all: Vec<_> = windows(0, 2047).collect();
        assert_eq!(all, [(0, 1023), (1024, 2047)]);
        assert_eq!(windows(5, 5).collect::<Vec<_>>(), [(5, 5)]);
        assert_eq!(windows(6, 5).count(), 0);
        let top: Vec<_> = windows(u32::MAX - 1500, u32::MAX).collect();
        assert_eq!(
            top,
            [
                (u32::MAX - 1500, u32::MAX - 477),
                (u32::MAX - 476, u32::MAX)
            ]
        );
    }

    #[test]
    fn claim_replies_are_checked() {
        let keys = Keys::new("p:");
        assert_eq!(keys.node(3), "p:node:3");
        let ok = Value::Array(vec![
            Value::Int(1),
            Value::Int(3),
            bulk("1795735811121377"),
            bulk("1795735653692297123"),
            bulk("1795735811121300"),
        ]);
        match parse_claim(&ok, &keys).unwrap() {
            ClaimReply::Claimed { node, token, fence } => {
                assert_eq!((node, token), (3, 1_795_735_811_121_377));
                assert_eq!(fence.horizon, 1_795_735_653_692_297_123);
                assert_eq!(fence.version, 1_795_735_811_121_300);
            }
            other => panic!("{other:?}"),
        }
        let none = Value::Array(vec![
            Value::Int(1),
            Value::Int(0),
            bulk("7"),
            bulk(""),
            bulk(""),
        ]);
        assert!(matches!(
            parse_claim(&none, &keys).unwrap(),
            ClaimReply::Claimed { fence, .. } if fence == Fence::default()
        ));
        for (bad, corrupt) in [
            (
                vec![
                    Value::Int(1),
                    Value::Int(0),
                    bulk("7"),
                    bulk("x1"),
                    bulk("2"),
                ],
                true,
            ),
            (
                vec![Value::Int(1), Value::Int(0), bulk("7"), bulk("5"), bulk("")],
                true,
            ),
            (
                vec![
                    Value::Int(1),
                    Value::Int(0),
                    bulk("7"),
                    bulk("5"),
                    bulk("0"),
                ],
                true,
            ),
            (
                vec![Value::Int(1), Value::Int(0), bulk("07"), bulk(""), bulk("")],
                false,
            ),
            (
                vec![Value::Int(1), Value::Int(-1), bulk("7"), bulk(""), bulk("")],
                false,
            ),
            (
                vec![Value::Int(1), Value::Int(0), bulk("0"), bulk(""), bulk("")],
                false,
            ),
            (
                vec![
                    Value::Int(1),
                    Value::Int(0),
                    bulk("99999999999999999999"),
                    bulk(""),
                    bulk(""),
                ],
                false,
            ),
            (vec![Value::Int(2), Value::Int(0)], false),
            (vec![Value::Int(-1), bulk("p:fence")], true),
            (vec![Value::Int(9)], false),
            (vec![], false),
        ] {
            let reply = Value::Array(bad);
            let got = parse_claim(&reply, &keys);
            match corrupt {
                true => assert!(
                    matches!(got, Err(kguid_lease::Error::Corrupt { .. })),
                    "{reply:?}"
                ),
                false => assert!(
                    matches!(got, Err(kguid_lease::Error::Store(_))),
                    "{reply:?}"
                ),
            }
        }
        assert!(matches!(
            parse_claim(&Value::Okay, &keys),
            Err(kguid_lease::Error::Store(_))
        ));
    }

    #[test]
    fn durations_round_up_to_milliseconds() {
        assert_eq!(millis(Duration::from_micros(1)).unwrap(), 1);
        assert_eq!(millis(Duration::from_millis(1500)).unwrap(), 1500);
        assert!(millis(Duration::MAX).is_err());
    }
}
