//! Seeded fault schedules: which store, how many servers, which server's
//! clock is skewed, and what happens when.
//!
//! A schedule depends on its seed and the [`Plan`] only, so `--seed S`
//! with the same flags replays it. What a fault hits among things known
//! only while the run goes on (the etcd leader, a server's node id) is
//! chosen then, from the fault's `pick`.

use std::time::Duration;

use crate::rng::Rng;

/// The store the servers lease their node ids from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Store {
    /// A Redis primary with one replica.
    Redis,
    /// A 3-member etcd cluster.
    Etcd,
    /// A 3-member Hazelcast cluster, the map under split-brain protection.
    Hazelcast,
}

impl Store {
    /// `redis`, `etcd` or `hazelcast`.
    pub fn name(self) -> &'static str {
        match self {
            Store::Redis => "redis",
            Store::Etcd => "etcd",
            Store::Hazelcast => "hazelcast",
        }
    }
}

/// What a fault does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// `kill -9` a server, restart it after the hold.
    Kill,
    /// SIGSTOP a server for longer than the lease's TTL, then SIGCONT.
    Pause,
    /// Step the wall clock of the server under faketime.
    Skew,
    /// Drop every packet between a server and the store (nft).
    Partition,
    /// `FLUSHALL` on the Redis primary.
    Flushall,
    /// Delete a server's claim key, its fence (horizon) key, or both.
    DelKeys,
    /// `kill -9` the Redis primary, start it again empty.
    RedisRestart,
    /// Kill the primary, promote the replica (`REPLICAOF NO ONE`), restart
    /// the servers on its URL, and make the old primary its replica.
    RedisFailover,
    /// Cut the etcd leader off from the other members and the servers.
    LeaderIsolate,
    /// Split the fleet: one etcd or Hazelcast member with some servers
    /// apart from the other two members and the other servers.
    Split,
    /// `kill -9` the etcd leader, restart it after the hold.
    LeaderKill,
    /// Kill an etcd member, wipe its data, remove it from the cluster and
    /// add it back empty.
    MemberWipe,
    /// `kill -9` a Hazelcast member, restart it after the hold.
    MemberKill,
    /// Cut a Hazelcast member off from the other members and the servers:
    /// a split brain of one against two, then the merge.
    MemberIsolate,
    /// Destroy the Hazelcast map of the leases (claims and fences).
    MapWipe,
    /// Step the wall clock of a Hazelcast member (faketime) by one to
    /// three TTLs, forward or back, for a while, then back: the claims it
    /// owns expire early or late.
    MemberSkew,
}

impl FaultKind {
    /// Every kind.
    pub const ALL: [FaultKind; 16] = [
        FaultKind::Kill,
        FaultKind::Pause,
        FaultKind::Skew,
        FaultKind::Partition,
        FaultKind::Flushall,
        FaultKind::DelKeys,
        FaultKind::RedisRestart,
        FaultKind::RedisFailover,
        FaultKind::LeaderIsolate,
        FaultKind::Split,
        FaultKind::LeaderKill,
        FaultKind::MemberWipe,
        FaultKind::MemberKill,
        FaultKind::MemberIsolate,
        FaultKind::MapWipe,
        FaultKind::MemberSkew,
    ];

