//! The lease against a store in memory that keeps the [`Store`] contract,
//! with faults injected: a late write moving the fence, a claim taken
//! away, renewals that fail or find the lease gone.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use guid::flake::{self, Layout};
use guid::{TimeSource, WallClock};
use kguid_lease::store::{Claim, Claimed, Fence, FenceWrite, Held, Renewal, Store};
use kguid_lease::{AnyStore, Error, NodeLease, Options, Result, WhenFull};

type Key = (String, u32);

#[derive(Default)]
struct State {
    tokens: u64,
    /// Bumped by every write, like etcd's revision.
    version: u64,
    /// Bumped by every claim that goes.
    releases: u64,
    claims: BTreeMap<Key, (u64, Instant, Duration)>,
    fences: BTreeMap<Key, Fence>,
    /// Every horizon the fences took, in order.
    history: Vec<(Key, u64)>,
}

impl State {
    fn expire(&mut self) {
        let now = Instant::now();
        let before = self.claims.len();
        self.claims.retain(|_, (_, until, _)| *until > now);
        self.releases += (before - self.claims.len()) as u64;
    }
}

#[derive(Clone, Default)]
struct Memory {
    state: Arc<Mutex<State>>,
    /// Renewals fail (an unreachable store) while set.
    unreachable: Arc<AtomicBool>,
    /// A store that may lose its records: a claim that finds no fence
    /// asks for this quiet.
    quiet: Duration,
}

impl Memory {
    fn fence(&self, prefix: &str, node: u32) -> Fence {
        let state = self.state.lock().unwrap();
        let key = (prefix.to_owned(), node);
        state.fences.get(&key).copied().unwrap_or_default()
    }

    /// A write of the holder's that landed late: a new fence version.
    fn write_fence(&self, prefix: &str, node: u32, horizon: u64) {
        let mut state = self.state.lock().unwrap();
        state.version += 1;
        let version = state.version;
        let key = (prefix.to_owned(), node);
        state.fences.insert(key.clone(), Fence { version, horizon });
        state.history.push((key, horizon));
    }

    /// The claim of `node` taken away, as an administrator would.
    fn drop_claim(&self, prefix: &str, node: u32) {
        let mut state = self.state.lock().unwrap();
        state.claims.remove(&(prefix.to_owned(), node));
        state.releases += 1;
    }

    /// Every claim and fence gone, as a wiped store's.
    fn wipe(&self) {
        let mut state = self.state.lock().unwrap();
        state.claims.clear();
        state.fences.clear();
    }

    fn claimed(&self, prefix: &str, node: u32) -> bool {
        let mut state = self.state.lock().unwrap();
        state.expire();
        state.claims.contains_key(&(prefix.to_owned(), node))
    }

    fn history(&self, prefix: &str, node: u32) -> Vec<u64> {
        let state = self.state.lock().unwrap();
        let key = (prefix.to_owned(), node);
        state
            .history
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|&(_, h)| h)
            .collect()
    }
}

impl Store for Memory {
    async fn claim(
        &self,
        prefix: &str,
        first: u32,
        last: u32,
        ttl: Duration,
        _holder: &str,
    ) -> Result<Claim> {
        let mut state = self.state.lock().unwrap();
        state.expire();
        let free = (first..=last).find(|&n| !state.claims.contains_key(&(prefix.to_owned(), n)));
        let Some(node) = free else {
            return Ok(Claim::Full {
                seen: state.releases,
            });
        };
        state.tokens += 1;
        let token = state.tokens;
        let key = (prefix.to_owned(), node);
        state
            .claims
            .insert(key.clone(), (token, Instant::now() + ttl, ttl));
        let fence = state.fences.get(&key).copied().unwrap_or_default();
        let quiet = match fence == Fence::default() {
            true => self.quiet,
            false => Duration::ZERO,
        };
        Ok(Claim::Held(Claimed {
            node,
            token,
            ttl,
            fence,
            quiet,
        }))
    }

