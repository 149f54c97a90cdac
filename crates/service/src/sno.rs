//! sno ids over HTTP (`GET /ids?kind=sno`): the generator of
//! [`guid::sno`], its partition taken from the node id, and its time
//! under the same rules as the other clocks'.
//!
//! - **The partition** is the 64-bit node id (`-d`/`-w`, `--node`), which
//!   servers of a fleet already hold apart: two servers never stamp the
//!   same partition. A node id wider than sno's 16 bits is not cut to its
//!   low 16 bits (two servers whose node ids share them would share a
//!   partition, and could hand out the same ids): such a server makes no
//!   sno ids, says so in a warning at the start, and answers
//!   `kind=sno` with a 400 saying why. The same holds with a leased node
//!   id (`--etcd`, `--redis`): it may change while serving, and the
//!   store's fence covers the 64-bit ids only, so the next holder of the
//!   node id could not start after this server's sno ids.
//! - **The time** the generator reads is the time source capped below
//!   the state file's horizon (as the other clocks read it), never below
//!   the start bound plus one sno unit (4 ms), and never going back: it
//!   holds the highest time it has read, so sno ids keep increasing when
//!   the system clock steps back, as the other ids do (the tick-tock bit
//!   stays 0), and a unit's 65,536 sequences running out borrows the next
//!   unit at once.
//! - **A restart** starts after the start bound (the state file's
//!   horizon, `-t`, or now plus the max lead without either): the first
//!   unit is past the bound's, and every sno id a previous run issued is
//!   at or before it. With a state file, the horizon is moved past a
//!   reply's ids before they go out, a reply reaching at most one unit
//!   past the last id or the time (a reply is at most 10,000 ids, a unit
//!   holds 65,536), and saved at the last id at the end, as for the other
//!   kinds.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use guid::TimeSource;
use guid::sno::{Generator, UNIT_NS};

/// The sno ids a server makes, or why it makes none.
pub(crate) struct SnoIds {
    generator: Result<Generator, String>,
    /// The generator reads no time before this (Unix ns): one unit past
    /// the start bound, so its first unit follows every unit at or before
    /// the bound.
    floor: u64,
}

impl SnoIds {
    /// The generator of partition `node` (refused if the node id is
    /// `leased` or wider than 16 bits), reading `source` (the time capped
    /// below the horizon) and starting after `not_before` (Unix ns).
    pub(crate) fn new(
        node: u64,
        leased: bool,
        source: Arc<dyn TimeSource>,
        not_before: Option<u64>,
    ) -> SnoIds {
        let floor = not_before.map_or(0, |ns| ns.saturating_add(UNIT_NS));
        let generator = partition(node, leased).and_then(|partition| {
            Generator::builder()
                .partition(partition)
                .time(Held::new(source, floor))
                .build()
                .map_err(|e| format!("no sno generator: {e}"))
        });
        SnoIds { generator, floor }
    }

    /// The generator, or why this server makes no sno ids.
    #[inline]
    pub(crate) fn generator(&self) -> Result<&Generator, &str> {
        self.generator.as_ref().map_err(String::as_str)
    }

    /// How far the ids of one reply can reach (Unix ns, a unit's start)
    /// from a generator whose last id or time is at `t`: its unit or the
    /// floor's, and one unit more once the 65,536 sequences of that unit
    /// run out (a reply is at most 10,000 ids).
    #[inline]
    pub(crate) fn reach(&self, t: u64) -> u64 {
        t.max(self.floor).saturating_add(UNIT_NS)
    }
}

/// The partition of the node id `node`: the node id itself, which fits
/// 16 bits; or why sno ids are not made.
pub(crate) fn partition(node: u64, leased: bool) -> Result<u16, String> {
    if leased {
        return Err("kind sno needs a fixed node id (-d/-w or --node) for its partition: this server leases its node id (--etcd, --redis), which may change while serving, so it makes no sno ids".into());
    }
    u16::try_from(node).map_err(|_| {
        format!(
            "kind sno takes its 16-bit partition from the node id, and node {node} is wider: cut to its low 16 bits it would share partition {} with node {}, so this server makes no sno ids",
            node & 0xffff,
            node & 0xffff
        )
    })
}

/// A time that never goes back and never reads before a floor: the
/// highest time read so far.
struct Held {
    source: Arc<dyn TimeSource>,
    high: AtomicU64,
}

impl Held {
    fn new(source: Arc<dyn TimeSource>, floor: u64) -> Held {
        Held {
            source,
            high: AtomicU64::new(floor),
        }
    }
}

impl TimeSource for Held {
    #[inline]
    fn now(&self) -> u64 {
        let t = self.source.now();
        // A load first: the read-modify-write, which takes the line from
        // every other thread, only when the time has moved on.
        let high = self.high.load(Relaxed);
        if t <= high {
            return high;
        }
        self.high.fetch_max(t, Relaxed).max(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use guid::MockTime;
    use guid::sno::EPOCH_NS;

    const NOW: u64 = EPOCH_NS + 1_000_000 * UNIT_NS + 123;

    #[test]
    fn the_partition_is_the_node_id_when_it_fits() {
        assert_eq!(partition(0, false), Ok(0));
        assert_eq!(partition(1023, false), Ok(1023));
        assert_eq!(partition(0xffff, false), Ok(0xffff));
        let why = partition(0x1_0007, false).unwrap_err();
        assert!(why.contains("node 65543 is wider"), "{why}");
        assert!(why.contains("partition 7 with node 7"), "{why}");
        assert!(partition(5, true).unwrap_err().contains("leases"));
    }

    #[test]
    fn ids_start_a_unit_past_the_bound_and_never_go_back() {
        let time = MockTime::new(NOW);
        let bound = NOW + 10 * UNIT_NS; // ahead of the clock
        let sno = SnoIds::new(7, false, Arc::new(time.clone()), Some(bound));
        let g = sno.generator().unwrap();
        let first = g.next(3);
        assert_eq!((first.partition(), first.meta()), (7, 3));
        assert!(first.unix_ns() > bound, "{first:?}");
        assert_eq!(first.units(), (bound - EPOCH_NS) / UNIT_NS + 1);
        time.set(bound + 100 * UNIT_NS);
        let later = g.next(3);
        time.set(NOW);
        let after_a_step_back = g.next(3);
        assert!(first < later && later < after_a_step_back);
        assert!(!after_a_step_back.tick());
        assert_eq!(g.drifts(), 0);
        assert_eq!(sno.reach(0), bound + 2 * UNIT_NS);
    }

    #[test]
    fn a_refused_partition_says_why() {
        let sno = SnoIds::new(1 << 16, false, Arc::new(MockTime::new(NOW)), None);
        assert!(sno.generator().unwrap_err().contains("wider"));
    }
}
