//! `guid inspect`: decode ids and describe each as a JSON object.

use std::io::{self, BufRead, BufReader, IsTerminal, Write};

use crate::cli::InspectArgs;
use crate::extract::{Scanner, Token};
use guid::sno::Sno;

use crate::form::{self, Choice, Decoded, Evidence, Form, Guess, Reading, Rule};
use crate::id::{Id, Kind};
use crate::output::{self, Cut, Fail, Quoted, Status};

/// The longest line of standard input read as an id. No form is longer
/// than 38 characters (the JSON of a v3 UUID), no object `inspect` prints
/// than about 400; the rest is room for indentation and padding. A longer
/// line is reported as a bad id without being held in memory.
pub const LINE_MAX: usize = 1024;

/// The most lines held while no line has shown a form: then they are read
/// by likelihood (or refused, `--strict`), as at the end of the input.
pub const HOLD_MAX: usize = 1024;

/// Describes each id given, or each line of standard input if none is (or
/// for each `-`). A bad id is reported and skipped; the status says
/// whether there was one.
pub fn run(args: &InspectArgs, out: &mut impl Write) -> Result<Status, Fail> {
    if args.flake
        && args
            .from
            .is_some_and(|f| !matches!(f, Form::Int | Form::Hex | Form::Object))
    {
        output::error(format_args!(
            "--flake goes with --from int, hex or object only: {}",
            form::FLAKE_FORMS
        ));
        return Ok(Status::Usage);
    }
    let mut inspect = Inspect {
        args,
        out,
        good: true,
        line: 0,
        evidence: Evidence::default(),
        held: Vec::new(),
        rule: Rule {
            strict: args.strict,
            now: guid::unix_nanos(std::time::SystemTime::now()),
        },
        noted: Vec::new(),
    };
    if args.ids.is_empty() {
        inspect.stdin()?;
    }
    for id in &args.ids {
        if id == "-" {
            inspect.stdin()?;
        } else {
            inspect.text(id.as_encoded_bytes())?;
            inspect.line += 1;
        }
    }
    // What no evidence came for is reported.
    inspect.release()?;
    inspect.out.flush()?;
    Ok(if inspect.good {
        Status::Done
    } else {
        Status::BadInput
    })
}

/// One run of `guid inspect`.
struct Inspect<'a, W> {
    /// The flags.
    args: &'a InspectArgs,
    /// Where the objects go.
    out: &'a mut W,
    /// Whether every id so far was read.
    good: bool,
    /// Lines done so far, each argument counted as one.
    line: u64,
    /// The spellings the unambiguous ids so far have shown.
    evidence: Evidence,
    /// The ids read before any evidence, from the first ambiguous one on,
    /// each with what it reads as: written, in order, once evidence comes.
    held: Vec<(Vec<u8>, Result<Decoded, String>)>,
    /// How an ambiguous id that the evidence does not decide is read.
    rule: Rule,
    /// The kinds of guess noted so far: each is noted once.
    noted: Vec<Vec<(Form, Option<Kind>)>>,
}