    async fn renew(&self, held: &Held) -> Result<Renewal> {
        if self.unreachable.load(Ordering::SeqCst) {
            return Err(Error::Timeout);
        }
        let mut state = self.state.lock().unwrap();
        state.expire();
        let key = (held.prefix.clone(), held.node);
        match state.claims.get_mut(&key) {
            Some((token, until, ttl)) if *token == held.token => {
                *until = Instant::now() + *ttl;
                Ok(Renewal::Alive(*ttl))
            }
            _ => Ok(Renewal::Gone),
        }
    }

    async fn fence(&self, held: &Held, seen: Fence, horizon: u64) -> Result<FenceWrite> {
        let mut state = self.state.lock().unwrap();
        state.expire();
        let key = (held.prefix.clone(), held.node);
        if state.claims.get(&key).map(|c| c.0) != Some(held.token) {
            return Ok(FenceWrite::Lost);
        }
        let now = state.fences.get(&key).copied().unwrap_or_default();
        if now.version != seen.version {
            return Ok(FenceWrite::Moved(now));
        }
        state.version += 1;
        let fence = Fence {
            version: state.version,
            horizon,
        };
        state.fences.insert(key.clone(), fence);
        state.history.push((key, horizon));
        Ok(FenceWrite::Stored(fence))
    }

