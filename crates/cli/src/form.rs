//! The textual forms of an id and how an input is read as one.
//!
//! The rule of `inspect` (`--help` tells it to users):
//!
//! 1. Every reading that `--from` and `--as` allow is tried; without
//!    either (and without `--v3` or `--from-v2`), a sno string too. Exactly
//!    one valid id (or readings that all give it) is that id, printed with
//!    the form it was read in; none is the error of the reading the input
//!    looks most like.
//! 2. Readings that give different ids make the input ambiguous. 16
//!    characters are where forms meet: a global sortable string without
//!    `.` or `_` is usually also 16-digit global base62, which always also
//!    spells a string; a sno string is usually also a global string; a
//!    local string without `.` is also 16 hex digits.
//! 3. An ambiguous input is read by the evidence of its stream (the
//!    arguments and standard input of one run, in order), never guessed
//!    at. An input valid in one [`Spelling`] only (string, base62, hex or
//!    sno) shows that spelling, such as a string with `.` or `_` or
//!    17-digit base62; JSON, ints and UUIDs show none. An ambiguous input
//!    is read in the spelling the inputs before it have shown when they
//!    have shown exactly one; when they have shown none, it is held, and
//!    every input after it waits with it (output keeps input order), until
//!    one shows a spelling: then it is read in that one. It is refused,
//!    naming each reading with the flags that pick it, when the inputs
//!    before it have shown two spellings or more, or one it has no reading
//!    in, or when the stream ends with none shown. So `gen | inspect`
//!    reads back every string (the first, of sequence 0, ends in `..`);
//!    `gen --format base62` (16 digits) and `gen --sno` show no spelling
//!    and are refused without `--from base62` or `--sno`. A flag that
//!    leaves one reading (`--from`, `--sno`) reads each line as it comes.
//! 4. Within the sortable string, 16 characters that are a valid global
//!    and a valid local string are the global id unless `--as l` says
//!    otherwise. `gen`'s default output, global (drift code 3, first
//!    character `N`..`U`) and `--local` (first character `5` or `6`), never
//!    reads as the other kind; only local ids with drift code 4 or more
//!    (`--drift-code 4`) do, and need `--as l`. The object's `kind` says
//!    which was read.
//! 5. A UUID (36 characters, `-` at index 8) is a v3 128-bit id, without
//!    `--v3`.
//!
//! `inspect --extract` reads tokens with [`find`], which has no sno
//! reading, and takes the sortable string of a token that reads in several
//! forms (logs print ids as strings).
//!
//! Lengths: a sortable string is 16 characters (global or local), base62
//! 11 (local) or 16–17 (global), hex 16 (local) or 24 (global), an int
//! (the decimal value of a local id) 19–20 digits, JSON starts with `"`,
//! a sno string 16.

use clap::ValueEnum;
use data_encoding::{DecodeKind, HEXLOWER_PERMISSIVE};
use guid::Id as _;
use guid::sno::Sno;
use guid::{Guid, Luid};
use serde::de::DeserializeOwned;

use crate::id::{Id, Kind};

/// A textual form of an id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Form {
    /// The 16-character sortable string
    String,
    /// Base62 (11 digits for local ids, 16 or 17 for global ones)
    Base62,
    /// Hex of the big-endian bytes (24 digits global, 16 local)
    Hex,
    /// A JSON string literal: "…" global, "*…" local
    Json,
    /// The 64-bit value of a local id in decimal (19 or 20 digits)
    Int,
    /// The canonical UUID string of a v3 128-bit id (36 characters)
    Uuid,
}

/// The forms read without a leading `"`, in the order preferred when an
/// input that is no id looks equally like several of them.
const PLAIN: [Form; 4] = [Form::String, Form::Base62, Form::Hex, Form::Int];

