//! Fork detection: a child process must not go on issuing its parent's ids.
//!
//! A forked child starts with a copy of every clock's state, so without a
//! check it would issue the very ids its parent issues next. A clock
//! remembers the fork generation it was built (or last re-noded) under and
//! compares it with one load of a read-mostly word on each id.
//!
//! On Linux (4.14 and later) and Android that word lives on a page of its
//! own marked `MADV_WIPEONFORK`: the kernel hands every child a zeroed copy
//! of it, however the child was made (the C library's `fork()`, glibc's
//! `_Fork()`, the raw `fork` or `clone` system call). A zero reads as "a
//! fork not yet seen"; the first check in the child re-arms the page with
//! a generation greater than any its parent had. A `pthread_atfork` child
//! handler re-arms it too, right after a `fork()` through the C library.
//!
//! Where that page cannot be had (another Unix, an older kernel that
//! refuses the advice, a failed `mmap`), the word is a static one that only
//! the `pthread_atfork` handler counts: children made by the C library's
//! `fork()` are caught, children made without running atfork handlers (the
//! raw system calls, glibc's `_Fork()`) are not, and their clocks repeat
//! their parent's ids. Children that share the parent's memory (`vfork`,
//! `clone` with `CLONE_VM`) share its clocks' states too, and need no
//! check.

use std::ptr;
#[cfg(unix)]
use std::sync::atomic::Ordering::Release;
use std::sync::atomic::{
    AtomicPtr, AtomicU32,
    Ordering::{Acquire, Relaxed, SeqCst},
};

/// With a wiped page: the latest generation any process of this line was
/// armed with, which, unlike the page, a child inherits. Without one: the
/// generation itself, counted in each child by the atfork handler. Never 0.
static FORKS: AtomicU32 = AtomicU32::new(1);

/// The fork word of a clock shared with the processes forked after it
/// (`Builder::shared_with_forks`): one generation for all of them.
pub(crate) static SHARED: AtomicU32 = AtomicU32::new(1);

/// The word clocks compare: the generation on the wiped page, or null for
/// [`FORKS`].
static PAGE: AtomicPtr<AtomicU32> = AtomicPtr::new(ptr::null_mut());

/// The word that holds this process's fork generation; 0 on a wiped page
/// means "forked, not yet re-armed". Clocks keep it and compare their
/// generation with one relaxed load of it.
#[inline]
pub(crate) fn word() -> &'static AtomicU32 {
    watch();
    let page = PAGE.load(Acquire);
    if page.is_null() {
        &FORKS
    } else {
        // SAFETY: the page is mapped once and never unmapped.
        unsafe { &*page }
    }
}

/// This process's fork generation (never 0): different in every child
/// from the generation of each process it descends from. Re-arms a wiped
/// page.
#[inline]
pub(crate) fn generation() -> u32 {
    let word = word();
    match word.load(Relaxed) {
        0 => rearm(word),
        forks => forks,
    }
}

/// Gives a wiped page a generation greater than every one its parent had.
/// Async-signal-safe: atomics only.
#[cold]
#[inline(never)]
fn rearm(page: &AtomicU32) -> u32 {
    // `FORKS` first: a child forked from here on counts on from it.
    let mut next = FORKS.fetch_add(1, SeqCst).wrapping_add(1);
    if next == 0 {
        next = FORKS.fetch_add(1, SeqCst).wrapping_add(1);
    }
    // Threads racing here all take the first one's generation.
    match page.compare_exchange(0, next, SeqCst, SeqCst) {
        Ok(_) => next,
        Err(armed) => armed,
    }
}

/// Maps the wiped page and starts counting forks (once per process; a child
/// inherits both).
pub(crate) fn watch() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            if let Some(page) = wiped_page() {
                page.store(FORKS.load(SeqCst), SeqCst);
                PAGE.store(ptr::from_ref(page).cast_mut(), Release);
            }
            // SAFETY: `child` is async-signal-safe (atomics only) and
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

