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
    /// Some input was bad (and reported); the rest was done.
    BadInput,
}

/// Why a command stopped early.
#[derive(Debug)]
pub enum Fail {
    /// Standard output could not be written.
    Write(io::Error),
    /// Standard input could not be read.
    Read(io::Error),
    /// No id service answered.
    Remote(kguid_service::ClientError),
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Fail {
        Fail::Write(e)
    }
}

impl From<kguid_service::ClientError> for Fail {
    fn from(e: kguid_service::ClientError) -> Fail {
        Fail::Remote(e)
    }
}

impl From<serde_json::Error> for Fail {
    fn from(e: serde_json::Error) -> Fail {
        Fail::Write(e.into())
    }
}

/// The exit status: 0 done, 2 bad input, 1 an I/O failure. A reader that
/// closed the pipe (`guid gen | head`) wanted no more: that ends quietly.
pub fn exit(result: Result<Status, Fail>) -> ExitCode {
    match result {
        Ok(Status::Done) => ExitCode::SUCCESS,
        Ok(Status::BadInput) => ExitCode::from(2),
        Err(Fail::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Fail::Write(e)) => {
            error(format_args!("cannot write to standard output: {e}"));
            ExitCode::FAILURE
        }
        Err(Fail::Read(e)) => {
            error(format_args!("cannot read standard input: {e}"));
            ExitCode::FAILURE
        }
        Err(Fail::Remote(e)) => {
            error(format_args!("cannot get ids from the id service: {e}"));
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