impl Form {
    /// The lengths of this form that a valid id has.
    fn lengths(self) -> &'static [usize] {
        match self {
            Form::String => &[Guid::STRING_LEN],
            Form::Base62 => &[Luid::BASE62_LEN, Guid::BASE62_LEN - 1, Guid::BASE62_LEN],
            Form::Hex => &[2 * Luid::BYTES, 2 * Guid::BYTES],
            Form::Int => &[19, 20],
            Form::Json | Form::Uuid => &[],
        }
    }

    /// Whether `b` is in this form's alphabet.
    fn allows(self, b: u8) -> bool {
        match self {
            Form::String => b == b'.' || b == b'_' || b.is_ascii_alphanumeric(),
            Form::Base62 => b.is_ascii_alphanumeric(),
            Form::Hex => b.is_ascii_hexdigit(),
            Form::Int => b.is_ascii_digit(),
            Form::Json => true,
            Form::Uuid => b.is_ascii_hexdigit() || b == b'-',
        }
    }

    /// How many leading bytes of `input` this form could hold: those in its
    /// alphabet, at most its longest length.
    fn covered(self, input: &[u8]) -> usize {
        let longest = self.lengths().iter().copied().max().unwrap_or(0);
        input
            .iter()
            .take(longest)
            .take_while(|&&b| self.allows(b))
            .count()
    }

    /// Its name in the objects `inspect` prints: the `--from` value.
    pub fn name(self) -> &'static str {
        self.flag()
    }

    /// Its name in messages.
    fn noun(self) -> &'static str {
        match self {
            Form::String => "a sortable string",
            Form::Base62 => "base62",
            Form::Hex => "hex",
            Form::Json => "JSON",
            Form::Int => "an int",
            Form::Uuid => "a UUID",
        }
    }

    /// What a reading in this form is, in a refusal.
    fn what(self) -> &'static str {
        match self {
            Form::String => "the sortable string",
            Form::Base62 => "base62",
            Form::Hex => "hex",
            Form::Json => "JSON",
            Form::Int => "the int",
            Form::Uuid => "the UUID",
        }
    }

    /// The lengths in words.
    fn lengths_text(self) -> &'static str {
        match self {
            Form::String => "16",
            Form::Base62 => "11, 16 or 17",
            Form::Hex => "16 or 24",
            Form::Int => "19 or 20",
            Form::Json => "18 or 19",
            Form::Uuid => "36",
        }
    }

    /// The `--from` value.
    fn flag(self) -> &'static str {
        match self {
            Form::String => "string",
            Form::Base62 => "base62",
            Form::Hex => "hex",
            Form::Json => "json",
            Form::Int => "int",
            Form::Uuid => "uuid",
        }
    }
}

/// Every form with every kind.
const READINGS: [(Form, Kind); 10] = [
    (Form::String, Kind::G),
    (Form::String, Kind::L),
    (Form::Base62, Kind::G),
    (Form::Base62, Kind::L),
    (Form::Hex, Kind::G),
    (Form::Hex, Kind::L),
    (Form::Json, Kind::G),
    (Form::Json, Kind::L),
    (Form::Int, Kind::L),
    (Form::Int, Kind::G),
];

/// A form in which one input can read as different ids, with a sno string
/// apart from the sortable string it is spelled like: what the evidence of
/// a stream is made of (module docs, rule 3). JSON, ints and UUIDs are
/// told by their marker or length, and never meet another form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// The sortable string, of either kind.
    String,
    /// Base62.
    Base62,
    /// Hex.
    Hex,
    /// A sno string.
    Sno,
}

impl Spelling {
    /// The spelling of a reading in `form` (not of a sno string).
    fn of(form: Form) -> Option<Spelling> {
        match form {
            Form::String => Some(Spelling::String),
            Form::Base62 => Some(Spelling::Base62),
            Form::Hex => Some(Spelling::Hex),
            Form::Json | Form::Int | Form::Uuid => None,
        }
    }

    /// Its bit in [`Found::valid`].
    fn bit(self) -> u8 {
        1 << self as u8
    }