impl<W: Write> Inspect<'_, W> {
    /// Reads standard input to its end, line by line.
    fn stdin(&mut self) -> Result<(), Fail> {
        // A person typing or pasting ids at a terminal is answered line by
        // line: nothing is held for a line that may never come.
        let typed = io::stdin().is_terminal();
        let mut stdin = BufReader::with_capacity(64 * 1024, io::stdin().lock());
        let mut line = Line::default();
        let mut scanner = Scanner::new(self.args.v3);
        loop {
            // Before waiting for more input, show what is done (pipes that
            // trickle, `tail -f`, or a person typing).
            if stdin.buffer().is_empty() {
                self.out.flush()?;
            }
            if self.args.extract {
                let each = |part: &[u8]| part.iter().try_for_each(|&b| self.found(scanner.byte(b)));
                if !read_line(&mut stdin, each)? {
                    return Ok(());
                }
                self.found(scanner.end_line())?;
            } else {
                if !line.read(&mut stdin)? {
                    return Ok(());
                }
                self.one_line(&line)?;
                if typed {
                    self.release()?;
                }
            }
            self.line += 1;
        }
    }

    /// Describes one line of standard input read whole (up to [`LINE_MAX`]).
    fn one_line(&mut self, line: &Line) -> Result<(), Fail> {
        // Blank lines separate, they are not ids.
        if line.blank {
            return Ok(());
        }
        if line.len > LINE_MAX as u64 {
            output::error(format_args!(
                "invalid id {}: line too long: an id has at most 38 characters, \
                 and a line over {LINE_MAX} bytes is skipped",
                Cut(line.head.trim_ascii_start(), line.len)
            ));
            self.good = false;
            return Ok(());
        }
        self.text(line.head.trim_ascii())
    }

    /// Describes an argument or a line: one id, or with --extract, the ids
    /// in it.
    fn text(&mut self, text: &[u8]) -> Result<(), Fail> {
        if !self.args.extract {
            return self.describe(text.trim_ascii());
        }
        let mut scanner = Scanner::new(self.args.v3);
        for &b in text {
            self.found(scanner.byte(b))?;
        }
        self.found(scanner.end_line())
    }

    /// The id to describe: with --from-v2, the v3 id of the v2 one read.
    fn converted(&self, id: Id) -> Id {
        if self.args.from_v2 { id.to_v3() } else { id }
    }

    /// Writes the object of one id, or reports why it is not one: at once,
    /// or, while an ambiguous id waits for evidence, after it.
    fn describe(&mut self, input: &[u8]) -> Result<(), Fail> {
        let args = self.args;
        let object = input.first() == Some(&b'{') && args.from.is_none_or(|f| f == Form::Object);
        let read = if object || args.from == Some(Form::Object) {
            form::decode_object(input, args.kind, args.v3).map(Decoded::of)
        } else if args.flake {
            form::decode_flake(input, args.from).map(Decoded::of)
        } else if args.sno {
            Sno::parse_bytes(input)
                .map(|id| {
                    Decoded::of(Reading {
                        form: Form::String,
                        id: Id::Sno(id),
                    })
                })
                .map_err(|e| format!("not a sno string: {e}"))
        } else {
            let also = (!args.from_v2).then_some(self.rule.now);
            form::decode_in(input, args.kind, args.from, args.v3, also)
        };
        if let Ok(Decoded::One {
            shows: Some(spelling),
            ..
        }) = read
        {
            self.evidence.add(spelling);
        }
        let ambiguous = matches!(read, Ok(Decoded::Several(_)));
        if self.evidence.is_empty() && (ambiguous || !self.held.is_empty()) {
            self.held.push((input.to_vec(), read));
            // Held lines take memory: past HOLD_MAX they are read as no
            // evidence lets them be.
            if self.held.len() >= HOLD_MAX {
                self.release()?;
            }
            return Ok(());
        }
        self.release()?;
        self.write(input, read)
    }

    /// Writes the ids held, in order, by the evidence so far.
    fn release(&mut self) -> Result<(), Fail> {
        for (input, read) in std::mem::take(&mut self.held) {
            self.write(&input, read)?;
        }
        Ok(())
    }

    /// Writes the object of what `input` reads as, an ambiguous id by the
    /// evidence so far or by likelihood (noted), or reports why it is no
    /// id.
    fn write(&mut self, input: &[u8], read: Result<Decoded, String>) -> Result<(), Fail> {
        let read = read.and_then(|read| match read {
            Decoded::One { reading, .. } => Ok(Choice::one(reading)),
            Decoded::Several(several) => several.choose(self.evidence, self.rule),
        });
        match read {
            Ok(choice) => {
                if let Some(guess) = &choice.guess {
                    self.note(None, input, guess);
                }
                let Reading { form, id } = choice.reading;
                self.converted(id)
                    .report()?
                    .read_as(form)
                    .write_line(self.out)?;
            }
            Err(what) => {
                output::error(format_args!("invalid id {}: {what}", Quoted(input)));
                self.good = false;
            }
        }
        Ok(())
    }

    /// Notes on standard error that `input` (a token of line `line`, with
    /// --extract) was read by likelihood, and what else it reads as; once
    /// per kind of guess.
    fn note(&mut self, line: Option<u64>, input: &[u8], guess: &Guess) {
        let class = guess.class();
        if self.noted.contains(&class) {
            return;
        }
        self.noted.push(class);
        let at = line.map_or_else(String::new, |n| format!("line {n}: "));
        let (what, later) = match (self.args.extract, guess.found_with()) {
            (true, Some((what, flag))) => (
                match guess.others() {
                    others if others.is_empty() => format!("is {what}, found with {flag}: skipped"),
                    others => {
                        format!("is {what}, found with {flag}: skipped (it is also {others})")
                    }
                },
                "later tokens like it are skipped without a note",
            ),
            (true, None) => (
                guess.note(),
                "later tokens like it are read so without a note, and --strict skips them",
            ),
            (false, _) => (
                guess.note(),
                "later ids like it are read so without a note, and --strict refuses them",
            ),
        };
        output::note(format_args!("{at}{} {what}; {later}", Quoted(input)));
    }

    /// Writes the object of a token of the current line that is an id,
    /// with the line's number; any other token is skipped, and a sno string
    /// without --sno is noted.
    fn found(&mut self, token: Option<Token<'_>>) -> Result<(), Fail> {
        let Some(token) = token else {
            return Ok(());
        };
        let args = self.args;
        let read = match (args.flake, args.sno) {
            (true, _) => token.flake(args.from).map(Decoded::of),
            (_, true) => token.sno().map(Decoded::of),
            _ => {
                let also = (!args.from_v2).then_some(self.rule.now);
                token.read(args.kind, args.from, args.v3, also)
            }
        };
        let choice = match read {
            None => return Ok(()),
            Some(Decoded::One { reading, .. }) => Choice::one(reading),
            Some(Decoded::Several(several)) => match several.choose(Evidence::default(), self.rule)
            {
                Ok(choice) => choice,
                // Read as several: skipped.
                Err(_) => return Ok(()),
            },
        };
        // Lines are numbered from 1.
        let line = self.line + 1;
        let Reading { form, id } = choice.reading;
        if self.rule.ahead(id) {
            // No clock made it: a number or a word that reads as an id.
            return Ok(());
        }
        match (id, &choice.guess) {
            // Found with --sno only: told, once.
            (Id::Sno(_), guess) if !args.sno => {
                let guess = guess
                    .clone()
                    .unwrap_or_else(|| Guess::alone(choice.reading));
                self.note(Some(line), token.text(), &guess);
                return Ok(());
            }
            // Found with --flake only: told, once, if it also reads as a
            // guid id (so many numbers are flake ids and nothing else).
            (Id::Flake(_), guess) if !args.flake => {
                if let Some(guess) = guess {
                    self.note(Some(line), token.text(), guess);
                }
                return Ok(());
            }
            _ => {}
        }
        if let Some(guess) = &choice.guess {
            self.note(Some(line), token.text(), guess);
        }
        self.converted(id)
            .report()?
            .read_as(form)
            .write_found(line, self.out)?;
        Ok(())
    }
}

