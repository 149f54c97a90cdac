//! `guid-serve`: the id service on its own (`guid serve` in the `guid` command).

use std::process::ExitCode;

use clap::Parser;
use kguid_service::{ServeArgs, serve_main};

/// A noeqd-compatible id service: one request byte N, N big-endian ids back.
#[derive(Parser)]
#[command(name = "guid-serve", version, about)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn main() -> ExitCode {
    serve_main(Cli::parse().serve)
}
