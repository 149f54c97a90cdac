//! `guid gen`: fresh ids from a clock, or from an id service, one per line.
//!
//! The clock fills a batch of ids with one read of the time, each id is
//! encoded into a stack buffer and copied into one buffered, locked stdout.

use std::io::{self, Write};

use data_encoding::HEXLOWER;
use guid::{Clock, Guid, Luid};
use kguid_service::Client;
use serde::Serialize;

use crate::cli::{GenArgs, GenFormat};
use crate::output::{self, Fail, Status};

/// Ids made per clock call (and asked of a service at once).
const BATCH: usize = 1024;

/// Prints `args.count` fresh ids.
pub fn run(args: &GenArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let status = if !args.remote.is_empty() {
        remote(args, out)?
    } else if args.local {
        let clock = clock(args);
        let fill = |ids: &mut [Luid]| {
            clock.fill_l(ids);
            Ok::<_, Fail>(())
        };
        locals(args, fill, out)?
    } else {
        let clock = clock(args);
        let fill = |ids: &mut [Guid]| {
            clock.fill(ids);
            Ok::<_, Fail>(())
        };
        globals(args, fill, out)?
    };
    out.flush()?;
    Ok(status)
}

/// The clock the flags ask for.
fn clock(args: &GenArgs) -> Clock {
    let clock = Clock::builder()
        .node_from_env()
        .drift(args.drift.unwrap_or_default());
    match args.node {
        Some(node) => clock.node(node),
        None => clock,
    }
    .build()
}

/// Prints ids taken from `guid serve` at `args.remote`.
fn remote(args: &GenArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let token = std::env::var_os("NOEQ_TOKEN").map(|t| t.into_encoded_bytes());
    let token = token.as_deref().filter(|t| !t.is_empty());
    if !args.flake {
        let mut client = Client::connect_g(&args.remote, token)?;
        return globals(args, |ids| client.fill(ids), out);
    }
    let mut client = Client::connect(&args.remote, token)?;
    let fill = |ids: &mut [u64]| client.fill(ids);
    match args.format.unwrap_or(GenFormat::Int) {
        GenFormat::Int => emit(args.count, fill, out, |id, out| write!(out, "{id}"))?,
        GenFormat::Hex => emit(args.count, fill, out, |id, out| hex(id.to_be_bytes(), out))?,
        _ => return Ok(bad_form("flake ids (--flake) print as int or hex")),
    }
    Ok(Status::Done)
}

/// Prints global ids from `fill` in the form asked for.
fn globals<E: Into<Fail>>(
    args: &GenArgs,
    fill: impl FnMut(&mut [Guid]) -> Result<(), E>,
    out: &mut impl Write,
) -> Result<Status, Fail> {
    let n = args.count;
    match args.format.unwrap_or(GenFormat::String) {
        GenFormat::String => emit(n, fill, out, |g, out| {
            out.write_all(g.encode(&mut [0; Guid::STRING_LEN]).as_bytes())
        }),
        GenFormat::Base62 => emit(n, fill, out, |g, out| {
            out.write_all(g.encode_base62(&mut [0; Guid::BASE62_LEN]).as_bytes())
        }),
        GenFormat::Hex => emit(n, fill, out, |g, out| hex(g.to_bytes(), out)),
        GenFormat::Json => emit(n, fill, out, json),
        GenFormat::Int => {
            return Ok(bad_form(
                "--format int is for local ids (add --local): a global id has 96 bits",
            ));
        }
    }?;
    Ok(Status::Done)
}

/// Prints local ids from `fill` in the form asked for.
fn locals<E: Into<Fail>>(
    args: &GenArgs,
    fill: impl FnMut(&mut [Luid]) -> Result<(), E>,
    out: &mut impl Write,
) -> Result<Status, Fail> {
    let n = args.count;
    match args.format.unwrap_or(GenFormat::String) {
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
    Ok(Status::Done)
}

/// Reports a form the ids cannot take.
fn bad_form(message: &str) -> Status {
    output::error(message);
    Status::BadInput
}

/// Makes `count` ids in batches with `fill` and writes each with `put`, one
/// per line.
#[inline(always)]
fn emit<I: Copy + Default, W: Write, E: Into<Fail>>(
    count: u64,
    mut fill: impl FnMut(&mut [I]) -> Result<(), E>,
    out: &mut W,
    put: impl Fn(&I, &mut W) -> io::Result<()>,
) -> Result<(), Fail> {
    let mut ids = [I::default(); BATCH];
    let mut left = count;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        let ids = &mut ids[..n];
        fill(ids).map_err(Into::into)?;
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
