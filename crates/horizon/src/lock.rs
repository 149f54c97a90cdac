//! One writer per horizon file.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// An exclusive lock on a horizon file, whatever name reaches it, held
/// until this is dropped.
///
/// Two locks are held, both `flock`'s (`LOCK_EX | LOCK_NB`, the lock of
/// `File::try_lock` on Unix: it conflicts with every other open of the
/// file, in this process too, and goes when the process dies):
///
/// - on the lock file `FILE.lock` beside the horizon file, never renamed
///   or removed: it holds the name whether or not the horizon file is
///   there yet, and the id of the process that took it last, for whoever
///   finds it held;
/// - on the horizon file itself (its device and inode), so that a second
///   holder that reaches it by another name is refused too: a hard link,
///   a symbolic link, another mount of its directory. A lock on a file
///   goes with each rename over it, so a holder that replaces the file
///   as [`write`](super::write) does calls [`follow`](Lock::follow) after
///   each write: the new file is locked, and the old one stays locked as
///   long as another name (a hard link) still reaches it.
///
/// The lock file is found from the path as given: a symbolic link at its
/// end has a lock file of its own, beside the link, though the horizon
/// file's own lock still refuses a second holder once the file is there.
/// Resolve such a link first ([`fs::canonicalize`]): a write through it
/// would replace the link, not the file it points to, and a link to no
/// file is no horizon file to create. Other systems than Unix have no
/// such lock here: taking one fails with `Unsupported`.
#[derive(Debug)]
pub struct Lock {
    /// The lock file.
    file: File,
    /// The horizon file.
    path: PathBuf,
    /// The horizon file now at `path`, and earlier ones another name
    /// still reaches: each open and locked.
    held: Mutex<Vec<Held>>,
}

/// A version of the horizon file, open and locked.
#[derive(Debug)]
struct Held {
    file: File,
    /// Its device and inode.
    id: (u64, u64),
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
    /// Another holder has the horizon file itself, reached by another
    /// name (a hard link, a symbolic link, another mount), whose lock file
    /// is not this one.
    FileHeld,
    /// The lock file, or the horizon file, could not be opened (or the
    /// lock file created).
    Open(io::Error),
    /// The lock could not be asked for.
    Lock(io::Error),
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Held { pid: Some(pid) } => write!(f, "held by process {pid}"),
            LockError::Held { pid: None } => f.write_str("held by another"),
            LockError::FileHeld => {
                f.write_str("the file itself is held by another, through another name of it")
            }
            LockError::Open(e) => write!(f, "cannot open the lock file: {e}"),
            LockError::Lock(e) => write!(f, "cannot lock: {e}"),
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LockError::Held { .. } | LockError::FileHeld => None,
            LockError::Open(e) | LockError::Lock(e) => Some(e),
        }
    }
}

impl Lock {
    /// Takes the lock of the horizon file `path` (on [`lock_path`]`(path)`,
    /// created if missing, and on the file itself if it is there), or
    /// finds it held.
    ///
    /// The lock file is written (the process id) only if it is a regular
    /// file of its own: a symbolic link there is refused (`Open`), never
    /// followed to truncate the file it points to, and so is a FIFO or a
    /// device, which is not even waited on.
    pub fn try_new(path: &Path) -> Result<Lock, LockError> {
        let file = open_lock_file(&lock_path(path)).map_err(LockError::Open)?;
        if !try_lock(&file).map_err(LockError::Lock)? {
            let mut text = String::new();
            let pid = match (&file).take(24).read_to_string(&mut text) {
                Ok(_) => text.trim_end().parse::<u32>().ok(),
                Err(_) => None,
            };
            return Err(LockError::Held { pid });
        }
        let lock = Lock {
            file,
            path: path.to_owned(),
            held: Mutex::new(Vec::new()),
        };
        lock.follow()?;
        // For whoever finds it held; the lock works without it.
        let mut file = &lock.file;
        let _ = file
            .set_len(0)
            .and_then(|()| file.write_all(format!("{}\n", std::process::id()).as_bytes()));
        Ok(lock)
    }

    /// The horizon file, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Locks the horizon file now at [`path`](Lock::path), after a write
    /// that may have replaced it (a rename over it), and lets go of the
    /// earlier ones no name reaches any more: one a hard link still names
    /// stays locked, so that no holder starts on it.
    ///
    /// Nothing new is locked when there is no file (it was removed) or it
    /// is not a regular file (no horizon file: [`read`](super::read)
    /// refuses it). [`LockError::FileHeld`] if another holder has locked
    /// the file now there (it reached the new file by another name before
    /// this call), `Open` or `Lock` if it could not be opened or locked.
    pub fn follow(&self) -> Result<(), LockError> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((file, id)) = open_regular(&self.path).map_err(LockError::Open)? {
            if !held.iter().any(|h| h.id == id) {
                if !try_lock(&file).map_err(LockError::Lock)? {
                    return Err(LockError::FileHeld);
                }
                held.push(Held { file, id });
            }
        }
        // A file whose metadata cannot be read is kept, locked.
        held.retain(|h| h.file.metadata().map_or(true, |m| links(&m) > 0));
        Ok(())
    }
}

