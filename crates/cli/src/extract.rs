//! `guid inspect --extract`: the ids in a line of text, such as a log line.
//!
//! A token is a maximal run of the bytes ids are written with (ASCII
//! letters, digits, `.` and `_`, and under `--v3` the UUID's `-`). A run written `"*RUN"` is read with its
//! quotes and star, which only the JSON of a local id has; a run written
//! `"RUN"` is read as JSON under `--from json`, and alone otherwise (the JSON
//! of a global id is its sortable string in quotes, so alone it reads the
//! same). Every other run is read alone. Each is read as `inspect` reads an
//! id alone, by the same rule (`form`'s docs): of several readings, the
//! likeliest; a sno string is found only with `--sno`.
//!
//! Lines arrive in pieces of any size; only the current run is kept, and
//! only up to the longest id, so a line of any length takes bounded memory.

use crate::form::{self, Decoded, Form, Reading};
use crate::id::{Id, Kind};

/// The shortest run that can be an id: 11 base62 digits of a local id.
const RUN_MIN: usize = 11;

/// The longest run that can be a v2 id: 24 hex digits of a global id.
const RUN_MAX_V2: usize = 24;

/// The longest run that can be a v3 id: the UUID of a 128-bit id.
const RUN_MAX: usize = 36;

/// Whether ids are written with `b`: the sortable string's alphabet, which
/// holds those of base62, hex and int, and in v3 the UUID's `-`.
fn id_byte(b: u8, v3: bool) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || (v3 && b == b'-')
}

/// How a run is enclosed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quote {
    /// Neither of the others.
    Bare,
    /// `"RUN"`.
    Quoted,
    /// `"*RUN"`.
    Star,
}

/// Splits lines into tokens, one byte at a time.
#[derive(Debug)]
pub struct Scanner {
    /// The current run's first [`RUN_MAX`] bytes.
    run: [u8; RUN_MAX],
    /// The current run's length, which may exceed [`RUN_MAX`].
    len: usize,
    /// The two bytes before the current run (0 for none).
    before: [u8; 2],
    /// The last two bytes of this line (0 for none).
    last: [u8; 2],
    /// Whether runs are v3 ids, which may be UUIDs.
    v3: bool,
}

/// A run that may be an id, with how it was enclosed.
#[derive(Debug)]
pub struct Token<'a> {
    /// The run, without quotes.
    run: &'a [u8],
    /// Its quotes.
    quote: Quote,
}

impl Default for Scanner {
    /// A scanner for v2 ids.
    fn default() -> Scanner {
        Scanner::new(false)
    }
}

impl Scanner {
    /// A scanner for ids of v3 (UUIDs too) or v2.
    pub fn new(v3: bool) -> Scanner {
        Scanner {
            run: [0; RUN_MAX],
            len: 0,
            before: [0; 2],
            last: [0; 2],
            v3,
        }
    }

    /// Takes the next byte of the line; a run it ends may be an id.
    pub fn byte(&mut self, b: u8) -> Option<Token<'_>> {
        let before = self.last;
        self.last = [before[1], b];
        if id_byte(b, self.v3) {
            if self.len == 0 {
                self.before = before;
            }
            if let Some(slot) = self.run.get_mut(self.len) {
                *slot = b;
            }
            self.len = self.len.saturating_add(1);
            return None;
        }
        self.end(Some(b))
    }

    /// Ends the line; its last run may be an id.
    pub fn end_line(&mut self) -> Option<Token<'_>> {
        self.last = [0; 2];
        self.end(None)
    }

    /// Ends the current run, which `after` follows: a token if its length
    /// is one an id can have.
    fn end(&mut self, after: Option<u8>) -> Option<Token<'_>> {
        let len = std::mem::take(&mut self.len);
        let longest = if self.v3 { RUN_MAX } else { RUN_MAX_V2 };
        if !(RUN_MIN..=longest).contains(&len) {
            return None;
        }
        // A quote closes the run, or its escape inside a JSON string (the
        // "json" field of inspect's objects: `"\"*…\""`).
        let closed = matches!(after, Some(b'"' | b'\\'));
        let quote = match (self.before, closed) {
            ([b'"', b'*'], true) => Quote::Star,
            ([_, b'"'], true) => Quote::Quoted,
            _ => Quote::Bare,
        };
        Some(Token {
            run: &self.run[..len],
            quote,
        })
    }
}