    /// Its name in messages: the `--from` value, or `sno`.
    pub fn name(self) -> &'static str {
        match self {
            Spelling::String => "string",
            Spelling::Base62 => "base62",
            Spelling::Hex => "hex",
            Spelling::Sno => "sno",
        }
    }
}

/// What an input reads as under the flags.
#[derive(Clone, Copy, Debug)]
pub enum Decoded {
    /// One id (every reading that is valid gives it), read in `form`.
    One {
        /// The form it was read in.
        form: Form,
        /// The id.
        id: Id,
        /// The spelling the input is valid in, when it is valid in one
        /// spelling only: the evidence it gives (module docs, rule 3).
        shows: Option<Spelling>,
    },
    /// Different ids in several spellings: ambiguous.
    Several(Several),
}

/// The readings of an ambiguous input: different ids, at most one per
/// spelling.
#[derive(Clone, Copy, Debug)]
pub struct Several {
    /// The readings in the forms of guid ids.
    found: Found,
    /// The reading as a sno string.
    sno: Option<Sno>,
}

impl Several {
    /// Its reading in `spelling`, if it has one, and the form it names.
    pub fn reading(&self, spelling: Spelling) -> Option<(Form, Id)> {
        match spelling {
            Spelling::Sno => self.sno.map(|sno| (Form::String, Id::Sno(sno))),
            _ => self
                .found
                .iter()
                .find(|r| Spelling::of(r.0) == Some(spelling))
                .map(|&(form, _, id)| (form, id)),
        }
    }

    /// The refusal, naming each reading with the flags that pick it.
    pub fn refusal(&self) -> String {
        ambiguous(self.found.iter(), self.sno.is_some())
    }
}

/// The spellings the unambiguous lines of a stream have shown so far: the
/// evidence by which an ambiguous line is read (module docs, rule 3).
#[derive(Clone, Copy, Debug, Default)]
pub struct Evidence(u8);

impl Evidence {
    /// Adds a spelling shown.
    pub fn add(&mut self, spelling: Spelling) {
        self.0 |= spelling.bit();
    }

    /// Whether no spelling was shown yet.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The spellings shown, in the order of [`Spelling`].
    fn spellings(self) -> impl Iterator<Item = Spelling> {
        SPELLINGS.into_iter().filter(move |s| self.0 & s.bit() != 0)
    }

    /// Reads an ambiguous input by this evidence: its reading in the one
    /// spelling shown, or the refusal, which says what was shown.
    pub fn read(self, several: &Several) -> Result<(Form, Id), String> {
        let mut shown = self.spellings();
        let (first, more) = (shown.next(), shown.next().is_some());
        match (first, more) {
            (Some(one), false) => several.reading(one).ok_or_else(|| {
                format!(
                    "{} (the other ids show {}, which it is not)",
                    several.refusal(),
                    one.name()
                )
            }),
            (Some(_), true) => {
                let names: Vec<&str> = self.spellings().map(Spelling::name).collect();
                Err(format!(
                    "{} (the other ids show several forms: {})",
                    several.refusal(),
                    names.join(", ")
                ))
            }
            (None, _) => Err(several.refusal()),
        }
    }
}

/// Every spelling.
const SPELLINGS: [Spelling; 4] = [
    Spelling::String,
    Spelling::Base62,
    Spelling::Hex,
    Spelling::Sno,
];

