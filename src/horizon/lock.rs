//! One writer per horizon file.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// An exclusive lock on a horizon file's lock file, `FILE.lock`, held
/// until this is dropped.
///
/// The lock is on a file of its own, never renamed or removed: one on the
/// horizon file itself would go with each rename over it. It is `flock`'s
/// (`LOCK_EX | LOCK_NB`), the lock of `File::try_lock` on Unix: it conflicts
/// with every other open of the file, in this process too, and goes when
/// the process dies. The lock file holds the id of the process that took
/// the lock last, for whoever finds it held. Other systems than Unix have
/// no such lock here: taking one fails with `Unsupported`.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// Why a horizon file's lock was not taken.
#[derive(Debug)]
#[non_exhaustive]
pub enum LockError {
    /// Another holder has it: the process that took it last, if the lock
    /// file says.
    Held {
        /// That process's id.
        pid: Option<u32>,
    },
    /// The lock file could not be opened (or created).
    Open(io::Error),
    /// The lock could not be asked for.
    Lock(io::Error),
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Held { pid: Some(pid) } => write!(f, "held by process {pid}"),
            LockError::Held { pid: None } => f.write_str("held by another"),
            LockError::Open(e) => write!(f, "cannot open the lock file: {e}"),
            LockError::Lock(e) => write!(f, "cannot lock: {e}"),
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LockError::Held { .. } => None,
            LockError::Open(e) | LockError::Lock(e) => Some(e),
        }
    }
}

impl Lock {
    /// Takes the lock of the horizon file `path` (on [`lock_path`]`(path)`,
    /// created if missing), or finds it held.
    pub fn try_new(path: &Path) -> Result<Lock, LockError> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(lock_path(path))
            .map_err(LockError::Open)?;
        if !try_lock(&file).map_err(LockError::Lock)? {
            let mut text = String::new();
            let pid = match (&file).take(24).read_to_string(&mut text) {
                Ok(_) => text.trim_end().parse::<u32>().ok(),
                Err(_) => None,
            };
            return Err(LockError::Held { pid });
        }
        // For whoever finds it held; the lock works without it.
        let _ = file
            .set_len(0)
            .and_then(|()| file.write_all(format!("{}\n", std::process::id()).as_bytes()));
        Ok(Lock { _file: file })
    }
}

/// The lock file of the horizon file `path`: `FILE.lock`, beside it.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut file = path.as_os_str().to_owned();
    file.push(".lock");
    PathBuf::from(file)
}

/// Whether the exclusive lock on `file` was free (and is now held through
/// it).
#[cfg(unix)]
fn try_lock(file: &File) -> io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this `File` owns and keeps open.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.kind() {
        io::ErrorKind::WouldBlock => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(unix))]
fn try_lock(_: &File) -> io::Result<bool> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no file lock on this system",
    ))
}

#[cfg(test)]
mod tests {
    use super::super::test_dir as dir;
    use super::*;
    use std::fs;

    /// A second holder is refused, in this process too, until the first
    /// lets go.
    #[cfg(unix)]
    #[test]
    fn one_holder_per_lock() {
        let dir = dir("lock");
        let path = dir.join("state");
        let first = Lock::try_new(&path).unwrap();
        assert_eq!(lock_path(&path), dir.join("state.lock"));
        match Lock::try_new(&path) {
            Err(LockError::Held { pid }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("{other:?}"),
        }
        // Another spelling of the same file.
        let again = dir.join(".").join("state");
        assert!(matches!(Lock::try_new(&again), Err(LockError::Held { .. })));
        drop(first);
        let second = Lock::try_new(&again).unwrap();
        assert!(Lock::try_new(&path).is_err());
        drop(second);
        // No directory for the lock file.
        assert!(matches!(
            Lock::try_new(&dir.join("missing").join("state")),
            Err(LockError::Open(_))
        ));
        fs::remove_dir_all(&dir).unwrap();
    }
}
