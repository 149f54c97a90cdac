//! The command line: subcommands and their flags.

use std::ffi::OsString;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

use crate::form::Form;
use crate::id::Kind;
use crate::value;

/// The lines of the exit status tables in `--help`, so that each
/// subcommand lists only the statuses it can return, worded alike.
macro_rules! status {
    (head) => {
        "Exit status:\n  0  success\n"
    };
    (io) => {
        "  1  standard input or output could not be read or written\n"
    };
    (remote) => {
        "     or no id service answered, or not with the ids asked for (gen --remote)\n"
    };
    (pipe) => {
        "     (a reader that closes the pipe early, as `head` does, is no failure:\n      \
         guid stops quietly, with 0)\n"
    };
    (usage) => {
        "  2  usage error: an unknown command or flag, a bad flag value, or flags\n     \
         that cannot go together; the message names the flag or shows the usage\n"
    };
    (bad) => {
        "  3  a bad id: an input that is no id, or (inspect --strict) reads as several;\n     \
         each is named on an `error: invalid id '...'` line and the other ids are\n     \
         still printed\n"
    };
    (write) => {
        concat!(status!(head), status!(io), status!(pipe), status!(usage))
    };
}

/// The top level's exit statuses: those of every subcommand.
const STATUS_ALL: &str = concat!(
    status!(head),
    status!(io),
    status!(remote),
    status!(pipe),
    status!(usage),
    status!(bad),
    "\n`guid serve` exits 0 when stopped, 1 on a failure, 2 on a refused setting."
);

/// gen reads no id, but may ask a service.
const STATUS_GEN: &str = concat!(
    status!(head),
    status!(io),
    status!(remote),
    status!(pipe),
    status!(usage)
);

/// Generate, inspect and compose k-ordered ids (96-bit global, 64-bit local; with --v3 also 128-bit UUIDv8).
///
/// Without a command, `guid` prints one fresh global id, as `guid gen` does.
#[derive(Parser, Debug)]
#[command(name = "guid", version, after_help = STATUS_ALL)]
pub struct Cli {
    /// What to do [default: gen, one id]
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print fresh ids from a clock, one per line
    #[command(after_help = STATUS_GEN)]
    Gen(GenArgs),
    /// Decode ids and print each as one JSON object per line
    #[command(after_help = INSPECT_HELP)]
    Inspect(InspectArgs),
    /// Build the id of explicit parts and print it as a JSON object
    #[command(after_help = status!(write))]
    Compose(ComposeArgs),
    /// Serve ids: noeqd's protocol (64-bit; 96-bit with --listen-g, 128-bit with --listen-x) and HTTP (--http)
    Serve(Box<kguid_service::ServeArgs>),
    /// Print a shell completion script to standard output
    #[command(after_help = COMPLETIONS_HELP)]
    Completions {
        /// The shell to complete for
        #[arg(value_enum, value_name = "SHELL")]
        shell: Shell,
    },
    /// Print the man page (roff) of guid, or of one of its commands, to standard output
    #[command(after_help = MAN_HELP)]
    Man {
        /// The command whose page to print (guid-COMMAND(1)) [default: guid(1)]
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

/// Where the scripts go, after the flags of `guid completions`.
const COMPLETIONS_HELP: &str = concat!(
    "Install:\n",
    "  guid completions bash > ~/.local/share/bash-completion/completions/guid\n",
    "  guid completions zsh > ~/.zfunc/_guid    # with fpath+=~/.zfunc in ~/.zshrc\n",
    "  guid completions fish > ~/.config/fish/completions/guid.fish\n\n",
    status!(write)
);

/// Where the page goes, after the flags of `guid man`.
const MAN_HELP: &str = concat!(
    "Install:\n",
    "  guid man > ~/.local/share/man/man1/guid.1\n",
    "  for c in gen inspect compose serve completions man; do\n",
    "    guid man $c > ~/.local/share/man/man1/guid-$c.1; done\n\n",
    status!(write)
);

/// Flags of `guid gen`.
#[derive(Args, Debug)]
pub struct GenArgs {
    /// How many ids
    #[arg(
        short = 'n',
        long = "count",
        value_name = "N",
        default_value_t = 1,
        allow_negative_numbers = true
    )]
    pub count: u64,
    /// Local 64-bit ids (no node) instead of global 96-bit ones
    #[arg(long)]
    pub local: bool,
    /// v3 ids (fogfish/guid v3) instead of v2 ones
    #[arg(long)]
    pub v3: bool,
    /// With --v3: 128-bit ids (RFC 9562 UUIDv8, 58-bit node) instead of global ones
    #[arg(long, requires = "v3", conflicts_with = "local")]
    pub x: bool,
    /// Tolerated clock skew between nodes, in seconds (up to 9 decimals; 0 and negatives give the smallest drift) [default: v2 drift 3, v3 drift 4]
    #[arg(long, value_name = "SECS", value_parser = value::seconds, allow_negative_numbers = true)]
    pub drift: Option<i64>,
    /// The drift code itself: 1..=7 in v2, 0..=7 with --v3
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u8).range(0..=7), conflicts_with = "drift")]
    pub drift_code: Option<u8>,
    /// Node id, decimal or 0x hex: 32 bits, 58 with --v3 (global ids carry the low 32) [default: from CONFIG_GUID_NODE_ID if set, else random]
    #[arg(long, value_name = "N", value_parser = value::node, allow_negative_numbers = true, conflicts_with = "local")]
    pub node: Option<value::Node>,
    /// Output form (int: local or flake ids only, as an unsigned 64-bit number) [default: string; int with --flake]
    #[arg(long, value_enum, value_name = "FORM")]
    pub format: Option<GenFormat>,
    /// Take the ids from `guid serve` at these comma-separated addresses (its --listen-g listeners), moving to another on failure; the token comes from NOEQ_TOKEN
    #[arg(long, value_name = "ADDRS", value_delimiter = ',', conflicts_with_all = ["local", "node", "drift", "drift_code", "v3"])]
    pub remote: Vec<String>,
    /// Ids of muyo/sno (10 bytes, a 16-character base32 string of time, metabyte, partition and sequence) instead of guid ids
    #[arg(long, conflicts_with_all = ["local", "v3", "drift", "drift_code", "node", "format", "remote"])]
    pub sno: bool,
    /// With --sno: the metabyte of every id, 0..=255, decimal or 0x hex [default: 0]
    #[arg(long, value_name = "M", value_parser = value::meta, allow_negative_numbers = true, requires = "sno")]
    pub meta: Option<u8>,
    /// With --sno: the generator's partition, 0..=65535, decimal or 0x hex [default: random]
    #[arg(long, value_name = "P", value_parser = value::partition, allow_negative_numbers = true, requires = "sno")]
    pub partition: Option<u16>,
    /// With --remote: 64-bit flake ids from the services' -l listeners (a reply of the other listener's kind, or ids whose time is over a day from now, fails with status 1); inspect --flake reads them
    #[arg(long, requires = "remote")]
    pub flake: bool,
}

