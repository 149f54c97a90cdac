//! Files named by flags (`--state`, `--token-file`), read whole: only a
//! small regular file is read, and anything else is refused with a reason
//! for a message that names the flag.

use std::path::Path;

use guid_horizon::{self as horizon, ReadError};

/// The bytes of the file `path` (`None` if there is none), read only if it
/// is a regular file of at most `max` bytes, and never more than that: a
/// device may have no end (`/dev/zero`), a FIFO no writer, and neither is
/// opened ([`horizon::read_small`]). Refused with why, for a message that
/// names the flag and the file; `expected` (what the file should hold)
/// ends it.
pub(crate) fn read(path: &Path, max: u64, expected: &str) -> Result<Option<Vec<u8>>, String> {
    horizon::read_small(path, max).map_err(|e| match e {
        ReadError::NotRegular(kind) => format!("is a {kind}, not a regular file; {expected}"),
        ReadError::TooLong { len: Some(len), .. } => {
            format!("is {len} bytes, more than the {max} read; {expected}")
        }
        ReadError::TooLong { len: None, .. } => {
            format!("is more than {max} bytes (it grew while read); {expected}")
        }
        e => e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a short regular file is read; the reasons say what it is.
    #[test]
    fn reads_only_a_short_regular_file() {
        let dir = std::env::temp_dir().join(format!("kguid-flag-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("file");
        let why = |p: &Path, max| read(p, max, "expected x").unwrap_err();
        assert_eq!(
            why(Path::new("/dev/zero"), 8),
            "is a character device, not a regular file; expected x"
        );
        assert_eq!(
            why(&dir, 8),
            "is a directory, not a regular file; expected x"
        );
        std::fs::write(&path, "123456789").unwrap();
        assert_eq!(
            why(&path, 8),
            "is 9 bytes, more than the 8 read; expected x"
        );
        assert_eq!(read(&path, 9, "").unwrap().unwrap(), b"123456789");
        assert!(why(&path.join("x"), 8).starts_with("cannot read it: "));
        assert_eq!(read(&dir.join("missing"), 8, ""), Ok(None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
