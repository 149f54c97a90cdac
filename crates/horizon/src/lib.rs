//! The horizon: a time (Unix ns) saved ahead of every id issued, so that a
//! restarted clock never goes back into time already used.
//!
//! ```
//! use std::time::{SystemTime, UNIX_EPOCH};
//!
//! use guid_horizon::{self as horizon, Rule};
//!
//! let dir = std::env::temp_dir().join(format!("kguid-horizon-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("state");
//! let _lock = horizon::Lock::try_new(&path)?; // this process's file now
//!
//! // Replies carry ids up to 1 ms past the clock; keep 2 s in reserve.
//! let rule = Rule::new(1_000_000, 2_000_000_000);
//! let saved = horizon::read(&path)?.unwrap_or(0);
//! let now = u64::try_from(SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos())?;
//! assert!(rule.due(saved, now));
//! let next = rule.next(saved, now);
//! horizon::write(&path, next)?; // before any id passes `saved`
//! assert_eq!(horizon::read(&path)?, Some(next));
//! assert!(rule.covers(next, now) && !rule.due(next, now));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Whoever issues ids keeps the saved horizon ahead of them: an id is
//! handed out only once the horizon on disk covers it, and a restart starts
//! its clocks after the horizon it reads (`not_before`). A crash then never
//! repeats an id however far the system clock steps back, and costs at
//! most the reserve (the ids of the next start run at most that far ahead
//! of the wall clock). The guid service's `--state` file, the PostgreSQL
//! extension's `kguid.horizon` and the fence of the lease stores all keep
//! one; this crate is what they share:
//!
//! - [`Rule`], the arithmetic: how far ahead to save, when a save is
//!   needed before an id may go out, and when one is due early;
//! - the file: one strict format ([`parse`], [`format()`]), read only from a
//!   small regular file ([`read`], [`read_small`]), written atomically
//!   ([`write()`]: a new temporary file, fsynced, renamed over the old one,
//!   the directory fsynced);
//! - [`Lock`]: one writer per file. Two processes saving one horizon and
//!   issuing ids on one node would hand out the same ids.
//!
//! The format is strict so that a damaged or hand-edited file is refused
//! rather than read as another time: the decimal digits of a non-zero
//! number with no leading zero, then one `\n` (a file cut short has none).
//! It is what `format!("{ns}\n")` writes for a non-zero `ns`, and so every
//! file the service and the extension have written.
//!
//! This is the file I/O and the `flock` of the ids of
//! [`kguid`](https://docs.rs/kguid) (library `guid`), kept out of that
//! crate, whose ids and encodings build `no_std`. Only Unix has the lock:
//! elsewhere [`Lock::try_new`] fails with `Unsupported`.

#![deny(missing_docs)]

mod file;
mod lock;

pub use self::file::{
    FormatError, FormatErrorKind, MAX_LEN, MAX_READ, ReadError, format, parse, read, read_small,
    remove, try_write, write, write_bytes,
};
pub use self::lock::{Lock, LockError, lock_path};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// How far ahead of the ids a horizon is kept, and when it must move.
///
/// Two numbers, in ns. The *span* is how far past the time a clock has
/// read the ids it hands out at once can run (a reply of many ids spills
/// into later ticks): a clock at `t` may issue ids up to `t + span`, so the
/// horizon must be past that before they go out. A holder that checks each
/// id's own time against the horizon has a span of 0. The *ahead* is how
/// far past the ids each save reserves: the longer, the rarer the saves
/// (each an fsync) but the further a restart after a crash starts ahead of
/// the wall clock.
///
/// A save is *due* once the ids come within half of `ahead` of the saved
/// horizon: it is then made while the ids still have the other half to
/// run, off the path of the id that finds it due, and an id waits for a
/// save only if the ids outrun it. It is *needed* when the ids would pass
/// the horizon ([`covers`](Rule::covers) is false): no id may go out
/// before it is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    span: u64,
    ahead: u64,
}

impl Rule {
    /// The rule of ids that run up to `span` ns past their clock, saved
    /// `reserve` ns ahead, and at least two spans ahead: a save then always
    /// covers the longest step one handout can take, with as much again
    /// before the next save is needed (less than that and every handout
    /// would wait for a save).
    pub const fn new(span: u64, reserve: u64) -> Rule {
        let floor = span.saturating_mul(2);
        let ahead = if reserve > floor { reserve } else { floor };
        Rule { span, ahead }
    }

    /// How far past their clock's time the ids may run, in ns.
    pub const fn span(self) -> u64 {
        self.span
    }

    /// How far past the ids each save reserves, in ns.
    pub const fn ahead(self) -> u64 {
        self.ahead
    }

    /// The latest time a clock may read under the horizon `saved`: the
    /// ids of a clock at most there stay at or before `saved`.
    pub const fn cap(self, saved: u64) -> u64 {
        saved.saturating_sub(self.span)
    }

    /// Whether the horizon `saved` covers the ids of a clock at `t`: if
    /// not, a save must be made before they go out.
    pub const fn covers(self, saved: u64, t: u64) -> bool {
        t.saturating_add(self.span) <= saved
    }

    /// Whether a save should be made soon for a clock at `t`: the ids are
    /// within half of [`ahead`](Rule::ahead) of the horizon `saved`.
    pub const fn due(self, saved: u64, t: u64) -> bool {
        t.saturating_add(self.span).saturating_add(self.ahead / 2) > saved
    }

    /// The horizon a save for a clock at `t` reserves: `ahead` past it.
    pub const fn target(self, t: u64) -> u64 {
        t.saturating_add(self.ahead)
    }

    /// The horizon to save next for a clock at `t`: the
    /// [`target`](Rule::target), never below the one saved (a horizon
    /// moves back only when no more ids are issued).
    pub const fn next(self, saved: u64, t: u64) -> u64 {
        let target = self.target(t);
        if target > saved { target } else { saved }
    }
}

/// A directory of its own for one test.
#[cfg(test)]
fn test_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kguid-horizon-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule() {
        let rule = Rule::new(10, 500);
        assert_eq!((rule.span(), rule.ahead()), (10, 500));
        assert_eq!(rule.cap(1_500), 1_490);
        assert!(rule.covers(1_500, 1_490));
        assert!(!rule.covers(1_500, 1_491));
        // Due from half the reserve before the horizon, less the span.
        assert!(!rule.due(1_500, 1_240));
        assert!(rule.due(1_500, 1_241));
        assert_eq!(rule.target(1_000), 1_500);
        assert_eq!(rule.next(1_700, 1_000), 1_700, "never lowered");
        assert_eq!(rule.next(1_400, 1_000), 1_500);
        // At least two spans ahead.
        assert_eq!(Rule::new(300, 500).ahead(), 600);
        // Span 0: each id's own time is checked.
        let ids = Rule::new(0, 1_000);
        assert!(ids.covers(5_000, 5_000) && !ids.covers(5_000, 5_001));
        assert!(!ids.due(5_000, 4_500) && ids.due(5_000, 4_501));
        assert_eq!(ids.cap(5_000), 5_000);
        // Saturating at the ends of time.
        let far = Rule::new(u64::MAX, u64::MAX);
        assert_eq!(far.ahead(), u64::MAX);
        assert_eq!(far.target(1), u64::MAX);
        assert!(far.due(u64::MAX - 1, 1));
        assert_eq!(far.cap(5), 0);
    }
}
