//! `guid gen`: fresh ids from a clock, or from an id service, one per line.
//!
//! The clock fills a batch of ids with one read of the time, each id is
//! encoded into a stack buffer and copied into one buffered, locked stdout.

use std::io::{self, Write};

use data_encoding::HEXLOWER;
use guid::{Clock, Guid, Luid, v3};
use kguid_service::Client;
use serde::Serialize;

use crate::cli::{GenArgs, GenFormat};
use crate::output::{self, Fail, Status};
use crate::value;

/// Ids made per clock call (and asked of a service at once).
const BATCH: usize = 1024;

/// Prints `args.count` fresh ids.
pub fn run(args: &GenArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let status = if !args.remote.is_empty() {
        remote(args, out)?
    } else if args.v3 {
        let clock = v3_clock(args);
        if args.local {
            print(args, filled(|ids| clock.fill_l(ids)), out)?
        } else if args.x {
            print(args, filled(|ids| clock.fill_x(ids)), out)?
        } else {
            print(args, filled(|ids| clock.fill(ids)), out)?
        }
    } else {
        let clock = match clock(args) {
            Ok(clock) => clock,
            Err(message) => return Ok(bad_form(&message)),
        };
        if args.local {
            print(args, filled(|ids| clock.fill_l(ids)), out)?
        } else {
            print(args, filled(|ids| clock.fill(ids)), out)?
        }
    };
    out.flush()?;
    Ok(status)
}

/// A clock's infallible fill as the fallible one [`print`] takes.
fn filled<I>(mut fill: impl FnMut(&mut [I])) -> impl FnMut(&mut [I]) -> Result<(), Fail> {
    move |ids| {
        fill(ids);
        Ok(())
    }
}

/// The v2 clock the flags ask for, or what is wrong with them.
fn clock(args: &GenArgs) -> Result<Clock, String> {
    let clock = Clock::builder()
        .node_from_env()
        .drift(value::drift_v2(args.drift, args.drift_code)?);
    Ok(match &args.node {
        Some(node) => clock.node(value::node32(node)?),
        None => clock,
    }
    .build())
}

/// The v3 clock the flags ask for.
fn v3_clock(args: &GenArgs) -> v3::Clock {
    let clock = v3::Clock::builder()
        .node_from_env()
        .drift(value::drift_v3(args.drift, args.drift_code));
    // The flag's parser keeps the node to 58 bits.
    match args
        .node
        .as_ref()
        .map(|node| clock.clone().node(node.value))
    {
        Some(Ok(clock)) => clock,
        _ => clock,
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

/// [`Printed`] of an id type, with its 64-bit value if it has one.
macro_rules! printed {
    ($($id:ty: $int:expr),* $(,)?) => {$(
        impl Printed for $id {
            const INT: Option<fn(Self) -> u64> = $int;
            fn string(&self, out: &mut impl Write) -> io::Result<()> {
                out.write_all(self.encode(&mut [0; <$id>::STRING_LEN]).as_bytes())
            }
            fn base62(&self, out: &mut impl Write) -> io::Result<()> {
                out.write_all(self.encode_base62(&mut [0; <$id>::BASE62_LEN]).as_bytes())
            }
            fn hex(&self, out: &mut impl Write) -> io::Result<()> {
                hex(self.to_bytes(), out)
            }
        }
    )*};
}

printed!(
    Guid: None,
    Luid: Some(Luid::to_u64),
    v3::Guid: None,
    v3::Luid: Some(v3::Luid::to_u64),
    v3::Xuid: None,
);

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
                    "--format int is for local ids (add --local): a global id has 96 bits, a v3 --x id 128",
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

/// Lowercase hex of an id's bytes (16, 12 or 8).
fn hex<const N: usize>(bytes: [u8; N], out: &mut impl Write) -> io::Result<()> {
    const { assert!(N <= v3::Xuid::BYTES) };
    let mut buf = [0; 2 * v3::Xuid::BYTES];
    let buf = &mut buf[..2 * N];
    HEXLOWER.encode_mut(&bytes, buf);
    out.write_all(buf)
}

/// The JSON encoding, as the library's serde implementation writes it.
fn json(id: &impl Serialize, out: &mut impl Write) -> io::Result<()> {
    Ok(serde_json::to_writer(out, id)?)
}
