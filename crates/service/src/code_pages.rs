//! The binary's own pages after the start: most of what an idle
//! `guid-serve` has resident is its executable's code and read-only data
//! (the kernel maps 64 KB around every page touched), and most of that
//! was touched only once, parsing the flags and setting up the logs and
//! the runtime. [`release`] unmaps them; the pages the server goes on to
//! run are mapped again, from the page cache, when it touches them.
//!
//! Only mappings of the executable that the process never wrote are
//! released (their `Anonymous` size in `/proc/self/smaps` is zero): code
//! and read-only data, never relocated data, nor code a debugger patched.
//! Dropping such a page loses nothing; it is read again from the same file,
//! as it would be after the kernel reclaimed it under memory pressure.

/// Unmaps this process's pages of its executable's code and read-only data
/// (Linux; elsewhere nothing). Returns the bytes of the mappings released.
#[cfg(target_os = "linux")]
pub(crate) fn release() -> usize {
    let Ok(exe) = std::fs::read_link("/proc/self/exe") else {
        return 0;
    };
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
        return 0;
    };
    let mut released = 0;
    for mapping in mappings(&smaps) {
        if std::path::Path::new(mapping.path) != exe || !mapping.pristine() {
            continue;
        }
        let len = mapping.end - mapping.start;
        // SAFETY: a whole mapping of the executable, read-only and never
        // written by this process: its pages are the file's, and touching
        // them again maps them again. No Rust reference is invalidated.
        let r =
            unsafe { libc::madvise(mapping.start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
        if r == 0 {
            released += len;
        }
    }
    released
}

/// Nothing to release on this platform.
#[cfg(not(target_os = "linux"))]
pub(crate) fn release() -> usize {
    0
}

/// One mapping of `/proc/self/smaps`.
#[derive(Debug, PartialEq, Eq)]
struct Mapping<'a> {
    start: usize,
    end: usize,
    perms: &'a str,
    path: &'a str,
    /// Its `Anonymous:` size in kB (pages copied on write), if given.
    anonymous_kb: Option<u64>,
}

impl Mapping<'_> {
    /// Read-only (executable or not), private, and with no page of its own.
    fn pristine(&self) -> bool {
        matches!(self.perms, "r-xp" | "r--p") && self.anonymous_kb == Some(0)
    }
}

/// The mappings of `smaps`: a header line (`start-end perms offset dev
/// inode path`) then `Key: value` lines.
fn mappings(smaps: &str) -> Vec<Mapping<'_>> {
    let mut out: Vec<Mapping<'_>> = Vec::new();
    for line in smaps.lines() {
        if let Some(v) = line.strip_prefix("Anonymous:") {
            if let Some(m) = out.last_mut() {
                m.anonymous_kb = v.split_whitespace().next().and_then(|n| n.parse().ok());
            }
            continue;
        }
        let mut fields = line.splitn(6, ' ');
        let (Some(range), Some(perms)) = (fields.next(), fields.next()) else {
            continue;
        };
        let Some((start, end)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (
            usize::from_str_radix(start, 16),
            usize::from_str_radix(end, 16),
        ) else {
            continue;
        };
        let path = fields.nth(3).unwrap_or("").trim_start();
        out.push(Mapping {
            start,
            end,
            perms,
            path,
            anonymous_kb: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55d0a0000000-55d0a00d9000 r--p 00000000 fe:00 5531194 /usr/bin/guid serve
Size:                868 kB
Anonymous:             0 kB
55d0a00d9000-55d0a03d2000 r-xp 000d8000 fe:00 5531194 /usr/bin/guid serve
Size:               3044 kB
Anonymous:             0 kB
55d0a03d2000-55d0a03e9000 r--p 003d0000 fe:00 5531194 /usr/bin/guid serve
Size:                 92 kB
Anonymous:            92 kB
55d0a03e9000-55d0a03ee000 rw-p 003e6000 fe:00 5531194 /usr/bin/guid serve
Anonymous:            20 kB
7ffc3c17e000-7ffc3c19f000 rw-p 00000000 00:00 0                          [stack]
Anonymous:            24 kB
";

    #[test]
    fn only_never_written_read_only_mappings_are_pristine() {
        let maps = mappings(SMAPS);
        assert_eq!(maps.len(), 5);
        assert_eq!(maps[0].path, "/usr/bin/guid serve");
        assert_eq!(
            (maps[1].start, maps[1].end),
            (0x55d0a00d9000, 0x55d0a03d2000)
        );
        assert_eq!(maps[4].path, "[stack]");
        let pristine: Vec<bool> = maps.iter().map(Mapping::pristine).collect();
        // The relocated read-only data (RELRO) has pages of its own.
        assert_eq!(pristine, [true, true, false, false, false]);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn released_code_runs_again() {
        let before: u64 = (1..=1000).sum();
        release();
        let after: u64 = (1..=1000).map(std::hint::black_box).sum();
        assert_eq!(before, after);
    }
}