    async fn wait_release(
        &self,
        _prefix: &str,
        _first: u32,
        _last: u32,
        seen: u64,
        wait: Duration,
    ) -> Result<bool> {
        let until = Instant::now() + wait;
        while Instant::now() < until {
            {
                let mut state = self.state.lock().unwrap();
                state.expire();
                if state.releases > seen {
                    return Ok(true);
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Ok(false)
    }

    async fn release(&self, held: &Held) -> Result<()> {
        let mut state = self.state.lock().unwrap();
        let key = (held.prefix.clone(), held.node);
        if state.claims.get(&key).map(|c| c.0) == Some(held.token) {
            state.claims.remove(&key);
            state.releases += 1;
        }
        Ok(())
    }
}

const TTL: Duration = Duration::from_millis(800);

/// A lease of node id 0 under `prefix`, and a flake clock of it.
async fn holder(store: &Memory, prefix: &str) -> (NodeLease, kguid_lease::LeasedFlakeClock) {
    let lease = NodeLease::acquire(store.clone(), prefix, 0..1, TTL)
        .await
        .unwrap();
    let clock = lease
        .flake_clock(flake::Clock::builder(Layout::NOEQD))
        .await
        .unwrap();
    (lease, clock)
}

fn unix(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lowest_free_ids_are_taken_and_a_full_range_fails_or_waits() {
    let store = Memory::default();
    let mut leases = Vec::new();
    for _ in 0..3 {
        leases.push(
            NodeLease::acquire(store.clone(), "p", 0..3, TTL)
                .await
                .unwrap(),
        );
    }
    let nodes: Vec<u32> = leases.iter().map(NodeLease::node).collect();
    assert_eq!(nodes, [0, 1, 2]);
    let full = NodeLease::acquire(store.clone(), "p", 0..3, TTL).await;
    assert!(
        matches!(full, Err(Error::Full { first: 0, last: 2 })),
        "{full:?}"
    );

    let waiter = {
        let store = AnyStore::new(store.clone());
        tokio::spawn(async move {
            Options::default()
                .when_full(WhenFull::Wait(Duration::from_secs(5)))
                .acquire(store, "p", 0..3, TTL)
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished());
    let one = leases.remove(1);
    let horizon = one.horizon();
    one.release().await.unwrap();
    assert!(!store.claimed("p", 1), "released at once");
    let next = waiter.await.unwrap().unwrap();
    assert_eq!(next.node(), 1);
    assert_eq!(
        next.not_before(),
        horizon,
        "starts after the released horizon"
    );

    let ran_out = Options::default()
        .when_full(WhenFull::Wait(Duration::from_millis(200)))
        .acquire(store.clone(), "p", 0..3, TTL)
        .await;
    assert!(matches!(ran_out, Err(Error::Full { .. })));
    let empty = NodeLease::acquire(store.clone(), "p", 3..3, TTL).await;
    assert!(matches!(empty, Err(Error::Config(_))));
}

/// A write of the holder's that lands late moves the fence under it: the
/// holder takes the fence the store shows and writes past it, never below.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fence_moved_under_the_holder_is_taken_and_never_lowered() {
    let store = Memory::default();
    let lease = NodeLease::acquire(store.clone(), "f", 0..1, TTL)
        .await
        .unwrap();
    let stored = store.fence("f", 0).horizon;
    assert_eq!(unix(lease.horizon()), stored);

    // Late, and higher than anything the holder asked for.
    let late = stored + 60_000_000_000;
    store.write_fence("f", 0, late);
    // A clock 30 s ahead needs the horizon moved: the write meets the
    // moved fence, takes it, and that covers the clock.
    let ahead = || WallClock.now() + 30_000_000_000;
    let clock = lease
        .flake_clock(flake::Clock::builder(Layout::NOEQD).time(ahead))
        .await
        .unwrap();
    assert_eq!(unix(lease.horizon()), late);
    clock.next().unwrap();

    // One still later that the holder needs: written past the moved fence.
    store.write_fence("f", 0, late + 1);
    let further = || WallClock.now() + 120_000_000_000;
    lease
        .flake_clock(flake::Clock::builder(Layout::NOEQD).time(further))
        .await
        .unwrap();
    assert!(unix(lease.horizon()) > late + 1);
    let history = store.history("f", 0);
    assert!(history.windows(2).all(|w| w[1] >= w[0]), "{history:?}");
    assert_eq!(store.fence("f", 0).horizon, unix(lease.horizon()));
    lease.release().await.unwrap();
}

/// Renewals that fail hold ids back from the claim's deadline and let
/// them go again once one gets through; a claim taken away is lost for
/// good.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_stop_while_renewals_fail_and_a_lost_claim_is_final() {
    let store = Memory::default();
    // A wide margin and quick renewals: ids stop well before the claim
    // could expire, and a renewal gets through before it does.
    let margin = TTL / 2;
    let options = Options::default()
        .margin(margin)
        .interval(Duration::from_millis(100))
        .timeout(Duration::from_millis(100));
    let lease = options
        .acquire(store.clone(), "e", 0..1, TTL)
        .await
        .unwrap();
    let clock = lease.clock().await.unwrap();
    clock.g().unwrap();

    store.unreachable.store(true, Ordering::SeqCst);
    let cut = Instant::now();
    while clock.g().is_ok() {
        assert!(cut.elapsed() < TTL, "ids went on past the TTL");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert!(matches!(clock.g(), Err(Error::Expired)));
    assert!(cut.elapsed() <= TTL - margin + Duration::from_millis(50));
    store.unreachable.store(false, Ordering::SeqCst);
    let until = Instant::now() + TTL;
    while clock.g().is_err() {
        assert!(Instant::now() < until, "ids never resumed");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    store.drop_claim("e", 0);
    let until = Instant::now() + TTL;
    while !matches!(clock.g(), Err(Error::Lost)) {
        assert!(
            Instant::now() < until,
            "the holder never learned it lost the claim"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(matches!(lease.check(), Err(Error::Lost)));
}

/// A dropped lease stops its clocks at once and its claim expires in the
/// store; the next holder starts after every id of the first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_lease_expires_and_its_successor_starts_after_it() {
    let store = Memory::default();
    let first = NodeLease::acquire(store.clone(), "d", 0..1, TTL)
        .await
        .unwrap();
    let fast = || WallClock.now() + 5_000_000_000;
    let clock = first
        .clock_with(guid::Clock::builder().time(fast))
        .await
        .unwrap();
    let last = clock.g().unwrap();
    drop(first);
    assert!(matches!(clock.g(), Err(Error::Lost)));
    let second = Options::default()
        .when_full(WhenFull::Wait(Duration::from_secs(5)))
        .acquire(store.clone(), "d", 0..1, TTL)
        .await
        .unwrap();
    assert!(second.clock().await.unwrap().g().unwrap() > last);
}

/// Released after its last id, a lease leaves the fence there rather than
/// a whole look-ahead on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_after_lowers_the_fence_to_the_last_id() {
    let store = Memory::default();
    let (lease, clock) = holder(&store, "r").await;
    clock.next().unwrap();
    let last = clock.clock().last_time();
    assert!(unix(lease.horizon()) > unix(last));
    // A write of the holder's, given up on (a timeout), lands late: the
    // fence moved under it is lowered all the same.
    store.write_fence("r", 0, unix(lease.horizon()) + 1_000_000);
    lease.release_after(last).await.unwrap();
    assert_eq!(store.fence("r", 0).horizon, unix(last));
    assert!(!store.claimed("r", 0));
}

/// A store that lost every record hands the node id to a new holder at
/// once, while the old one still issues until its next renewal: the new
/// holder's ids wait out the quiet the store asks for, start after it on
/// the wall clock, and no id repeats.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_wipe_the_next_holder_waits_out_the_quiet_and_no_id_repeats() {
    let quiet = TTL * 2;
    let store = Memory {
        quiet,
        ..Memory::default()
    };
    let first = NodeLease::acquire(store.clone(), "w", 0..1, TTL)
        .await
        .unwrap();
    let fresh = first.not_before();
    let old = Arc::new(
        first
            .flake_clock(flake::Clock::builder(Layout::NOEQD))
            .await
            .unwrap(),
    );
    // A node id never fenced waits the quiet too: the store cannot tell.
    assert!(
        unix(fresh) > 0,
        "an unfenced first claim starts after its quiet"
    );
    while old.next().is_err() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let issuing = {
        let old = Arc::clone(&old);
        std::thread::spawn(move || {
            let mut ids = Vec::new();
            let mut refusals = 0u64;
            let until = Instant::now() + TTL * 4;
            while Instant::now() < until {
                match old.next() {
                    Ok(id) => ids.push(id),
                    Err(Error::Lost) => break,
                    Err(_) => refusals += 1,
                }
            }
            (ids, refusals)
        })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    store.wipe();
    let claimed = Instant::now();
    let second = NodeLease::acquire(store.clone(), "w", 0..1, TTL)
        .await
        .unwrap();
    assert_eq!(second.node(), 0, "the wiped store hands node 0 out again");
    let wall = WallClock.now();
    assert!(unix(second.not_before()) >= wall + guid::nanos(quiet) - 50_000_000);
    // No horizon within the quiet: one stored now would run the quiet
    // past the wall clock, ahead of any id this holder could make.
    assert_eq!(store.fence("w", 0), Fence::default());
    let new = second
        .flake_clock(flake::Clock::builder(Layout::NOEQD))
        .await
        .unwrap();
    // A clock is built once the quiet is over, its horizon a look-ahead
    // (the TTL) past the wall clock.
    assert!(claimed.elapsed() >= quiet);
    let fenced = store.fence("w", 0).horizon;
    assert!(fenced <= WallClock.now() + guid::nanos(TTL) + 50_000_000);
    let mut ids = Vec::new();
    while claimed.elapsed() < quiet + TTL {
        match new.next() {
            Ok(id) => {
                assert!(claimed.elapsed() >= quiet, "an id within the quiet");
                ids.push(id);
            }
            Err(Error::Unfenced { left }) => assert!(left <= quiet),
            Err(e) => assert!(claimed.elapsed() < quiet, "{e}"),
        }
        tokio::task::yield_now().await;
    }
    let (old_ids, _) = issuing.join().unwrap();
    assert!(!old_ids.is_empty() && !ids.is_empty());
    let mut all: Vec<u64> = old_ids.iter().chain(&ids).copied().collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "an id repeated");
    assert!(
        ids[0] > *old_ids.last().unwrap(),
        "the new holder's ids come after"
    );
}

/// Hand-overs in quick succession, each holder released at once after it
/// built its clock: each next holder starts after the last one's horizon,
/// but its clock is built only once the wall clock reaches it, so the
/// horizons stay a look-ahead past the wall clock rather than a look-ahead
/// further at each hand-over (past what a quiet covers when the store
/// loses them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_hand_overs_keep_the_horizon_a_look_ahead_past_the_wall_clock() {
    let store = Memory::default();
    for _ in 0..4 {
        let (lease, clock) = holder(&store, "h").await;
        clock.next().unwrap();
        let fenced = store.fence("h", 0).horizon;
        let bound = WallClock.now() + guid::nanos(TTL) + 50_000_000;
        assert!(
            fenced <= bound,
            "a horizon {} ms past the wall clock",
            (fenced - WallClock.now()) / 1_000_000
        );
        lease.release().await.unwrap();
    }
}
