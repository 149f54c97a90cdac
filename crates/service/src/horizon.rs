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
//! [`guid_horizon`]'s; this module adds the server's side: the saved
//! horizon shared by the connections, the save counters, and the state
//! file's lock, which the check of the settings takes and the horizon
//! holds.
//!
//! `--state` names the file through any path: its symbolic links (one at
//! its end too) and `..` are resolved at the start ([`StatePath`]), and
//! the file they lead to is the one read, saved and locked. A link to no
//! file is refused rather than taken for a first start: the file may be on
//! a volume that is not mounted.
//!
//! The file is one server's: two servers on one file and node would hand
//! out the same ids. A server holds an exclusive lock on `FILE.lock` and on
//! the file itself (see [`lock`]) from its check to its end, and a second
//! one is refused, whatever name it reaches the file by: a symbolic or
//! hard link, a path through `..`, another mount of its directory. The
//! locks are `flock`'s, taken through an open of their own: a second
//! server of this process conflicts with the first as one of another
//! process does.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64};

use guid::flake::Layout;
use guid_horizon::{self as file, LockError, Rule};

use crate::error::Error;
use crate::flag_file;

/// What a state file holds, for the messages that refuse one.
const EXPECTED: &str = "a horizon is Unix nanoseconds and one newline, at most 21 bytes";

/// A `--state` file: the path as given, which messages name, and the file
/// it leads to, which is read, saved and locked.
#[derive(Clone, Debug)]
pub(crate) struct StatePath {
    given: PathBuf,
    file: PathBuf,
}

impl StatePath {
    /// The file `given` leads to, with every symbolic link followed (one
    /// at its end too: a save's rename over a link would replace the link
    /// rather than the file it points to) and `.` and `..` resolved, so
    /// that every spelling of one file is one path. Refused: a link to no
    /// file (taken for a first start, it would start from nothing while
    /// the file waits on a volume not mounted), and a file with no
    /// directory to keep it in.
    pub(crate) fn resolve(given: &Path) -> Result<StatePath, Error> {
        let fail = |why: String| Err(state_error(given, why));
        let file = match fs::symlink_metadata(given) {
            Ok(meta) => match fs::canonicalize(given) {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::NotFound && meta.is_symlink() => {
                    let to = fs::read_link(given).unwrap_or_default();
                    return fail(format!(
                        "is a symbolic link to {}, which leads to no file (a volume not mounted?): refused rather than taken for a first start; for one, give the file's own path",
                        to.display()
                    ));
                }
                Err(e) => return fail(format!("cannot resolve it: {e}")),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let (Some(dir), Some(name)) = (given.parent(), given.file_name()) else {
                    return fail("names no file".into());
                };
                let dir = match dir.as_os_str().is_empty() {
                    true => Path::new("."),
                    false => dir,
                };
                match fs::canonicalize(dir) {
                    Ok(dir) if dir.is_dir() => dir.join(name),
                    _ => return fail(format!("no directory {} to keep it in", dir.display())),
                }
            }
            Err(e) => return fail(format!("cannot read it: {e}")),
        };
        Ok(StatePath {
            given: given.to_owned(),
            file,
        })
    }

    /// The file, resolved.
    pub(crate) fn file(&self) -> &Path {
        &self.file
    }

    /// The horizon saved in the file, `None` if there is no file yet: read
    /// only from a short regular file ([`flag_file::read`]), and strictly.
    pub(crate) fn load(&self) -> Result<Option<u64>, Error> {
        let bytes =
            flag_file::read(&self.file, file::MAX_READ, EXPECTED).map_err(|why| self.error(why))?;
        bytes
            .map(|bytes| file::parse(&bytes))
            .transpose()
            .map_err(|e| self.error(e.to_string()))
    }

    /// Why the file is refused, naming `--state` as given.
    pub(crate) fn error(&self, why: String) -> Error {
        state_error(&self.given, why)
    }
}

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
    lock: Lock,
}