/// Reads `input` as an id, trying every reading the flags allow (module
/// docs), and, when `sno` is set and no flag names a form or kind, as a
/// sno string too. The error says what is wrong, not what the input was.
pub fn decode(
    input: &[u8],
    kind: Option<Kind>,
    form: Option<Form>,
    sno: bool,
) -> Result<Decoded, String> {
    if is_uuid(input, form) {
        return decode_v3(input, kind, Some(Form::Uuid)).map(Decoded::of);
    }
    let found = readings(input, kind, form);
    let sno = (sno && kind.is_none() && form.is_none())
        .then(|| Sno::parse_bytes(input).ok())
        .flatten();
    let valid = found.valid | sno.map_or(0, |_| Spelling::Sno.bit());
    // The spelling shown: the only one the input is valid in.
    let shows = SPELLINGS.into_iter().find(|s| s.bit() == valid);
    match (found.iter().as_slice(), sno) {
        ([(form, _, id)], None) => Ok(Decoded::One {
            form: *form,
            id: *id,
            shows,
        }),
        ([], Some(sno)) => Ok(Decoded::One {
            form: Form::String,
            id: Id::Sno(sno),
            shows,
        }),
        ([], None) => Err(why_not(input, kind, form)),
        _ => Ok(Decoded::Several(Several { found, sno })),
    }
}

impl Decoded {
    /// The one id of a form no other meets (v3's, a UUID, a sno string
    /// under `--sno`): no evidence.
    pub fn of((form, id): (Form, Id)) -> Decoded {
        Decoded::One {
            form,
            id,
            shows: None,
        }
    }
}

/// The id `input` reads as, if it reads as exactly one, and the form it
/// was read in: [`decode`] without sno strings nor the cost of saying why
/// not, for searching text where most words are no id.
pub fn find(input: &[u8], kind: Option<Kind>, form: Option<Form>) -> Option<(Form, Id)> {
    if is_uuid(input, form) {
        return decode_v3(input, kind, Some(Form::Uuid)).ok();
    }
    match readings(input, kind, form).iter().as_slice() {
        [(form, _, id)] => Some((*form, *id)),
        _ => None,
    }
}

/// A reading that gave an id.
type Reading = (Form, Kind, Id);

/// The readings that gave an id, one per different id, in a fixed array
/// as this runs for every line; and every spelling the input is valid in,
/// those of the same id too.
#[derive(Clone, Copy, Debug)]
struct Found {
    /// The first `n` are the readings.
    found: [Reading; READINGS.len()],
    /// How many there are.
    n: usize,
    /// A bit per [`Spelling`] the input is valid in.
    valid: u8,
}

impl Found {
    /// The readings.
    fn iter(&self) -> std::slice::Iter<'_, Reading> {
        self.found[..self.n].iter()
    }
}

/// The readings the flags allow that give an id. Of a sortable string of
/// both kinds only the global id is kept (module docs): READINGS lists it
/// first.
fn readings(input: &[u8], kind: Option<Kind>, form: Option<Form>) -> Found {
    // A filler for the unused slots: never read.
    let none = (Form::Json, Kind::G, Id::G(Guid::MIN));
    let mut found = Found {
        found: [none; READINGS.len()],
        n: 0,
        valid: 0,
    };
    for (f, k) in READINGS {
        if form.is_some_and(|form| form != f) || kind.is_some_and(|kind| kind != k) {
            continue;
        }
        if f == Form::String && found.iter().any(|r| r.0 == Form::String) {
            continue;
        }
        if let Some(id) = parse(input, f, k) {
            found.valid |= Spelling::of(f).map_or(0, Spelling::bit);
            if !found.iter().any(|&(_, _, seen)| seen == id) {
                found.found[found.n] = (f, k, id);
                found.n += 1;
            }
        }
    }
    found
}

/// Whether `input` is read as a UUID: under `--from uuid`, or without
/// `--from` when it has a UUID's shape (36 characters, `-` at index 8).
fn is_uuid(input: &[u8], form: Option<Form>) -> bool {
    match form {
        Some(form) => form == Form::Uuid,
        None => input.len() == 36 && input.get(8) == Some(&b'-'),
    }
}

/// Reads `input` as a v3 id of the generation `v3` says, or a v2 one.
pub fn decode_in(
    input: &[u8],
    kind: Option<Kind>,
    form: Option<Form>,
    v3: bool,
    sno: bool,
) -> Result<Decoded, String> {
    if v3 {
        decode_v3(input, kind, form).map(Decoded::of)
    } else {
        decode(input, kind, form, sno)
    }
}

