//! etcd as the store of node-id leases: a claim is a key bound to an etcd
//! lease, created by a transaction only if absent; the fence is a key
//! written by transactions that compare the claim's lease and the fence's
//! revision.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};

use kguid_lease::store::{Claim, Claimed, Fence, FenceWrite, Held, Renewal, Store};
use kguid_lease::{Error, Result};
use serde_json::{Value, json};

use crate::client::{Client, ClientError, NOT_FOUND};
use crate::gateway::{self, KeyValue, b64};
use crate::keys::{self, Keys};

/// Claim attempts per call: each failed one means another process took
/// an id, so this bounds the loop under churn without limiting real use.
const MAX_ATTEMPTS: usize = 4096;

/// After this many lost attempts, the id tried is drawn among the 2^n
/// lowest free ones (at most): processes that start together then spread
/// over the free ids instead of all racing for the lowest, one winner a
/// round.
const MAX_SPREAD: u32 = 6;

impl Store for Client {
    async fn claim(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        ttl: Duration,
        holder: &str,
    ) -> Result<Claim> {
        let sent = Instant::now();
        let grant: gateway::Grant = self
            .post(
                "/v3/lease/grant",
                &json!({ "TTL": ttl_seconds(ttl)?.to_string() }),
            )
            .await?;
        if let Some(error) = grant.error.filter(|e| !e.is_empty()) {
            return Err(self.grant_refused("/v3/lease/grant", error));
        }
        let token = match u64::try_from(grant.id) {
            Ok(token) if token > 0 && grant.ttl > 0 => token,
            _ => return Err(self.unreadable("/v3/lease/grant", "no lease id or ttl")),
        };
        let keys = Keys::new(prefix);
        let granted = Grant {
            lease: grant.id,
            ttl: Duration::from_secs(grant.ttl.unsigned_abs()),
            sent,
        };
        let claimed = self.claim_with(&keys, first, last, &granted, holder).await;
        if let Ok(Taken::Id(node, fence)) = claimed {
            return Ok(Claim::Held(Claimed {
                node,
                token,
                ttl: Duration::from_secs(grant.ttl.unsigned_abs()),
                fence,
                // etcd keeps what a quorum acknowledged: a missing fence
                // is a node id never fenced.
                quiet: Duration::ZERO,
            }));
        }
        // Nothing claimed: the lease goes (best effort; it expires anyway).
        let _ = self.revoke(grant.id).await;
        match claimed? {
            Taken::Full(revision) => Ok(Claim::Full {
                seen: revision.unsigned_abs(),
            }),
            Taken::Id(..) => Err(Error::Lost),
        }
    }

    async fn renew(&self, held: &Held) -> Result<Renewal> {
        self.keep_alive(lease_id(held.token)?).await
    }

    async fn fence(&self, held: &Held, seen: Fence, horizon: u64) -> Result<FenceWrite> {
        let keys = Keys::new(&held.prefix);
        let claim = keys.claim(held.node);
        let fence = keys.fence(held.node);
        let value = keys::value(horizon, &held.holder);
        let lease = lease_id(held.token)?;
        let txn = json!({
            // The claim still bound to this lease, the fence as last seen.
            "compare": [
                {"target": "LEASE", "key": b64(&claim), "result": "EQUAL", "lease": lease.to_string()},
                {"target": "MOD", "key": b64(&fence), "result": "EQUAL", "mod_revision": seen.version.to_string()},
            ],
            "success": [
                {"request_put": {"key": b64(&claim), "value": b64(&value), "lease": lease.to_string()}},
                {"request_put": {"key": b64(&fence), "value": b64(&value)}},
            ],
            "failure": [
                {"request_range": {"key": b64(&claim)}},
                {"request_range": {"key": b64(&fence)}},
            ],
        });
        let path = "/v3/kv/txn";
        let response: gateway::Txn = self.post(path, &txn).await?;
        let revision = response
            .revision()
            .map_err(|e| self.unreadable(path, &e.0))?;
        if response.succeeded {
            return Ok(FenceWrite::Stored(Fence {
                version: revision.unsigned_abs(),
                horizon,
            }));
        }
        let kvs = |i| response.range(i).map_err(|e| self.unreadable(path, &e.0));
        let ours = kvs(0)?.first().is_some_and(|kv| kv.lease == lease);
        if !ours {
            return Ok(FenceWrite::Lost);
        }
        Ok(FenceWrite::Moved(fence_of(&fence, kvs(1)?.first())?))
    }