/// A page of its own that the kernel zeroes in every child, or `None` if
/// the kernel refuses.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn wiped_page() -> Option<&'static AtomicU32> {
    // SAFETY: sysconf has no preconditions.
    let size = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .ok()
        .filter(|&size| size >= size_of::<AtomicU32>())?;
    // SAFETY: a new private anonymous mapping, at an address of the
    // kernel's choosing.
    let page = unsafe {
        libc::mmap(
            ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if page == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: `page` is the whole mapping just made (page-aligned, `size`
    // bytes); on failure it is unmapped and never used.
    unsafe {
        if libc::madvise(page, size, libc::MADV_WIPEONFORK) != 0 {
            libc::munmap(page, size);
            return None;
        }
        // Zeroed, aligned, mapped for the rest of the process: an AtomicU32
        // of 0 that nothing else uses.
        Some(&*page.cast::<AtomicU32>())
    }
}

#[cfg(unix)]
extern "C" fn child() {
    // The child runs one thread here: the one that called fork().
    let page = PAGE.load(Acquire);
    if page.is_null() {
        if FORKS.fetch_add(1, SeqCst) == u32::MAX {
            FORKS.fetch_add(1, SeqCst); // never 0
        }
    } else {
        // SAFETY: as in `word`.
        rearm(unsafe { &*page });
    }
}

/// Tells whether the process is a forked child of the one that made the
/// guard: for state that, like a clock's, must not be used by both.
///
/// Made in one process, [`ForkGuard::forked`] is false there and true in
/// every child forked after it (and in their children). It costs one
/// relaxed load per check. On platforms without `fork` it is never true.
///
/// On Linux 4.14 and later (and Android) it sees every child, however it
/// was made: the C library's `fork()`, glibc's `_Fork()`, or the raw `fork`
/// or `clone` system call (the generation lives on a page the kernel zeroes
/// in each child, `MADV_WIPEONFORK`). Elsewhere, or where the kernel
/// refuses that page, it sees only children whose `fork()` ran the
/// `pthread_atfork` handlers, as the C library's `fork()` does; a child
/// made without them is not told apart from its parent.
///
/// ```
/// let guard = guid::ForkGuard::new();
/// assert!(!guard.forked());
/// ```
#[derive(Clone, Copy)]
pub struct ForkGuard {
    /// The process's generation word ([`word`]).
    word: &'static AtomicU32,
    forks: u32,
}

impl ForkGuard {
    /// A guard for the calling process.
    pub fn new() -> ForkGuard {
        ForkGuard {
            word: word(),
            forks: generation(),
        }
    }

    /// Whether this process is a forked child of the guard's.
    #[inline]
    pub fn forked(&self) -> bool {
        // A wiped page reads 0, which no guard holds.
        self.word.load(Relaxed) != self.forks
    }
}

impl Default for ForkGuard {
    fn default() -> Self {
        ForkGuard::new()
    }
}

impl PartialEq for ForkGuard {
    fn eq(&self, other: &Self) -> bool {
        self.forks == other.forks && ptr::eq(self.word, other.word)
    }
}

impl Eq for ForkGuard {}

impl std::fmt::Debug for ForkGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForkGuard")
            .field("forks", &self.forks)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word the kernel wiped reads as forked to every guard, and re-arms
    /// (once, whoever races) with a generation past every one handed out.
    #[test]
    fn a_wiped_word_reads_as_forked_and_rearms_past_the_parent() {
        // Only with the wiped page: without it `FORKS` is the word other
        // tests' clocks compare, and counting it up would trip them.
        if PAGE.load(Acquire).is_null() {
            return;
        }
        static WORD: AtomicU32 = AtomicU32::new(0);
        WORD.store(generation(), Relaxed);
        let guard = ForkGuard {
            word: &WORD,
            forks: WORD.load(Relaxed),
        };
        assert!(!guard.forked());
        let before = FORKS.load(SeqCst);
        WORD.store(0, Relaxed); // what the kernel does in a child
        assert!(guard.forked());
        let armed = rearm(&WORD);
        assert!(armed > before && armed != guard.forks);
        assert_eq!(WORD.load(Relaxed), armed);
        assert_eq!(rearm(&WORD), armed, "armed already: no new generation");
        assert!(guard.forked());
    }

    /// On Linux the generation lives on the wiped page, if the kernel gave
    /// one, and a process that armed it never reads 0.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn the_word_is_the_page_when_there_is_one() {
        let word = word();
        assert_eq!(
            ptr::eq(word, &FORKS),
            PAGE.load(Acquire).is_null(),
            "the word is the page if there is one"
        );
        assert_ne!(word.load(Relaxed), 0);
    }
}
