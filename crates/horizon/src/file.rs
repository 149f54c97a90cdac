//! The horizon file: its one strict format, the read of a small regular
//! file, and the atomic write.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The longest horizon line: `u64::MAX` in decimal and a newline.
pub const MAX_LEN: usize = 21;

/// The most of a horizon file that [`read`] reads: a file longer than this
/// is refused by its length, without being read.
pub const MAX_READ: u64 = 64;

/// The line that holds the horizon `ns`: its decimal digits and a newline.
/// `None` for 0, which is no horizon (a file holding it would be refused).
pub fn format(ns: u64) -> Option<String> {
    (ns > 0).then(|| format!("{ns}\n"))
}

/// The horizon of a file's bytes: the decimal digits of a non-zero number
/// with no leading zero, then one `\n`, and nothing else. Never 0.
pub fn parse(bytes: &[u8]) -> Result<u64, FormatError> {
    let error = |kind| FormatError::new(kind, bytes);
    let Some(digits) = bytes.strip_suffix(b"\n") else {
        return Err(error(FormatErrorKind::NoNewline));
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(error(FormatErrorKind::NotDigits));
    }
    if digits == b"0" {
        return Err(error(FormatErrorKind::Zero));
    }
    if digits[0] == b'0' {
        return Err(error(FormatErrorKind::LeadingZero));
    }
    let mut ns: u64 = 0;
    for &d in digits {
        ns = ns
            .checked_mul(10)
            .and_then(|ns| ns.checked_add(u64::from(d - b'0')))
            .ok_or_else(|| error(FormatErrorKind::TooLarge))?;
    }
    Ok(ns)
}

/// Bytes that are not a horizon line, and how they fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    kind: FormatErrorKind,
    /// The first 40 bytes, for the message.
    shown: String,
}

/// How bytes fail to be a horizon line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormatErrorKind {
    /// No `\n` at the end: the file was cut short (or written by hand).
    NoNewline,
    /// Empty, or something other than decimal digits before the newline
    /// (a sign, a space, a second line).
    NotDigits,
    /// `0`, which is never saved: there is no horizon then, and no file.
    Zero,
    /// A leading zero, which no writer of this format puts.
    LeadingZero,
    /// A number past `u64::MAX`, the largest Unix nanosecond time.
    TooLarge,
}

impl FormatError {
    fn new(kind: FormatErrorKind, bytes: &[u8]) -> FormatError {
        let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned();
        FormatError { kind, shown }
    }

    /// How the bytes fail.
    pub fn kind(&self) -> FormatErrorKind {
        self.kind
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = &self.shown;
        match self.kind {
            FormatErrorKind::NoNewline => write!(
                f,
                "{shown:?} does not end in a newline (cut short?); expected Unix nanoseconds and one newline"
            ),
            FormatErrorKind::NotDigits => write!(
                f,
                "{shown:?} is not Unix nanoseconds (decimal digits and one newline)"
            ),
            FormatErrorKind::Zero => f.write_str("0 is no horizon: none is ever saved"),
            FormatErrorKind::LeadingZero => write!(f, "{shown:?} has a leading zero"),
            FormatErrorKind::TooLarge => {
                write!(f, "{shown:?} is past the largest Unix nanosecond time")
            }
        }
    }
}

impl std::error::Error for FormatError {}

/// Why a horizon file could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReadError {
    /// It could not be opened or read.
    Io(io::Error),
    /// It is not a regular file: what it is ("directory", "FIFO", ...).
    NotRegular(&'static str),
    /// It is longer than what is read of it.
    TooLong {
        /// Its length in bytes, if known (it may have grown while read).
        len: Option<u64>,
        /// The most that is read.
        max: u64,
    },
    /// Its bytes are not a horizon.
    Format(FormatError),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read it: {e}"),
            ReadError::NotRegular(kind) => write!(
                f,
                "is a {kind}, not a regular file; expected Unix nanoseconds and one newline"
            ),
            ReadError::TooLong {
                len: Some(len),
                max,
            } => write!(
                f,
                "is {len} bytes, more than the {max} read; a horizon is at most {MAX_LEN} (Unix nanoseconds and one newline)"
            ),
            ReadError::TooLong { len: None, max } => write!(
                f,
                "is more than {max} bytes (it grew while read); a horizon is at most {MAX_LEN}"
            ),
            ReadError::Format(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(e) => Some(e),
            ReadError::Format(e) => Some(e),
            _ => None,
        }
    }
}

