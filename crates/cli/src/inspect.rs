//! `guid inspect`: decode ids and describe each as a JSON object.

use std::io::{self, BufRead, BufReader, Write};

use crate::cli::InspectArgs;
use crate::form;
use crate::output::{self, Cut, Fail, Quoted, Status};
use crate::report::Report;

/// The longest line of standard input read as an id. No form is longer
/// than 24 characters; the rest is room for indentation and padding. A
/// longer line is reported as a bad id without being held in memory.
pub const LINE_MAX: usize = 1024;

/// Describes each id given, or each line of standard input if none is.
/// A bad id is reported and skipped; the status says whether there was one.
pub fn run(args: &InspectArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let mut good = true;
    if args.ids.is_empty() {
        let mut stdin = BufReader::with_capacity(64 * 1024, io::stdin().lock());
        let mut line = Line::default();
        loop {
            // Before waiting for more input, show what is done (pipes that
            // trickle, or a person typing).
            if stdin.buffer().is_empty() {
                out.flush()?;
            }
            if !line.read(&mut stdin).map_err(Fail::Read)? {
                break;
            }
            // Blank lines separate, they are not ids.
            if line.blank {
                continue;
            }
            if line.len > LINE_MAX as u64 {
                output::error(format_args!(
                    "invalid id {}: line too long: an id has at most 24 characters, \
                     and a line over {LINE_MAX} bytes is skipped",
                    Cut(line.head.trim_ascii_start(), line.len)
                ));
                good = false;
            } else {
                good &= describe(args, line.head.trim_ascii(), out)?;
            }
        }
    } else {
        for id in &args.ids {
            good &= describe(args, id.as_encoded_bytes().trim_ascii(), out)?;
        }
    }
    out.flush()?;
    Ok(if good { Status::Done } else { Status::BadInput })
}

/// A line of input, of which at most [`LINE_MAX`] bytes are kept.
#[derive(Default)]
struct Line {
    /// The start of the line, without its newline.
    head: Vec<u8>,
    /// The length of the whole line, without its newline.
    len: u64,
    /// Whether the whole line is whitespace.
    blank: bool,
}

impl Line {
    /// Reads the next line; `false` at the end of the input.
    fn read(&mut self, input: &mut impl BufRead) -> io::Result<bool> {
        self.head.clear();
        self.len = 0;
        self.blank = true;
        let mut any = false;
        loop {
            let buf = match input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(any);
            }
            any = true;
            let newline = buf.iter().position(|&b| b == b'\n');
            let part = &buf[..newline.unwrap_or(buf.len())];
            let room = LINE_MAX.saturating_sub(self.head.len());
            self.head.extend_from_slice(&part[..part.len().min(room)]);
            self.len += part.len() as u64;
            if self.blank {
                self.blank = part.iter().all(u8::is_ascii_whitespace);
            }
            let used = newline.map_or(buf.len(), |i| i + 1);
            input.consume(used);
            if newline.is_some() {
                return Ok(true);
            }
        }
    }
}

/// Writes the object of one id, or reports why it is not one (`false`).
fn describe(args: &InspectArgs, input: &[u8], out: &mut impl Write) -> Result<bool, Fail> {
    match form::decode(input, args.kind, args.from) {
        Ok(id) => {
            Report::of(id)?.write_line(out)?;
            Ok(true)
        }
        Err(what) => {
            output::error(format_args!("invalid id {}: {what}", Quoted(input)));
            Ok(false)
        }
    }
}