/// The lock file `path`, open for reading and writing, created if
/// missing: refused unless it is a regular file, and never through a
/// symbolic link.
fn open_lock_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// The regular file `path` names, open (for reading and writing where it
/// may be: NFS emulates an exclusive `flock` with a lock that needs it;
/// else for reading) and its device and inode; `None` if there is none or
/// it is something else. Nothing but a regular file is opened: a device's
/// open may act, a FIFO's wait. Nothing is written through it.
fn open_regular(path: &Path) -> io::Result<Option<(File, (u64, u64))>> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    }
    let open = |write: bool| {
        let mut options = OpenOptions::new();
        options.read(true).write(write);
        // Something put there since cannot block the open (a FIFO) or
        // become the terminal of the process.
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
        }
        options.open(path)
    };
    let opened = open(true).or_else(|e| match e.kind() {
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => open(false),
        _ => Err(e),
    });
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    Ok(meta.is_file().then(|| (file, identity(&meta))))
}

/// A file's device and inode.
#[cfg(unix)]
fn identity(meta: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_: &fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// How many names a file has.
#[cfg(unix)]
fn links(meta: &fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.nlink()
}

#[cfg(not(unix))]
fn links(_: &fs::Metadata) -> u64 {
    1
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
        // A link where the lock file goes is not followed: the file it
        // points to is left as it is.
        let victim = dir.join("victim");
        fs::write(&victim, "not a lock\n").unwrap();
        let linked = dir.join("linked");
        std::os::unix::fs::symlink(&victim, lock_path(&linked)).unwrap();
        assert!(matches!(Lock::try_new(&linked), Err(LockError::Open(_))));
        assert_eq!(fs::read_to_string(&victim).unwrap(), "not a lock\n");
        // No directory for the lock file.
        assert!(matches!(
            Lock::try_new(&dir.join("missing").join("state")),
            Err(LockError::Open(_))
        ));
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The horizon file itself is locked, whatever name reaches it: a
    /// second holder through a hard link or a symbolic link is refused,
    /// and the lock follows the writes, staying on an earlier file as
    /// long as a hard link names it.
    #[cfg(unix)]
    #[test]
    fn the_file_is_held_under_every_name() {
        let dir = dir("lock-names");
        let path = dir.join("state");
        let held = |p: &Path| matches!(Lock::try_new(p), Err(LockError::FileHeld));
        // No file yet: the lock file alone.
        let lock = Lock::try_new(&path).unwrap();
        assert_eq!(lock.path(), path);
        super::super::write(&path, 5).unwrap();
        let hard = dir.join("hard");
        fs::hard_link(&path, &hard).unwrap();
        assert!(!held(&hard), "not locked before follow");
        lock.follow().unwrap();
        assert!(held(&hard));
        let link = dir.join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(held(&link));
        // A write replaces the file: the hard link now names the old one,
        // which stays locked, and the new one is locked.
        super::super::write(&path, 6).unwrap();
        lock.follow().unwrap();
        assert!(held(&hard));
        assert!(held(&link));
        let other = dir.join("other");
        fs::hard_link(&path, &other).unwrap();
        assert!(held(&other));
        // Once no name reaches the old file, it is let go.
        fs::remove_file(&hard).unwrap();
        super::super::write(&path, 7).unwrap();
        lock.follow().unwrap();
        assert_eq!(
            lock.held.lock().unwrap().len(),
            2,
            "the new file and other's"
        );
        assert!(held(&other));
        fs::remove_file(&other).unwrap();
        lock.follow().unwrap();
        assert_eq!(lock.held.lock().unwrap().len(), 1);
        // Removed: nothing is left locked but the lock file.
        super::super::remove(&path).unwrap();
        lock.follow().unwrap();
        assert!(lock.held.lock().unwrap().is_empty());
        drop(lock);
        // A file this process may only read is held all the same.
        {
            use std::os::unix::fs::PermissionsExt;
            super::super::write(&path, 9).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
            let lock = Lock::try_new(&path).unwrap();
            fs::hard_link(&path, &hard).unwrap();
            assert!(held(&hard));
            drop(lock);
            fs::remove_file(&hard).unwrap();
        }
        // A holder through the hard link keeps one through the path out.
        super::super::write(&path, 8).unwrap();
        fs::hard_link(&path, &hard).unwrap();
        let first = Lock::try_new(&hard).unwrap();
        assert!(held(&path));
        drop(first);
        drop(Lock::try_new(&path).unwrap());
        fs::remove_dir_all(&dir).unwrap();
    }
}
