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
use std::sync::atomic::{
    AtomicPtr, AtomicU32,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};

/// With a wiped page: the latest generation any process of this line was
/// armed with, which, unlike the page, a child inherits. Without one: the
/// generation itself, counted in each child by the atfork handler. Never 0.
static FORKS: AtomicU32 = AtomicU32::new(1);

/// The fork word of a clock shared with the processes forked after it
/// (`Builder::shared_with_forks`): one generation for all of them.
static SHARED: AtomicU32 = AtomicU32::new(1);

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

/// Where state keeps the fork generation it belongs to: fixed for its
/// life (`u32`), moved on by one thread (`Cell<u32>`), or moved on by
/// whichever thread first meets a fork (an atomic, published with
/// `Release` after what it guards and read with `Acquire`).
pub(crate) trait Slot: Sized {
    /// A slot holding `forks`.
    fn hold(forks: u32) -> Self;
    /// The generation held.
    fn get(&self) -> u32;
    /// Holds `forks` from now on.
    fn set(&self, forks: u32);
}

impl Slot for u32 {
    fn hold(forks: u32) -> Self {
        forks
    }
    #[inline(always)]
    fn get(&self) -> u32 {
        *self
    }
    fn set(&self, _: u32) {
        unreachable!("a fixed generation is never moved on")
    }
}

impl Slot for std::cell::Cell<u32> {
    fn hold(forks: u32) -> Self {
        std::cell::Cell::new(forks)
    }
    #[inline(always)]
    fn get(&self) -> u32 {
        std::cell::Cell::get(self)
    }
    #[inline(always)]
    fn set(&self, forks: u32) {
        std::cell::Cell::set(self, forks);
    }
}

impl Slot for AtomicU32 {
    fn hold(forks: u32) -> Self {
        AtomicU32::new(forks)
    }
    #[inline(always)]
    fn get(&self) -> u32 {
        self.load(Acquire)
    }
    #[inline(always)]
    fn set(&self, forks: u32) {
        self.store(forks, Release);
    }
}

#[cfg(loom)]
impl Slot for loom::sync::atomic::AtomicU32 {
    fn hold(forks: u32) -> Self {
        loom::sync::atomic::AtomicU32::new(forks)
    }
    #[inline(always)]
    fn get(&self) -> u32 {
        self.load(Acquire)
    }
    #[inline(always)]
    fn set(&self, forks: u32) {
        self.store(forks, Release);
    }
}

/// The one fork check of the crate: the fork generation some state
/// belongs to, beside the word of the process's generation. Every clock,
/// the ticker, each [`Reserved`](crate::clock::Reserved) handle, the sno
/// generator and [`ForkGuard`] hold one and ask [`Owner::forked`], one
/// relaxed load of the word and one of the slot, before using state a
/// forked child must not use as its parent's.
#[derive(Clone, Copy)]
pub(crate) struct Owner<S> {
    /// The process's generation word ([`word`]), or [`SHARED`].
    word: &'static AtomicU32,
    forks: S,
}

impl<S: Slot> Owner<S> {
    /// State of the calling process.
    pub(crate) fn new() -> Owner<S> {
        Owner {
            word: word(),
            forks: S::hold(generation()),
        }
    }

    /// State of no process yet, until [`Owner::adopt`]ed: 0, never a
    /// generation. (A wiped word, not yet re-armed, reads 0 too: state
    /// held this way must be empty until adopted, as a ticker's reading
    /// and a handle's block are.)
    pub(crate) fn none() -> Owner<S> {
        Owner {
            word: word(),
            forks: S::hold(0),
        }
    }

    /// State that every process forked after it shares (memory mapped
    /// shared, `Builder::shared_with_forks`): never forked.
    pub(crate) fn shared() -> Owner<S> {
        Owner {
            word: &SHARED,
            forks: S::hold(SHARED.load(Relaxed)),
        }
    }

    /// Whether this process is a forked child of the one the state belongs
    /// to (or the state belongs to none yet). A wiped page reads 0, which
    /// no owner holds once adopted.
    #[inline(always)]
    pub(crate) fn forked(&self) -> bool {
        self.word.load(Relaxed) != self.forks.get()
    }

    /// Makes the state this process's (re-arming a wiped page), published
    /// after whatever the caller stored before; the generation.
    #[cold]
    pub(crate) fn adopt(&self) -> u32 {
        let forks = if ptr::eq(self.word, &SHARED) {
            SHARED.load(Relaxed)
        } else {
            generation()
        };
        self.forks.set(forks);
        forks
    }
}

impl Owner<AtomicU32> {
    /// Makes the state this process's if it is not yet, for one caller:
    /// true for the caller that did (the others, and later callers of the
    /// same process, get false until [`Owner::release`]). A parent's
    /// claim, copied by a fork, is taken over.
    pub(crate) fn claim(&self) -> bool {
        let forks = generation();
        let held = self.forks.load(Relaxed);
        held != forks
            && self
                .forks
                .compare_exchange(held, forks, Acquire, Relaxed)
                .is_ok()
    }

    /// Gives up a [`Owner::claim`]: the state is no process's.
    pub(crate) fn release(&self) {
        self.forks.store(0, Release);
    }
}

impl<S: Slot> std::fmt::Debug for Owner<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Owner")
            .field("forks", &self.forks.get())
            .finish()
    }
}

/// Tells whether the process is a forked child of the one that made the
/// guard: for state that, like a clock's, must not be used by both.
///
/// Made in one process, [`ForkGuard::forked`] is false there and true in
/// every child forked after it (and in their children). It costs one
/// relaxed load per check. On platforms without `fork` it is never true.
/// It is the check every clock of the crate makes before its ids (see the
/// [clock module's table](crate::clock#failing)).
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
pub struct ForkGuard(Owner<u32>);

impl ForkGuard {
    /// A guard for the calling process.
    pub fn new() -> ForkGuard {
        ForkGuard(Owner::new())
    }

    /// Whether this process is a forked child of the guard's.
    #[inline]
    pub fn forked(&self) -> bool {
        self.0.forked()
    }
}

impl Default for ForkGuard {
    fn default() -> Self {
        ForkGuard::new()
    }
}

impl PartialEq for ForkGuard {
    fn eq(&self, other: &Self) -> bool {
        self.0.forks == other.0.forks && ptr::eq(self.0.word, other.0.word)
    }
}

impl Eq for ForkGuard {}

impl std::fmt::Debug for ForkGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForkGuard")
            .field("forks", &self.0.forks.get())
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
        let guard = ForkGuard(Owner {
            word: &WORD,
            forks: WORD.load(Relaxed),
        });
        assert!(!guard.forked());
        let before = FORKS.load(SeqCst);
        WORD.store(0, Relaxed); // what the kernel does in a child
        assert!(guard.forked());
        let armed = rearm(&WORD);
        assert!(armed > before && armed != guard.0.forks);
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
