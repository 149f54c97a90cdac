//! The command line: subcommands and their flags.

use std::ffi::OsString;

use clap::{Args, Parser, Subcommand, ValueEnum};
use guid::Drift;

use crate::form::Form;
use crate::id::Kind;
use crate::value;

/// Generate, inspect and compose k-ordered ids (96-bit global, 64-bit local).
#[derive(Parser, Debug)]
#[command(name = "guid", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print fresh ids from a clock, one per line
    Gen(GenArgs),
    /// Decode ids and print each as one JSON object per line
    #[command(after_help = INSPECT_HELP)]
    Inspect(InspectArgs),
    /// Build the id of explicit parts and print it as a JSON object
    Compose(ComposeArgs),
    /// Serve ids over TCP with noeqd's protocol (64-bit; 96-bit too with --listen-g)
    Serve(Box<kguid_service::ServeArgs>),
}

/// Flags of `guid gen`.
#[derive(Args, Debug)]
pub struct GenArgs {
    /// How many ids
    #[arg(
        short = 'n',
        value_name = "N",
        default_value_t = 1,
        allow_negative_numbers = true
    )]
    pub count: u64,
    /// Local 64-bit ids (no node) instead of global 96-bit ones
    #[arg(long)]
    pub local: bool,
    /// Tolerated clock skew between nodes, in seconds (up to 9 decimals; 0 and negatives give drift 1) [default: drift 3]
    #[arg(long, value_name = "SECS", value_parser = value::drift, allow_negative_numbers = true)]
    pub drift: Option<Drift>,
    /// Node id, decimal or 0x hex [default: from CONFIG_GUID_NODE_ID if set, else random]
    #[arg(long, value_name = "N", value_parser = value::node, allow_negative_numbers = true, conflicts_with = "local")]
    pub node: Option<u32>,
    /// Output form (int: local or flake ids only, as an unsigned 64-bit number) [default: string; int with --flake]
    #[arg(long, value_enum, value_name = "FORM")]
    pub format: Option<GenFormat>,
    /// Take the ids from `guid serve` at these comma-separated addresses (its --listen-g listeners), moving to another on failure; the token comes from NOEQ_TOKEN
    #[arg(long, value_name = "ADDRS", value_delimiter = ',', conflicts_with_all = ["local", "node", "drift"])]
    pub remote: Vec<String>,
    /// With --remote: 64-bit flake ids from the services' -l listeners
    #[arg(long, requires = "remote")]
    pub flake: bool,
}

/// What `guid gen` prints for each id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GenFormat {
    /// The 16-character sortable string
    String,
    /// Base62
    Base62,
    /// Lowercase hex of the big-endian bytes
    Hex,
    /// The JSON encoding, with its quotes
    Json,
    /// The 64-bit value of a local id, in decimal
    Int,
}

/// How `guid inspect` reads an id without flags, after its flags in --help.
const INSPECT_HELP: &str = "\
How an id is read:
  Every form and kind that --from and --as allow is tried. The id is printed
  when exactly one of them gives a valid id (drift code 1..=7), so a local
  form needs no --as l. When two give different ids, nothing is guessed: the
  id is refused (status 2) with the flags of each reading.

  11 characters      base62 of a local id
  16 characters      a sortable string (global, or local: .0-9A-E only),
                     16 hex digits (local) or 16 base62 digits (global)
  17 characters      base62 of a global id
  24 characters      hex of a global id
  19 or 20 digits    int: the 64-bit value of a local id
  \"...\" or \"*...\"    JSON of a global or a local id

  Only 16 characters can be ambiguous. 16-digit global base62 always also
  reads as a global string, so it needs --from base62; a string without '.'
  or '_' often reads as base62 too (--from string). A local string without
  '.' can be hex, and with drift code 4 or more (as can local hex) also a
  global string: --from string --as l, or --from hex.

  Flake ids (gen --flake) are not guid ids and have no form here: their int
  or hex, if given, reads as a local id, which it is not.";

/// Flags of `guid inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// Read the ids as global (g) or local (l) ids [default: whichever gives a valid id]
    #[arg(long = "as", value_enum, value_name = "KIND")]
    pub kind: Option<Kind>,
    /// The form of the ids [default: whichever gives a valid id]
    #[arg(long, value_enum, value_name = "FORM")]
    pub from: Option<Form>,
    /// Ids to decode; without any, standard input is read, one id per line (a line over 1024 bytes is reported and skipped)
    #[arg(value_name = "ID")]
    pub ids: Vec<OsString>,
}

/// Flags of `guid compose`.
#[derive(Args, Debug)]
pub struct ComposeArgs {
    /// Unix nanoseconds or an RFC 3339 timestamp (the id keeps it to 2^17 ns)
    #[arg(long, value_name = "TIME", value_parser = value::time, allow_negative_numbers = true)]
    pub time: u64,
    /// Node id, decimal or 0x hex [default: 0]
    #[arg(long, value_name = "N", value_parser = value::node, allow_negative_numbers = true, conflicts_with = "local")]
    pub node: Option<u32>,
    /// Sequence number, 0..=16383 [default: 0]
    #[arg(long, value_name = "S", value_parser = value::seq, allow_negative_numbers = true)]
    pub seq: Option<u16>,
    /// Tolerated clock skew between nodes, in seconds, as for gen [default: drift 3]
    #[arg(long, value_name = "SECS", value_parser = value::drift, allow_negative_numbers = true)]
    pub drift: Option<Drift>,
    /// A local 64-bit id (no node) instead of a global one
    #[arg(long)]
    pub local: bool,
}
