//! The state file: a time horizon reserved ahead of every id issued, so a
//! restarted service never goes back into time it already used.
//!
//! The file holds one line, Unix nanoseconds: every id issued so far is at
//! or before that time. While serving, the horizon is kept about
//! `ahead` past the ids (written and fsynced *before* any id passes it), and
//! the clocks read a time source capped just below it; on shutdown it is
//! brought back to the time of the last id issued (or of the start bound it
//! was loaded with), and the file is removed if there is neither.
//!
//! The rule (how far ahead, when a save is needed or due), the strict
//! format, the atomic write, the read and the lock are
//! [`guid::horizon`]'s; this module adds the server's side: the saved
//! horizon shared by the connections, the save counters, and one lock per
//! state file in this process.
//!
//! The file is one server's: two servers on one file and node would hand
//! out the same ids. A server holds an exclusive lock on `FILE.lock` (see
//! [`lock`]) from its check to its end, and a second one is refused.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, Weak};

use guid::flake::Layout;
use guid::horizon::{self as file, LockError, Rule};

use crate::error::Error;

/// A horizon and the file it is saved in.
pub(crate) struct Horizon {
    path: PathBuf,
    /// The horizon on disk, Unix ns.
    saved: AtomicU64,
    /// The span of one reply ([`span`]) and how far past the ids each save
    /// reserves: the clocks read time capped `span` below the horizon.
    rule: Rule,
    /// Serializes writers of the file.
    write: Mutex<()>,
    /// Writes of the file that succeeded and that failed.
    saves: AtomicU64,
    failures: AtomicU64,
    /// Whether the last write failed, and why: the reason is locked only
    /// after a failure, never on the way of a write that succeeds.
    failing: AtomicBool,
    why: Mutex<String>,
    /// The file is this server's while the horizon lives.
    _lock: Arc<Lock>,
}

impl Horizon {
    /// The horizon saved in `path`, `None` if there is no file yet.
    pub(crate) fn load(path: &Path) -> Result<Option<u64>, Error> {
        file::read(path).map_err(|why| state_error(path, why.to_string()))
    }

