//! `guid compose`: the id of explicit parts.

use std::io::Write;

use guid::sno::Sno;
use guid::{Guid, Luid, v3};

use crate::cli::ComposeArgs;
use crate::id::Id;
use crate::output::{self, Fail, Status};
use crate::rfc3339::Utc;
use crate::value;

/// Builds the id and writes its object (a sno id: its string).
pub fn run(args: &ComposeArgs, out: &mut impl Write) -> Result<Status, Fail> {
    if args.sno {
        return match sno(args) {
            Ok(id) => {
                writeln!(out, "{id}")?;
                out.flush()?;
                Ok(Status::Done)
            }
            Err(e) => {
                output::error(e);
                Ok(Status::Usage)
            }
        };
    }
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

/// The sno id of the flags' parts, or what is wrong with them.
fn sno(args: &ComposeArgs) -> Result<Sno, String> {
    Sno::compose(
        args.time,
        args.tick == Some(1),
        args.meta.unwrap_or(0),
        args.partition.unwrap_or(0),
        args.seq.unwrap_or(0),
    )
    .map_err(|_| {
        format!(
            "invalid value '{}' for '--time <TIME>': a sno id holds 2010-01-01T00:00:00Z to \
             2079-09-07T15:47:35.551999999Z",
            Utc(args.time)
        )
    })
}

/// The id of the flags' parts, or what is wrong with them.
fn compose(args: &ComposeArgs) -> Result<Id, String> {
    let (time, seq) = (args.time, value::seq14(args.seq.unwrap_or(0))?);
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
