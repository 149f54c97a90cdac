//! Issuing ids, the same for every transport: the binary listeners and
//! `GET /ids` both name an [`IdKind`] and hand [`issue`] a [`Sink`] for
//! the ids' bytes or text. Each request then passes the same steps: the
//! 64-bit clock's pace (its cap, or a lease's horizon being stored), the
//! horizon moved past the ids ([`Shared::guard`]), the fill, and the time
//! of the last id recorded for the next horizon.

use std::time::Duration;

use guid::Id;
use guid::sno::Sno;

use crate::clock::{FlakeClock, Refused};
use crate::protocol::MAX_IDS;
use crate::shared::Shared;

/// Which ids: the kinds `GET /ids` names (`kind` and `v`), those the
/// binary listeners serve, and the clock that makes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdKind {
    /// 64-bit flake ids: 8 bytes, or decimal.
    Flake,
    /// 96-bit global ids of v2 or v3: 12 bytes, or their sortable strings.
    Global { v3: bool },
    /// Local ids of v2 or v3 (HTTP only), as their sortable strings.
    Local { v3: bool },
    /// v3's 128-bit X ids (UUIDv8): 16 bytes, or UUID strings.
    X,
    /// sno ids with this metabyte (HTTP only), as their strings: from
    /// the server's sno generator (see [`sno`](crate::sno)).
    Sno { meta: u8 },
}

/// How many clocks make the ids: the 64-bit one, v2's, v3's and the sno
/// generator.
pub(crate) const CLOCKS: usize = 4;

impl IdKind {
    /// One kind of each clock of the `guid` crate's [`Health`](guid::Health),
    /// in the clocks' order: what metrics go through clock by clock (the
    /// sno generator, the last clock, apart).
    pub(crate) const BY_CLOCK: [IdKind; 3] = [
        IdKind::Flake,
        IdKind::Global { v3: false },
        IdKind::Global { v3: true },
    ];

    /// The clock that makes these ids, as an index: each clock keeps the
    /// time of its last id for the horizon and the lead.
    pub(crate) fn clock(self) -> usize {
        match self {
            IdKind::Flake => 0,
            IdKind::Global { v3: false } | IdKind::Local { v3: false } => 1,
            IdKind::Global { v3: true } | IdKind::Local { v3: true } | IdKind::X => 2,
            IdKind::Sno { .. } => 3,
        }
    }

    /// The name of its clock in metrics (the `clock` label).
    pub(crate) fn clock_name(self) -> &'static str {
        ["flake", "global", "v3", "sno"][self.clock()]
    }
}

/// Where issued ids go: the binary protocol's big-endian bytes, or HTTP's
/// list of strings.
pub(crate) trait Sink {
    /// 64-bit ids.
    fn flake(&mut self, ids: &[u64]);
    /// Ids of the `guid` crate's types.
    fn ids<I: Id>(&mut self, ids: &[I]);
    /// sno ids.
    fn sno(&mut self, ids: &[Sno]);
}

/// The binary protocol's reply: each id's bytes, big-endian.
impl Sink for Vec<u8> {
    #[inline]
    fn flake(&mut self, ids: &[u64]) {
        for id in ids {
            self.extend_from_slice(&id.to_be_bytes());
        }
    }

    #[inline]
    fn ids<I: Id>(&mut self, ids: &[I]) {
        for id in ids {
            self.extend_from_slice(id.as_ref());
        }
    }

    #[inline]
    fn sno(&mut self, ids: &[Sno]) {
        for id in ids {
            self.extend_from_slice(id.as_bytes());
        }
    }
}

/// Why no ids were issued.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NotIssued {
    /// The 64-bit clock is at its cap, or a lease's horizon is being
    /// stored: ask again after this long.
    Pace(Duration),
    /// The horizon could not be moved past the ids (the state file).
    Horizon,
    /// The clock failed (its layout ran out of time).
    Clock,
    /// This server makes no sno ids (see [`sno`](crate::sno)).
    NoSno,
    /// The leased node id may not be used now.
    #[cfg(feature = "lease")]
    Lease,
}

