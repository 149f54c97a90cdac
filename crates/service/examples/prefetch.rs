//! `prefetch`: takes ids from a running `guid serve` through a
//! [`Prefetch`] buffer, checks that they increase, and prints the rate.
//!
//! ```text
//! prefetch ADDR COUNT [--kind flake|g|v3|x] [--capacity IDS]
//! ```
//!
//! `--kind` names the listener ADDR is: `flake` (64-bit ids, the default,
//! `-l`), `g` (96-bit, `--listen-g`), `v3` (96-bit, `--listen-g --v3`) or
//! `x` (128-bit, `--listen-x`). The last line is `ids/s=N`, counted from
//! the start of the prefetcher (its first fetch included) to the last id:
//!
//! ```text
//! cargo build --release -p kguid-service --bin guid-serve --example prefetch
//! target/release/guid-serve -l 127.0.0.1:4444 --listen-g 127.0.0.1:4445 &
//! target/release/examples/prefetch 127.0.0.1:4445 100000000 --kind g
//! ```

use std::process::ExitCode;
use std::time::Instant;

use kguid_service::{Client, ClientError, Prefetch, WireId};

fn take<T: WireId + Send + 'static>(
    client: Client<T>,
    count: u64,
    capacity: Option<usize>,
) -> Result<(), String> {
    let start = Instant::now();
    let mut ids = match capacity {
        Some(c) => Prefetch::with_capacity(client, c),
        None => Prefetch::new(client),
    }
    .map_err(|e| e.to_string())?;
    let mut last = ids.next().map_err(|e| e.to_string())?;
    for _ in 1..count {
        let id = ids.next().map_err(|e| e.to_string())?;
        if id <= last {
            return Err("an id did not increase".into());
        }
        last = id;
    }
    let secs = start.elapsed().as_secs_f64();
    println!("ids={count} seconds={secs:.3} capacity={}", ids.capacity());
    println!("ids/s={:.0}", count as f64 / secs);
    Ok(())
}

fn run() -> Result<(), String> {
    let usage = "usage: prefetch ADDR COUNT [--kind flake|g|v3|x] [--capacity IDS]";
    let mut args = std::env::args().skip(1);
    let addr = args.next().ok_or(usage)?;
    let count: u64 = args
        .next()
        .ok_or(usage)?
        .parse()
        .map_err(|e| format!("COUNT: {e}"))?;
    if count == 0 {
        return Err("COUNT: at least 1".into());
    }
    let (mut kind, mut capacity) = ("flake".to_owned(), None);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--kind" => kind = value()?,
            "--capacity" => {
                capacity = Some(value()?.parse().map_err(|e| format!("--capacity: {e}"))?)
            }
            _ => return Err(usage.into()),
        }
    }
    let e = |e: ClientError| e.to_string();
    match kind.as_str() {
        "flake" => take(Client::connect([&addr], None).map_err(e)?, count, capacity),
        "g" => take(
            Client::connect_g([&addr], None).map_err(e)?,
            count,
            capacity,
        ),
        "v3" => take(
            Client::connect_v3([&addr], None).map_err(e)?,
            count,
            capacity,
        ),
        "x" => take(
            Client::connect_x([&addr], None).map_err(e)?,
            count,
            capacity,
        ),
        other => Err(format!("--kind {other:?}: flake, g, v3 or x")),
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("prefetch: {e}");
            ExitCode::FAILURE
        }
    }
}
