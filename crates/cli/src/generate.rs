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
        print(args, fill, out)?
    } else {
        let clock = clock(args);
        let fill = |ids: &mut [Guid]| {
            clock.fill(ids);
            Ok::<_, Fail>(())
        };
        print(args, fill, out)?
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
        return print(args, |ids: &mut [Guid]| client.fill(ids), out);
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

/// What `gen` prints of each kind of id.
trait Printed: Copy + Default + Serialize {
    /// The value as a decimal integer, for ids of 64 bits.
    const INT: Option<fn(Self) -> u64>;
    /// Writes the sortable string.
    fn string(&self, out: &mut impl Write) -> io::Result<()>;
    /// Writes the base62 string.
    fn base62(&self, out: &mut impl Write) -> io::Result<()>;
    /// Writes the lowercase hex of the bytes.
    fn hex(&self, out: &mut impl Write) -> io::Result<()>;
}

impl Printed for Guid {
    const INT: Option<fn(Self) -> u64> = None;
    fn string(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(self.encode(&mut [0; Guid::STRING_LEN]).as_bytes())
    }
    fn base62(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(self.encode_base62(&mut [0; Guid::BASE62_LEN]).as_bytes())
    }
    fn hex(&self, out: &mut impl Write) -> io::Result<()> {
        hex(self.to_bytes(), out)
    }
}

impl Printed for Luid {
    const INT: Option<fn(Self) -> u64> = Some(Luid::to_u64);
    fn string(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(self.encode(&mut [0; Luid::STRING_LEN]).as_bytes())
    }
    fn base62(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(self.encode_base62(&mut [0; Luid::BASE62_LEN]).as_bytes())
    }
    fn hex(&self, out: &mut impl Write) -> io::Result<()> {
        hex(self.to_bytes(), out)
    }
}

/// Prints the ids of `fill` in the form asked for.
fn print<I: Printed, E: Into<Fail>>(
    args: &GenArgs,
    fill: impl FnMut(&mut [I]) -> Result<(), E>,
    out: &mut impl Write,
) -> Result<Status, Fail> {
    let n = args.count;
    match args.format.unwrap_or(GenFormat::String) {
        GenFormat::String => emit(n, fill, out, I::string),
        GenFormat::Base62 => emit(n, fill, out, I::base62),
        GenFormat::Hex => emit(n, fill, out, I::hex),
        GenFormat::Json => emit(n, fill, out, json),
        GenFormat::Int => match I::INT {
            Some(int) => emit(n, fill, out, |id, out| write!(out, "{}", int(*id))),
            None => {
                return Ok(bad_form(
                    "--format int is for local ids (add --local): a global id has 96 bits",
                ));
            }
        },
    }?;
    Ok(Status::Done)
}

/// Reports a form the ids cannot take.
fn bad_form(message: &str) -> Status {
    output::error(message);
    Status::Usage
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