/// A clock's refusal, as a reason no ids were issued.
impl From<Refused> for NotIssued {
    fn from(r: Refused) -> NotIssued {
        match r {
            Refused::Clock => NotIssued::Clock,
            #[cfg(feature = "lease")]
            Refused::Lease => NotIssued::Lease,
        }
    }
}

/// Issues `n` ids of `kind` into `sink`: 64-bit ones from `flake` (the
/// connection's clock: a connection never mixes two leases' ids) once its
/// pace allows, each kind once the horizon is moved past them; then
/// records the time of the last one.
#[inline]
pub(crate) fn issue(
    shared: &Shared,
    flake: &FlakeClock,
    kind: IdKind,
    n: usize,
    sink: &mut impl Sink,
) -> Result<(), NotIssued> {
    match kind {
        IdKind::Flake => {
            let pace = flake.pace(n);
            if !pace.is_zero() {
                return Err(NotIssued::Pace(pace));
            }
            shared.guard(kind).map_err(|_| NotIssued::Horizon)?;
            scratch(n, 0u64, |ids| {
                flake.fill(ids)?;
                shared.issued_flake(flake);
                sink.flake(ids);
                Ok(())
            })
        }
        IdKind::Global { v3: false } => made(shared, kind, n, |i| shared.global.fill(i), sink),
        IdKind::Global { v3: true } => made(shared, kind, n, |i| shared.v3.fill(i), sink),
        IdKind::Local { v3: false } => made(shared, kind, n, |i| shared.global.fill_l(i), sink),
        IdKind::Local { v3: true } => made(shared, kind, n, |i| shared.v3.fill_l(i), sink),
        IdKind::X => made(shared, kind, n, |i| shared.v3.fill_x(i), sink),
        IdKind::Sno { meta } => sno(shared, kind, meta, n, sink),
    }
}

/// Makes `n` sno ids with the metabyte `meta` once the horizon is past
/// the units they can reach, and records the time of the last (also of
/// those made before the generator failed, whose units it has used).
#[inline]
fn sno(
    shared: &Shared,
    kind: IdKind,
    meta: u8,
    n: usize,
    sink: &mut impl Sink,
) -> Result<(), NotIssued> {
    let generator = shared.sno.generator().map_err(|_| NotIssued::NoSno)?;
    shared.guard(kind).map_err(|_| NotIssued::Horizon)?;
    scratch(n, Sno::default(), |ids| {
        let mut made = 0;
        let failed = ids.iter_mut().try_for_each(|id| {
            *id = generator.try_next(meta)?;
            made += 1;
            Ok::<_, guid::Error>(())
        });
        if let Some(last) = ids[..made].last() {
            shared.issued_at(kind, last.unix_ns());
        }
        failed.map_err(|_| NotIssued::Clock)?;
        sink.sno(ids);
        Ok(())
    })
}

/// Fills `n` ids of `kind` with `fill` (a clock of the `guid` crate,
/// which cannot fail) once the horizon is past them, and records the
/// time of the last.
#[inline]
fn made<I: Id>(
    shared: &Shared,
    kind: IdKind,
    n: usize,
    fill: impl FnOnce(&mut [I]),
    sink: &mut impl Sink,
) -> Result<(), NotIssued> {
    shared.guard(kind).map_err(|_| NotIssued::Horizon)?;
    scratch(n, I::MIN, |ids| {
        fill(ids);
        if let Some(last) = ids.last() {
            shared.issued_at(kind, last.time());
        }
        sink.ids(ids);
        Ok(())
    })
}

/// Runs `f` on `n` ids' room: on the stack for a binary request's at
/// most [`MAX_IDS`], else (HTTP's up to 10,000) on the heap.
#[inline]
fn scratch<I: Copy, R>(n: usize, init: I, f: impl FnOnce(&mut [I]) -> R) -> R {
    if n <= MAX_IDS {
        f(&mut [init; MAX_IDS][..n])
    } else {
        f(&mut vec![init; n])
    }
}
