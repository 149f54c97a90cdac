//! Children made without the C library's `fork()` run no `pthread_atfork`
//! handler: the raw `fork` (or `clone`) system call, and glibc's `_Fork()`.
//! The clocks must notice them all the same.
//!
//! The child does only what such a child may: no allocation, no lock, no
//! unwinding. It reads the clock into buffers allocated before the fork,
//! writes them to a pipe and leaves with `_exit`; a panic is caught by a
//! hook, installed before the fork, that reports it and `_exit`s.
#![cfg(target_os = "linux")]

mod common;

use guid::Id;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering::Relaxed};
use std::time::{Duration, SystemTime};

use guid::flake::{self, Layout};
use guid::{Clock, ErrorKind, Guid};

/// One fork at a time: the pipe of the panic hook is the child's.
static FORK: Mutex<()> = Mutex::new(());

/// Ids each of parent and child make.
const IDS: usize = 20_000;

/// How a child is made.
#[derive(Clone, Copy, Debug)]
enum Fork {
    /// The `fork` system call (`clone` with `SIGCHLD` where there is none).
    Syscall,
    /// glibc's `_Fork()` (2.34 and later), which runs no atfork handler.
    GlibcFork,
}

impl Fork {
    /// The ways this system has; none if the kernel does not wipe pages on
    /// fork (before Linux 4.14), where such children go unnoticed.
    fn all() -> Vec<Fork> {
        if !kernel_wipes_on_fork() {
            eprintln!("skipped: the kernel refuses MADV_WIPEONFORK");
            return Vec::new();
        }
        let mut ways = vec![Fork::Syscall];
        if glibc_fork().is_some() {
            ways.push(Fork::GlibcFork);
        }
        ways
    }

    /// A child, as `fork()` returns it.
    fn fork(self) -> libc::pid_t {
        match self {
            // SAFETY: a raw fork: the child only runs what `fork_with` allows.
            Fork::Syscall => unsafe { raw_fork() },
            // SAFETY: as above; `_Fork` takes no arguments.
            Fork::GlibcFork => unsafe { glibc_fork().unwrap()() },
        }
    }
}

#[cfg(target_arch = "x86_64")]
unsafe fn raw_fork() -> libc::pid_t {
    // SAFETY: the caller's.
    unsafe { libc::syscall(libc::SYS_fork) as libc::pid_t }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn raw_fork() -> libc::pid_t {
    // SAFETY: the caller's; `clone` with only the exit signal is a fork.
    unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD, 0, 0, 0, 0) as libc::pid_t }
}

/// Whether the kernel takes `MADV_WIPEONFORK` (Linux 4.14 and later).
fn kernel_wipes_on_fork() -> bool {
    // SAFETY: a private anonymous page of our own, unmapped after.
    unsafe {
        let size = libc::sysconf(libc::_SC_PAGESIZE) as usize;
        let page = libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(page, libc::MAP_FAILED);
        let wipes = libc::madvise(page, size, libc::MADV_WIPEONFORK) == 0;
        libc::munmap(page, size);
        wipes
    }
}

/// glibc's `_Fork`, if the C library has it.
fn glibc_fork() -> Option<unsafe extern "C" fn() -> libc::pid_t> {
    // SAFETY: looking a symbol up by a NUL-terminated name.
    let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"_Fork".as_ptr()) };
    // SAFETY: glibc's `pid_t _Fork(void)`.
    (!f.is_null()).then(|| unsafe {
        std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn() -> libc::pid_t>(f)
    })
}

/// The test process, which the panic hook tells from a child.
static PARENT: AtomicI32 = AtomicI32::new(0);
/// The write end of the running child's pipe.
static PIPE: AtomicI32 = AtomicI32::new(-1);

/// What the child's panic hook writes: this byte, then whether the message
/// was the clock's refusal.
const PANICKED: u8 = b'P';

/// Installs (once) a panic hook that, in a child, writes [`PANICKED`] and
/// whether the message names the forked child, then `_exit`s: no
/// unwinding, no allocation. In the test process it is the default hook.
fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        PARENT.store(std::process::id() as i32, Relaxed);
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // SAFETY: getpid has no preconditions.
            if unsafe { libc::getpid() } == PARENT.load(Relaxed) {
                return default(info);
            }
            let mut text = Buf::default();
            let _ = write!(text, "{info}");
            let refusal = text.contains("forked child");
            write_all(PIPE.load(Relaxed), &[PANICKED, u8::from(refusal)]);
            // SAFETY: leaving the child at once.
            unsafe { libc::_exit(0) };
        }));
    });
}

/// A fixed buffer to format into without allocating.
struct Buf {
    bytes: [u8; 512],
    len: usize,
}

impl Default for Buf {
    fn default() -> Self {
        Buf {
            bytes: [0; 512],
            len: 0,
        }
    }
}

impl Buf {
    fn contains(&self, needle: &str) -> bool {
        self.bytes[..self.len]
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    }
}

impl std::fmt::Write for Buf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

fn write_all(fd: i32, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is valid for its length.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            // SAFETY: leaving the child without running the parent's destructors.
            unsafe { libc::_exit(2) };
        }
        bytes = &bytes[n as usize..];
    }
}