impl From<FormatError> for ReadError {
    fn from(e: FormatError) -> Self {
        ReadError::Format(e)
    }
}

/// The horizon saved in `path`, `None` if there is no file: read with
/// [`read_small`] (at most [`MAX_READ`] bytes, of a regular file only) and
/// [`parse`]d strictly.
pub fn read(path: &Path) -> Result<Option<u64>, ReadError> {
    match read_small(path, MAX_READ)? {
        Some(bytes) => Ok(Some(parse(&bytes)?)),
        None => Ok(None),
    }
}

/// The bytes of the regular file `path`, `None` if there is none, refused
/// if longer than `max`: nothing but a regular file is read (a device may
/// have no end, a FIFO no writer) or even opened, and never more than
/// `max + 1` bytes of it.
pub fn read_small(path: &Path, max: u64) -> Result<Option<Vec<u8>>, ReadError> {
    match fs::metadata(path) {
        Ok(meta) => regular(&meta, max)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReadError::Io(e)),
    }
    let mut options = OpenOptions::new();
    options.read(true);
    // Something put there since cannot block the open (a FIFO) or become
    // the terminal of the process.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReadError::Io(e)),
    };
    regular(&file.metadata().map_err(ReadError::Io)?, max)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLong { len: None, max });
    }
    Ok(Some(bytes))
}

/// A regular file of at most `max` bytes.
fn regular(meta: &fs::Metadata, max: u64) -> Result<(), ReadError> {
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind(meta.file_type())));
    }
    if meta.len() > max {
        return Err(ReadError::TooLong {
            len: Some(meta.len()),
            max,
        });
    }
    Ok(())
}

/// What a file that is not a regular file is.
fn kind(t: fs::FileType) -> &'static str {
    if t.is_dir() {
        return "directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_char_device() {
            return "character device";
        }
        if t.is_block_device() {
            return "block device";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    "special file"
}

/// Saves the horizon `ns` in `path`, atomically: the file is always either
/// the old one or the new one, whole. The line goes to a new temporary file
/// beside `path` (see [`write_bytes`]), which is fsynced and renamed over
/// `path`, and the directory is fsynced so that the rename lasts. A 0 is
/// refused (`InvalidInput`): it is no horizon.
pub fn write(path: &Path, ns: u64) -> io::Result<()> {
    let line =
        format(ns).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "0 is no horizon"))?;
    write_bytes(path, line.as_bytes())
}

/// Replaces `path` with `bytes` atomically, as [`write()`] does: a temporary
/// file `FILE.PID-N.tmp` beside it, created anew (`O_EXCL`: never a file
/// or a link already there, so no two writers share one and nothing else
/// is written through it), written, fsynced and renamed over `path`, then
/// the directory fsynced. A failure removes the temporary file.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (tmp, mut file) = create_temp(path)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, path)) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(path)
}

/// Whether saves of `path` can be made: creates the temporary file a save
/// would, and removes it. For a check before ids are issued, rather than a
/// failure at the first save.
pub fn try_write(path: &Path) -> io::Result<()> {
    let (tmp, file) = create_temp(path)?;
    drop(file);
    fs::remove_file(&tmp)
}

/// Removes the file `path`, if there is one, lastingly (the directory is
/// fsynced): when no id was issued, there is no horizon to keep.
pub fn remove(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => sync_dir(path),
    }
}

