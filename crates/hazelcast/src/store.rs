//! Node-id leases kept in a Hazelcast map: the [`Store`] of a
//! `kguid-lease` lease.

use std::time::Duration;

use kguid_lease::Error as LeaseError;
use kguid_lease::store::{Claim, Claimed, Fence, FenceWrite, Held, Renewal, Store};

use crate::client::{Client, random_u128};
use crate::codec;
use crate::data;
use crate::error::Error;

type Result<T, E = LeaseError> = std::result::Result<T, E>;

/// The map the records live in, unless [`HazelcastStore::map`] says.
pub const MAP: &str = "kguid.leases";

/// Default time between checks while waiting for a node id to be freed.
const POLL: Duration = Duration::from_millis(250);

/// How many times a claim tries to take over a fence that keeps changing
/// under it (each change is a write of the earlier holder that landed
/// late).
const TAKEOVERS: usize = 16;

/// A [`Store`] that keeps node-id leases in a map of a Hazelcast cluster.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use kguid_hazelcast::{Client, Config, HazelcastStore};
/// use kguid_lease::NodeLease;
///
/// let client = Client::new(Config::new(["10.0.0.1:5701", "10.0.0.2:5701"]))?;
/// let store = HazelcastStore::new(client);
/// let lease = NodeLease::acquire(store, "guid/fleet", 0..1024, Duration::from_secs(10)).await?;
/// let clock = lease.clock().await?;
/// let id = clock.g()?;
/// # let _ = id;
/// lease.release().await?;
/// # Ok(()) }
/// ```
///
/// The records of a lease prefix `P`, in the map [`MAP`], for each node id
/// `n`, all strings:
///
/// | key | value |
/// |---|---|
/// | `P/claim/n` | `token T ttl MS holder H`, living `MS` ms unless renewed |
/// | `P/fence/n` | `version V horizon NS owner T`, kept forever |
///
/// A claim puts `P/claim/n` only if it is absent (with the lease's TTL),
/// lowest `n` first, with a random token `T`; then it takes the fence
/// over: it replaces the fence it read with the same horizon, the next
/// version and its own token, only if the fence is still the one read
/// (or puts one if there is none). From then on, a fence write of an
/// earlier holder (which names the earlier token) finds the fence changed
/// and does nothing: no late write can lower or raise the horizon the new
/// holder read. A renewal sets the claim's TTL anew while the claim holds
/// the token (read before and after); a fence write replaces the fence
/// only while the claim holds the token and the fence is the one last
/// seen; a release removes the claim only if it holds the token.
///
/// A map keeps its entries only while a member or backup of their
/// partition lives: a claim that finds **no fence** (never written, or
/// lost with its partition, the map destroyed, or the cluster restarted)
/// asks for a quiet of the grace ([`Claimed::quiet`]; by default twice
/// the TTL), by when any holder the cluster forgot has stopped. Both
/// halves of a split brain accept writes unless the members' configuration
/// protects the map (split-brain protection with a minimum cluster size
/// over half the members): see the crate's README.
#[derive(Clone, Debug)]
pub struct HazelcastStore {
    client: Client,
    map: String,
    grace: Option<Duration>,
    poll: Duration,
}

impl HazelcastStore {
    /// Leases kept through `client`, in the map [`MAP`].
    pub fn new(client: Client) -> HazelcastStore {
        HazelcastStore {
            client,
            map: MAP.into(),
            grace: None,
            poll: POLL,
        }
    }

    /// Keeps the records in the map `name`.
    pub fn map(mut self, name: impl Into<String>) -> HazelcastStore {
        self.map = name.into();
        self
    }

    /// How long a claim that finds no fence waits before its ids; by
    /// default twice the claim's TTL.
    pub fn grace(mut self, grace: Duration) -> HazelcastStore {
        self.grace = Some(grace);
        self
    }

    /// How often a wait for a free node id checks again.
    pub fn poll(mut self, poll: Duration) -> HazelcastStore {
        self.poll = poll.max(Duration::from_millis(1));
        self
    }

    /// The client the store speaks through.
    pub fn client(&self) -> &Client {
        &self.client
    }

    async fn invoke(
        &self,
        request: crate::message::Request,
        key: &[u8],
    ) -> Result<crate::message::Message> {
        self.client.invoke(request, key).await.map_err(lease_error)
    }

    /// The value an answer to `request` carries, if any.
    async fn value(&self, request: crate::message::Request, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let answer = self.invoke(request, key).await?;
        codec::value(&answer).map_err(|e| LeaseError::store(Error::from(e)))
    }

    async fn boolean(&self, request: crate::message::Request, key: &[u8]) -> Result<bool> {
        let answer = self.invoke(request, key).await?;
        codec::boolean(&answer).map_err(|e| LeaseError::store(Error::from(e)))
    }