/// [`find`] in the generation `v3` says.
pub fn find_in(
    input: &[u8],
    kind: Option<Kind>,
    form: Option<Form>,
    v3: bool,
) -> Option<(Form, Id)> {
    if v3 {
        decode_v3(input, kind, form).ok()
    } else {
        find(input, kind, form)
    }
}

/// Reads `input` as a v3 id. v3's fixed widths leave one reading per
/// length, so nothing is tried in turn: 16 characters are a sortable
/// string (global unless `--as l`), 36 a UUID (a 128-bit id), 11, 17 and
/// 22 base62 (local, global, 128-bit), 24 and 32 hex (global, 128-bit;
/// 16 hex digits need `--from hex`), other runs of up to 20 digits an int
/// (local), and
/// a JSON string is read as the id its contents are.
pub fn decode_v3(
    input: &[u8],
    kind: Option<Kind>,
    form: Option<Form>,
) -> Result<(Form, Id), String> {
    let form = match form {
        Some(form) => form,
        None => match input.len() {
            _ if input.first() == Some(&b'"') => Form::Json,
            16 => Form::String,
            36 => Form::Uuid,
            11 | 17 | 22 => Form::Base62,
            24 | 32 => Form::Hex,
            1..=20 if input.iter().all(u8::is_ascii_digit) => Form::Int,
            len => {
                return Err(format!(
                    "not a v3 id form: {}, expected a 16-character string, a 36-character \
                     UUID, 11, 17 or 22 base62 digits, 16, 24 or 32 hex digits, up to 20 \
                     decimal digits or a JSON string (see --from)",
                    characters(len)
                ));
            }
        },
    };
    // The kind a length or the contents of a JSON string tell.
    let len = match form {
        Form::Json => input.len().saturating_sub(2),
        _ => input.len(),
    };
    let kind = kind.unwrap_or(match (form, len) {
        (Form::Uuid, _) | (_, 36) => Kind::X,
        (Form::Base62, 11) | (Form::Hex, 16) | (Form::Int, _) => Kind::L,
        (Form::Base62, 22) | (Form::Hex, 32) => Kind::X,
        _ => Kind::G,
    });
    reading(input, form, kind, true)
        .map(|id| (form, id))
        .map_err(|why| why.to_string())
}

/// One v2 reading, without the error's text: the search through every
/// reading runs per line, and formatting the messages of the readings
/// that fail would cost more than decoding.
fn parse(input: &[u8], form: Form, kind: Kind) -> Option<Id> {
    if form == Form::Json && input.first() != Some(&b'"') {
        return None;
    }
    reading(input, form, kind, false).ok()
}

/// One v2 reading, with the error's text.
fn read(input: &[u8], form: Form, kind: Kind) -> Result<Id, String> {
    reading(input, form, kind, false).map_err(|why| why.to_string())
}

/// One reading: `input` in `form` as an id of `kind` of the generation `v3`
/// says. The one place a kind and a generation pick a type.
fn reading(input: &[u8], form: Form, kind: Kind, v3: bool) -> Result<Id, Why> {
    match (v3, kind, form) {
        (false, Kind::X, _) | (false, _, Form::Uuid) => {
            Err(Why::Said("128-bit ids and UUIDs are v3's: add --v3"))
        }
        (true, Kind::G | Kind::L, Form::Uuid) => Err(Why::Said("a UUID is a 128-bit id: --as x")),
        (false, Kind::G, _) => read_as(input, form).map(Id::G),
        (false, Kind::L, _) => read_as(input, form).map(Id::L),
        (true, Kind::G, _) => read_as(input, form).map(Id::G3),
        (true, Kind::L, _) => read_as(input, form).map(Id::L3),
        (true, Kind::X, _) => read_as(input, form).map(Id::X),
    }
}

