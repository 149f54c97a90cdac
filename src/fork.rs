//! Fork detection: a child process must not go on issuing its parent's ids.
//!
//! A forked child starts with a copy of every clock's state, so without a
//! check it would issue the very ids its parent issues next. A handler
//! registered with `pthread_atfork` counts forks in the child; a clock
//! remembers the count it was built (or last re-noded) under and compares
//! it with one load of a read-mostly word on each id.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Forks since the first clock was built, counted in each child.
static FORKS: AtomicU32 = AtomicU32::new(0);

/// The number of forks between the first clock of this process tree and
/// this process. Clocks built before a fork see a different count after it.
#[inline]
pub(crate) fn generation() -> u32 {
    FORKS.load(Relaxed)
}

/// Starts counting forks (once per process; a child inherits the handler).
pub(crate) fn watch() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: `child` is async-signal-safe (one atomic add) and
            // lives as long as the process.
            let rc = unsafe { libc::pthread_atfork(None, None, Some(child)) };
            // Without the handler forks go unseen: that must not pass silently.
            assert_eq!(
                rc, 0,
                "guid: pthread_atfork failed ({rc}); forks could repeat ids"
            );
        });
    }
}

#[cfg(unix)]
extern "C" fn child() {
    // The child runs one thread here: the one that called fork().
    FORKS.fetch_add(1, Relaxed);
}

/// Tells whether the process is a forked child of the one that made the
/// guard: for state that, like a clock's, must not be used by both.
///
/// Made in one process, [`ForkGuard::forked`] is false there and true in
/// every child forked after it (and in their children). It costs one
/// relaxed load per check. On platforms without `fork` it is never true.
///
/// ```
/// let guard = guid::ForkGuard::new();
/// assert!(!guard.forked());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForkGuard {
    forks: u32,
}

impl ForkGuard {
    /// A guard for the calling process.
    pub fn new() -> ForkGuard {
        watch();
        ForkGuard {
            forks: generation(),
        }
    }

    /// Whether this process is a forked child of the guard's.
    #[inline]
    pub fn forked(&self) -> bool {
        generation() != self.forks
    }
}

impl Default for ForkGuard {
    fn default() -> Self {
        ForkGuard::new()
    }
}
