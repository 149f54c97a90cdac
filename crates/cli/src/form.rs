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
//!    local string without `.` is also 16 hex digits; a local string of
//!    drift code 4 or more is also a global string, and in v3 every local
//!    string is.
//! 3. An ambiguous input is read by the evidence of its stream first (the
//!    arguments and standard input of one run, in order). An input valid
//!    in one [`Spelling`] only (string, base62, hex or sno) shows that
//!    spelling, such as a string with `.` or `_` or 17-digit base62; JSON,
//!    ints and UUIDs show none. An ambiguous input is read in the spelling
//!    the inputs before it have shown when they have shown exactly one and
//!    it has a reading in it; when they have shown none, it is held, and
//!    every input after it waits with it (output keeps input order), until
//!    one shows a spelling: then it is read in that one. So `gen | inspect`
//!    reads back every string (the first, of sequence 0, ends in `..`). A
//!    flag that leaves one reading (`--from`, `--sno`) reads each line as
//!    it comes.
//! 4. Where the evidence does not decide (two spellings or more shown, one
//!    it has no reading in, none by the end of the stream, or several
//!    readings in the spelling shown: a string of both kinds), the input is
//!    read as `gen` most likely wrote it ([`Several::choose`]): the reading
//!    with the fewest marks of a misreading, a time more than a day ahead
//!    of now (no clock makes one) before all others, then a drift code
//!    other than the generation's default (which `gen` and `compose` give
//!    unless told otherwise; a sno id has none) and a global string or
//!    base62 of an input that also reads in a narrow alphabet (hex, a sno
//!    string, a local string: 16 to 32 symbols, in which a 64- or
//!    62-symbol form is almost never spelled); then the sortable string
//!    (local, then global), hex, a sno string, base62. The other readings
//!    are noted on standard error with their flags, once for each kind of
//!    guess. Every id `gen` writes at the default drift code reads back so
//!    alone, in every form (a unit test sweeps a century of times); one of
//!    another drift code can be the very text of an id of the default code
//!    in another form, and reads as that one, noted. `--strict` refuses
//!    instead, naming each reading with the flags that pick it.
//! 5. A UUID (36 characters, `-` at index 8) is a v3 128-bit id, without
//!    `--v3`.
//!
//! `inspect --extract` reads tokens with [`find_in`] by rules 1, 2 and 4
//! (a token has no stream), and finds a sno string only with `--sno`.
//!
//! Lengths: a sortable string is 16 characters (global or local), base62
//! 11 (local) or 16–17 (global), hex 16 (local) or 24 (global), an int
//! (the decimal value of a local id) 19–20 digits, JSON starts with `"`,
//! a sno string 16.

use clap::ValueEnum;
use data_encoding::{DecodeKind, HEXLOWER_PERMISSIVE};
use guid::Id as _;
use guid::flake::Layout;
use guid::sno::Sno;
use guid::{Guid, Luid, v3};
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
    /// A JSON object as inspect and compose print, read by its kind and hex (its other fields checked)
    Object,
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
            Form::Json | Form::Uuid | Form::Object => &[],
        }
    }

    /// Whether `b` is in this form's alphabet.
    fn allows(self, b: u8) -> bool {
        match self {
            Form::String => b == b'.' || b == b'_' || b.is_ascii_alphanumeric(),
            Form::Base62 => b.is_ascii_alphanumeric(),
            Form::Hex => b.is_ascii_hexdigit(),
            Form::Int => b.is_ascii_digit(),
            Form::Json | Form::Object => true,
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
            Form::Object => "a JSON object",
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
            Form::Object => "the object",
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
            Form::Object => "any number of",
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
            Form::Object => "object",
        }
    }
}

/// Reads `input` as a 64-bit flake id of noeqd's layout (`--flake`): 16
/// hex digits are its hex, any other run of digits its int, unless `form`
/// (`--from int` or `hex`) says which.
pub fn decode_flake(input: &[u8], form: Option<Form>) -> Result<Reading, String> {
    let hex16 = input.len() == 2 * 8 && input.iter().all(u8::is_ascii_hexdigit);
    let form = form.unwrap_or(if hex16 { Form::Hex } else { Form::Int });
    let value = match form {
        Form::Hex => {
            let mut bytes = [0; 8];
            hex(input, &mut bytes).map(|()| u64::from_be_bytes(bytes))
        }
        Form::Int => int(input),
        _ => return Err(FLAKE_FORMS.to_owned()),
    };
    let value = value.map_err(|why| format!("not a flake id: {why}"))?;
    match Layout::NOEQD.decompose(value) {
        Ok(_) => Ok(Reading {
            form,
            id: Id::Flake(value),
        }),
        Err(_) => Err("not a flake id: its sign bit is set (a flake id has 63 bits)".to_owned()),
    }
}