impl Horizon {
    /// Reserves [`ahead`] past `from` in the file of `state` before
    /// anything is issued, holding `lock`, the file's (the one the check of
    /// this start took), from now on.
    pub(crate) fn create(
        state: &StatePath,
        lock: Lock,
        from: u64,
        span: u64,
        reserve: u64,
    ) -> Result<Horizon, Error> {
        let horizon = Horizon {
            path: state.file.clone(),
            saved: AtomicU64::new(0),
            rule: Rule::new(span, reserve),
            write: Mutex::new(()),
            saves: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            failing: AtomicBool::new(false),
            why: Mutex::new(String::new()),
            lock,
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
        self.counted(self.write(target))?;
        self.saved.fetch_max(target, Release);
        Ok(())
    }

    /// Saves `t`, and locks the new file the save put in place of the old
    /// one ([`Lock::follow`]).
    fn write(&self, t: u64) -> io::Result<()> {
        file::write(&self.path, t)?;
        self.lock.follow()
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
            0 => file::remove(&self.path).and_then(|()| self.lock.follow()),
            t => self.counted(self.write(t)),
        }
    }
}

/// The lock on a state file, on its lock file `FILE.lock` and on the
/// file itself ([`file::Lock`]), held until this is dropped.
pub(crate) struct Lock {
    held: file::Lock,
}

/// Takes the lock on the state file for a server about to start: it is
/// held until dropped, by the check's [`Checked`](crate::Checked) and then
/// by the server's [`Horizon`]. Refused while another server, of this
/// process or another, holds it, through whatever name.
pub(crate) fn lock(state: &StatePath) -> Result<Lock, Error> {
    Lock::take(state)
}

impl Lock {
    /// Locks the file of `state` and its lock file.
    fn take(state: &StatePath) -> Result<Lock, Error> {
        let file = file::lock_path(&state.file);
        let why = match file::Lock::try_new(&state.file) {
            Ok(held) => return Ok(Lock { held }),
            Err(LockError::Held { pid }) if pid == Some(std::process::id()) => format!(
                "another server in this process holds it (the lock on {}); two servers on one state file would hand out the same ids",
                file.display()
            ),
            Err(LockError::Held { pid }) => {
                let holder = pid.map_or_else(String::new, |pid| format!(" (process {pid})"));
                format!(
                    "another server holds it{holder}, through the lock on {}; two servers on one state file would hand out the same ids",
                    file.display()
                )
            }
            Err(LockError::FileHeld) => format!(
                "another server holds {} itself, reached by another name (a hard link?); two servers on one state file would hand out the same ids",
                state.file.display()
            ),
            Err(LockError::Open(e)) => {
                format!("cannot open its lock file {}: {e}", file.display())
            }
            Err(e) => format!("cannot lock {}: {e}", file.display()),
        };
        Err(state.error(why))
    }

    /// Locks the file a save put in place of the old one, and lets go of
    /// the old one unless another name still reaches it
    /// ([`file::Lock::follow`]). The save counts as failed if it cannot:
    /// a name made for the new file could then start a second server.
    fn follow(&self) -> io::Result<()> {
        self.held.follow().map_err(|e| match e {
            LockError::Open(e) | LockError::Lock(e) => e,
            e => io::Error::other(format!(
                "cannot lock {} after saving it: {e}",
                self.held.path().display()
            )),
        })
    }
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

    /// The horizon in the state file `path` names.
    fn load(path: &Path) -> Result<Option<u64>, Error> {
        StatePath::resolve(path)?.load()
    }

    /// [`Horizon::create`] on the state file `path` names, with a lock of
    /// its own.
    fn create(path: &Path, from: u64, span: u64, reserve: u64) -> Result<Horizon, Error> {
        let state = StatePath::resolve(path)?;
        Horizon::create(&state, lock(&state)?, from, span, reserve)
    }