/// `input` in `form` as an id of type `I`.
fn read_as<I: guid::Id + DeserializeOwned>(input: &[u8], form: Form) -> Result<I, Why> {
    match form {
        Form::String | Form::Uuid => I::parse_bytes(input).map_err(Why::Id),
        Form::Base62 => I::from_base62(input).map_err(Why::Id),
        Form::Hex => {
            let mut bytes = [0; 16];
            let bytes = &mut bytes[..I::BYTES];
            hex(input, bytes)?;
            I::from_slice(bytes).map_err(Why::Id)
        }
        Form::Json => serde_json::from_slice(input).map_err(Why::Json),
        Form::Int if I::BITS == 64 => I::from_u128(int(input)?.into()).map_err(Why::Id),
        Form::Int => Err(Why::NotLocal { bits: I::BITS }),
    }
}

/// Why a reading gave no id; its message is made only when it is shown.
#[derive(Debug)]
enum Why {
    /// The id's own error.
    Id(guid::Error),
    /// serde_json's, which names the id's own error.
    Json(serde_json::Error),
    /// Hex of the wrong length.
    HexLength { expected: usize, found: usize },
    /// A byte that is no hex digit.
    HexDigit { byte: u8, index: usize },
    /// Hex the decoder refused otherwise.
    Hex(data_encoding::DecodeError),
    /// An int with a byte that is no decimal digit.
    IntByte { byte: u8, index: usize },
    /// An empty int.
    IntEmpty,
    /// An int past 64 bits.
    IntWide,
    /// An int asked of an id wider than 64 bits.
    NotLocal { bits: u32 },
    /// A fixed message.
    Said(&'static str),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Id(e) => e.fmt(f),
            Why::Json(e) => write!(f, "invalid JSON id: {e}"),
            Why::HexLength { expected, found } => {
                write!(
                    f,
                    "invalid length: expected {expected} hex digits, found {found}"
                )
            }
            Why::HexDigit { byte, index } => {
                write!(f, "invalid hex digit {} at index {index}", Byte(*byte))
            }
            Why::Hex(e) => e.fmt(f),
            Why::IntByte { byte, index } => write!(
                f,
                "{} (an int has decimal digits only)",
                bad_byte(*byte, *index)
            ),
            Why::IntEmpty => f.write_str("invalid length: an int has at least one digit"),
            Why::IntWide => f.write_str("value does not fit 64 bits"),
            Why::NotLocal { bits: 96 } => {
                f.write_str("int is a form of local ids only: a global id has 96 bits")
            }
            Why::NotLocal { .. } => f.write_str("int is a form of local ids only"),
            Why::Said(message) => f.write_str(message),
        }
    }
}

/// The refusal of an input that reads as several different ids: of the
/// readings `found`, and as a sno string if `sno`.
fn ambiguous<'a>(found: impl Iterator<Item = &'a Reading>, sno: bool) -> String {
    let mut readings: Vec<String> = found
        .map(|&(form, kind, _)| {
            let (kind, flag) = match kind {
                Kind::G => ("global", "g"),
                Kind::L => ("local", "l"),
                Kind::X => ("128-bit", "x"),
            };
            // Only a string's kind is not told by its length or marker.
            let flags = match form {
                Form::String => format!("--from string --as {flag}"),
                _ => format!("--from {}", form.flag()),
            };
            format!("{} of a {kind} id ({flags})", form.what())
        })
        .collect();
    if sno {
        readings.push("a sno string (--sno)".to_owned());
    }
    let (last, rest) = readings.split_last().map_or(("", &[][..]), |(l, r)| (l, r));
    format!(
        "ambiguous: reads as {} different ids, as {} and as {last}; say which with its flags",
        readings.len(),
        rest.join(", as ")
    )
}

/// Why no reading gave an id: the error of the reading `input` looks most
/// like, or what is wrong with its length.
fn why_not(input: &[u8], kind: Option<Kind>, form: Option<Form>) -> String {
    let form = match form {
        Some(form) => form,
        None => match likely_form(input) {
            Ok(form) => form,
            Err(message) => return message,
        },
    };
    let kind = kind.unwrap_or_else(|| implied_kind(input, form));
    match read(input, form, kind) {
        Err(e) => e,
        // Every reading failed, this one too.
        Ok(_) => "not an id".to_owned(),
    }
}