    /// Reserves [`ahead`] past `from` in `path` before anything is issued,
    /// holding the file's lock from now on (the one the check of this
    /// start took, if it did).
    pub(crate) fn create(
        path: PathBuf,
        from: u64,
        span: u64,
        reserve: u64,
    ) -> Result<Horizon, Error> {
        let lock = hold(&path, true)?;
        let horizon = Horizon {
            path,
            saved: AtomicU64::new(0),
            rule: Rule::new(span, reserve),
            write: Mutex::new(()),
            saves: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            failing: AtomicBool::new(false),
            why: Mutex::new(String::new()),
            _lock: lock,
        };
        horizon
            .reserve(from)
            .map_err(|e| Error::io(format!("write {}", horizon.path.display()), e))?;
        Ok(horizon)
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The horizon on disk.
    pub(crate) fn saved(&self) -> u64 {
        self.saved.load(Acquire)
    }

    /// The latest time the clocks may read.
    #[inline]
    pub(crate) fn cap(&self) -> u64 {
        self.rule.cap(self.saved())
    }

    /// Whether ids from a clock at `t` could pass the horizon.
    #[inline]
    pub(crate) fn needs(&self, t: u64) -> bool {
        !self.rule.covers(self.saved(), t)
    }

    /// Whether the horizon should be moved on soon, for a clock at `t`.
    pub(crate) fn due(&self, t: u64) -> bool {
        self.rule.due(self.saved(), t)
    }

    /// Saves a horizon `ahead` past `t` (if it is later than the saved one).
    pub(crate) fn reserve(&self, t: u64) -> io::Result<()> {
        let target = self.rule.target(t);
        let _guard = self.write.lock().unwrap_or_else(|e| e.into_inner());
        if self.saved() >= target {
            return Ok(());
        }
        self.counted(file::write(&self.path, target))?;
        self.saved.fetch_max(target, Release);
        Ok(())
    }

    /// Writes that succeeded and that failed so far.
    pub(crate) fn saves(&self) -> (u64, u64) {
        (self.saves.load(Relaxed), self.failures.load(Relaxed))
    }

    /// Why the last write failed, unless it succeeded.
    pub(crate) fn failed(&self) -> Option<String> {
        if !self.failing.load(Acquire) {
            return None;
        }
        Some(self.why.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }

    /// Counts a write (made under the write lock), and keeps why it failed
    /// until one succeeds.
    fn counted(&self, result: io::Result<()>) -> io::Result<()> {
        match &result {
            Ok(()) => {
                self.saves.fetch_add(1, Relaxed);
                self.failing.store(false, Release);
            }
            Err(e) => {
                self.failures.fetch_add(1, Relaxed);
                *self.why.lock().unwrap_or_else(|e| e.into_inner()) = e.to_string();
                self.failing.store(true, Release);
            }
        }
        result
    }

    /// Saves exactly `t`, the time of the last id, when no more are
    /// issued; with no id and no earlier bound (`t == 0`) there is nothing
    /// to guard and the file is removed.
    pub(crate) fn finish(&self, t: u64) -> io::Result<()> {
        let _guard = self.write.lock().unwrap_or_else(|e| e.into_inner());
        match t {
            0 => file::remove(&self.path),
            t => self.counted(file::write(&self.path, t)),
        }
    }
}

/// The lock on a state file's lock file, `FILE.lock` ([`file::Lock`]),
/// held until this is dropped.
pub(crate) struct Lock {
    _held: file::Lock,
}

/// The state-file locks of this process, by lock file. Locks taken through
/// two opens of one file conflict even within one process, so a start
/// takes its lock once: its check ([`lock`]) leaves it here as `pending`
/// (`Config::check` and `run` both check), and [`Horizon::create`] takes
/// it over. Another server of this process on the same file finds the
/// lock held, pending or not.
struct Held {
    pending: Option<Arc<Lock>>,
    lock: Weak<Lock>,
}

static LOCKS: Mutex<BTreeMap<PathBuf, Held>> = Mutex::new(BTreeMap::new());

/// Takes the lock on the state file `path` for a server about to start, or
/// finds it taken by an earlier check for the same start: it stays held
/// for the server's [`Horizon`] (or until the process exits, if no server
/// follows). Refused while another server, of this process or another,
/// holds it.
pub(crate) fn lock(path: &Path) -> Result<(), Error> {
    hold(path, false).map(drop)
}

/// The lock on `path`: a pending one (taken over if `claim`), or a new one
/// (left pending unless `claim`).
fn hold(path: &Path, claim: bool) -> Result<Arc<Lock>, Error> {
    let file = file::lock_path(path);
    let key = canonical(&file);
    let mut locks = LOCKS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(held) = locks.get_mut(&key) {
        if let Some(lock) = &held.pending {
            let lock = Arc::clone(lock);
            if claim {
                held.pending = None;
            }
            return Ok(lock);
        }
        if held.lock.strong_count() > 0 {
            return Err(state_error(
                path,
                format!(
                    "another server in this process holds it (the lock on {}); two servers on one state file would hand out the same ids",
                    file.display()
                ),
            ));
        }
    }
    let lock = Arc::new(Lock::take(path, &file)?);
    let pending = (!claim).then(|| Arc::clone(&lock));
    let held = Held {
        pending,
        lock: Arc::downgrade(&lock),
    };
    locks.insert(key, held);
    Ok(lock)
}

impl Lock {
    /// Locks `file`, the lock file of `path`.
    fn take(path: &Path, file: &Path) -> Result<Lock, Error> {
        let why = match file::Lock::try_new(path) {
            Ok(held) => return Ok(Lock { _held: held }),
            Err(LockError::Held { pid }) => {
                let holder = pid.map_or_else(String::new, |pid| format!(" (process {pid})"));
                format!(
                    "another server holds it{holder}, through the lock on {}; two servers on one state file would hand out the same ids",
                    file.display()
                )
            }
            Err(LockError::Open(e)) => {
                format!("cannot open its lock file {}: {e}", file.display())
            }
            Err(e) => format!("cannot lock {}: {e}", file.display()),
        };
        Err(state_error(path, why))
    }
}

/// `file` with its directory resolved, so that two spellings of one file
/// are one key; as it is if the directory cannot be resolved.
fn canonical(file: &Path) -> PathBuf {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return file.to_owned();
    };
    let dir = match dir.as_os_str().is_empty() {
        true => Path::new("."),
        false => dir,
    };
    fs::canonicalize(dir).map_or_else(|_| file.to_owned(), |dir| dir.join(name))
}

fn state_error(path: &Path, why: String) -> Error {
    Error::State {
        path: path.to_owned(),
        why,
    }
}

/// How far one reply can carry the ids of a clock past its time, in ns:
/// 255 ids may spill into the units after the one they start in (at least
/// a millisecond, for the 96-bit ids).
pub(crate) fn span(layout: Layout) -> u64 {
    guid::nanos(layout.unit())
        .saturating_mul(2 + (255 >> layout.seq_bits()))
        .max(1_000_000)
}

/// How far past the ids a horizon is reserved: `reserve`, and at least two
/// of the longest steps one reply can take (`span`): [`Rule::ahead`].
pub(crate) fn ahead(span: u64, reserve: u64) -> u64 {
    Rule::new(span, reserve).ahead()
}

/// Creates a save's temporary file next to `path` and removes it: whether
/// saves can be made there.
pub(crate) fn try_write(path: &Path) -> io::Result<()> {
    file::try_write(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    /// Whether the exclusive lock on `file` was free (and is now held
    /// through it): std's lock, which [`file::Lock`] conflicts with.
    fn try_lock(file: &File) -> io::Result<bool> {
        match file.try_lock() {
            Ok(()) => Ok(true),
            Err(std::fs::TryLockError::WouldBlock) => Ok(false),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kguid-horizon-{}-{name}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir.join("state")
    }

    #[test]
    fn saves_ahead_and_loads_back() {
        let path = temp("ahead");
        let _ = fs::remove_file(&path);
        assert_eq!(Horizon::load(&path).unwrap(), None);
        let h = Horizon::create(path.clone(), 1_000, 10, 500).unwrap();
        assert_eq!(Horizon::load(&path).unwrap(), Some(1_500));
        assert_eq!(h.cap(), 1_490);
        assert!(!h.needs(1_490));
        assert!(h.needs(1_491));
        h.reserve(1_200).unwrap();
        assert_eq!(h.saved(), 1_700);
        h.reserve(100).unwrap(); // never moves back while serving
        assert_eq!(Horizon::load(&path).unwrap(), Some(1_700));
        h.finish(1_234).unwrap();
        assert_eq!(Horizon::load(&path).unwrap(), Some(1_234));
    }

    #[test]
    fn rejects_what_is_not_a_horizon() {
        let path = temp("bad");
        for bad in [
            &b""[..],
            b"\n",
            b"42",
            b"1712345678",
            b"0\n",
            b"00\n",
            b"0123\n",
            b"12x\n",
            b"-5\n",
            b"+5\n",
            b" 5\n",
            b"5 \n",
            b"5\n\n",
            b"5\r\n",
            b"1 2\n",
            b"\xff\n",
            b"18446744073709551616\n",
            b"99999999999999999999999\n",
        ] {
            fs::write(&path, bad).unwrap();
            assert!(
                matches!(Horizon::load(&path), Err(Error::State { .. })),
                "{bad:?}"
            );
        }
        fs::write(&path, "42\n").unwrap();
        assert_eq!(Horizon::load(&path).unwrap(), Some(42));
        fs::write(&path, "18446744073709551615\n").unwrap();
        assert_eq!(Horizon::load(&path).unwrap(), Some(u64::MAX));
    }

    /// Only a short regular file is read.
    #[test]
    fn reads_only_a_short_regular_file() {
        let path = temp("kinds");
        let why = |p: &Path| match Horizon::load(p) {
            Err(Error::State { why, .. }) => why,
            r => panic!("{:?}", r.map_err(|e| e.to_string())),
        };
        assert!(why(Path::new("/dev/zero")).starts_with("is a character device,"));
        assert!(why(path.parent().unwrap()).starts_with("is a directory,"));
        fs::write(&path, [b'1'; 65]).unwrap();
        assert!(why(&path).starts_with("is 65 bytes"), "{}", why(&path));
        let mut longest = vec![b'1'; 63];
        longest.push(b'\n');
        fs::write(&path, &longest).unwrap();
        assert!(why(&path).contains("past the largest"), "{}", why(&path));
        let file = path.join("state");
        assert!(why(&file).starts_with("cannot read it: "), "{}", why(&file));
    }

    #[test]
    fn nothing_issued_leaves_no_file() {
        let path = temp("nothing");
        let h = Horizon::create(path.clone(), 1_000, 10, 500).unwrap();
        assert!(path.exists());
        h.finish(0).unwrap();
        assert_eq!(Horizon::load(&path).unwrap(), None);
        h.finish(0).unwrap();
    }

    /// The lock a check takes is the one its server's horizon holds; no
    /// other server, in this process or through another open of the lock
    /// file, gets it until that horizon is dropped.
    #[test]
    fn one_server_per_state_file() {
        let path = temp("locked");
        let again = path.parent().unwrap().join(".").join("state");
        lock(&path).unwrap(); // Config::check
        lock(&again).unwrap(); // and run's own check
        let h = Horizon::create(path.clone(), 1_000, 10, 500).unwrap();
        let refused = |r: Result<(), Error>| match r {
            Err(e @ Error::State { .. }) => assert!(
                e.to_string().contains("another server in this process"),
                "{e}"
            ),
            r => panic!("{:?}", r.map_err(|e| e.to_string())),
        };
        refused(lock(&path));
        refused(Horizon::create(again.clone(), 1_000, 10, 500).map(drop));
        let other = File::options()
            .read(true)
            .write(true)
            .open(file::lock_path(&path))
            .unwrap();
        assert!(!try_lock(&other).unwrap());
        drop(h);
        let h = Horizon::create(path.clone(), 1_000, 10, 500).unwrap();
        assert!(!try_lock(&other).unwrap());
        drop(h);
        assert!(try_lock(&other).unwrap());
        drop(other);
        lock(&path).unwrap();
    }
}