/// Reads `input` as a JSON object that `inspect` or `compose` printed
/// (`{"kind":…}`): the id of its kind (`g`, `l` and, with `v3`, of v3; `x`,
/// `sno`, `flake`) and its `hex` (a sno id's `string`, a flake id's
/// `int`), every other field (but `line` and `form`) checked against that
/// id's. `kind`, from `--as`, must be the object's.
pub fn decode_object(input: &[u8], kind: Option<Kind>, v3: bool) -> Result<Reading, String> {
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(input).map_err(|e| format!("not an id's object: {e}"))?;
    let text = |key: &str| {
        object
            .get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::as_bytes)
            .ok_or_else(|| format!("not an id's object: no \"{key}\" string"))
    };
    let id = match object.get("kind").and_then(serde_json::Value::as_str) {
        Some("sno") => Id::Sno(Sno::parse_bytes(text("string")?).map_err(|e| e.to_string())?),
        Some("flake") => decode_flake(text("int")?, Some(Form::Int))?.id,
        Some(name @ ("g" | "l" | "x")) => {
            let of = match name {
                "g" => Kind::G,
                "l" => Kind::L,
                _ => Kind::X,
            };
            if let Some(kind) = kind.filter(|&kind| kind != of) {
                return Err(format!(
                    "the object is of a {} id, not of the --as {} asked for",
                    of.noun(),
                    kind.flag()
                ));
            }
            let hex = text("hex")?;
            let read = |v3: bool| reading(hex, Form::Hex, of, v3 || of == Kind::X);
            let id = read(v3).map_err(|why| format!("its \"hex\": {why}"))?;
            // The same bytes of the other generation, if its fields are those.
            let other = read(!v3)
                .ok()
                .filter(|&id| disagreement(&object, id).is_none());
            match (disagreement(&object, id), other, v3) {
                (None, _, _) => id,
                (Some(_), Some(_), false) if of != Kind::X => {
                    return Err("the object is of a v3 id: add --v3".to_owned());
                }
                (Some(_), Some(_), true) if of != Kind::X => {
                    return Err("the object is of a v2 id: drop --v3".to_owned());
                }
                (Some(field), _, _) => {
                    return Err(format!("its \"{field}\" is not that of its id's"));
                }
            }
        }
        _ => {
            return Err(
                "not an id's object: its \"kind\" is none of g, l, x, sno and flake".to_owned(),
            );
        }
    };
    match disagreement(&object, id) {
        None => Ok(Reading {
            form: Form::Object,
            id,
        }),
        Some(field) => Err(format!("its \"{field}\" is not that of its id's")),
    }
}

/// The first field of `object` (but `line` and `form`) whose value is not
/// the one `inspect` prints for `id`.
fn disagreement(object: &serde_json::Map<String, serde_json::Value>, id: Id) -> Option<String> {
    let Ok(Ok(report)) = id.report().map(serde_json::to_value) else {
        return Some("kind".to_owned());
    };
    object
        .iter()
        .filter(|(key, _)| !matches!(key.as_str(), "line" | "form"))
        .find(|(key, value)| report.get(key.as_str()) != Some(value))
        .map(|(key, _)| key.clone())
}

/// Why a form other than int or hex is no flake id's.
pub const FLAKE_FORMS: &str = "a flake id is read as an int or as 16 hex digits: --from int or hex";

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
            Form::Json | Form::Int | Form::Uuid | Form::Object => None,
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

/// Every spelling.
const SPELLINGS: [Spelling; 4] = [
    Spelling::String,
    Spelling::Base62,
    Spelling::Hex,
    Spelling::Sno,
];

/// A reading that gave an id: the form it was read in and the id, whose
/// kind it is (a sno string is read in [`Form::String`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The form it was read in.
    pub form: Form,
    /// The id.
    pub id: Id,
}