/// Passes each piece of the next line of `input`, without its newline, to
/// `part`, holding none of it; `false` at the end of the input.
fn read_line(
    input: &mut impl BufRead,
    mut part: impl FnMut(&[u8]) -> Result<(), Fail>,
) -> Result<bool, Fail> {
    let mut any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Fail::Read(e)),
        };
        if buf.is_empty() {
            return Ok(any);
        }
        any = true;
        let newline = buf.iter().position(|&b| b == b'\n');
        part(&buf[..newline.unwrap_or(buf.len())])?;
        let used = newline.map_or(buf.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            return Ok(true);
        }
    }
}

/// A line of input, of which at most [`LINE_MAX`] bytes are kept.
#[derive(Default)]
struct Line {
    /// The start of the line, without its newline.
    head: Vec<u8>,
    /// The length of the whole line, without its newline.
    len: u64,
    /// Whether the whole line is whitespace.
    blank: bool,
}

impl Line {
    /// Reads the next line; `false` at the end of the input.
    fn read(&mut self, input: &mut impl BufRead) -> Result<bool, Fail> {
        self.head.clear();
        self.len = 0;
        self.blank = true;
        read_line(input, |part| {
            let room = LINE_MAX.saturating_sub(self.head.len());
            self.head.extend_from_slice(&part[..part.len().min(room)]);
            self.len += part.len() as u64;
            if self.blank {
                self.blank = part.iter().all(u8::is_ascii_whitespace);
            }
            Ok(())
        })
    }
}