    /// [`lock`] on the state file `path` names.
    fn lock_at(path: &Path) -> Result<Lock, Error> {
        lock(&StatePath::resolve(path)?)
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
        assert_eq!(load(&path).unwrap(), None);
        let h = create(&path, 1_000, 10, 500).unwrap();
        assert_eq!(load(&path).unwrap(), Some(1_500));
        assert_eq!(h.cap(), 1_490);
        assert!(!h.needs(1_490));
        assert!(h.needs(1_491));
        h.reserve(1_200).unwrap();
        assert_eq!(h.saved(), 1_700);
        h.reserve(100).unwrap(); // never moves back while serving
        assert_eq!(load(&path).unwrap(), Some(1_700));
        h.finish(1_234).unwrap();
        assert_eq!(load(&path).unwrap(), Some(1_234));
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
            assert!(matches!(load(&path), Err(Error::State { .. })), "{bad:?}");
        }
        fs::write(&path, "42\n").unwrap();
        assert_eq!(load(&path).unwrap(), Some(42));
        fs::write(&path, "18446744073709551615\n").unwrap();
        assert_eq!(load(&path).unwrap(), Some(u64::MAX));
    }

    /// Only a short regular file is read.
    #[test]
    fn reads_only_a_short_regular_file() {
        let path = temp("kinds");
        let why = |p: &Path| match load(p) {
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
        let h = create(&path, 1_000, 10, 500).unwrap();
        assert!(path.exists());
        h.finish(0).unwrap();
        assert_eq!(load(&path).unwrap(), None);
        h.finish(0).unwrap();
    }

    /// The lock a check takes is the one its server's horizon holds; no
    /// other server, in this process or through another open of the lock
    /// file, gets it from the check until that horizon is dropped.
    #[test]
    fn one_server_per_state_file() {
        let path = temp("locked");
        let again = path.parent().unwrap().join(".").join("state");
        let checked = lock_at(&path).unwrap(); // Config::check
        let refused = |r: Result<(), Error>| match r {
            Err(e @ Error::State { .. }) => assert!(
                e.to_string().contains("another server in this process"),
                "{e}"
            ),
            r => panic!("{:?}", r.map_err(|e| e.to_string())),
        };
        refused(lock_at(&again).map(drop));
        let state = StatePath::resolve(&path).unwrap();
        let h = Horizon::create(&state, checked, 1_000, 10, 500).unwrap();
        refused(lock_at(&path).map(drop));
        refused(create(&again, 1_000, 10, 500).map(drop));
        let other = File::options()
            .read(true)
            .write(true)
            .open(file::lock_path(&path))
            .unwrap();
        assert!(!try_lock(&other).unwrap());
        drop(h);
        let h = create(&path, 1_000, 10, 500).unwrap();
        assert!(!try_lock(&other).unwrap());
        drop(h);
        assert!(try_lock(&other).unwrap());
        drop(other);
        drop(lock_at(&path).unwrap());
    }

    /// The file another name leads to is the same file, held: through a
    /// symbolic link (resolved: the same lock in this process) and through
    /// a hard link (the file's own lock); a link to no file is refused,
    /// and saves through a link go to the file it points to.
    #[test]
    fn one_server_per_state_file_under_every_name() {
        let path = temp("names");
        let dir = path.parent().unwrap();
        let _ = fs::remove_file(&path);
        let link = dir.join("link");
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink("state", &link).unwrap();
        let why = |r: Result<(), Error>| match r {
            Err(Error::State { why, .. }) => why,
            r => panic!("{:?}", r.map_err(|e| e.to_string())),
        };
        assert!(why(lock_at(&link).map(drop)).contains("leads to no file"));
        fs::write(&path, "1000\n").unwrap();
        let h = create(&link, 1_000, 10, 500).unwrap();
        assert_eq!(h.path(), fs::canonicalize(&path).unwrap());
        assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(load(&path).unwrap(), Some(1_500));
        assert!(why(lock_at(&path).map(drop)).contains("another server in this process"));
        let hard = dir.join("hard");
        let _ = fs::remove_file(&hard);
        fs::hard_link(&path, &hard).unwrap();
        assert!(why(lock_at(&hard).map(drop)).contains("reached by another name"));
        // A save leaves the hard link on the earlier file, still held.
        h.reserve(2_000).unwrap();
        assert_ne!(fs::read(&hard).unwrap(), fs::read(&path).unwrap());
        assert!(why(lock_at(&hard).map(drop)).contains("reached by another name"));
        drop(h);
        drop(lock_at(&hard).unwrap());
        fs::remove_file(&hard).unwrap();
    }
}