/// How far ahead of now the time of an id may be and the id still be one
/// a clock made (module docs, rule 4).
const AHEAD: u64 = 24 * 3600 * 1_000_000_000;

impl Reading {
    /// Its spelling, if it has one.
    fn spelling(self) -> Option<Spelling> {
        match self.id {
            Id::Sno(_) => Some(Spelling::Sno),
            _ => Spelling::of(self.form),
        }
    }

    /// What it is, in messages: "base62 of a global id", "a sno string".
    fn what(self) -> String {
        match (self.id.kind(), self.id) {
            (Some(kind), _) => format!("{} of a {} id", self.form.what(), kind.noun()),
            (None, Id::Flake(_)) => format!("{} of a flake id", self.form.what()),
            (None, _) => "a sno string".to_owned(),
        }
    }

    /// The fewest flags that pick it among `all`: `--sno`; `--from` if no
    /// other has its form, else `--as` if none has its kind, else both.
    fn flags(self, all: &[Reading]) -> String {
        let Some(kind) = self.id.kind() else {
            return "--sno".to_owned();
        };
        // Without --from and --as nothing is read as a sno string.
        let others = all.iter().filter(|r| **r != self && r.id.kind().is_some());
        let form = others.clone().any(|r| r.form == self.form);
        let of_kind = others.clone().any(|r| r.id.kind() == Some(kind));
        match (form, of_kind) {
            (false, _) => format!("--from {}", self.form.flag()),
            (true, false) => format!("--as {}", kind.flag()),
            (true, true) => format!("--from {} --as {}", self.form.flag(), kind.flag()),
        }
    }

    /// Whether it is in a form of a narrow alphabet: hex, a sno string or
    /// a local string (16 to 32 symbols, where a global string has 64 and
    /// base62 62).
    fn narrow(self) -> bool {
        match self.id.kind() {
            None => true,
            Some(kind) => self.form == Form::Hex || (self.form == Form::String && kind == Kind::L),
        }
    }

    /// Its rank among the readings `all` of one input, lowest first
    /// (module docs, rule 4): a time ahead of `now`; then its marks of a
    /// misreading (a drift code other than the default, or none, as a sno
    /// id; a global string or base62 that also reads in a narrow alphabet,
    /// in which either is almost never spelled); then its form and kind.
    fn rank(self, all: &[Reading], now: u64) -> (bool, u8, u8) {
        let ahead = Rule { strict: false, now }.ahead(self.id);
        let wide = matches!(self.form, Form::String | Form::Base62) && !self.narrow();
        let spelled_narrow = wide && all.iter().any(|r| r.narrow());
        let marks = u8::from(!self.id.of_default_drift()) + u8::from(spelled_narrow);
        let order = match (self.form, self.id) {
            (Form::String | Form::Json, Id::L(_) | Id::L3(_)) => 0,
            (Form::String | Form::Json, Id::G(_) | Id::G3(_)) => 1,
            (_, Id::Flake(_)) => 2,
            (Form::Hex, _) => 3,
            (_, Id::Sno(_)) => 4,
            (Form::Base62, _) => 5,
            (Form::Int, _) => 6,
            _ => 7,
        };
        (ahead, marks, order)
    }
}

/// What an input reads as under the flags.
#[derive(Clone, Debug)]
pub enum Decoded {
    /// One id (every reading that is valid gives it).
    One {
        /// The reading.
        reading: Reading,
        /// The spelling the input is valid in, when it is valid in one
        /// spelling only: the evidence it gives (module docs, rule 3).
        shows: Option<Spelling>,
    },
    /// Different ids: ambiguous (boxed: an array of readings).
    Several(Box<Several>),
}

impl Decoded {
    /// The one id of a form no other meets (a sno string under `--sno`):
    /// no evidence.
    pub fn of(reading: Reading) -> Decoded {
        Decoded::One {
            reading,
            shows: None,
        }
    }

    /// What `found` reads as, if anything.
    fn from(found: Found) -> Option<Decoded> {
        // The spelling shown: the only one the input is valid in.
        let shows = SPELLINGS.into_iter().find(|s| s.bit() == found.valid);
        match found.readings() {
            [] => None,
            [reading] => Some(Decoded::One {
                reading: *reading,
                shows,
            }),
            _ => Some(Decoded::Several(Box::new(Several { found }))),
        }
    }
}

