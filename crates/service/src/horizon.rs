//! The state file: a time horizon reserved ahead of every id issued, so a
//! restarted service never goes back into time it already used.
//!
//! The file holds one line, Unix nanoseconds: every id issued so far is at
//! or before that time. While serving, the horizon is kept about
//! `ahead` past the ids (written and fsynced *before* any id passes it), and
//! the clocks read a time source capped just below it; on shutdown it is
//! brought back to the last id issued.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, Release};

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
}

impl Horizon {
    /// The horizon saved in `path`, `None` if there is no file yet.
    pub(crate) fn load(path: &Path) -> Result<Option<u64>, Error> {
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("read {}", path.display()), e)),
        };
        let line = text.strip_suffix('\n').unwrap_or(&text);
        match line.parse::<u64>() {
            Ok(ns) if !line.starts_with('+') => Ok(Some(ns)),
            _ => Err(Error::State {
                path: path.to_owned(),
                why: format!("expected Unix nanoseconds on one line, found {line:?}"),
            }),
        }
    }

    /// Reserves `ahead` past `from` in `path` before anything is issued.
    pub(crate) fn create(
        path: PathBuf,
        from: u64,
        span: u64,
        ahead: u64,
    ) -> Result<Horizon, Error> {
        let horizon = Horizon {
            path,
            saved: AtomicU64::new(0),
            span,
            ahead: ahead.max(span.saturating_mul(2)),
            write: Mutex::new(()),
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
        write_atomically(&self.path, target)?;
        self.saved.fetch_max(target, Release);
        Ok(())
    }

    /// Saves exactly `t`, the time of the last id, when no more are issued.
    pub(crate) fn finish(&self, t: u64) -> io::Result<()> {
        let _guard = self.write.lock().unwrap_or_else(|e| e.into_inner());
        write_atomically(&self.path, t)
    }
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
            "",
            "\n",
            "12x\n",
            "-5\n",
            "+5\n",
            "1 2\n",
            "99999999999999999999999\n",
        ] {
            fs::write(&path, bad).unwrap();
            assert!(
                matches!(Horizon::load(&path), Err(Error::State { .. })),
                "{bad:?}"
            );
        }
        fs::write(&path, "42").unwrap();
        assert_eq!(Horizon::load(&path).unwrap(), Some(42));
    }
}
