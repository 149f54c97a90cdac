//! `guid gen`: fresh ids from a clock, one per line.
//!
//! The clock fills a batch of ids with one read of the time, each id is
//! encoded into a stack buffer and copied into one buffered, locked stdout.

use std::io::{self, Write};

use data_encoding::HEXLOWER;
use guid::{Clock, Guid, Luid};
use serde::Serialize;

use crate::cli::{GenArgs, GenFormat};
use crate::output::{self, Fail, Status};

/// Ids made per clock call.
const BATCH: usize = 1024;

/// Prints `args.count` fresh ids.
pub fn run(args: &GenArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let mut clock = Clock::builder()
        .node_from_env()
        .drift(args.drift.unwrap_or_default());
    if let Some(node) = args.node {
        clock = clock.node(node);
    }
    let clock = clock.build();
    let n = args.count;
    if args.local {
        let fill = |ids: &mut [Luid]| clock.fill_l(ids);
        match args.format {
            GenFormat::String => emit(n, fill, out, |l, out| {
                out.write_all(l.encode(&mut [0; Luid::STRING_LEN]).as_bytes())
            }),
            GenFormat::Base62 => emit(n, fill, out, |l, out| {
                out.write_all(l.encode_base62(&mut [0; Luid::BASE62_LEN]).as_bytes())
            }),
            GenFormat::Hex => emit(n, fill, out, |l, out| hex(l.to_bytes(), out)),
            GenFormat::Json => emit(n, fill, out, json),
            GenFormat::Int => emit(n, fill, out, |l, out| write!(out, "{}", l.to_u64())),
        }?;
    } else {
        let fill = |ids: &mut [Guid]| clock.fill(ids);
        match args.format {
            GenFormat::String => emit(n, fill, out, |g, out| {
                out.write_all(g.encode(&mut [0; Guid::STRING_LEN]).as_bytes())
            }),
            GenFormat::Base62 => emit(n, fill, out, |g, out| {
                out.write_all(g.encode_base62(&mut [0; Guid::BASE62_LEN]).as_bytes())
            }),
            GenFormat::Hex => emit(n, fill, out, |g, out| hex(g.to_bytes(), out)),
            GenFormat::Json => emit(n, fill, out, json),
            GenFormat::Int => {
                output::error(
                    "--format int is for local ids (add --local): a global id has 96 bits",
                );
                return Ok(Status::BadInput);
            }
        }?;
    }
    out.flush()?;
    Ok(Status::Done)
}

/// Makes `count` ids in batches with `fill` and writes each with `put`, one
/// per line.
#[inline(always)]
fn emit<I: Copy + Default, W: Write>(
    count: u64,
    fill: impl Fn(&mut [I]),
    out: &mut W,
    put: impl Fn(&I, &mut W) -> io::Result<()>,
) -> io::Result<()> {
    let mut ids = [I::default(); BATCH];
    let mut left = count;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        let ids = &mut ids[..n];
        fill(ids);
        for id in ids.iter() {
            put(id, out)?;
            out.write_all(b"\n")?;
        }
        left -= n as u64;
    }
    Ok(())
}

/// Lowercase hex of an id's bytes (12 or 8).
fn hex<const N: usize>(bytes: [u8; N], out: &mut impl Write) -> io::Result<()> {
    const { assert!(N <= Guid::BYTES) };
    let mut buf = [0; 2 * Guid::BYTES];
    let buf = &mut buf[..2 * N];
    HEXLOWER.encode_mut(&bytes, buf);
    out.write_all(buf)
}

/// The JSON encoding, as the library's serde implementation writes it.
fn json(id: &impl Serialize, out: &mut impl Write) -> io::Result<()> {
    Ok(serde_json::to_writer(out, id)?)
}
