//! Standard streams: buffered output, one-line errors, and how a failure
//! becomes the exit status.

use std::fmt;
use std::io::{self, BufWriter, StdoutLock, Write};
use std::process::ExitCode;

/// Standard output, locked once and buffered.
pub type Out = BufWriter<StdoutLock<'static>>;

/// Standard output for a whole command.
pub fn stdout() -> Out {
    BufWriter::with_capacity(64 * 1024, io::stdout().lock())
}

/// How a command ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything was done.
    Done,
    /// The flags asked for something that cannot be done (and it was
    /// reported): a usage error, as clap's own.
    Usage,
    /// Some input was no id (and was reported); the rest was done.
    BadInput,
}

/// Exit status of a usage error (clap's too).
pub const USAGE: u8 = 2;

/// Exit status of input that is no id, apart from usage errors so that a
/// script can tell a bad id in its data from a mistake in its command.
pub const BAD_INPUT: u8 = 3;

/// Why a command stopped early.
#[derive(Debug, thiserror::Error)]
pub enum Fail {
    /// Standard output could not be written.
    #[error("cannot write to standard output: {0}")]
    Write(#[from] io::Error),
    /// Standard input could not be read.
    #[error("cannot read standard input: {0}")]
    Read(#[source] io::Error),
    /// No id service answered.
    #[error("cannot get ids from the id service: {0}")]
    Remote(#[from] kguid_service::ClientError),
    /// The service answered with something other than the ids asked for:
    /// the message names the likely mistake.
    #[error("{0}")]
    Mismatch(String),
}

/// JSON is only ever written, so its errors are failed writes.
impl From<serde_json::Error> for Fail {
    fn from(e: serde_json::Error) -> Fail {
        Fail::Write(e.into())
    }
}

/// The exit status: 0 done, 1 an I/O failure, 2 a usage error, 3 bad
/// input. A reader that closed the pipe (`guid gen | head`) wanted no more:
/// that ends quietly, with 0.
pub fn exit(result: Result<Status, Fail>) -> ExitCode {
    match result {
        Ok(Status::Done) => ExitCode::SUCCESS,
        Ok(Status::Usage) => ExitCode::from(USAGE),
        Ok(Status::BadInput) => ExitCode::from(BAD_INPUT),
        Err(Fail::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            error(e);
            ExitCode::FAILURE
        }
    }
}

/// Prints `error: <message>` as one line on standard error. A failure to
/// write it has nowhere to be reported, so it is ignored.
pub fn error(message: impl fmt::Display) {
    // Standard error is unbuffered: formatted straight to it, each piece of
    // the message would be a write of its own.
    let line = format!("error: {message}\n");
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// Prints `note: <message>` as one line on standard error: what was done
/// that the user may want otherwise (an ambiguous id read by likelihood).
pub fn note(message: impl fmt::Display) {
    let line = format!("note: {message}\n");
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// An input as it appears in a message: quoted, non-printable bytes in
/// `\xNN` form, and cut short if long.
pub struct Quoted<'a>(pub &'a [u8]);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Cut(self.0, self.0.len() as u64).fmt(f)
    }
}

/// The start of an input of `.1` bytes, of which only the start was kept,
/// shown as [`Quoted`] shows the whole.
pub struct Cut<'a>(pub &'a [u8], pub u64);

impl fmt::Display for Cut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX: usize = 64;
        f.write_str("'")?;
        for &b in self.0.iter().take(MAX) {
            if b == b' ' || b.is_ascii_graphic() {
                write!(f, "{}", char::from(b))?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        f.write_str("'")?;
        if self.1 > MAX as u64 {
            write!(f, " (cut, {} bytes)", self.1)?;
        }
        Ok(())
    }
}