/// Runs `child` in a child made `how`, with `out` (allocated here) to
/// fill; the child writes what `child` returns as its length of `out` to a
/// pipe, and `_exit`s. Meanwhile the parent runs `parent`. Returns the
/// child's bytes and the parent's result.
fn fork_with<T>(
    how: Fork,
    mut out: Vec<u8>,
    child: impl FnOnce(&mut [u8]) -> usize,
    parent: impl FnOnce() -> T,
) -> (Vec<u8>, T) {
    let _one = FORK.lock().unwrap_or_else(|e| e.into_inner());
    install_hook();
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let [read, write] = fds;
    PIPE.store(write, Relaxed);
    let pid = how.fork();
    assert!(pid >= 0, "{how:?} failed");
    if pid == 0 {
        // SAFETY: closing our copy of the read end.
        unsafe { libc::close(read) };
        let n = child(&mut out);
        write_all(write, &out[..n]);
        // SAFETY: as above.
        unsafe { libc::_exit(0) };
    }
    // SAFETY: closing our copy of the write end.
    unsafe { libc::close(write) };
    let theirs = parent();
    let bytes = common::read_to_end(read);
    let mut status = 0;
    // SAFETY: `pid` is our child; then reading the status waitpid filled.
    unsafe {
        assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
        libc::close(read);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child status {status}"
        );
    }
    (bytes, theirs)
}

/// A flake clock built in the parent refuses in the child with
/// [`ErrorKind::Forked`], and leaves the buffer untouched; the parent goes
/// on. (If it made ids, they are sent back and counted against the
/// parent's.)
#[test]
fn a_flake_clock_refuses_in_a_raw_forked_child() {
    for how in Fork::all() {
        let clock = flake::Clock::builder(Layout::NOEQD)
            .node(9)
            .build()
            .unwrap();
        let first = clock.next().unwrap();
        let mut ids = vec![0u64; IDS];
        let (child, parent) = fork_with(
            how,
            vec![0; 1 + IDS * 8],
            |out| {
                out[0] = match clock.fill(&mut ids) {
                    Err(e) if e.kind() == ErrorKind::Forked => 1,
                    Err(_) => 2,
                    Ok(()) => 0,
                };
                if out[0] != 0 {
                    out[1] = u8::from(ids.iter().all(|&id| id == 0));
                    return 2;
                }
                for (id, b) in ids.iter().zip(out[1..].chunks_exact_mut(8)) {
                    b.copy_from_slice(&id.to_be_bytes());
                }
                1 + IDS * 8
            },
            || {
                let mut mine = vec![0u64; IDS];
                clock.fill(&mut mine).unwrap();
                mine
            },
        );
        if child[0] == 0 {
            let mine: HashSet<u64> = parent.iter().copied().collect();
            let repeats = child[1..]
                .chunks_exact(8)
                .filter(|b| mine.contains(&u64::from_be_bytes((*b).try_into().unwrap())))
                .count();
            panic!("{how:?}: the child made ids, {repeats} of {IDS} the parent's");
        }
        assert_eq!(child, [1, 1], "{how:?}: Forked, nothing filled");
        assert!(parent[0] > first);
    }
}

/// A clock with a random node, used before the fork: the child draws a new
/// node, and none of its 20,000 ids equals one of the 20,000 the parent
/// makes meanwhile. Both on the wall clock ([`Clock::new`]), starting at
/// once, and on a stalled mock source, where the same node would repeat
/// every id.
#[test]
fn a_raw_forked_child_never_repeats_its_parents_ids() {
    for how in Fork::all() {
        let stalled = guid::MockTime::new(1_700_000_000_000_000_000);
        for (name, clock) in [
            ("wall", Clock::new()),
            ("stalled", Clock::builder().time(stalled.clone()).build()),
        ] {
            let before = clock.g();
            let mut ids = vec![Guid::default(); IDS];
            // Both start at once, in the same tick as far as they can.
            let start = SystemTime::now() + Duration::from_millis(5);
            let fill = |ids: &mut [Guid]| {
                while SystemTime::now() < start {}
                for batch in ids.chunks_mut(1_000) {
                    clock.fill(batch);
                }
            };
            let (child, (parent, node)) = fork_with(
                how,
                vec![0; IDS * 12],
                |out| {
                    fill(&mut ids);
                    for (id, b) in ids.iter().zip(out.chunks_exact_mut(12)) {
                        b.copy_from_slice(&id.to_bytes());
                    }
                    IDS * 12
                },
                || {
                    let mut mine = vec![Guid::default(); IDS];
                    fill(&mut mine);
                    (mine, clock.node())
                },
            );
            assert_eq!(child.len(), IDS * 12, "{how:?}, {name}: the child's ids");
            let mine: HashSet<[u8; 12]> = parent.iter().map(|g| g.to_bytes()).collect();
            let repeats = child.chunks_exact(12).filter(|b| mine.contains(*b)).count();
            eprintln!("{how:?}, {name}: {repeats} of the child's {IDS} ids are the parent's");
            assert_eq!(repeats, 0, "{how:?}, {name}: repeated ids");
            assert_eq!(
                u64::from(node),
                before.node(),
                "{how:?}, {name}: the parent keeps its node"
            );
            let child_first = Guid::try_from(&child[..12]).unwrap();
            assert_ne!(
                child_first.node(),
                u64::from(node),
                "{how:?}, {name}: a node of its own"
            );
            assert!(child_first.time() >= before.time());
        }
    }
}

/// A clock whose node was chosen panics in the child (with the message of
/// a normal fork) rather than repeat its parent's ids.
#[test]
fn a_chosen_node_refuses_in_a_raw_forked_child() {
    for how in Fork::all() {
        let clock = Clock::builder().node(0x0bad_cafe).build();
        let _ = clock.g();
        let (child, parent) = fork_with(
            how,
            vec![0; 1],
            |out| {
                // Panics before it returns, if it notices the fork.
                let _ = clock.g();
                out[0] = b'N';
                1
            },
            || clock.g(),
        );
        assert_eq!(child, [PANICKED, 1], "{how:?}: g() refuses in the child");
        assert_eq!(parent.node(), 0x0bad_cafe, "{how:?}: the parent goes on");
    }
}
