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
//! The format is strict, so that a damaged or hand-edited file is refused
//! rather than read as another time: the decimal digits of a non-zero
//! number with no leading zero, then one `\n` (a file cut short has none).
//!
//! The file is one server's: two servers on one file and node would hand
//! out the same ids. A server holds an exclusive lock on `FILE.lock` (see
//! [`lock`]) from its check to its end, and a second one is refused.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, Weak};

use guid::flake::Layout;

use crate::error::Error;

/// A horizon and the file it is saved in.
pub(crate) struct Horizon {
    path: PathBuf,
    /// The horizon on disk, Unix ns.
    saved: AtomicU64,
    /// How far one reply can carry an id past the clock's time, in ns: the
    /// clocks read time capped `span` below the horizon.
    span: u64,
    /// How far past the ids each save reserves, in ns.
    ahead: u64,
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
        match read_small(path) {
            Ok(Some(bytes)) => parse(&bytes).map(Some),
            Ok(None) => Ok(None),
            Err(why) => Err(why),
        }
        .map_err(|why| state_error(path, why))
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
            span,
            ahead: ahead(span, reserve),
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
        self.saved().saturating_sub(self.span)
    }

    /// Whether ids from a clock at `t` could pass the horizon.
    #[inline]
    pub(crate) fn needs(&self, t: u64) -> bool {
        t.saturating_add(self.span) > self.saved()
    }

    /// Whether the horizon should be moved on soon, for a clock at `t`.
    pub(crate) fn due(&self, t: u64) -> bool {
        t.saturating_add(self.span + self.ahead / 2) > self.saved()
    }

    /// Saves a horizon `ahead` past `t` (if it is later than the saved one).
    pub(crate) fn reserve(&self, t: u64) -> io::Result<()> {
        let target = t.saturating_add(self.ahead);
        let _guard = self.write.lock().unwrap_or_else(|e| e.into_inner());
        if self.saved() >= target {
            return Ok(());
        }
        self.counted(write_atomically(&self.path, target))?;
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
        if t > 0 {
            return self.counted(write_atomically(&self.path, t));
        }
        match fs::remove_file(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => sync_dir(&self.path),
        }
    }
}

/// An exclusive `flock` on a state file's lock file, `FILE.lock`, held
/// until this is dropped. The lock file is never renamed or removed (a
/// lock on the state file itself would go with each rename over it); it
/// holds the id of the process that took the lock last.
pub(crate) struct Lock {
    _file: File,
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
    let file = lock_path(path);
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
    /// Opens (creating it) and locks `file`, the lock file of `path`.
    fn take(path: &Path, file: &Path) -> Result<Lock, Error> {
        let mut f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(file)
            .map_err(|e| {
                state_error(
                    path,
                    format!("cannot open its lock file {}: {e}", file.display()),
                )
            })?;
        match try_lock(&f) {
            Ok(true) => {}
            Ok(false) => {
                let mut text = String::new();
                let holder = match (&f).take(24).read_to_string(&mut text) {
                    Ok(_) => match text.trim_end().parse::<u32>() {
                        Ok(pid) => format!(" (process {pid})"),
                        Err(_) => String::new(),
                    },
                    Err(_) => String::new(),
                };
                return Err(state_error(
                    path,
                    format!(
                        "another server holds it{holder}, through the lock on {}; two servers on one state file would hand out the same ids",
                        file.display()
                    ),
                ));
            }
            Err(e) => {
                return Err(state_error(
                    path,
                    format!("cannot lock {}: {e}", file.display()),
                ));
            }
        }
        // For whoever finds it held; the lock works without it.
        let _ = f
            .set_len(0)
            .and_then(|()| f.write_all(format!("{}\n", std::process::id()).as_bytes()));
        Ok(Lock { _file: f })
    }
}

