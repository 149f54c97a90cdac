//! `guid inspect`: decode ids and describe each as a JSON object.

use std::io::{self, BufRead, BufReader, Write};

use crate::cli::InspectArgs;
use crate::form;
use crate::output::{self, Fail, Quoted, Status};
use crate::report::Report;

/// Describes each id given, or each line of standard input if none is.
/// A bad id is reported and skipped; the status says whether there was one.
pub fn run(args: &InspectArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let mut status = Status::Done;
    let mut one = |input: &[u8], out: &mut _| -> Result<(), Fail> {
        if !describe(args, input.trim_ascii(), out)? {
            status = Status::BadInput;
        }
        Ok(())
    };
    if args.ids.is_empty() {
        let mut stdin = BufReader::with_capacity(64 * 1024, io::stdin().lock());
        let mut line = Vec::new();
        loop {
            // Before waiting for more input, show what is done (pipes that
            // trickle, or a person typing).
            if stdin.buffer().is_empty() {
                out.flush()?;
            }
            line.clear();
            if stdin.read_until(b'\n', &mut line).map_err(Fail::Read)? == 0 {
                break;
            }
            // Blank lines separate, they are not ids.
            if !line.trim_ascii().is_empty() {
                one(&line, out)?;
            }
        }
    } else {
        for id in &args.ids {
            one(id.as_encoded_bytes(), out)?;
        }
    }
    out.flush()?;
    Ok(status)
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