    async fn wait_release(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        seen: u64,
        wait: Duration,
    ) -> Result<bool> {
        let keys = Keys::new(prefix);
        let start = i64::try_from(seen)
            .unwrap_or(i64::MAX - 1)
            .saturating_add(1);
        let create = json!({
            "create_request": {
                "key": b64(keys.claim(first)),
                "range_end": b64(keys.claim_end(last)),
                "start_revision": start.to_string(),
                // Only deletions: a claim going is what frees an id.
                "filters": ["NOPUT"],
            }
        });
        let until = tokio::time::Instant::now() + wait;
        let watch = async {
            let mut stream: crate::client::Stream = self.open("/v3/watch", &create).await?;
            loop {
                match stream.next::<gateway::Watch>().await? {
                    Some(w) if w.canceled || w.compact_revision != 0 => return Ok(true),
                    Some(w) if !w.events.is_empty() => return Ok(true),
                    Some(_) => {}
                    // A closed stream: list again.
                    None => return Ok(true),
                }
            }
        };
        match tokio::time::timeout_at(until, watch).await {
            Ok(result) => result.map_err(|e: ClientError| Error::from(e)),
            Err(_) => Ok(false),
        }
    }

    async fn release(&self, held: &Held) -> Result<()> {
        self.revoke(lease_id(held.token)?).await
    }
}

/// An etcd lease granted for a claim.
struct Grant {
    lease: i64,
    ttl: Duration,
    /// Send time of the grant or of the last keep-alive etcd answered.
    sent: Instant,
}

/// What the claim loop found.
enum Taken {
    /// The id claimed and its fence.
    Id(u32, Fence),
    /// The range is full at this revision.
    Full(i64),
}

impl Client {
    /// The claim loop: the lowest free id and its fence, or the revision
    /// at which the range was seen full.
    async fn claim_with(
        &self,
        keys: &Keys,
        first: u32,
        last: u32,
        grant: &Grant,
        holder: &str,
    ) -> Result<Taken> {
        let lease = grant.lease;
        let mut confirmed = grant.sent;
        let listing = json!({
            "key": b64(keys.claim(first)),
            "range_end": b64(keys.claim_end(last)),
            "keys_only": true,
        });
        let path = "/v3/kv/range";
        let range: gateway::Range = self.post(path, &listing).await?;
        let revision = gateway::revision(range.header).map_err(|e| self.unreadable(path, &e.0))?;
        let mut taken = ids(keys, &range.kvs)?;
        let mut revision = revision;
        let path = "/v3/kv/txn";
        for lost in 0..MAX_ATTEMPTS {
            let spread = 1usize << lost.min(MAX_SPREAD as usize);
            let free = keys::lowest_free_n(first, last, &taken, spread);
            let Some(&id) = free.get(pick(free.len())) else {
                return Ok(Taken::Full(revision));
            };
            // A long fight for an id must not outlast the lease.
            if confirmed.elapsed() >= grant.ttl / 4 {
                let sent = Instant::now();
                match self.keep_alive(lease).await? {
                    Renewal::Alive(_) => confirmed = sent,
                    Renewal::Gone => return Err(Error::Lost),
                }
            }
            let claim = keys.claim(id);
            let fence = keys.fence(id);
            let txn = json!({
                "compare": [
                    {"target": "CREATE", "key": b64(&claim), "result": "EQUAL", "create_revision": "0"},
                ],
                "success": [
                    {"request_put": {"key": b64(&claim), "value": b64(keys::value(0, holder)), "lease": lease.to_string()}},
                    {"request_range": {"key": b64(&fence)}},
                ],
                // Another process took it first: list the range again.
                "failure": [{"request_range": listing}],
            });
            let response: gateway::Txn = self.post(path, &txn).await?;
            revision = response
                .revision()
                .map_err(|e| self.unreadable(path, &e.0))?;
            let kvs = response.range(usize::from(response.succeeded));
            let kvs = kvs.map_err(|e| self.unreadable(path, &e.0))?;
            if response.succeeded {
                return Ok(Taken::Id(id, fence_of(&fence, kvs.first())?));
            }
            taken = ids(keys, kvs)?;
        }
        Ok(Taken::Full(revision))
    }