impl Token<'_> {
    /// The run, as the notes quote it.
    pub fn text(&self) -> &[u8] {
        self.run
    }

    /// What this token reads as under the flags, if anything, as `inspect`
    /// reads a line; a sno string and a flake id too by `also` (see
    /// `form::decode`: to tell them, not to find them).
    pub fn read(
        &self,
        kind: Option<Kind>,
        from: Option<Form>,
        v3: bool,
        also: Option<u64>,
    ) -> Option<Decoded> {
        let quoted = |star: bool| {
            let mut text = [0; RUN_MAX + 3];
            let open: &[u8] = if star { b"\"*" } else { b"\"" };
            let len = open.len() + self.run.len() + 1;
            text[..open.len()].copy_from_slice(open);
            text[open.len()..len - 1].copy_from_slice(self.run);
            text[len - 1] = b'"';
            form::find_in(&text[..len], kind, from, v3, None)
        };
        match self.quote {
            Quote::Star => quoted(true),
            Quote::Quoted if from == Some(Form::Json) => quoted(false),
            _ => form::find_in(self.run, kind, from, v3, also),
        }
    }

    /// The flake id this token is (`--flake`): a bare run of 16 hex digits
    /// or of decimal digits, as `inspect --flake` reads a line.
    pub fn flake(&self, from: Option<Form>) -> Option<Reading> {
        match self.quote {
            Quote::Star => None,
            _ => form::decode_flake(self.run, from).ok(),
        }
    }

    /// The sno id this token is (`--sno`): a bare run of 16 characters of
    /// sno's alphabet.
    pub fn sno(&self) -> Option<Reading> {
        match self.quote {
            Quote::Star => None,
            _ => guid::sno::Sno::parse_bytes(self.run)
                .ok()
                .map(|id| Reading {
                    form: Form::String,
                    id: Id::Sno(id),
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `line`, as text with the quotes they are read with.
    fn tokens(line: &[u8]) -> Vec<String> {
        let mut scanner = Scanner::default();
        let mut found = Vec::new();
        let mut keep = |token: Option<Token<'_>>| {
            if let Some(t) = token {
                let run = String::from_utf8_lossy(t.run);
                found.push(match t.quote {
                    Quote::Bare => run.into_owned(),
                    Quote::Quoted => format!("\"{run}\""),
                    Quote::Star => format!("\"*{run}\""),
                });
            }
        };
        for &b in line {
            keep(scanner.byte(b));
        }
        keep(scanner.end_line());
        found
    }

    #[test]
    fn tokens_are_maximal_runs_of_id_bytes() {
        assert_eq!(
            tokens(b"order=N...0ngIdY...1.. at 2025-06-01T10:00:00.123456789Z ok"),
            ["N...0ngIdY...1..", "00.123456789Z"]
        );
        // Too short, too long, and 11 to 24 bytes at the ends of the line.
        assert_eq!(
            tokens(b"8F0M5kuYtDE ab 0123456789012345678901234 cdfbqcXW5qATldeS"),
            ["8F0M5kuYtDE", "cdfbqcXW5qATldeS"]
        );
        assert_eq!(
            tokens(br#"{"a":"N...0ngIdY...1..","b":"*N............1..","c":*N............1..}"#),
            [
                r#""N...0ngIdY...1..""#,
                r#""*N............1..""#,
                "N............1.."
            ]
        );
        assert_eq!(tokens(b""), Vec::<String>::new());
    }

    /// A run far longer than any id is dropped without being kept.
    #[test]
    fn a_long_run_is_no_token() {
        let mut line = vec![b'a'; 1 << 20];
        line.extend_from_slice(b" 8F0M5kuYtDE");
        assert_eq!(tokens(&line), ["8F0M5kuYtDE"]);
    }

    #[test]
    fn tokens_read_as_inspect_reads() {
        let one = |decoded: Option<Decoded>| match decoded {
            Some(Decoded::One { reading, .. }) => Some((reading.form, reading.id)),
            _ => None,
        };
        let id = |line: &[u8], from: Option<Form>| {
            let mut scanner = Scanner::default();
            let mut ids = Vec::new();
            for &b in line {
                ids.extend(
                    scanner
                        .byte(b)
                        .and_then(|t| one(t.read(None, from, false, None))),
                );
            }
            ids.extend(
                scanner
                    .end_line()
                    .and_then(|t| one(t.read(None, from, false, None))),
            );
            ids
        };
        let decode = |input: &[u8]| one(form::decode(input, None, None, None).ok());
        let local = decode(b"5...........1...").map(|(_, id)| (Form::Json, id));
        assert_eq!(id(br#"x="*N............1..""#, None), Vec::from_iter(local));
        let global = decode(b"N...0ngIdY...1..");
        assert!(global.is_some());
        for from in [None, Some(Form::Json), Some(Form::String)] {
            let want = global.map(|(_, id)| (from.unwrap_or(Form::String), id));
            assert_eq!(
                id(br#"x="N...0ngIdY...1..""#, from),
                Vec::from_iter(want),
                "{from:?}"
            );
        }
        assert_eq!(id(b"N...0ngIdY...1..", Some(Form::Json)), []);
    }
}