/// A temporary file beside `path`, `FILE.PID-N.tmp`, that did not exist
/// before.
fn create_temp(path: &Path) -> io::Result<(PathBuf, File)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut taken = None;
    for _ in 0..64 {
        let mut tmp = path.as_os_str().to_owned();
        let n = NEXT.fetch_add(1, Relaxed);
        tmp.push(format!(".{}-{n}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => taken = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(taken.expect("tried"))
}

/// Fsyncs the directory of `path`, so that a rename or removal in it
/// lasts. Only Unix opens a directory to sync it; elsewhere this does
/// nothing.
fn sync_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_dir as dir;
    use super::*;
    use proptest::prelude::*;

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn parses_only_the_strict_form() {
        for bad in [
            &b""[..],
            b"\n",
            b"42",
            b"1712345678",
            b"0\n",
            b"00\n",
            b"05\n",
            b"0123\n",
            b"12x\n",
            b"-5\n",
            b"+5\n",
            b" 5\n",
            b"5 \n",
            b"5\n\n",
            b"5\nx",
            b"5\n5\n",
            b"5\r\n",
            b"1 2\n",
            b"\xff\n",
            b"18446744073709551616\n",
            b"99999999999999999999999\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let kind = |b: &[u8]| parse(b).unwrap_err().kind();
        assert_eq!(kind(b""), FormatErrorKind::NoNewline);
        assert_eq!(kind(b"42"), FormatErrorKind::NoNewline);
        assert_eq!(kind(b"\n"), FormatErrorKind::NotDigits);
        assert_eq!(kind(b"+5\n"), FormatErrorKind::NotDigits);
        assert_eq!(kind(b"5\nx"), FormatErrorKind::NoNewline);
        assert_eq!(kind(b"0\n"), FormatErrorKind::Zero);
        assert_eq!(kind(b"05\n"), FormatErrorKind::LeadingZero);
        assert_eq!(kind(b"18446744073709551616\n"), FormatErrorKind::TooLarge);
        assert_eq!(parse(b"42\n"), Ok(42));
        assert_eq!(parse(b"18446744073709551615\n"), Ok(u64::MAX));
        assert_eq!(format(u64::MAX).unwrap().len(), MAX_LEN);
        assert_eq!(format(0), None);
        let e = parse(b"+5\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"+5\\n\" is not Unix nanoseconds (decimal digits and one newline)"
        );
    }

    /// What the writers before this module wrote (the service and the
    /// extension both `format!("{ns}\n")` of a non-zero time) reads as
    /// it did; what only the extension's laxer reading took is refused.
    #[test]
    fn files_written_before_read_the_same() {
        for ns in [1, 42, 1_712_345_678_123_456_789, u64::MAX] {
            let old = format!("{ns}\n");
            assert_eq!(parse(old.as_bytes()), Ok(ns));
            assert_eq!(format(ns).as_deref(), Some(old.as_str()));
        }
        for lax in ["+5\n", "05\n", "0005\n", "+007\n"] {
            assert!(lax.trim_end().parse::<u64>().is_ok(), "{lax:?}");
            assert!(parse(lax.as_bytes()).is_err(), "{lax:?}");
        }
    }

    proptest! {
        /// Every horizon reads back; every line that reads is the one
        /// its horizon formats to (one form per time).
        #[test]
        fn round_trip(ns in 1..=u64::MAX) {
            let line = format(ns).unwrap();
            prop_assert_eq!(parse(line.as_bytes()), Ok(ns));
        }

        #[test]
        fn only_the_canonical_form_reads(bytes in proptest::collection::vec(
            proptest::sample::select(b"0123456789+- \n\rx".to_vec()), 0..24)) {
            if let Ok(ns) = parse(&bytes) {
                prop_assert_eq!(format(ns).unwrap().into_bytes(), bytes);
            }
        }

        #[test]
        fn canonical_lines_read(digits in "[1-9][0-9]{0,18}") {
            let line = format!("{digits}\n");
            prop_assert_eq!(parse(line.as_bytes()), Ok(digits.parse::<u64>().unwrap()));
        }
    }

    #[test]
    fn writes_and_reads_back() {
        let dir = dir("write");
        let path = dir.join("state");
        assert!(read(&path).unwrap().is_none());
        write(&path, 1_500).unwrap();
        assert_eq!(read(&path).unwrap(), Some(1_500));
        assert_eq!(fs::read(&path).unwrap(), b"1500\n");
        write(&path, u64::MAX).unwrap();
        assert_eq!(read(&path).unwrap(), Some(u64::MAX));
        let zero = write(&path, 0).unwrap_err();
        assert_eq!(zero.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(read(&path).unwrap(), Some(u64::MAX));
        try_write(&path).unwrap();
        assert_eq!(names(&dir), ["state"]);
        remove(&path).unwrap();
        remove(&path).unwrap();
        assert!(read(&path).unwrap().is_none());
        assert!(names(&dir).is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A failed write leaves the old file and no temporary file, whether it
    /// fails creating its temporary file or renaming it.
    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = dir("failed");
        // No directory to write in.
        let orphan = dir.join("missing").join("state");
        assert_eq!(
            write(&orphan, 7).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(try_write(&orphan).is_err());
        assert!(names(&dir).is_empty());
        // A non-empty directory where the file goes: the temporary file is
        // made and written, and the rename over it fails.
        let taken = dir.join("state");
        fs::create_dir(&taken).unwrap();
        fs::write(taken.join("inside"), "x").unwrap();
        assert!(write(&taken, 7).is_err());
        assert_eq!(names(&dir), ["state"]);
        assert_eq!(names(&taken), ["inside"]);
        // A directory that takes no new files (sysfs), where it exists:
        // even root cannot create one there.
        let sysfs = Path::new("/sys/kernel");
        if sysfs.is_dir() {
            let path = sysfs.join(format!("kguid-horizon-{}", std::process::id()));
            assert!(write(&path, 7).is_err());
            assert!(try_write(&path).is_err());
            assert!(!path.exists());
        }
        // And a read-only directory, for a user that permissions bind.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let ro = dir.join("ro");
            fs::create_dir(&ro).unwrap();
            write(&ro.join("state"), 5).unwrap();
            fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
            if write(&ro.join("state"), 6).is_err() {
                assert_eq!(names(&ro), ["state"]);
                assert_eq!(read(&ro.join("state")).unwrap(), Some(5));
            }
            fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A temporary file of the old fixed name (here a link to another file)
    /// is neither written through nor moved.
    #[cfg(unix)]
    #[test]
    fn never_writes_through_a_file_already_there() {
        let dir = dir("tmp");
        let path = dir.join("state");
        let victim = dir.join("victim");
        fs::write(&victim, "not the horizon\n").unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("state.tmp")).unwrap();
        write(&path, 9).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "not the horizon\n");
        assert_eq!(names(&dir), ["state", "state.tmp", "victim"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Only a short regular file is read.
    #[test]
    fn reads_only_a_short_regular_file() {
        let dir = dir("kinds");
        let path = dir.join("state");
        let why = |p: &Path| read(p).unwrap_err().to_string();
        #[cfg(unix)]
        assert!(why(Path::new("/dev/zero")).starts_with("is a character device,"));
        assert!(matches!(
            read(&dir),
            Err(ReadError::NotRegular("directory"))
        ));
        fs::write(&path, [b'1'; 65]).unwrap();
        assert!(matches!(
            read(&path),
            Err(ReadError::TooLong {
                len: Some(65),
                max: 64
            })
        ));
        assert!(why(&path).starts_with("is 65 bytes"), "{}", why(&path));
        let mut longest = vec![b'1'; 63];
        longest.push(b'\n');
        fs::write(&path, &longest).unwrap();
        assert!(why(&path).contains("past the largest"), "{}", why(&path));
        assert_eq!(read_small(&path, 64).unwrap().unwrap(), longest);
        assert!(read_small(&path, 63).is_err());
        let file = path.join("state");
        assert!(matches!(read(&file), Err(ReadError::Io(_))));
        assert!(why(&file).starts_with("cannot read it: "), "{}", why(&file));
        fs::remove_dir_all(&dir).unwrap();
    }
}