    /// A reply that lacks what the request must return.
    fn unreadable(&self, path: &str, reason: &str) -> Error {
        Error::store(ClientError::Reply {
            endpoint: self.current(),
            path: path.to_owned(),
            reason: reason.to_owned(),
        })
    }

    /// An error etcd put in a reply's body.
    fn grant_refused(&self, path: &str, message: String) -> Error {
        Error::store(ClientError::Status {
            endpoint: self.current(),
            path: path.to_owned(),
            status: 200,
            code: None,
            message,
        })
    }

    /// One keep-alive of an etcd lease.
    async fn keep_alive(&self, lease: i64) -> Result<Renewal> {
        let path = "/v3/lease/keepalive";
        let alive: gateway::KeepAlive = self
            .post_once(path, &json!({ "ID": lease.to_string() }))
            .await?;
        if alive.id != lease {
            return Err(self.unreadable(path, "a keep-alive of another lease"));
        }
        Ok(match alive.ttl {
            ttl if ttl > 0 => Renewal::Alive(Duration::from_secs(ttl.unsigned_abs())),
            _ => Renewal::Gone,
        })
    }

    /// Revokes an etcd lease; one etcd no longer knows is gone already.
    async fn revoke(&self, lease: i64) -> Result<()> {
        let revoked: Result<Value, ClientError> = self
            .post("/v3/lease/revoke", &json!({ "ID": lease.to_string() }))
            .await;
        match revoked {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some(NOT_FOUND) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

/// A random index below `n` (0 if `n` is 0 or 1).
fn pick(n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let random = RandomState::new().build_hasher().finish();
    (random % n as u64) as usize
}

/// The fence in a key-value read (none: no fence yet).
fn fence_of(key: &str, kv: Option<&KeyValue>) -> Result<Fence> {
    Ok(match kv {
        Some(kv) => Fence {
            version: u64::try_from(kv.mod_revision).map_err(|_| Error::Corrupt {
                key: key.to_owned(),
            })?,
            horizon: keys::horizon_of(key, &kv.value)?,
        },
        None => Fence::default(),
    })
}

/// The claimed ids of a listing, sorted.
fn ids(keys: &Keys, kvs: &[KeyValue]) -> Result<Vec<u32>> {
    let mut ids = kvs
        .iter()
        .map(|kv| keys.id_of_claim(&kv.key))
        .collect::<Result<Vec<u32>>>()?;
    ids.sort_unstable();
    Ok(ids)
}

/// The etcd lease id of a token: etcd's ids are positive int64s.
fn lease_id(token: u64) -> Result<i64> {
    i64::try_from(token).map_err(|_| Error::Config("not an etcd lease id"))
}

/// The TTL to ask etcd for: whole seconds, rounded up, at least 1.
pub(crate) fn ttl_seconds(ttl: Duration) -> Result<i64> {
    let secs = ttl
        .as_secs()
        .saturating_add(u64::from(ttl.subsec_nanos() > 0));
    match i64::try_from(secs.max(1)) {
        Ok(s) => Ok(s),
        Err(_) => Err(Error::Config("ttl too long")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_round_up_to_whole_seconds() {
        assert_eq!(ttl_seconds(Duration::from_millis(1)).unwrap(), 1);
        assert_eq!(ttl_seconds(Duration::ZERO).unwrap(), 1);
        assert_eq!(ttl_seconds(Duration::from_millis(1_001)).unwrap(), 2);
        assert_eq!(ttl_seconds(Duration::from_secs(3)).unwrap(), 3);
        assert!(ttl_seconds(Duration::MAX).is_err());
    }
}