/// The readings of an ambiguous input: different ids.
#[derive(Clone, Copy, Debug)]
pub struct Several {
    /// The readings.
    found: Found,
}

/// How an ambiguous input is read that the evidence of its stream does
/// not decide: by the rule of likelihood (module docs, rule 4), or, when
/// `strict`, not at all.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// Refuse such an input (`--strict`).
    pub strict: bool,
    /// Unix nanoseconds now: a time more than a day after it is no clock's.
    pub now: u64,
}

impl Rule {
    /// Whether `id` is of a time more than a day after now: no clock's.
    pub fn ahead(&self, id: Id) -> bool {
        id.time() > self.now.saturating_add(AHEAD)
    }
}

impl Several {
    /// The readings.
    fn readings(&self) -> &[Reading] {
        self.found.readings()
    }

    /// The refusal, naming each reading with the flags that pick it.
    pub fn refusal(&self) -> String {
        ambiguous(self.readings())
    }

    /// The reading taken: by the evidence of the stream when it decides,
    /// else, unless `rule` is strict, by likelihood, as a guess; the
    /// refusal otherwise.
    pub fn choose(&self, evidence: Evidence, rule: Rule) -> Result<Choice, String> {
        match evidence.read(self, rule.now) {
            Ok(choice) if choice.guess.is_none() || !rule.strict => Ok(choice),
            Ok(_) => Err(self.refusal()),
            Err(refusal) if rule.strict => Err(refusal),
            Err(_) => Ok(Choice::likeliest(self.readings(), rule.now)),
        }
    }
}

/// The reading taken of an input.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The reading.
    pub reading: Reading,
    /// When it was taken by likelihood among others: what to note.
    pub guess: Option<Guess>,
}

impl Choice {
    /// The one reading of an input.
    pub fn one(reading: Reading) -> Choice {
        Choice {
            reading,
            guess: None,
        }
    }

    /// The likeliest of `readings` (several), noting the others.
    fn likeliest(readings: &[Reading], now: u64) -> Choice {
        let reading = *readings
            .iter()
            .min_by_key(|r| r.rank(readings, now))
            .expect("several readings");
        Choice {
            reading,
            guess: Some(Guess {
                readings: readings.to_vec(),
                taken: reading,
            }),
        }
    }
}

/// A reading taken by likelihood among others: what standard error is
/// told.
#[derive(Clone, Debug)]
pub struct Guess {
    /// Every reading.
    readings: Vec<Reading>,
    /// The one taken.
    taken: Reading,
}

impl Guess {
    /// The forms and kinds of the reading taken and of the others: inputs
    /// alike in them are noted once.
    pub fn class(&self) -> Vec<(Form, Option<Kind>)> {
        let key = |r: &Reading| (r.form, r.id.kind());
        std::iter::once(key(&self.taken))
            .chain(self.readings.iter().filter(|r| **r != self.taken).map(key))
            .collect()
    }

    /// What the reading taken is and the flag that finds it, when it is a
    /// sno string or a flake id, which `--extract` finds with that flag
    /// only.
    pub fn found_with(&self) -> Option<(String, &'static str)> {
        match self.taken.id {
            Id::Sno(_) => Some((self.taken.what(), "--sno")),
            Id::Flake(_) => Some(("a flake id".to_owned(), "--flake")),
            _ => None,
        }
    }

    /// A token that reads only as `reading`, to be noted as a guess is (a
    /// sno string or a flake id, which `--extract` finds with `--sno` or
    /// `--flake` only).
    pub fn alone(reading: Reading) -> Guess {
        Guess {
            readings: vec![reading],
            taken: reading,
        }
    }

    /// What else the input reads as, with the flags of each reading:
    /// "base62 of a global id (--from base62)"; empty if nothing.
    pub fn others(&self) -> String {
        let others: Vec<String> = self
            .readings
            .iter()
            .filter(|r| **r != self.taken)
            .map(|r| format!("{} ({})", r.what(), r.flags(&self.readings)))
            .collect();
        others.join(" and ")
    }