    /// Puts `value` under `key` (for `ttl_ms`, 0 for ever) if it holds
    /// none: whether `key` now holds it.
    async fn put_if_absent(&self, key: &[u8], value: &[u8], ttl_ms: i64) -> Result<bool> {
        let request = codec::put_if_absent(&self.map, key, value, ttl_ms);
        let before = self.value(request, key).await?;
        Ok(before.is_none_or(|before| before == value))
    }

    /// The record under `key` as `parse` reads it, and its bytes: `None`
    /// if absent.
    async fn record<R>(
        &self,
        key: &str,
        parse: fn(&str) -> Option<R>,
    ) -> Result<Option<(R, Vec<u8>)>> {
        let data_key = data::string(key);
        let Some(bytes) = self
            .value(codec::get(&self.map, &data_key), &data_key)
            .await?
        else {
            return Ok(None);
        };
        let record = data::read_string(&bytes)
            .and_then(|s| parse(&s))
            .ok_or_else(|| corrupt(key))?;
        Ok(Some((record, bytes)))
    }

    /// Makes `token` the owner of `n`'s fence, keeping its horizon: the
    /// fence as it now is, and whether there was one.
    async fn take_fence(&self, prefix: &str, n: u32, token: u64) -> Result<(Fence, bool)> {
        let key = fence_key(prefix, n);
        let data_key = data::string(&key);
        for _ in 0..TAKEOVERS {
            match self.record(&key, FenceRecord::parse).await? {
                None => {
                    let record = FenceRecord {
                        version: 1,
                        horizon: 0,
                        owner: token,
                    };
                    let value = data::string(&record.to_string());
                    if self.put_if_absent(&data_key, &value, 0).await? {
                        return Ok((record.fence(), false));
                    }
                }
                Some((old, bytes)) => {
                    let record = FenceRecord {
                        version: old.version + 1,
                        owner: token,
                        ..old
                    };
                    let value = data::string(&record.to_string());
                    let request = codec::replace_if_same(&self.map, &data_key, &bytes, &value);
                    if self.boolean(request, &data_key).await? {
                        return Ok((record.fence(), true));
                    }
                }
            }
        }
        Err(LeaseError::store(Error::Config(format!(
            "the fence {key} changed under {TAKEOVERS} takeovers"
        ))))
    }

    /// Whether the claim of `held` is still its own.
    async fn holds(&self, held: &Held) -> Result<Option<(ClaimRecord, Vec<u8>)>> {
        let claim = self
            .record(&claim_key(&held.prefix, held.node), ClaimRecord::parse)
            .await?;
        Ok(claim.filter(|(record, _)| record.token == held.token))
    }
}

impl Store for HazelcastStore {
    async fn claim(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        ttl: Duration,
        holder: &str,
    ) -> Result<Claim> {
        let ttl_ms = ttl.as_millis().clamp(1, i64::MAX as u128) as i64;
        let token = (random_u128() as u64).max(1);
        let record = ClaimRecord {
            token,
            ttl_ms,
            holder: holder.to_owned(),
        };
        let value = data::string(&record.to_string());
        for n in first..=last {
            let key = data::string(&claim_key(prefix, n));
            if !self.put_if_absent(&key, &value, ttl_ms).await? {
                continue;
            }
            let (fence, found) = self.take_fence(prefix, n, token).await?;
            let quiet = match found {
                true => Duration::ZERO,
                false => self.grace.unwrap_or(ttl * 2),
            };
            return Ok(Claim::Held(Claimed {
                node: n,
                token,
                ttl: Duration::from_millis(ttl_ms as u64),
                fence,
                quiet,
            }));
        }
        Ok(Claim::Full { seen: 0 })
    }

    async fn renew(&self, held: &Held) -> Result<Renewal> {
        let Some((record, _)) = self.holds(held).await? else {
            return Ok(Renewal::Gone);
        };
        let key = data::string(&claim_key(&held.prefix, held.node));
        let set = codec::set_ttl(&self.map, &key, record.ttl_ms);
        if !self.boolean(set, &key).await? {
            return Ok(Renewal::Gone);
        }
        // The token read again: the TTL set was this holding's own, for
        // tokens are never reused and a claim is never made twice.
        Ok(match self.holds(held).await? {
            Some(_) => Renewal::Alive(Duration::from_millis(record.ttl_ms as u64)),
            None => Renewal::Gone,
        })
    }

    async fn fence(&self, held: &Held, seen: Fence, horizon: u64) -> Result<FenceWrite> {
        if self.holds(held).await?.is_none() {
            return Ok(FenceWrite::Lost);
        }
        let key = fence_key(&held.prefix, held.node);
        let data_key = data::string(&key);
        let old = FenceRecord {
            version: seen.version,
            horizon: seen.horizon,
            owner: held.token,
        };
        let new = FenceRecord {
            version: seen.version + 1,
            horizon,
            owner: held.token,
        };
        let old_value = data::string(&old.to_string());
        let new_value = data::string(&new.to_string());
        let request = codec::replace_if_same(&self.map, &data_key, &old_value, &new_value);
        if self.boolean(request, &data_key).await? {
            return Ok(FenceWrite::Stored(new.fence()));
        }
        Ok(match self.record(&key, FenceRecord::parse).await? {
            Some((now, _)) if now.owner == held.token => FenceWrite::Moved(now.fence()),
            _ => FenceWrite::Lost,
        })
    }

