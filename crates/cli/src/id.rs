//! Either kind of id, so that one code path reports both.

use clap::ValueEnum;
use guid::{Drift, Guid, Luid};

/// Global or local.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// A 96-bit global id
    G,
    /// A 64-bit local id (no node)
    L,
}

/// A decoded or composed id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id {
    /// A global id.
    G(Guid),
    /// A local id.
    L(Luid),
}

impl Id {
    /// Its kind.
    pub fn kind(&self) -> Kind {
        match self {
            Id::G(_) => Kind::G,
            Id::L(_) => Kind::L,
        }
    }

    /// The drift.
    pub fn drift(&self) -> Drift {
        match self {
            Id::G(g) => g.drift(),
            Id::L(l) => l.drift(),
        }
    }

    /// The time in Unix nanoseconds, to the tick.
    pub fn time(&self) -> u64 {
        match self {
            Id::G(g) => g.time(),
            Id::L(l) => l.time(),
        }
    }

    /// The node, which a local id does not have.
    pub fn node(&self) -> Option<u32> {
        match self {
            Id::G(g) => Some(g.node()),
            Id::L(_) => None,
        }
    }

    /// The sequence number.
    pub fn seq(&self) -> u16 {
        match self {
            Id::G(g) => g.seq(),
            Id::L(l) => l.seq(),
        }
    }
}
