//! `guid compose`: the id of explicit parts.

use std::io::Write;

use guid::{Guid, Luid, v3};

use crate::cli::ComposeArgs;
use crate::id::Id;
use crate::output::{self, Fail, Status};
use crate::value;

/// Builds the id and writes its object.
pub fn run(args: &ComposeArgs, out: &mut impl Write) -> Result<Status, Fail> {
    match compose(args) {
        Ok(id) => {
            id.report()?.write_line(out)?;
            out.flush()?;
            Ok(Status::Done)
        }
        Err(e) => {
            output::error(e);
            Ok(Status::Usage)
        }
    }
}

/// The id of the flags' parts, or what is wrong with them.
fn compose(args: &ComposeArgs) -> Result<Id, String> {
    let (time, seq) = (args.time, args.seq.unwrap_or(0));
    let zero = value::Node::default();
    let node = args.node.as_ref().unwrap_or(&zero);
    let text = |e: guid::Error| e.to_string();
    if !args.v3 {
        let drift = value::drift_v2(args.drift, args.drift_code)?;
        return if args.local {
            Luid::compose(time, seq, drift).map(Id::L)
        } else {
            Guid::compose(value::node32(node)?, time, seq, drift).map(Id::G)
        }
        .map_err(text);
    }
    let drift = value::drift_v3(args.drift, args.drift_code);
    if args.local {
        v3::Luid::compose(time, seq, drift).map(Id::L3)
    } else if args.x {
        v3::Xuid::compose(node.value, time, seq, drift).map(Id::X)
    } else {
        v3::Guid::compose(value::node32(node)?, time, seq, drift).map(Id::G3)
    }
    .map_err(text)
}