    async fn wait_release(
        &self,
        _prefix: &str,
        _first: u32,
        _last: u32,
        _seen: u64,
        wait: Duration,
    ) -> Result<bool> {
        tokio::time::sleep(wait.min(self.poll)).await;
        Ok(wait >= self.poll)
    }

    async fn release(&self, held: &Held) -> Result<()> {
        let Some((_, bytes)) = self.holds(held).await? else {
            return Ok(());
        };
        let key = data::string(&claim_key(&held.prefix, held.node));
        self.boolean(codec::remove_if_same(&self.map, &key, &bytes), &key)
            .await
            .map(drop)
    }
}

fn lease_error(e: Error) -> LeaseError {
    match e {
        Error::Timeout(_) => LeaseError::Timeout,
        e => LeaseError::store(e),
    }
}

fn corrupt(key: &str) -> LeaseError {
    LeaseError::Corrupt { key: key.into() }
}

fn claim_key(prefix: &str, n: u32) -> String {
    format!("{prefix}/claim/{n}")
}

fn fence_key(prefix: &str, n: u32) -> String {
    format!("{prefix}/fence/{n}")
}

/// A claim's value.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ClaimRecord {
    token: u64,
    ttl_ms: i64,
    holder: String,
}

impl std::fmt::Display for ClaimRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "token {:016x} ttl {} holder {}",
            self.token, self.ttl_ms, self.holder
        )
    }
}

impl ClaimRecord {
    fn parse(s: &str) -> Option<ClaimRecord> {
        let rest = s.strip_prefix("token ")?;
        let (token, rest) = rest.split_once(" ttl ")?;
        let (ttl, holder) = rest.split_once(" holder ")?;
        Some(ClaimRecord {
            token: hex16(token)?,
            ttl_ms: number(ttl).filter(|&ms| ms > 0)? as i64,
            holder: holder.to_owned(),
        })
    }
}

/// A fence's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FenceRecord {
    version: u64,
    horizon: u64,
    owner: u64,
}

impl std::fmt::Display for FenceRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "version {} horizon {} owner {:016x}",
            self.version, self.horizon, self.owner
        )
    }
}

impl FenceRecord {
    fn parse(s: &str) -> Option<FenceRecord> {
        let rest = s.strip_prefix("version ")?;
        let (version, rest) = rest.split_once(" horizon ")?;
        let (horizon, owner) = rest.split_once(" owner ")?;
        Some(FenceRecord {
            version: number(version).filter(|&v| v > 0)?,
            horizon: number(horizon)?,
            owner: hex16(owner)?,
        })
    }

    fn fence(&self) -> Fence {
        Fence {
            version: self.version,
            horizon: self.horizon,
        }
    }
}

/// Decimal digits as written: no sign, no leading zero.
fn number(s: &str) -> Option<u64> {
    let canonical =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    canonical.then(|| s.parse().ok()).flatten()
}

/// Sixteen lowercase hex digits, as written.
fn hex16(s: &str) -> Option<u64> {
    let canonical = s.len() == 16 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    canonical.then(|| u64::from_str_radix(s, 16).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records read back as written; anything else is not a record.
    #[test]
    fn records_read_back_exactly() {
        let claim = ClaimRecord {
            token: 0xdead_beef,
            ttl_ms: 10_000,
            holder: "host 1:42".into(),
        };
        assert_eq!(ClaimRecord::parse(&claim.to_string()), Some(claim));
        let fence = FenceRecord {
            version: 3,
            horizon: 1_700_000_000_000_000_000,
            owner: u64::MAX,
        };
        assert_eq!(FenceRecord::parse(&fence.to_string()), Some(fence));
        for bad in [
            "",
            "token 00000000deadbeef ttl 0 holder h",
            "token 00000000DEADBEEF ttl 1 holder h",
            "token deadbeef ttl 1 holder h",
            "token 00000000deadbeef ttl 01 holder h",
            "token 00000000deadbeef ttl -1 holder h",
        ] {
            assert_eq!(ClaimRecord::parse(bad), None, "{bad:?}");
        }
        for bad in [
            "version 0 horizon 1 owner 0000000000000001",
            "version 1 horizon +1 owner 0000000000000001",
            "version 1 horizon 1 owner 1",
            "version 1 horizon 18446744073709551616 owner 0000000000000001",
        ] {
            assert_eq!(FenceRecord::parse(bad), None, "{bad:?}");
        }
    }
}
