//! The settings of a 96-bit clock.

use std::time::SystemTime;

use super::core::Core;
use super::{Clock, Generation, Own, Snapshot};
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{self, TICK_MASK, TICK_SHIFT};
use crate::time::{Source, TimeSource, unix_nanos};

/// Settings of a [`Clock`]: made by [`Clock::builder`], used as
/// [`crate::Builder`] (v2) or [`crate::v3::Builder`].
#[derive(Clone, Debug, Default)]
pub struct Builder<G: Generation> {
    pub(super) node: Option<u64>,
    drift: G::Drift,
    inverse: bool,
    source: Source,
    /// Unix ns.
    not_before: Option<u64>,
    restore: Option<Snapshot>,
    shared: bool,
}

impl<G: Generation> Builder<G> {
    /// Stamps the node id named by `CONFIG_GUID_NODE_ID` if it is set and
    /// not empty (see the generation's `node::from_env`); otherwise keeps
    /// the node chosen so far.
    pub fn node_from_env(mut self) -> Self {
        if let Some(node) = G::env_node() {
            self.node = Some(node);
        }
        self
    }

    /// Stamps `node`, which must fit the generation's node bits.
    pub(crate) fn node_bits(mut self, node: u64) -> Result<Self> {
        self.node = Some(layout::check(node, "node", G::NODE_BITS)?);
        Ok(self)
    }

    /// Stamps this drift (default: its `DEFAULT`).
    pub fn drift(mut self, drift: G::Drift) -> Self {
        self.drift = drift;
        self
    }

    /// Reads time from `source` instead of the wall clock, through a trait
    /// object (for the built-in clocks, [`Builder::wall`] and
    /// [`Builder::coarse`] call them directly).
    pub fn time(mut self, source: impl TimeSource + 'static) -> Self {
        self.source = Source::custom(source);
        self
    }

    /// Reads time from the wall clock ([`WallClock`](crate::WallClock)), the
    /// default.
    pub fn wall(mut self) -> Self {
        self.source = Source::Wall;
        self
    }

    /// Reads time from the process-wide [`Ticker`](crate::Ticker) of the
    /// wall clock: one atomic load instead of a clock read, for a
    /// background thread that wakes every 64 µs while ids are asked for and
    /// parks when they are not.
    pub fn ticker(mut self) -> Self {
        self.source = Source::ticker();
        self
    }

    /// Reads time from the coarse wall clock
    /// ([`CoarseClock`](crate::CoarseClock)): cheaper, older times.
    #[cfg(target_os = "linux")]
    pub fn coarse(mut self) -> Self {
        self.source = Source::Coarse;
        self
    }

    /// Makes strictly decreasing ids from inverse time `u64::MAX - now`
    /// (Go's `WithClockInverse` in v2, its `Unclock` in v3): the newest id
    /// sorts first.
    pub fn inverse(mut self) -> Self {
        self.inverse = true;
        self
    }

    /// Issues only ids later than every id made at or before `t` (for an
    /// inverse clock: smaller), whatever the source says: the restart guard
    /// for a process that kept its node id (noeqd's `-t`). The latest of
    /// several calls wins.
    ///
    /// Fails when `t` is in the last tick of the range or past it (the year
    /// 2554), where no later id exists: a time in the wrong unit
    /// (microseconds read as milliseconds) ends here, not in ids from 1970.
    pub fn not_before(mut self, t: SystemTime) -> Result<Self> {
        let ns = unix_nanos(t);
        if layout::tick(ns) >= TICK_MASK {
            return Err(Error::new(ErrorKind::Range {
                name: "not-before time (Unix ns)",
                value: ns,
                min: 0,
                max: (TICK_MASK << TICK_SHIFT) - 1,
            }));
        }
        self.not_before = Some(self.not_before.map_or(ns, |prev| prev.max(ns)));
        Ok(self)
    }

    /// For a clock placed in memory that the processes forked after it
    /// share with it (`mmap` with `MAP_SHARED`, a database server's shared
    /// memory): every process takes its ids from the one state word, so
    /// they are distinct and strictly increasing across the processes, and
    /// a fork is no reason to change the node. The clock then ignores
    /// forks: a child keeps the node, chosen or random.
    ///
    /// Only for such memory: a clock in private memory built with this
    /// repeats its ids in every forked child. [`Health`](crate::Health)
    /// counts the events of the process that reads it (they are kept beside
    /// the clock, in its own memory). [`Reserved`](super::Reserved) handles
    /// are private to a process and still reserve anew in a child.
    pub fn shared_with_forks(mut self) -> Self {
        self.shared = true;
        self
    }

    /// Continues after a [`Snapshot`] of a clock of the same direction (of
    /// either generation: the state is the same word).
    pub fn restore(mut self, snapshot: Snapshot) -> Self {
        self.restore = Some(snapshot);
        self
    }

    /// The clock.
    pub fn build(self) -> Clock<G> {
        let node = self.node.unwrap_or_else(G::random_node);
        let own = Own {
            drift: self.drift,
            chosen: self.node.is_some(),
        };
        let mut core = Core::new(
            G::default(),
            own,
            self.source,
            node,
            self.inverse,
            self.not_before.map(layout::tick),
            self.restore.map(u64::from),
        );
        if self.shared {
            core.share_with_forks();
        }
        Clock { core }
    }
}