    /// What was read and what else the input reads as, with the flags of
    /// each other reading.
    pub fn note(&self) -> String {
        format!(
            "reads as {} ids: read as {}, the likeliest; it is also {}",
            self.readings.len(),
            self.taken.what(),
            self.others()
        )
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
    /// spelling shown (the likeliest, by the time `now`, of its readings in
    /// it, a guess, if it has several: a string of both kinds), or the
    /// refusal, which says what was shown.
    pub fn read(self, several: &Several, now: u64) -> Result<Choice, String> {
        let mut shown = self.spellings();
        let (first, more) = (shown.next(), shown.next().is_some());
        match (first, more) {
            (Some(one), false) => {
                let within: Vec<Reading> = several
                    .readings()
                    .iter()
                    .copied()
                    .filter(|r| r.spelling() == Some(one))
                    .collect();
                match within[..] {
                    [] => Err(format!(
                        "{} (the other ids show {}, which it is not)",
                        several.refusal(),
                        one.name()
                    )),
                    [reading] => Ok(Choice::one(reading)),
                    _ => Ok(Choice::likeliest(&within, now)),
                }
            }
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

/// Reads `input` as a v2 id, trying every reading the flags allow (module
/// docs), and, when `also` is `Some(now)` and no flag names a form or
/// kind, as a sno string and a flake id too (see [`found_v2`]). The error
/// says what is wrong, not what the input was.
pub fn decode(
    input: &[u8],
    kind: Option<Kind>,
    form: Option<Form>,
    also: Option<u64>,
) -> Result<Decoded, String> {
    if is_uuid(input, form) {
        return decode_v3(input, kind, Some(Form::Uuid));
    }
    Decoded::from(found_v2(input, kind, form, also)).ok_or_else(|| why_not(input, kind, form))
}

/// The readings of `input` as a v2 id; when `also` is `Some(now)` and no
/// flag names a form or kind, as a sno string too, and as a flake id (its
/// int of 19 digits, or 16 hex digits) of a time no more than a day after
/// `now`: what
/// `gen --remote --flake` prints, which from 2028 on is also a local id of
/// drift code 1 (a flake id's top bits are its time's), and without this
/// would read as that alone. A flake id of a time ahead is no clock's, and
/// no reading (so a local id of the default drift code, whose value reads
/// as a flake id of 2062 or later, stays unambiguous).
fn found_v2(input: &[u8], kind: Option<Kind>, form: Option<Form>, also: Option<u64>) -> Found {
    let mut found = readings(input, kind, form);
    let Some(now) = also.filter(|_| kind.is_none() && form.is_none()) else {
        return found;
    };
    if let Ok(id) = Sno::parse_bytes(input) {
        found.push(Form::String, Id::Sno(id));
    }
    // As gen prints them: 16 hex digits, or 19 decimal digits (a flake id
    // of 2018 to 2080); not every shorter number.
    let shape = match input.len() {
        16 => input.iter().all(u8::is_ascii_hexdigit),
        19 => input.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    let rule = Rule { strict: false, now };
    if let Some(flake) = decode_flake(input, None)
        .ok()
        .filter(|r| shape && !rule.ahead(r.id))
    {
        found.push(flake.form, flake.id);
    }
    found
}

/// What `input` reads as, if anything: [`decode_in`] without the cost of
/// saying why not, for searching text where most words are no id.
pub fn find_in(
    input: &[u8],
    kind: Option<Kind>,
    form: Option<Form>,
    v3: bool,
    also: Option<u64>,
) -> Option<Decoded> {
    if v3 || is_uuid(input, form) {
        let form = if v3 { form } else { Some(Form::Uuid) };
        return found_v3(input, kind, form).ok().and_then(Decoded::from);
    }
    Decoded::from(found_v2(input, kind, form, also))
}

/// The readings that gave an id, one per different id, in a fixed array
/// as this runs for every line; and every spelling the input is valid in,
/// those of the same id too.
#[derive(Clone, Copy, Debug)]
struct Found {
    /// The first `n` are the readings.
    found: [Reading; READINGS.len() + 1],
    /// How many there are.
    n: usize,
    /// A bit per [`Spelling`] the input is valid in.
    valid: u8,
}

impl Found {
    /// None yet.
    fn new() -> Found {
        // A filler for the unused slots: never read.
        let none = Reading {
            form: Form::Json,
            id: Id::G(Guid::MIN),
        };
        Found {
            found: [none; READINGS.len() + 1],
            n: 0,
            valid: 0,
        }
    }

    /// The readings.
    fn readings(&self) -> &[Reading] {
        &self.found[..self.n]
    }

    /// Adds a reading that gave `id`, unless an earlier one gave it.
    fn push(&mut self, form: Form, id: Id) {
        let reading = Reading { form, id };
        self.valid |= reading.spelling().map_or(0, Spelling::bit);
        if !self.readings().iter().any(|r| r.id == id) && self.n < self.found.len() {
            self.found[self.n] = reading;
            self.n += 1;
        }
    }
}

/// The v2 readings the flags allow that give an id.
fn readings(input: &[u8], kind: Option<Kind>, form: Option<Form>) -> Found {
    let mut found = Found::new();
    for (f, k) in READINGS {
        if form.is_some_and(|form| form != f) || kind.is_some_and(|kind| kind != k) {
            continue;
        }
        if let Some(id) = parse(input, f, k) {
            found.push(f, id);
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

/// Reads `input` as a v3 id of the generation `v3` says, or a v2 one (a
/// sno string and a flake id too, by `also`: see [`decode`]).
pub fn decode_in(
    input: &[u8],
    kind: Option<Kind>,
    form: Option<Form>,
    v3: bool,
    also: Option<u64>,
) -> Result<Decoded, String> {
    if v3 {
        decode_v3(input, kind, form)
    } else {
        decode(input, kind, form, also)
    }
}

/// Reads `input` as a v3 id. v3's fixed widths tell the form by the
/// length: 16 characters are a sortable string, 36 a UUID (a 128-bit id),
/// 11, 17 and 22 base62 (local, global, 128-bit), 24 and 32 hex (global,
/// 128-bit), other runs of up to 20 digits an int (local), and a JSON
/// string is read as the id its contents are. Every v3 local string is
/// also a global one, so 16 characters, bare or in JSON, are read as both
/// kinds (and as a local id's 16 hex digits), unless `--as` or `--from`
/// says otherwise: several readings, read as v2's are.
pub fn decode_v3(input: &[u8], kind: Option<Kind>, form: Option<Form>) -> Result<Decoded, String> {
    let found = found_v3(input, kind, form)?;
    if let Some(decoded) = Decoded::from(found) {
        return Ok(decoded);
    }
    // The error of the reading the length suggests.
    let (form, kind) = v3_reading(input, kind, form)?;
    match reading(input, form, kind, true) {
        Err(why) => Err(why.to_string()),
        Ok(_) => Err("not an id".to_owned()),
    }
}

/// The form a v3 input is read in and the kinds it may be, global first;
/// an error for an input of no v3 form's length.
fn v3_forms(input: &[u8], form: Option<Form>) -> Result<(Form, &'static [Kind]), String> {
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
    let kinds: &[Kind] = match (form, len) {
        (Form::Uuid, _) | (_, 36) => &[Kind::X],
        (Form::String | Form::Json, 16) => &[Kind::G, Kind::L],
        (Form::Base62, 11) | (Form::Hex, 16) | (Form::Int, _) => &[Kind::L],
        (Form::Base62, 22) | (Form::Hex, 32) => &[Kind::X],
        _ => &[Kind::G],
    };
    Ok((form, kinds))
}

/// The one reading whose error a v3 input that reads as nothing reports.
fn v3_reading(
    input: &[u8],
    kind: Option<Kind>,
    form: Option<Form>,
) -> Result<(Form, Kind), String> {
    let (form, kinds) = v3_forms(input, form)?;
    Ok((form, kind.unwrap_or(kinds[0])))
}

/// The v3 readings of `input` the flags allow (see [`decode_v3`]).
fn found_v3(input: &[u8], kind: Option<Kind>, form: Option<Form>) -> Result<Found, String> {
    let (f, kinds) = v3_forms(input, form)?;
    let mut found = Found::new();
    let mut try_read = |f: Form, k: Kind| {
        if let Ok(id) = reading(input, f, k, true) {
            found.push(f, id);
        }
    };
    match kind {
        Some(k) => try_read(f, k),
        None => kinds.iter().for_each(|&k| try_read(f, k)),
    }
    // 16 hex digits are a local id's too.
    let hex = input.len() == 2 * v3::Luid::BYTES && input.iter().all(u8::is_ascii_hexdigit);
    if form.is_none() && f == Form::String && hex && kind.is_none_or(|k| k == Kind::L) {
        try_read(Form::Hex, Kind::L);
    }
    Ok(found)
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

/// One v2 reading, with the error's text (what [`parse`] is checked
/// against).
#[cfg(test)]
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
        Form::Object => Err(Why::Said("an object is read whole, by its kind and hex")),
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

/// The refusal of an input that reads as several different ids, naming
/// each reading with the flags that pick it.
fn ambiguous(readings: &[Reading]) -> String {
    let readings: Vec<String> = readings
        .iter()
        .map(|r| format!("{} ({})", r.what(), r.flags(readings)))
        .collect();
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
    match reading(input, form, kind, false) {
        // No guid id has drift code 0 in its top bits; a flake id's int
        // and hex do (for its first 68 years).
        Err(Why::Id(e))
            if e.kind() == guid::ErrorKind::Drift && matches!(form, Form::Int | Form::Hex) =>
        {
            let flake = decode_flake(input, Some(form)).is_ok();
            format!(
                "drift code 0, which no clock makes: no {} id{}",
                kind.noun(),
                if flake {
                    " (a flake id, as gen --remote --flake prints, reads with --flake)"
                } else {
                    ""
                }
            )
        }
        Err(why) => why.to_string(),
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
    // Hex digits alone, as many as hex has: hex, though a string's
    // alphabet holds them too.
    if fits(Form::Hex)
        && input.iter().all(u8::is_ascii_hexdigit)
        && !input.iter().all(u8::is_ascii_digit)
    {
        return Ok(Form::Hex);
    }
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
        Form::Uuid | Form::Object => false,
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
        let shows = |input: &[u8]| match decode(input, None, None, Some(0)) {
            Ok(Decoded::One { shows, .. }) => shows,
            other => panic!("{other:?}"),
        };
        assert_eq!(shows(b"N...0ngIdY...1.."), Some(Spelling::String));
        assert_eq!(shows(b"600000073b13a63000002000"), Some(Spelling::Hex));
        assert_eq!(shows(b"2vdt4d2222222222"), Some(Spelling::Sno));
        assert_eq!(shows(br#""N...0ngIdY...1..""#), None);
        let Ok(Decoded::Several(several)) = decode(b"NlpJwpyS1Q9vEZ12", None, None, Some(0)) else {
            panic!("ambiguous");
        };
        let now = guid::unix_nanos(std::time::SystemTime::now());
        let mut evidence = Evidence::default();
        assert!(evidence.read(&several, now).is_err());
        evidence.add(Spelling::Hex);
        assert!(
            evidence
                .read(&several, now)
                .is_err_and(|e| e.contains("show hex"))
        );
        let mut evidence = Evidence::default();
        evidence.add(Spelling::Base62);
        let read = evidence.read(&several, now).map(|c| c.reading.form);
        assert_eq!(read, Ok(Form::Base62));
        evidence.add(Spelling::String);
        assert!(
            evidence
                .read(&several, now)
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

    /// Every form of `id`, as `gen` writes it.
    fn forms<I: guid::Id + serde::Serialize>(id: I) -> Vec<(Form, Vec<u8>)> {
        let mut forms = vec![
            (Form::String, id.to_string().into_bytes()),
            (Form::Base62, id.to_base62().into_bytes()),
            (
                Form::Hex,
                data_encoding::HEXLOWER
                    .encode(id.to_bytes().as_ref())
                    .into_bytes(),
            ),
            (Form::Json, serde_json::to_vec(&id).expect("JSON")),
        ];
        if I::BITS == 64 {
            forms.push((Form::Int, id.to_u128().to_string().into_bytes()));
        }
        forms
    }

    /// Asserts `text` alone, without flags but `--v3`, reads as `id`, in
    /// `form`, an hour after `id` was made.
    fn reads_alone(id: Id, form: Form, text: &[u8], v3: bool) {
        let rule = Rule {
            strict: false,
            now: id.time() + 3_600_000_000_000,
        };
        let also = (!v3).then_some(rule.now);
        let reading = match decode_in(text, None, None, v3, also) {
            Ok(Decoded::One { reading, .. }) => reading,
            Ok(Decoded::Several(several)) => {
                let choice = several.choose(Evidence::default(), rule);
                choice.expect("a guess").reading
            }
            Err(e) => panic!("{e}"),
        };
        let text = String::from_utf8_lossy(text);
        assert_eq!(reading, Reading { form, id }, "{text}");
    }

    /// An id alone reads as made, in every form, at times from 2000 to
    /// 2100, an hour later: of the default drift code in v2, of every code
    /// in v3, and sno ids. Where a v2 id of another code meets another
    /// reading, the default code is the likelier (the same text is both).
    #[test]
    fn a_lone_id_reads_as_made() {
        const YEAR: u64 = 365 * 86400 * 1_000_000_000;
        let mut state = 0x1234_5678_9abc_def0_u64;
        let mut random = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for year in 30..130 {
            let time = year * YEAR + random() % YEAR;
            let seq = (random() % 16384) as u16;
            let drift = guid::Drift::DEFAULT;
            let g = Guid::compose(random() as u32, time, seq, drift).expect("id");
            let l = Luid::compose(time, seq, drift).expect("id");
            for (form, text) in forms(g) {
                reads_alone(Id::G(g), form, &text, false);
            }
            for (form, text) in forms(l) {
                reads_alone(Id::L(l), form, &text, false);
            }
            for code in 0..=7 {
                let drift = v3::Drift::new(code).expect("a v3 code");
                let g = v3::Guid::compose(random() as u32, time, seq, drift).expect("id");
                let l = v3::Luid::compose(time, seq, drift).expect("id");
                let x = v3::Xuid::compose(random() >> 6, time, seq, drift).expect("id");
                for (form, text) in forms(g) {
                    reads_alone(Id::G3(g), form, &text, true);
                }
                for (form, text) in forms(l) {
                    reads_alone(Id::L3(l), form, &text, true);
                }
                for (form, text) in forms(x) {
                    let form = if form == Form::String {
                        Form::Uuid
                    } else {
                        form
                    };
                    reads_alone(Id::X(x), form, &text, true);
                }
            }
            if (40..109).contains(&year) {
                let (meta, partition) = (random() as u8, random() as u16);
                let sno = Sno::compose(time, year % 2 == 0, meta, partition, seq).expect("id");
                reads_alone(
                    Id::Sno(sno),
                    Form::String,
                    sno.to_string().as_bytes(),
                    false,
                );
            }
        }
    }

    /// A flake id of noeqd's layout from 2028 on is also a local id of
    /// drift code 1 (a flake id's top bits are its time's): alone, without
    /// flags, it reads as the flake id, the local one noted, as its int and
    /// as its hex. A local id of the default drift code is a flake id of
    /// 2062 or later, no clock's: no flake reading, not ambiguous.
    #[test]
    fn a_flake_id_of_2028_on_is_no_local_id() {
        let layout = guid::flake::Layout::NOEQD;
        // 2030-01-01, an hour before now.
        let time = 1_893_456_000_000_000_000_u64;
        let now = time + 3_600_000_000_000;
        let units = layout.units(std::time::UNIX_EPOCH + std::time::Duration::from_nanos(time));
        let id = layout.compose(units, 3 << 5 | 9, 7).expect("a flake id");
        let rule = Rule { strict: false, now };
        for text in [id.to_string(), format!("{id:016x}")] {
            let Ok(Decoded::Several(several)) = decode(text.as_bytes(), None, None, Some(now))
            else {
                panic!("{text}: a local id too");
            };
            let choice = several.choose(Evidence::default(), rule).expect("read");
            assert_eq!(choice.reading.id, Id::Flake(id), "{text}");
            let note = choice.guess.expect("a guess").note();
            assert!(note.contains("of a local id (--from"), "{note}");
            // --strict refuses it; --from and --as read the local id.
            let strict = Rule { strict: true, now };
            assert!(several.choose(Evidence::default(), strict).is_err());
            let local = decode(text.as_bytes(), Some(Kind::L), None, Some(now));
            assert!(
                matches!(local, Ok(Decoded::One { reading, .. }) if reading.id.kind() == Some(Kind::L))
            );
        }
        let l = Luid::compose(time, 7, guid::Drift::DEFAULT).expect("id");
        let hex = data_encoding::HEXLOWER.encode(&l.to_bytes());
        for text in [l.to_u64().to_string(), hex] {
            let read = decode(text.as_bytes(), None, None, Some(now));
            assert!(
                matches!(read, Ok(Decoded::One { reading, .. }) if reading.id == Id::L(l)),
                "{text}"
            );
        }
    }
}
