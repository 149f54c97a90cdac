//! Fork detection: a forked child holds a copy of its parent's lease (node
//! id, horizon, validity) but none of its keep-alive, so it must not issue
//! ids with it, nor revoke it.
//!
//! The core's clocks notice forks too, but its global clock with a chosen
//! node panics there, and its counter is private: this crate counts forks
//! itself (a `pthread_atfork` handler) so every lease refuses with a typed
//! error before the core is asked for an id.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Forks since the first lease was taken, counted in each child.
static FORKS: AtomicU32 = AtomicU32::new(0);

/// The number of forks between the first lease of this process tree and
/// this process.
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
            // Without the handler a child could issue its parent's ids.
            assert_eq!(
                rc, 0,
                "kguid-etcd: pthread_atfork failed ({rc}); forks could repeat ids"
            );
        });
    }
}

#[cfg(unix)]
extern "C" fn child() {
    FORKS.fetch_add(1, Relaxed);
}