/// The form an input that is no id looks most like: the one whose alphabet
/// covers most of it, preferring one of its length. An input that fits no
/// form's length is described here.
fn likely_form(input: &[u8]) -> Result<Form, String> {
    if input.first() == Some(&b'"') {
        return Ok(Form::Json);
    }
    let len = input.len();
    let fits = |form: Form| form.lengths().contains(&len);
    let (form, covered) = PLAIN
        .iter()
        .enumerate()
        .map(|(order, &form)| (form, form.covered(input), fits(form), order))
        .max_by_key(|&(_, covered, fits, order)| (covered, fits, std::cmp::Reverse(order)))
        .map(|(form, covered, _, _)| (form, covered))
        .unwrap_or((Form::String, 0));
    if fits(form) {
        // Its decoder names the problem.
        return Ok(form);
    }
    if let Some(&b) = input.get(covered).filter(|&&b| !form.allows(b)) {
        // A byte no form of this shape has, such as a trailing NUL.
        let after = if form.lengths().contains(&covered) {
            format!(", after the {} of {}", characters(covered), form.noun())
        } else {
            String::new()
        };
        return Err(format!("{}{after}", bad_byte(b, covered)));
    }
    if PLAIN.iter().any(|&form| fits(form)) {
        Err(format!(
            "invalid length: {} has {} characters, found {len}",
            form.noun(),
            form.lengths_text()
        ))
    } else {
        Err(format!(
            "not an id form: {}, expected a 16-character string, \
             11, 16 or 17 base62 digits, 16 or 24 hex digits, 19 or 20 decimal \
             digits or a JSON string (see --from)",
            characters(len)
        ))
    }
}

/// `n` characters, in words: "1 character", "2 characters".
fn characters(n: usize) -> String {
    match n {
        1 => "1 character".to_owned(),
        n => format!("{n} characters"),
    }
}

/// The kind whose error to report when neither kind reads `input` in
/// `form`: the one its length, marker or first character suggests.
fn implied_kind(input: &[u8], form: Form) -> Kind {
    let local = match form {
        // A drift code of 1..=3 in a 4-bit first cell, but 0 in a 6-bit one.
        Form::String => matches!(input.first(), Some(b'1'..=b'6')),
        Form::Base62 => input.len() <= Luid::BASE62_LEN,
        Form::Hex => input.len() == 2 * Luid::BYTES,
        Form::Json => input.starts_with(b"\"*"),
        Form::Int => true,
        Form::Uuid => false,
    };
    if local { Kind::L } else { Kind::G }
}

/// Exactly `2 * bytes.len()` hex digits (either case) into `bytes`.
fn hex(input: &[u8], bytes: &mut [u8]) -> Result<(), Why> {
    if input.len() != 2 * bytes.len() {
        return Err(Why::HexLength {
            expected: 2 * bytes.len(),
            found: input.len(),
        });
    }
    HEXLOWER_PERMISSIVE
        .decode_mut(input, bytes)
        .map(|_| ())
        .map_err(|e| {
            let index = e.error.position;
            match (e.error.kind, input.get(index)) {
                (DecodeKind::Symbol, Some(&byte)) => Why::HexDigit { byte, index },
                _ => Why::Hex(e.error),
            }
        })
}

