//! Every kind of id of both generations, sno's and flake ids, as one value: what a line was
//! read as. Everything done with it is generic over [`guid::Id`].

use clap::ValueEnum;
use guid::Id as _;
use guid::flake::Layout;
use guid::sno::Sno;
use guid::{Drift, Guid, Luid, v3};

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

impl Kind {
    /// Its name in messages: "global", "local" or "128-bit".
    pub fn noun(self) -> &'static str {
        match self {
            Kind::G => "global",
            Kind::L => "local",
            Kind::X => "128-bit",
        }
    }

    /// The `--as` value.
    pub fn flag(self) -> &'static str {
        match self {
            Kind::G => "g",
            Kind::L => "l",
            Kind::X => "x",
        }
    }
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
    /// A 64-bit flake id of noeqd's layout (`gen --remote --flake`).
    Flake(u64),
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
            Id::Flake(v) => Ok(Report::of_flake(v)),
        }
    }

    /// Its kind; none for a sno or flake id.
    pub fn kind(self) -> Option<Kind> {
        match self {
            Id::G(_) | Id::G3(_) => Some(Kind::G),
            Id::L(_) | Id::L3(_) => Some(Kind::L),
            Id::X(_) => Some(Kind::X),
            Id::Sno(_) | Id::Flake(_) => None,
        }
    }

    /// Its time in Unix nanoseconds.
    pub fn time(self) -> u64 {
        match self {
            Id::G(v) => v.time(),
            Id::L(v) => v.time(),
            Id::G3(v) => v.time(),
            Id::L3(v) => v.time(),
            Id::X(v) => v.time(),
            Id::Sno(v) => v.unix_ns(),
            Id::Flake(v) => Layout::NOEQD.time_of(v).map_or(u64::MAX, guid::unix_nanos),
        }
    }

    /// Whether its drift code is its generation's default (3 in v2, 4 in
    /// v3), the one `gen` and `compose` give without `--drift` or
    /// `--drift-code`; a sno or flake id has none.
    pub fn of_default_drift(self) -> bool {
        let (v2, v3) = (Drift::DEFAULT.code(), v3::Drift::DEFAULT.code());
        match self {
            Id::G(v) => v.drift().code() == v2,
            Id::L(v) => v.drift().code() == v2,
            Id::G3(v) => v.drift().code() == v3,
            Id::L3(v) => v.drift().code() == v3,
            Id::X(v) => v.drift().code() == v3,
            Id::Sno(_) | Id::Flake(_) => false,
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
