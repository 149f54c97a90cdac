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

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64};

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
}

impl Horizon {
    /// The horizon saved in `path`, `None` if there is no file yet.
    pub(crate) fn load(path: &Path) -> Result<Option<u64>, Error> {
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("read {}", path.display()), e)),
        };
        parse(&bytes).map(Some).map_err(|why| Error::State {
            path: path.to_owned(),
            why,
        })
    }

    /// Reserves [`ahead`] past `from` in `path` before anything is issued.
    pub(crate) fn create(
        path: PathBuf,
        from: u64,
        span: u64,
        reserve: u64,
    ) -> Result<Horizon, Error> {
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

/// Writes `ns` to a temporary file, fsyncs it, renames it over `path` and
/// fsyncs the directory: the file is always either the old or the new one.
fn write_atomically(path: &Path, ns: u64) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut file = File::create(&tmp)?;
    file.write_all(format!("{ns}\n").as_bytes())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&tmp, path)?;
    sync_dir(path)
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

    #[test]
    fn nothing_issued_leaves_no_file() {
        let path = temp("nothing");
        let h = Horizon::create(path.clone(), 1_000, 10, 500).unwrap();
        assert!(path.exists());
        h.finish(0).unwrap();
        assert_eq!(Horizon::load(&path).unwrap(), None);
        h.finish(0).unwrap();
    }
}
