//! `guid gen`: fresh ids from a clock, or from an id service, one per line.
//!
//! The clock fills a batch of ids with one read of the time, each id is
//! encoded into a stack buffer and copied into one buffered, locked stdout.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, SystemTime};

use data_encoding::HEXLOWER;
use guid::Id;
use guid::flake::Layout;
use guid::sno;
use guid::{Clock, Guid, v3};
use kguid_service::{Client, protocol};
use serde::Serialize;

use crate::cli::{GenArgs, GenFormat};
use crate::output::{self, Fail, Status};
use crate::value;

/// Ids made per clock call (and asked of a service at once).
const BATCH: usize = 1024;

/// Prints `args.count` fresh ids.
pub fn run(args: &GenArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let status = if args.sno {
        sno(args, out)?
    } else if !args.remote.is_empty() {
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

/// Prints `args.count` sno ids of one generator, of `args.meta`, in
/// `args.partition` (else one drawn at random).
fn sno(args: &GenArgs, out: &mut impl Write) -> Result<Status, Fail> {
    let builder = sno::Generator::builder();
    let builder = match args.partition {
        Some(partition) => builder.partition(partition),
        None => builder,
    };
    let generator = match builder.build() {
        Ok(generator) => generator,
        Err(e) => return Ok(bad_form(&format!("cannot make sno ids: {e}"))),
    };
    let meta = args.meta.unwrap_or(0);
    let mut buf = [0; 16];
    for _ in 0..args.count {
        match generator.try_next(meta) {
            Ok(id) => {
                out.write_all(id.encode(&mut buf).as_bytes())?;
                out.write_all(b"\n")?;
            }
            Err(e) => return Err(Fail::Mismatch(format!("cannot make a sno id: {e}"))),
        }
    }
    Ok(Status::Done)
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
    probe(&args.remote, token, args.flake).map_err(Fail::Mismatch)?;
    if !args.flake {
        let mut client = Client::connect_g(&args.remote, token)?;
        return print(
            args,
            |ids: &mut [Guid]| {
                client.fill(ids)?;
                checked(ids.first().map(|id| id.time()), false, None)
            },
            out,
        );
    }
    let mut client = Client::connect(&args.remote, token)?;
    let fill = |ids: &mut [u64]| -> Result<(), Fail> {
        client.fill(ids)?;
        checked(ids.first().map(|&id| flake_time(id)), true, None)
    };
    match args.format.unwrap_or(GenFormat::Int) {
        GenFormat::Int => emit(args.count, fill, out, |id, out| write!(out, "{id}"))?,
        GenFormat::Hex => emit(args.count, fill, out, |id, out| hex(&id.to_be_bytes(), out))?,
        _ => return Ok(bad_form("flake ids (--flake) print as int or hex")),
    }
    Ok(Status::Done)
}

/// How far from now the time of an id from a service may be: a reply
/// further off is no id of the kind asked for (a flake id read as 96 bits,
/// or the reverse, gives a time decades away).
const PLAUSIBLE: Duration = Duration::from_secs(24 * 3600);

/// How long [`probe`] waits for the rest of a reply.
const PROBE_WAIT: Duration = Duration::from_millis(300);

/// The Unix nanoseconds of a flake id in noeqd's layout (`guid serve`'s
/// default); a value that is no such id is given no plausible time.
fn flake_time(id: u64) -> u64 {
    Layout::NOEQD.time_of(id).map_or(u64::MAX, guid::unix_nanos)
}

/// Refuses ids whose time (Unix nanoseconds) is not within [`PLAUSIBLE`]
/// of now, naming the likely mistake.
fn checked(time: Option<u64>, flake: bool, addr: Option<&str>) -> Result<(), Fail> {
    let Some(time) = time else { return Ok(()) };
    let now = guid::unix_nanos(SystemTime::now());
    if time.abs_diff(now) <= PLAUSIBLE.as_nanos() as u64 {
        return Ok(());
    }
    let from = addr.map_or_else(String::new, |a| format!(" from {a}"));
    let years = (time as f64 - now as f64) / 1e9 / (365.25 * 86400.0);
    let (what, hint) = match flake {
        true => (
            "flake ids",
            "is it the 96-bit listener (--listen-g)? drop --flake",
        ),
        false => ("96-bit ids", "is it the 64-bit listener (-l)? add --flake"),
    };
    Err(Fail::Mismatch(format!(
        "the reply{from} does not look like {what} made now (its time is {years:+.1} years \
         away): {hint}"
    )))
}

/// Asks the first of `addrs` that accepts a connection for one id and
/// checks the reply is one id of the kind asked for: 8 bytes for a flake
/// id, 12 for a global one, with a plausible time. A 64-bit listener
/// answers a request for one 96-bit id with 8 bytes and then nothing, so
/// without this the client waits out its timeouts; a 96-bit listener's 12
/// bytes read as 64-bit ids are garbage. An address that refuses, a token
/// that is refused, or no reply, is left to the client to report.
fn probe(addrs: &[String], token: Option<&[u8]>, flake: bool) -> Result<(), String> {
    let preamble = match token {
        Some(t) => match protocol::auth_preamble(t) {
            Some(p) => p,
            None => return Ok(()),
        },
        None => Vec::new(),
    };
    for addr in addrs {
        let Some(socket) = addr.to_socket_addrs().ok().and_then(|mut a| a.next()) else {
            continue;
        };
        let Ok(mut stream) = TcpStream::connect_timeout(&socket, Duration::from_secs(1)) else {
            continue;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let mut request = preamble.clone();
        request.push(1);
        if stream.write_all(&request).is_err() {
            continue;
        }
        // A reply comes in one piece: 12 bytes read at once for one flake
        // id are a 96-bit listener's, and a wait for the rest of 12 ends
        // soon at a 64-bit listener's 8.
        let mut reply = [0u8; 16];
        let mut got = 0;
        let want = if flake { 8 } else { 12 };
        while got < want {
            match stream.read(&mut reply[got..]) {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n,
            }
            // The start of a reply is there; more comes at once or never.
            let _ = stream.set_read_timeout(Some(PROBE_WAIT));
        }
        return match (flake, got) {
            (_, 0) => Ok(()),
            (true, 8) => {
                let id = u64::from_be_bytes(reply[..8].try_into().unwrap_or_default());
                checked(Some(flake_time(id)), true, Some(addr)).map_err(|e| e.to_string())
            }
            (true, _) => Err(format!(
                "{addr} answered a request for one flake id with {got} bytes, not 8: it looks \
                 like the 96-bit listener (--listen-g): drop --flake"
            )),
            (false, 12) => match Guid::from_slice(&reply[..12]) {
                Ok(id) => checked(Some(id.time()), false, Some(addr)).map_err(|e| e.to_string()),
                Err(_) => Err(format!(
                    "{addr} sent no valid 96-bit id: is it the 64-bit listener (-l)? add --flake"
                )),
            },
            (false, _) => Err(format!(
                "{addr} answered a request for one 96-bit id with {got} bytes, not 12: it looks \
                 like the 64-bit listener (-l): add --flake"
            )),
        };
    }
    Ok(())
}

/// Prints the ids of `fill` in the form asked for.
fn print<I: Id + Serialize, E: Into<Fail>>(
    args: &GenArgs,
    fill: impl FnMut(&mut [I]) -> Result<(), E>,
    out: &mut impl Write,
) -> Result<Status, Fail> {
    let n = args.count;
    match args.format.unwrap_or(GenFormat::String) {
        GenFormat::String => emit(n, fill, out, |id, out| {
            out.write_all(id.encode(&mut [0; 36]).as_bytes())
        }),
        GenFormat::Base62 => emit(n, fill, out, |id, out| {
            out.write_all(id.encode_base62(&mut [0; 22]).as_bytes())
        }),
        GenFormat::Hex => emit(n, fill, out, |id, out| hex(id.to_bytes().as_ref(), out)),
        GenFormat::Json => emit(n, fill, out, json),
        GenFormat::Int if I::BITS == 64 => {
            emit(n, fill, out, |id, out| write!(out, "{}", id.to_u128()))
        }
        GenFormat::Int => {
            return Ok(bad_form(
                "--format int is for local ids (add --local): a global id has 96 bits, a v3 --x id 128",
            ));
        }
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

/// Lowercase hex of an id's bytes (at most 16).
fn hex(bytes: &[u8], out: &mut impl Write) -> io::Result<()> {
    let mut buf = [0; 32];
    let buf = &mut buf[..2 * bytes.len()];
    HEXLOWER.encode_mut(bytes, buf);
    out.write_all(buf)
}

/// The JSON encoding, as the library's serde implementation writes it.
fn json(id: &impl Serialize, out: &mut impl Write) -> io::Result<()> {
    Ok(serde_json::to_writer(out, id)?)
}
