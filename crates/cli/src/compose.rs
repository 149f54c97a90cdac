//! `guid compose`: the id of explicit parts.

use std::io::Write;

use guid::{Guid, Luid};

use crate::cli::ComposeArgs;
use crate::id::Id;
use crate::output::{self, Fail, Status};
use crate::report::Report;

/// Builds the id and writes its object.
pub fn run(args: &ComposeArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let seq = args.seq.unwrap_or(0);
    let drift = args.drift.unwrap_or_default();
    let id = if args.local {
        Luid::compose(args.time, seq, drift).map(Id::L)
    } else {
        Guid::compose(args.node.unwrap_or(0), args.time, seq, drift).map(Id::G)
    };
    match id {
        Ok(id) => {
            Report::of(id)?.write_line(out)?;
            out.flush()?;
            Ok(Status::Done)
        }
        Err(e) => {
            output::error(e);
            Ok(Status::Usage)
        }
    }
}
