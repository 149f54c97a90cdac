//! Every kind of id of both generations, and sno's, as one value: what a line was
//! read as. Everything done with it is generic over [`guid::Id`].

use clap::ValueEnum;
use guid::sno::Sno;
use guid::{Guid, Luid, v3};

use crate::report::Report;

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
    /// An id of muyo/sno.
    Sno(Sno),
}

impl Id {
    /// Its report: the one place the type inside is matched.
    pub fn report(self) -> serde_json::Result<Report> {
        match self {
            Id::G(v) => Report::of(v),
            Id::L(v) => Report::of(v),
            Id::G3(v) => Report::of(v),
            Id::L3(v) => Report::of(v),
            Id::X(v) => Report::of(v),
            Id::Sno(v) => Ok(Report::of_sno(v)),
        }
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
