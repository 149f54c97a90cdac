//! Every kind of id of both generations, so that one code path reports
//! them all.

use clap::ValueEnum;
use data_encoding::HEXLOWER;
use guid::Id as _;
use guid::{Guid, Luid, v3};

/// Global, local or (v3) 128-bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// A 96-bit global id
    G,
    /// A 64-bit local id (no node)
    L,
    /// A v3 128-bit id, an RFC 9562 UUIDv8 with a 58-bit node (--v3 only)
    X,
}

/// A decoded or composed id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id {
    /// A v2 global id.
    G(Guid),
    /// A v2 local id.
    L(Luid),
    /// A v3 global id.
    G3(v3::Guid),
    /// A v3 local id.
    L3(v3::Luid),
    /// A v3 128-bit id.
    X(v3::Xuid),
}

/// `$body` with `$v` bound to the id inside `$id`, whatever its variant.
macro_rules! each {
    ($id:expr, $v:ident => $body:expr) => {
        match $id {
            Id::G($v) => $body,
            Id::L($v) => $body,
            Id::G3($v) => $body,
            Id::L3($v) => $body,
            Id::X($v) => $body,
        }
    };
}

impl Id {
    /// Its kind.
    pub fn kind(&self) -> Kind {
        match self {
            Id::G(_) | Id::G3(_) => Kind::G,
            Id::L(_) | Id::L3(_) => Kind::L,
            Id::X(_) => Kind::X,
        }
    }

    /// The drift code of its generation.
    pub fn drift(&self) -> u8 {
        each!(self, v => v.drift().code())
    }

    /// The time in Unix nanoseconds, to the tick.
    pub fn time(&self) -> u64 {
        each!(self, v => v.time())
    }

    /// The node, which a local id does not have.
    pub fn node(&self) -> Option<u64> {
        match self {
            Id::G(g) => Some(g.node()),
            Id::G3(g) => Some(g.node()),
            Id::X(x) => Some(x.node()),
            Id::L(_) | Id::L3(_) => None,
        }
    }

    /// The sequence number.
    pub fn seq(&self) -> u16 {
        each!(self, v => v.seq())
    }

    /// Lowercase hex of the big-endian bytes.
    pub fn hex(&self) -> String {
        each!(self, v => HEXLOWER.encode(&v.to_bytes()))
    }

    /// The sortable string (the canonical UUID of a 128-bit id).
    pub fn string(&self) -> String {
        each!(self, v => v.to_string())
    }

    /// Base62.
    pub fn base62(&self) -> String {
        each!(self, v => v.to_base62())
    }

    /// The JSON encoding, quotes included.
    pub fn json(&self) -> serde_json::Result<String> {
        each!(self, v => serde_json::to_string(v))
    }

    /// The v3 id of a v2 one, as Go's `FromV2`; v3 ids stay as they are.
    pub fn to_v3(self) -> Id {
        match self {
            Id::G(g) => Id::G3(v3::Guid::from_v2(g)),
            Id::L(l) => Id::L3(v3::Luid::from_v2(l)),
            id => id,
        }
    }
}