    /// The name in flags and histories.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Kill => "kill",
            FaultKind::Pause => "pause",
            FaultKind::Skew => "skew",
            FaultKind::Partition => "partition",
            FaultKind::Flushall => "flushall",
            FaultKind::DelKeys => "del-keys",
            FaultKind::RedisRestart => "redis-restart",
            FaultKind::RedisFailover => "redis-failover",
            FaultKind::LeaderIsolate => "leader-isolate",
            FaultKind::Split => "split",
            FaultKind::LeaderKill => "leader-kill",
            FaultKind::MemberWipe => "member-wipe",
            FaultKind::MemberKill => "member-kill",
            FaultKind::MemberIsolate => "member-isolate",
            FaultKind::MapWipe => "map-wipe",
            FaultKind::MemberSkew => "member-skew",
        }
    }

    /// The kind of a name.
    pub fn parse(name: &str) -> Result<FaultKind, String> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.name() == name.trim())
            .ok_or_else(|| {
                let names: Vec<_> = FaultKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown fault {name:?}: one of {}", names.join(", "))
            })
    }

    /// Whether it applies to a fleet on `store`.
    pub fn applies_to(self, store: Store) -> bool {
        match self {
            FaultKind::Kill | FaultKind::Pause | FaultKind::Skew | FaultKind::Partition => true,
            FaultKind::DelKeys => store != Store::Hazelcast,
            FaultKind::Flushall | FaultKind::RedisRestart | FaultKind::RedisFailover => {
                store == Store::Redis
            }
            FaultKind::LeaderIsolate | FaultKind::LeaderKill | FaultKind::MemberWipe => {
                store == Store::Etcd
            }
            FaultKind::Split => store != Store::Redis,
            FaultKind::MemberKill
            | FaultKind::MemberIsolate
            | FaultKind::MapWipe
            | FaultKind::MemberSkew => store == Store::Hazelcast,
        }
    }

    /// Whether it needs network namespaces (packets dropped by nft).
    pub fn needs_netns(self) -> bool {
        matches!(
            self,
            FaultKind::Partition
                | FaultKind::LeaderIsolate
                | FaultKind::Split
                | FaultKind::MemberIsolate
        )
    }
}

/// One fault of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// When, from the clients' start.
    pub at: Duration,
    /// What.
    pub kind: FaultKind,
    /// Chooses the target among those there are when it strikes (a
    /// server, an etcd member): `pick % count`.
    pub pick: u64,
    /// How long it lasts (a server down, stopped, cut off), or 0.
    pub hold: Duration,
    /// The kind's parameter: the clock's step in ms (`skew`,
    /// `member-skew`), which
    /// keys (`del-keys`: 0 the claim, 1 the fence, 2 both), the servers
    /// beside the member (`split`: a bit mask).
    pub param: i64,
    /// `kill -9` and restart another server: while the fault holds, past
    /// the lease's TTL (`pause`, `partition`, `leader-isolate`, `split`,
    /// `member-isolate`), or right after it (`flushall`, `del-keys`,
    /// `redis-restart`, `map-wipe`). It
    /// leases the lowest free node id: likely the one the fault's server
    /// can no longer renew, or whose claim the store lost.
    pub contend: bool,
}

/// What a schedule is made for.
#[derive(Clone, Debug)]
pub struct Plan {
    /// How long the clients run.
    pub duration: Duration,
    /// The servers' `--lease-ttl`.
    pub lease_ttl: Duration,
    /// The number of servers; by default 3 to 5, from the seed.
    pub servers: Option<usize>,
    /// The stores to choose from (by the seed's parity when both).
    pub stores: Vec<Store>,
    /// The fault kinds to choose from.
    pub kinds: Vec<FaultKind>,
    /// Whether namespaces (and so partitions) are available.
    pub netns: bool,
    /// Whether a process (a server, a Hazelcast member) can run under faketime.
    pub faketime: bool,
}

/// A run's fleet and faults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The seed it came from.
    pub seed: u64,
    /// The store.
    pub store: Store,
    /// How many `guid-serve` processes.
    pub servers: usize,
    /// The server started under faketime and its first offset, ms.
    pub skew: Option<(usize, i64)>,
    /// The faults, in time order, none overlapping.
    pub faults: Vec<Fault>,
}

impl Schedule {
    /// The names of the faults, in order.
    pub fn kinds(&self) -> Vec<String> {
        self.faults
            .iter()
            .map(|f| f.kind.name().to_owned())
            .collect()
    }
}

/// The kinds that `plan` allows on `store`.
pub fn kinds_for(plan: &Plan, store: Store) -> Vec<FaultKind> {
    plan.kinds
        .iter()
        .copied()
        .filter(|k| k.applies_to(store))
        .filter(|k| plan.netns || !k.needs_netns())
        .filter(|k| plan.faketime || !matches!(k, FaultKind::Skew | FaultKind::MemberSkew))
        .collect()
}