/// `guid gen` alone, to parse its flags from nothing: what bare `guid` runs.
#[derive(Parser, Debug)]
#[command(name = "gen")]
pub struct Gen {
    /// The flags, each at its default.
    #[command(flatten)]
    pub args: GenArgs,
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

/// How `guid inspect` reads an id without flags, and what --extract
/// finds, after its flags in --help.
const INSPECT_HELP: &str = concat!(
    "\
How an id is read:
  1. Every reading that --from and --as allow is tried, and without --from,
     --as, --v3 or --from-v2 a sno string (16 characters of 2-9a-x) and a
     flake id (its int of 19 digits, or 16 hex digits; of no time ahead,
     rule 4) too.
     The id is printed when exactly one reading gives a valid id (drift
     code 1..=7), so a local form needs no --as l; the \"form\" field names
     the form it was read in (string, base62, hex, json, int, uuid or
     object) and \"kind\" the kind (g, l, x, sno or flake).
  2. A line that gives different ids in several readings is ambiguous. 16
     characters are where forms meet: a global sortable string without '.'
     or '_' (most of those gen prints) is also base62, every 16-digit
     global base62 is also a string, a sno string is usually also a global
     string, a local string without '.' is also 16 hex digits, and a local
     string of drift code 4 or more is also a global one (with --v3, every
     local string is); from 2028 on, a flake id's int and hex are also a
     local id's.
  3. The stream decides first (the arguments and standard input, in
     order). A line valid in one form only (string, base62, hex or sno)
     shows that form, such as a string with '.' or '_' or 17-digit base62;
     JSON, int and UUID lines show none. An ambiguous line is read in the
     form the lines before it have shown, if they have shown exactly one.
     If none has been shown yet, it is held, and the lines after it wait
     with it (the output keeps the input's order), until a line shows a
     form: then it is read in that one. At most 1024 lines are held: then
     they are read as if the input ended there (rule 4); and at a terminal
     each line typed is answered at once. A flag that leaves one reading
     (--from, --sno) reads each line as it comes, holding none.
  4. Where the stream does not decide (an id alone, lines that have shown
     two forms or more, or one the line has no reading in, or none by the
     end of the input; a string of both kinds), the line is read as gen
     most likely wrote it: of its readings, the one with the fewest of
     these marks, each before the next:
       - a time more than a day ahead of now (no clock makes one);
       - a drift code other than the default, 3 (4 with --v3), which gen
         and compose give unless --drift or --drift-code says otherwise
         (a sno or flake id has none); and a global string or base62 of a line that
         also reads in a narrow alphabet (hex, a sno string or a local
         string), which they are almost never spelled in;
     then the first of: the sortable string (local, then global), a flake
     id, hex, a sno string, base62. Each other reading is noted on standard error
     (\"note: ...\") with the flags that pick it, once for each kind of
     guess, and the status stays 0. So every id gen prints at the default
     drift code reads back alone, in every form and kind; one of another
     drift code may be the same text as the likelier id of another reading
     (the note names it).
     With --strict the line is refused instead (status 3), naming each
     reading with the flags that pick it (--from string, --from base62,
     --from hex, --as l, --sno, --flake). So `guid gen -n 100 | guid inspect
     --strict` still reads back every string gen prints (the first, of
     sequence 0, ends in '..' and shows the string) and gen --format hex,
     global or --local; gen --format base62 (16 digits) and gen --sno show
     no form, and need --from base62 and --sno.
  5. A UUID (36 characters, '-' at index 8) is a v3 128-bit id (kind x),
     with or without --v3.

  11 characters      base62 of a local id
  16 characters      a sortable string (global, or local: .0-9A-E only),
                     16 base62 digits (global), 16 hex digits (local, or
                     a flake id) or a sno string: often several (rule 2)
  17 characters      base62 of a global id
  24 characters      hex of a global id
  19 or 20 digits    int: the 64-bit value of a local id (or a flake id)
  \"...\" or \"*...\"    JSON of a global or a local id
  36 characters      a UUID: a v3 128-bit id
  {\"kind\":...}       an object inspect or compose printed: the id it
                     describes, every field checked (--v3 for a v3 id's;
                     \"form\" says object), so inspect | inspect prints
                     the same objects

  So only 16 characters, and from 2028 on ints, may be ambiguous: those
  valid in more than one reading (rule 2).

  With --sno, every id is read as a sno string (muyo/sno), and printed with
  kind \"sno\", form, string, hex, time_ns and time (the start of its 4 ms
  unit), meta, partition, seq and tick (0 or 1).

  With --v3, ids are read as fogfish/guid v3 ids, whose fixed widths tell
  the form by the length: 16 characters are a sortable string of either
  kind, and 16 hex digits also a local id's (rules 2 to 4; --as and --from
  say which), 36 a UUID (a 128-bit id, kind x), 11, 17 or 22 characters
  base62 (local, global, 128-bit), 24 or 32 hex digits (global, 128-bit),
  other runs of up to 20 digits an int (local), and \"...\" the JSON of
  the id its contents are (of 16 characters, either kind).
  --from-v2 reads v2 ids as above and prints the v3 id of each (Go's FromV2).

  With --flake, every id is read as a 64-bit flake id of noeqd's layout
  (guid serve's default, what gen --remote --flake prints): 16 hex digits
  as its hex, any other run of digits as its int (--from int or hex says
  which), and printed with kind \"flake\", form, int (a string), hex,
  time_ns and time (the start of its millisecond), node, datacenter,
  worker and seq. Without --flake a flake id is one of the readings of its
  int or hex (rule 1), read as above; --extract finds it with --flake only.

What --extract finds:
  A token is a maximal run of the characters ids are written with: ASCII
  letters, digits, '.' and '_'. A token written \"*TOKEN\" (or \\\"*TOKEN\\\"
  inside a JSON string) is read with its quotes and star, as the JSON of a
  local id; any other token is read alone (\"TOKEN\" reads as JSON under
  --from json). Each token is read as an id is above, without a stream to
  decide (rules 1, 2 and 4): a token that reads in several forms is read
  as the likeliest, noted once for each kind of guess, and skipped under
  --strict. But no token is a sno id unless --sno (then every 16-character
  token of sno's alphabet is, and nothing else): a token whose likeliest
  reading is a sno string is skipped, and the first one noted (\"found with
  --sno\"); and so is one whose likeliest reading is a flake id, found
  with --flake only (noted only if it is also another id: many numbers are
  flake ids and nothing else). With --flake every token of 16 hex digits or
  of 11 to 20 decimal digits is a flake id, and nothing else. A token that reads only
  as an id of a time more than a day ahead of now is skipped: no clock made
  it (such as a time in nanoseconds, which --v3 reads as a local id of the
  year 2405). A token that is an id is printed, with \"line\" (counted from
  1 over the arguments and standard input) before the other fields. Tokens
  that are no id are skipped, silently and with status 0, so a word that
  happens to be an id is printed too: use --from and --as to say which
  forms your logs hold. An id must not touch another id character: in
  'id=Nlp6Nqho6Tsk5c.1.' the token ends with the sentence's '.', and is
  skipped. Under --v3 tokens are read as v3 ids, and '-' is an id character
  too, so a UUID token is found as a 128-bit id (x); without --v3 '-'
  separates tokens (as in req-ID), so a UUID is not found. Lines of any
  length are scanned, holding no more than one id's worth of each.

",
    status!(head),
    status!(io),
    status!(pipe),
    status!(usage),
    status!(bad)
);

/// Flags of `guid inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// Read the ids as global (g), local (l) or, with --v3, 128-bit (x) ids [default: whichever gives a valid id, the likeliest of several]
    #[arg(long = "as", value_enum, value_name = "KIND")]
    pub kind: Option<Kind>,
    /// Read v3 ids (fogfish/guid v3): drift codes 0..=7, fixed-width base62, 128-bit ids (a 36-character UUID reads as one)
    #[arg(long)]
    pub v3: bool,
    /// Read v2 ids and print the v3 id of each (Go's FromV2: node, time and sequence kept, the drift widened)
    #[arg(long, conflicts_with = "v3")]
    pub from_v2: bool,
    /// The form of the ids [default: whichever gives a valid id, the likeliest of several]
    #[arg(long, value_enum, value_name = "FORM")]
    pub from: Option<Form>,
    /// Read every id as a sno string (muyo/sno: 16 characters of 2-9a-x) and print its parts: time, meta, partition, seq, tick
    #[arg(long, conflicts_with_all = ["kind", "v3", "from_v2", "from"])]
    pub sno: bool,
    /// Read every id as a 64-bit flake id of noeqd's layout (what gen --remote --flake prints: 16 hex digits, or an int) and print its parts: time, node (datacenter, worker), seq
    #[arg(long, conflicts_with_all = ["kind", "v3", "from_v2", "sno"])]
    pub flake: bool,
    /// Find every id in each line of text (logs), rather than read each line as one id; what is no id is skipped
    #[arg(long)]
    pub extract: bool,
    /// Never guess: refuse an id that reads as several ids when neither the flags nor the other ids decide (with --extract, skip it) [default: read it as the likeliest, noting the others on stderr]
    #[arg(long)]
    pub strict: bool,
    /// Ids to decode (text to search, with --extract); `-`, or no ID at all, reads standard input, one id per line (without --extract, a line over 1024 bytes is reported and skipped)
    #[arg(value_name = "ID")]
    pub ids: Vec<OsString>,
}

/// Flags of `guid compose`.
#[derive(Args, Debug)]
pub struct ComposeArgs {
    /// Unix nanoseconds or an RFC 3339 timestamp (the id keeps it to 2^17 ns)
    #[arg(long, value_name = "TIME", value_parser = value::time, allow_negative_numbers = true)]
    pub time: u64,
    /// Node id, decimal or 0x hex: 32 bits, 58 for --v3 --x [default: 0]
    #[arg(long, value_name = "N", value_parser = value::node, allow_negative_numbers = true, conflicts_with = "local")]
    pub node: Option<value::Node>,
    /// Sequence number, 0..=16383, 0..=65535 with --sno [default: 0]
    #[arg(long, value_name = "S", value_parser = value::seq16, allow_negative_numbers = true)]
    pub seq: Option<u16>,
    /// Tolerated clock skew between nodes, in seconds, as for gen [default: v2 drift 3, v3 drift 4]
    #[arg(long, value_name = "SECS", value_parser = value::seconds, allow_negative_numbers = true)]
    pub drift: Option<i64>,
    /// The drift code itself: 1..=7 in v2, 0..=7 with --v3
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u8).range(0..=7), conflicts_with = "drift")]
    pub drift_code: Option<u8>,
    /// A local 64-bit id (no node) instead of a global one
    #[arg(long)]
    pub local: bool,
    /// A v3 id (fogfish/guid v3) instead of a v2 one
    #[arg(long)]
    pub v3: bool,
    /// With --v3: a 128-bit id (RFC 9562 UUIDv8, 58-bit node) instead of a global one
    #[arg(long, requires = "v3", conflicts_with = "local")]
    pub x: bool,
    /// A sno id (muyo/sno) of --time (kept to its 4 ms unit, 2010 to 2079), --meta, --partition, --seq and --tick; prints its string
    #[arg(long, conflicts_with_all = ["node", "drift", "drift_code", "local", "v3"])]
    pub sno: bool,
    /// With --sno: the metabyte, 0..=255, decimal or 0x hex [default: 0]
    #[arg(long, value_name = "M", value_parser = value::meta, allow_negative_numbers = true, requires = "sno")]
    pub meta: Option<u8>,
    /// With --sno: the partition, 0..=65535, decimal or 0x hex [default: 0]
    #[arg(long, value_name = "P", value_parser = value::partition, allow_negative_numbers = true, requires = "sno")]
    pub partition: Option<u16>,
    /// With --sno: the tick-tock bit, 0 or 1 [default: 0]
    #[arg(long, value_name = "0|1", value_parser = clap::value_parser!(u8).range(0..=1), requires = "sno")]
    pub tick: Option<u8>,
}