/// `FILE.lock`, next to the state file `FILE`.
fn lock_path(path: &Path) -> PathBuf {
    let mut file = path.as_os_str().to_owned();
    file.push(".lock");
    PathBuf::from(file)
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

/// Whether the exclusive lock on `file` was free (and is now held through
/// it): `flock(LOCK_EX | LOCK_NB)` on Unix.
fn try_lock(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
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
/// of the longest steps one reply can take (`span`).
pub(crate) fn ahead(span: u64, reserve: u64) -> u64 {
    reserve.max(span.saturating_mul(2))
}

/// The most of a state file that is read: a horizon is at most 21 bytes
/// (`u64::MAX` in decimal and a newline); a file longer than this is
/// damaged, and is refused without being read.
const MAX_READ: u64 = 64;

/// The bytes of the regular file `path`, `None` if there is none: never
/// more than [`MAX_READ`], and nothing but a regular file is read (a
/// device may have no end, a FIFO no writer) or even opened.
fn read_small(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let unreadable = |e: io::Error| format!("cannot read it: {e}");
    match fs::metadata(path) {
        Ok(meta) => regular(&meta)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    }
    let mut options = OpenOptions::new();
    options.read(true);
    // Something else put there since cannot block the open (a FIFO) or
    // become the terminal of the process.
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    };
    regular(&file.metadata().map_err(unreadable)?)?;
    let mut bytes = Vec::new();
    file.take(MAX_READ + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_READ {
        return Err(format!(
            "is more than {MAX_READ} bytes (it grew while read); a horizon is at most 21"
        ));
    }
    Ok(Some(bytes))
}

/// A regular file short enough to be a horizon.
fn regular(meta: &fs::Metadata) -> Result<(), String> {
    if !meta.is_file() {
        return Err(format!(
            "is a {}, not a regular file; expected Unix nanoseconds and one newline",
            kind(meta.file_type())
        ));
    }
    if meta.len() > MAX_READ {
        return Err(format!(
            "is {} bytes; a horizon is at most 21 (Unix nanoseconds and one newline)",
            meta.len()
        ));
    }
    Ok(())
}

/// What a file that is not a regular file is.
fn kind(t: fs::FileType) -> &'static str {
    if t.is_dir() {
        return "directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_char_device() {
            return "character device";
        }
        if t.is_block_device() {
            return "block device";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    "special file"
}

/// The state file's one line: see the module's docs.
fn parse(bytes: &[u8]) -> Result<u64, String> {
    let shown = || String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned();
    let Some(digits) = bytes.strip_suffix(b"\n") else {
        return Err(format!(
            "{:?} does not end in a newline (cut short?); expected Unix nanoseconds and one newline",
            shown()
        ));
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "{:?} is not Unix nanoseconds (decimal digits and one newline)",
            shown()
        ));
    }
    if digits == b"0" {
        return Err("0 is no horizon: the service never saves 0".into());
    }
    if digits[0] == b'0' {
        return Err(format!("{:?} has a leading zero", shown()));
    }
    std::str::from_utf8(digits)
        .ok()
        .and_then(|d| d.parse::<u64>().ok())
        .ok_or_else(|| format!("{:?} is past the largest Unix nanosecond time", shown()))
}

/// Writes `ns` to a new temporary file next to `path`, fsyncs it, renames
/// it over `path` and fsyncs the directory: the file is always either the
/// old or the new one. A failed write removes its temporary file.
fn write_atomically(path: &Path, ns: u64) -> io::Result<()> {
    let (tmp, mut file) = create_temp(path)?;
    let written = file
        .write_all(format!("{ns}\n").as_bytes())
        .and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, path)) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(path)
}

/// Creates a save's temporary file next to `path` and removes it: whether
/// saves can be made there.
pub(crate) fn try_write(path: &Path) -> io::Result<()> {
    let (tmp, file) = create_temp(path)?;
    drop(file);
    fs::remove_file(&tmp)
}

/// A temporary file next to `path`, `FILE.PID-N.tmp`, that did not exist
/// before (`O_EXCL`: never a file or link already there), so that no two
/// writers share one, and nothing else is written through it.
fn create_temp(path: &Path) -> io::Result<(PathBuf, File)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut taken = None;
    for _ in 0..64 {
        let mut tmp = path.as_os_str().to_owned();
        let n = NEXT.fetch_add(1, Relaxed);
        tmp.push(format!(".{}-{n}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => taken = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(taken.expect("tried"))
}

/// Fsyncs the directory of `path`, so that a rename or removal in it lasts.
fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(why(&path).starts_with("is 65 bytes;"), "{}", why(&path));
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
            .open(lock_path(&path))
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
