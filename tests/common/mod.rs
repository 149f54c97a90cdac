//! Helpers the test files of both generations share.
#![allow(dead_code)] // each test file uses some of them

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, Ordering};

use data_encoding::{Encoding, Specification};
use guid::MockTime;
use serde_json::Value;

/// One tick of the clock, in nanoseconds.
pub const TICK: u64 = 1 << 17;
pub const MS: u64 = 1_000_000;
pub const SEC: u64 = 1_000_000_000;
pub const HOUR: u64 = 3600 * SEC;
/// 2024-06-01T00:00:00Z, a time well inside the id's range.
pub const T0: u64 = 1_717_200_000 * SEC;

/// A small deterministic generator, so failures replay.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Asserts every id is strictly after (or, inverse, before) the previous.
pub fn assert_strict<T: Ord + std::fmt::Debug>(ids: &[T], inverse: bool) {
    for (i, w) in ids.windows(2).enumerate() {
        let ok = if inverse { w[1] < w[0] } else { w[1] > w[0] };
        assert!(
            ok,
            "ids {i} and {} out of order: {:?} then {:?}",
            i + 1,
            w[0],
            w[1]
        );
    }
}

/// How many ids repeat an earlier one.
pub fn duplicates<T: Hash + Eq + Copy>(ids: impl IntoIterator<Item = T>) -> usize {
    let mut seen = HashSet::new();
    ids.into_iter().filter(|id| !seen.insert(*id)).count()
}

/// Four threads make 100,000 ids each with `make` while another moves
/// `time` back and forth at random; the ids of each thread.
pub fn with_a_wild_source<T: Send>(time: &MockTime, make: impl Fn() -> T + Sync) -> Vec<Vec<T>> {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut rng = SplitMix(7);
            while !done.load(Ordering::Relaxed) {
                match rng.next() % 4 {
                    0 => time.step_back(rng.next() % SEC),
                    1 => time.advance(rng.next() % SEC),
                    _ => time.advance(TICK),
                }
                std::thread::yield_now();
            }
        });
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| (0..100_000).map(|_| make()).collect::<Vec<_>>()))
            .collect();
        let ids = handles.into_iter().map(|h| h.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        ids
    })
}

/// `n` ids from `make`, the source stepping back by `step` at random points
/// (one in 1,000) and moving up to two ticks forward at others; the ids
/// and how often it stepped back.
pub fn with_steps_back<T>(
    time: &MockTime,
    step: u64,
    n: usize,
    mut make: impl FnMut() -> T,
) -> (Vec<T>, usize) {
    let mut rng = SplitMix(step);
    let mut ids = Vec::with_capacity(n);
    let mut steps = 0;
    for _ in 0..n {
        match rng.next() % 1000 {
            0 => {
                time.step_back(step);
                steps += 1;
            }
            1..=100 => time.advance(rng.next() % (2 * TICK)),
            _ => {}
        }
        ids.push(make());
    }
    (ids, steps)
}

/// An independent encoder of the sortable alphabet: base64 over the same
/// symbols, most significant bits first, `bits` a character.
pub fn sortable(bits: usize) -> Encoding {
    let mut spec = Specification::new();
    let symbols = ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
    spec.symbols.push_str(&symbols[..1 << bits]);
    spec.encoding().unwrap()
}

/// The kind of a result's error.
pub fn kind<T: std::fmt::Debug>(r: Result<T, guid::Error>) -> guid::ErrorKind {
    r.unwrap_err().kind()
}

/// A vector file's `u64`: `"0x1a"` → 26.
pub fn hex(v: &Value) -> u64 {
    let s = v.as_str().expect("hex string");
    u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex")
}

/// A vector file's bytes: lowercase hex without prefix.
pub fn bytes_hex(v: &Value) -> Vec<u8> {
    let s = v.as_str().expect("hex bytes");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex byte"))
        .collect()
}

/// Everything read from the pipe `fd` until its writers close it (what a
/// forked child sent back).
#[cfg(unix)]
pub fn read_to_end(fd: libc::c_int) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        // SAFETY: `buf` is valid for its length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        assert!(n >= 0, "read from the child failed");
        if n == 0 {
            return bytes;
        }
        bytes.extend_from_slice(&buf[..n as usize]);
    }
}

/// One fork at a time: the child must not inherit a lock another test of
/// the file holds mid-way.
#[cfg(unix)]
static FORK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(unix)]
/// Runs `child` in a forked child and returns the bytes it wrote, while
/// the parent runs `parent`.
pub fn fork_with<T>(child: impl FnOnce() -> Vec<u8>, parent: impl FnOnce() -> T) -> (Vec<u8>, T) {
    let _one = FORK.lock().unwrap_or_else(|e| e.into_inner());
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let [read, write] = fds;
    // SAFETY: the child only computes, writes to its pipe and `_exit`s.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // SAFETY: closing our copy of the read end.
        unsafe { libc::close(read) };
        let out = child();
        let mut rest = &out[..];
        while !rest.is_empty() {
            // SAFETY: `rest` is valid for its length.
            let n = unsafe { libc::write(write, rest.as_ptr().cast(), rest.len()) };
            if n <= 0 {
                // SAFETY: leaving the child without running the parent's destructors.
                unsafe { libc::_exit(2) };
            }
            rest = &rest[n as usize..];
        }
        // SAFETY: as above.
        unsafe { libc::_exit(0) };
    }
    // SAFETY: closing our copy of the write end.
    unsafe { libc::close(write) };
    let theirs = parent();
    let bytes = read_to_end(read);
    let mut status = 0;
    // SAFETY: `pid` is our child.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    // SAFETY: reading the status waitpid filled.
    unsafe {
        libc::close(read);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child status {status}"
        );
    }
    (bytes, theirs)
}