/// The schedule of `seed` under `plan`; an error if the plan leaves no
/// store with a fault to run.
pub fn generate(seed: u64, plan: &Plan) -> Result<Schedule, String> {
    let stores: Vec<Store> = plan
        .stores
        .iter()
        .copied()
        .filter(|&s| !kinds_for(plan, s).is_empty())
        .collect();
    if stores.is_empty() {
        return Err("no fault of --faults applies to a store of --store here".into());
    }
    let store = stores[(seed % stores.len() as u64) as usize];
    let kinds = kinds_for(plan, store);
    let mut rng = Rng::new(seed ^ 0x6B67_7566_6175_6C74);
    let servers = plan.servers.unwrap_or(3 + rng.below(3) as usize).max(2);
    let ttl = plan.lease_ttl.as_millis() as u64;
    let total = plan.duration.as_millis() as u64;
    // A quiet start, and a tail after the last fault for the fleet to
    // come back: both count as the `none` stretch or the last fault's.
    let warmup = (total / 6).clamp(500, 3_000);
    let tail = (2 * ttl).min(total / 4);
    let mut faults = Vec::new();
    let mut t = warmup;
    loop {
        let kind = *rng.pick(&kinds);
        let pick = rng.next_u64();
        let contend = rng.one_in(2);
        let (hold, param) = match kind {
            FaultKind::Kill => (rng.range(100, 1_500), 0),
            FaultKind::Pause => (ttl + rng.range(300, 2_000), 0),
            FaultKind::Skew => {
                let step = rng.range(300, 3_000) as i64;
                (0, if rng.one_in(2) { step } else { -step })
            }
            FaultKind::Partition => (ttl + rng.range(500, 3_000), 0),
            FaultKind::DelKeys => (0, rng.below(3) as i64),
            FaultKind::Flushall | FaultKind::RedisFailover | FaultKind::MemberWipe => (0, 0),
            FaultKind::RedisRestart => (rng.range(100, 1_000), 0),
            FaultKind::LeaderIsolate => (ttl + rng.range(500, 3_000), 0),
            FaultKind::Split => {
                // At least one server on each side.
                let mask = 1 + rng.below((1u64 << servers) - 2) as i64;
                (ttl + rng.range(1_000, 4_000), mask)
            }
            FaultKind::LeaderKill => (rng.range(500, 3_000), 0),
            FaultKind::MemberKill => (rng.range(500, 3_000), 0),
            FaultKind::MemberIsolate => (ttl + rng.range(500, 3_000), 0),
            FaultKind::MapWipe => (0, 0),
            FaultKind::MemberSkew => {
                let step = rng.range(ttl, 3 * ttl) as i64;
                (
                    ttl + rng.range(500, 3_000),
                    if rng.one_in(2) { step } else { -step },
                )
            }
        };
        let contends = matches!(
            kind,
            FaultKind::Pause
                | FaultKind::Partition
                | FaultKind::LeaderIsolate
                | FaultKind::Split
                | FaultKind::MemberIsolate
                | FaultKind::Flushall
                | FaultKind::DelKeys
                | FaultKind::RedisRestart
                | FaultKind::MapWipe
                | FaultKind::MemberSkew
        );
        let fits = t + hold + tail <= total;
        if !fits && !faults.is_empty() {
            break;
        }
        faults.push(Fault {
            at: Duration::from_millis(t),
            kind,
            pick,
            hold: Duration::from_millis(hold.min(total.saturating_sub(t))),
            param,
            contend: contends && contend,
        });
        if !fits {
            break;
        }
        // The fleet settles: leases expire and are taken again.
        t += hold + 2 * ttl + rng.below(1_000);
    }
    let skew = faults.iter().any(|f| f.kind == FaultKind::Skew).then(|| {
        let server = rng.below(servers as u64) as usize;
        let offset = rng.range(200, 1_500) as i64;
        (server, if rng.one_in(2) { offset } else { -offset })
    });
    Ok(Schedule {
        seed,
        store,
        servers,
        skew,
        faults,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            duration: Duration::from_secs(30),
            lease_ttl: Duration::from_secs(2),
            servers: None,
            stores: vec![Store::Redis, Store::Etcd],
            kinds: FaultKind::ALL.to_vec(),
            netns: true,
            faketime: true,
        }
    }

    #[test]
    fn the_same_seed_the_same_schedule() {
        for seed in 0..50 {
            assert_eq!(generate(seed, &plan()), generate(seed, &plan()));
        }
        let a: Vec<_> = (0..20).map(|s| generate(s, &plan()).unwrap()).collect();
        assert!(a.windows(2).any(|w| w[0].faults != w[1].faults));
    }

    #[test]
    fn faults_fit_the_store_the_run_and_each_other() {
        for seed in 0..500 {
            let s = generate(seed, &plan()).unwrap();
            assert_eq!(s.store, [Store::Redis, Store::Etcd][seed as usize % 2]);
            assert!((3..=5).contains(&s.servers), "{s:?}");
            assert!(!s.faults.is_empty());
            let mut end = Duration::ZERO;
            for f in &s.faults {
                assert!(f.kind.applies_to(s.store), "{seed}: {f:?}");
                assert!(f.at >= end, "{seed}: overlapping {:?}", s.faults);
                assert!(f.at + f.hold <= Duration::from_secs(30), "{seed}: {f:?}");
                end = f.at + f.hold;
                if f.kind == FaultKind::Split {
                    let all = (1 << s.servers) - 1;
                    assert!(f.param > 0 && f.param < all, "{f:?}");
                }
                if f.kind == FaultKind::Pause {
                    assert!(f.hold > Duration::from_secs(2), "a pause outlasts the TTL");
                }
            }
            let skewed = s.faults.iter().any(|f| f.kind == FaultKind::Skew);
            assert_eq!(s.skew.is_some(), skewed, "{s:?}");
            if let Some((server, offset)) = s.skew {
                assert!(server < s.servers && offset != 0);
            }
        }
    }

    #[test]
    fn loopback_has_no_partitions() {
        let p = Plan {
            netns: false,
            faketime: false,
            ..plan()
        };
        for seed in 0..200 {
            let s = generate(seed, &p).unwrap();
            for f in &s.faults {
                assert!(!f.kind.needs_netns() && f.kind != FaultKind::Skew, "{f:?}");
            }
        }
    }

    #[test]
    fn one_kind_picks_its_store() {
        let p = Plan {
            kinds: vec![FaultKind::Flushall],
            ..plan()
        };
        for seed in 0..20 {
            let s = generate(seed, &p).unwrap();
            assert_eq!(s.store, Store::Redis);
            assert!(s.faults.iter().all(|f| f.kind == FaultKind::Flushall));
        }
        let none = Plan {
            kinds: vec![FaultKind::Split],
            netns: false,
            ..plan()
        };
        assert!(generate(1, &none).is_err());
    }

    #[test]
    fn short_runs_have_a_fault() {
        let p = Plan {
            duration: Duration::from_secs(3),
            servers: Some(3),
            ..plan()
        };
        for seed in 0..50 {
            let s = generate(seed, &p).unwrap();
            assert_eq!(s.faults.len(), 1, "{s:?}");
            assert!(s.faults[0].at + s.faults[0].hold <= Duration::from_secs(3));
        }
    }

    #[test]
    fn hazelcast_kinds() {
        let p = Plan {
            stores: vec![Store::Hazelcast],
            lease_ttl: Duration::from_secs(10),
            duration: Duration::from_secs(60),
            ..plan()
        };
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let s = generate(seed, &p).unwrap();
            assert_eq!(s.store, Store::Hazelcast);
            for f in &s.faults {
                assert!(f.kind.applies_to(Store::Hazelcast), "{f:?}");
                seen.insert(f.kind);
            }
        }
        for k in [
            FaultKind::MemberKill,
            FaultKind::MemberIsolate,
            FaultKind::MapWipe,
            FaultKind::MemberSkew,
            FaultKind::Split,
            FaultKind::Partition,
        ] {
            assert!(seen.contains(&k), "{k:?} never drawn");
        }
        assert!(!seen.contains(&FaultKind::DelKeys));
        // The kinds added for Hazelcast leave the other stores' schedules.
        for k in [
            FaultKind::MemberKill,
            FaultKind::MapWipe,
            FaultKind::MemberSkew,
        ] {
            assert!(!k.applies_to(Store::Redis) && !k.applies_to(Store::Etcd));
        }
    }

    #[test]
    fn names_round_trip() {
        for k in FaultKind::ALL {
            assert_eq!(FaultKind::parse(k.name()), Ok(k));
        }
        assert!(FaultKind::parse("meteor").is_err());
    }
}