/// A local id's 64-bit value in decimal: digits only.
fn int(input: &[u8]) -> Result<u64, Why> {
    if let Some(index) = input.iter().position(|b| !b.is_ascii_digit()) {
        return Err(Why::IntByte {
            byte: input[index],
            index,
        });
    }
    if input.is_empty() {
        return Err(Why::IntEmpty);
    }
    input
        .iter()
        .try_fold(0u64, |v, &d| {
            v.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
        .ok_or(Why::IntWide)
}

/// The library's wording for a byte outside an alphabet.
fn bad_byte(b: u8, index: usize) -> String {
    if b.is_ascii_graphic() {
        format!("invalid character {} at index {index}", Byte(b))
    } else {
        format!("invalid byte {} at index {index}", Byte(b))
    }
}

/// A byte shown as a character when printable, else in hex.
struct Byte(u8);

impl std::fmt::Display for Byte {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_ascii_graphic() {
            write!(f, "'{}'", char::from(self.0))
        } else {
            write!(f, "0x{:02x}", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input valid in one spelling shows it; one of several is read by
    /// evidence of one spelling it has a reading in, and refused otherwise.
    #[test]
    fn evidence_reads_an_ambiguous_input() {
        let shows = |input: &[u8]| match decode(input, None, None, true) {
            Ok(Decoded::One { shows, .. }) => shows,
            other => panic!("{other:?}"),
        };
        assert_eq!(shows(b"N...0ngIdY...1.."), Some(Spelling::String));
        assert_eq!(shows(b"600000073b13a63000002000"), Some(Spelling::Hex));
        assert_eq!(shows(b"2vdt4d2222222222"), Some(Spelling::Sno));
        assert_eq!(shows(br#""N...0ngIdY...1..""#), None);
        let Ok(Decoded::Several(several)) = decode(b"NlpJwpyS1Q9vEZ12", None, None, true) else {
            panic!("ambiguous");
        };
        let mut evidence = Evidence::default();
        assert!(evidence.read(&several).is_err());
        evidence.add(Spelling::Hex);
        assert!(
            evidence
                .read(&several)
                .is_err_and(|e| e.contains("show hex"))
        );
        let mut evidence = Evidence::default();
        evidence.add(Spelling::Base62);
        let read = evidence.read(&several).map(|(form, _)| form);
        assert_eq!(read, Ok(Form::Base62));
        evidence.add(Spelling::String);
        assert!(
            evidence
                .read(&several)
                .is_err_and(|e| e.contains("string, base62"))
        );
    }

    /// The search's `parse` accepts exactly what `read` accepts, as the
    /// same id: on ids of every form and on each with one byte changed,
    /// cut or added.
    #[test]
    fn parse_agrees_with_read() {
        let g = Guid::compose(0xe762_74c6, 0, 8192, guid::Drift::DEFAULT).expect("id");
        let l4 = Luid::compose(0, 8192, guid::Drift::new(4).expect("drift")).expect("id");
        let mut seeds: Vec<Vec<u8>> = Vec::new();
        for (g, l) in [(g, g.to_l64()), (l4.to_g(u32::MAX), l4)] {
            seeds.extend([
                g.to_string().into_bytes(),
                g.to_base62().into_bytes(),
                data_encoding::HEXLOWER.encode(&g.to_bytes()).into_bytes(),
                serde_json::to_vec(&g).expect("json"),
                l.to_string().into_bytes(),
                l.to_base62().into_bytes(),
                data_encoding::HEXUPPER.encode(&l.to_bytes()).into_bytes(),
                serde_json::to_vec(&l).expect("json"),
                l.to_u64().to_string().into_bytes(),
            ]);
        }
        seeds.extend([b"18446744073709551616".to_vec(), b"".to_vec()]);
        let mut inputs = seeds.clone();
        for seed in &seeds {
            for i in 0..seed.len() {
                for b in [
                    b'0', b'9', b'.', b'_', b'A', b'F', b'f', b'z', b'"', b'*', 0,
                ] {
                    let mut v = seed.clone();
                    v[i] = b;
                    inputs.push(v);
                }
                inputs.push(seed[..i].to_vec());
            }
            inputs.push([seed.as_slice(), b"0"].concat());
        }
        for input in &inputs {
            for (form, kind) in READINGS {
                assert_eq!(
                    parse(input, form, kind),
                    read(input, form, kind).ok(),
                    "{form:?} {kind:?} {:?}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }
}
