//! A line valid in several forms that give different ids (ambiguous) is
//! read by the evidence of its stream: in the one form shown by the lines
//! valid in one form only, held until such a line comes; when the lines
//! show several forms, or none by the end, it is read as the likeliest,
//! noted, or under --strict refused.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use common::{command, guid, guid_stdin, inspected};
use guid::{Drift, Guid, Id};
use serde_json::Value;

/// The exit status of input that is no id, or reads as several.
const BAD_ID: i32 = 3;

/// A global string without '.' or '_', also 16-digit base62.
const AMBIGUOUS: &str = "NlpJwpyS1Q9vEZ12";

/// Another, of a later sequence.
const AMBIGUOUS_2: &str = "NlpJwpyS1Q9vEZ13";

/// A global string with '.': it shows the string.
const STRING: &str = "N...0ngIdY...1..";

/// The JSON of a local id: it shows no form.
const JSON: &str = r#""*N............1..""#;

/// 24 hex digits of a global id: it shows hex.
const HEX: &str = "600000073b13a63000002000";

/// A sno string that is no other id (a 2 first: drift code 0).
const SNO: &str = "2vdt4d2222222222";

/// 17-digit base62 of a global id: it shows base62.
fn base62_17() -> String {
    let id = Guid::compose(u32::MAX, u64::MAX, 1, Drift::MAX).expect("id");
    let base62 = id.to_base62();
    assert_eq!(base62.len(), 17);
    base62
}

/// Each object's `form` and the field of that form (`string` for sno),
/// in order.
fn read(run: &common::Run) -> Vec<(String, String)> {
    run.objects()
        .iter()
        .map(|o| {
            let form = o["form"].as_str().expect("form").to_owned();
            // No field is named int or uuid.
            let text = o[form.as_str()].as_str().unwrap_or_default().to_owned();
            (form, text)
        })
        .collect()
}

/// `(form, line)` pairs of lines read as written.
fn as_written(form: &str, lines: &[&str]) -> Vec<(String, String)> {
    lines
        .iter()
        .map(|l| (form.to_owned(), (*l).to_owned()))
        .collect()
}

/// Runs `inspect flags` on `lines` and checks it against the rule as the
/// tests tell it (`common::inspected`): the objects and refusals, in order.
fn check(flags: &[&str], lines: &[&str]) -> common::Run {
    let stdin: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let run = guid_stdin(["inspect"].iter().chain(flags), stdin.as_bytes());
    let want = inspected(lines, flags);
    let mut objects = run.objects().into_iter();
    let mut errors = run.stderr.lines().filter(|l| !l.starts_with("note: "));
    for (line, want) in lines.iter().zip(&want) {
        match want {
            Some(want) => {
                let mut got = objects.next().unwrap_or_else(|| panic!("{line}: {run:?}"));
                let o = got.as_object_mut().expect("an object");
                o.remove("time");
                o.remove("form");
                assert_eq!(&got, want, "{line}");
            }
            None => {
                let error = errors.next().unwrap_or_else(|| panic!("{line}: {run:?}"));
                assert!(error.contains(&format!("'{line}'")), "{error}");
            }
        }
    }
    assert_eq!((objects.next(), errors.next()), (None, None), "{run:?}");
    let refused = want.iter().any(Option::is_none);
    assert_eq!(run.code, if refused { BAD_ID } else { 0 }, "{run:?}");
    run
}

/// `gen --format base62` prints 16 digits, every one also a string: alone
/// they show no form, and are read as base62, the likelier (the string of
/// each has another drift code), noted once; --strict refuses each, never
/// reading it as another id. A line that shows base62 (17 digits), before
/// or after them, has them all read as base62, in order, unnoted.
#[test]
fn base62_reads_back_when_a_line_shows_it() {
    let made = guid(["gen", "--format", "base62", "-n", "300"]);
    let lines = made.lines();
    assert!(lines.iter().all(|l| l.len() == 16), "{lines:?}");
    let run = check(&[], &lines);
    assert_eq!(read(&run), as_written("base62", &lines));
    assert_eq!(run.stderr.lines().count(), 1, "noted once: {run:?}");
    assert!(run.stderr.starts_with("note: ") && run.stderr.contains("(--from string)"));
    let run = guid_stdin(["inspect", "--strict"], made.stdout.as_bytes());
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (BAD_ID, ""),
        "none misread"
    );
    assert_eq!(run.stderr.lines().count(), 300);
    for (e, line) in run.stderr.lines().zip(&lines) {
        for needle in [&format!("'{line}'"), "ambiguous", "--from base62"] {
            assert!(e.contains(needle), "{needle} in {e}");
        }
    }
    // One line alone is refused too.
    let run = guid(["inspect", "--strict", lines[0]]);
    assert_eq!((run.code, run.stdout.as_str()), (BAD_ID, ""), "{run:?}");

    let long = base62_17();
    for flags in [&[][..], &["--strict"]] {
        for all in [
            [&lines[..], &[long.as_str()]].concat(),
            [&[long.as_str()], &lines[..]].concat(),
            [&lines[..150], &[long.as_str()], &lines[150..]].concat(),
        ] {
            let run = check(flags, &all);
            assert_eq!((run.code, run.stderr.as_str()), (0, ""));
            assert_eq!(read(&run), as_written("base62", &all));
        }
    }
}

/// `gen --sno` prints strings that are also global strings: alone they
/// show no form, and are read as sno ids (a global string is almost never
/// spelled in sno's alphabet), noted once; --strict refuses each, naming
/// --sno, never reading it as another id. A sno string that is no other id
/// shows sno: then all are read, unnoted.
#[test]
fn sno_reads_back_when_a_line_shows_it() {
    let made = guid(["gen", "--sno", "-n", "300"]);
    let lines = made.lines();
    let run = check(&[], &lines);
    assert!(run.objects().iter().all(|o| o["kind"] == "sno"), "{run:?}");
    assert_eq!(read(&run), as_written("string", &lines));
    assert_eq!(run.stderr.lines().count(), 1, "noted once: {run:?}");
    let run = guid_stdin(["inspect", "--strict"], made.stdout.as_bytes());
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (BAD_ID, ""),
        "none misread"
    );
    assert_eq!(run.stderr.lines().count(), 300);
    assert!(run.stderr.lines().all(|e| e.contains("--sno")), "{run:?}");

    for flags in [&[][..], &["--strict"]] {
        for all in [[&lines[..], &[SNO]].concat(), [&[SNO], &lines[..]].concat()] {
            let run = check(flags, &all);
            assert_eq!((run.code, run.stderr.as_str()), (0, ""));
            assert!(run.objects().iter().all(|o| o["kind"] == "sno"));
            assert_eq!(read(&run), as_written("string", &all));
        }
    }
}

/// Lines of two forms: under --strict the ambiguous lines after them are
/// refused, naming the readings, their flags and the forms shown; those
/// before are read by the first, as it was then the one shown. Without
/// it they are read as the likeliest, noted.
#[test]
fn a_mixed_stream_refuses_its_ambiguous_lines() {
    let long = base62_17();
    let run = check(&["--strict"], &[STRING, &long, AMBIGUOUS]);
    assert_eq!(
        read(&run),
        [
            as_written("string", &[STRING]),
            as_written("base62", &[&long])
        ]
        .concat()
    );
    let error = run.stderr.trim_end();
    for needle in [
        &format!("invalid id '{AMBIGUOUS}'"),
        "ambiguous",
        "--from string",
        "--from base62",
        "several forms: string, base62",
    ] {
        assert!(error.contains(needle), "{needle} in {error}");
    }

    let run = check(&["--strict"], &[AMBIGUOUS, STRING, &long, AMBIGUOUS_2]);
    assert_eq!(as_written("string", &[AMBIGUOUS, STRING]), read(&run)[..2]);
    assert!(run.stderr.contains(AMBIGUOUS_2), "{run:?}");

    let run = check(&[], &[STRING, &long, AMBIGUOUS, AMBIGUOUS_2]);
    let read = read(&run);
    assert_eq!(read[2..], as_written("string", &[AMBIGUOUS, AMBIGUOUS_2]));
    let notes: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(notes.len(), 1, "{run:?}");
    for needle in [
        &format!("note: '{AMBIGUOUS}'"),
        "(--from base62)",
        "--strict",
    ] {
        assert!(notes[0].contains(needle), "{needle} in {run:?}");
    }
}

/// A form shown that an ambiguous line has no reading in is no evidence
/// for it: under --strict refused, saying so; without, read as the
/// likeliest.
#[test]
fn a_form_it_is_not_is_no_evidence() {
    for lines in [[HEX, AMBIGUOUS], [AMBIGUOUS, HEX]] {
        let run = check(&["--strict"], &lines);
        assert_eq!(read(&run), as_written("hex", &[HEX]));
        assert!(run.stderr.contains("show hex, which it is not"), "{run:?}");
        let run = check(&[], &lines);
        assert_eq!(run.objects().len(), 2, "{run:?}");
    }
}

/// Ambiguous lines before any evidence are held, and the lines after them
/// wait with them: the objects come in the order of the lines, the held
/// ones read in the form the first line that shows one shows.
#[test]
fn held_lines_keep_the_input_order() {
    let lines = [
        AMBIGUOUS,
        JSON,
        "nope",
        AMBIGUOUS_2,
        STRING,
        AMBIGUOUS,
        HEX,
        AMBIGUOUS_2,
    ];
    let run = check(&["--strict"], &lines);
    let want = [
        as_written("string", &[AMBIGUOUS]),
        as_written("json", &[JSON]),
        as_written("string", &[AMBIGUOUS_2, STRING, AMBIGUOUS]),
        as_written("hex", &[HEX]),
    ]
    .concat();
    assert_eq!(read(&run), want);
    // The bad line and the last, after two forms, in order.
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 2, "{run:?}");
    assert!(errors[0].contains("'nope'") && errors[1].contains(AMBIGUOUS_2));
    // Without --strict the last is read as the likeliest, and noted.
    let run = check(&[], &lines);
    let last = as_written("string", &[AMBIGUOUS_2]);
    assert_eq!(read(&run), [want, last].concat());
    let stderr: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(stderr.len(), 2, "{run:?}");
    assert!(stderr[0].contains("'nope'") && stderr[1].starts_with("note: "));
}

/// JSON, ints and UUIDs show no form: ambiguous lines with only them
/// are read at the end, in order, as the likeliest, or refused under
/// --strict after the others are printed.
#[test]
fn held_lines_with_no_evidence_are_read_at_the_end() {
    let int = "6917529027641090048";
    let uuid = "82fa9b21-09d4-828a-9828-e57965f04001";
    let lines = [AMBIGUOUS, JSON, int, uuid, AMBIGUOUS_2];
    let run = guid_stdin(
        ["inspect", "--strict"],
        (lines.join("\n") + "\n").as_bytes(),
    );
    assert_eq!(run.code, BAD_ID, "{run:?}");
    let forms: Vec<String> = read(&run).into_iter().map(|(f, _)| f).collect();
    assert_eq!(forms, ["json", "int", "uuid"]);
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 2, "{run:?}");
    assert!(errors[0].contains(AMBIGUOUS) && errors[1].contains(AMBIGUOUS_2));
    for e in errors {
        for needle in ["ambiguous", "--from string", "--from base62"] {
            assert!(e.contains(needle), "{needle} in {e}");
        }
    }
    let run = guid_stdin(["inspect"], (lines.join("\n") + "\n").as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let forms: Vec<String> = read(&run).into_iter().map(|(f, _)| f).collect();
    assert_eq!(forms, ["string", "json", "int", "uuid", "string"]);
    assert_eq!(run.stderr.lines().count(), 1, "noted once: {run:?}");
}

/// At most 1024 lines are held: then they are read as at the end of the
/// input, by likelihood (the string, here), and the lines after them wait
/// for evidence again (base62, shown by a 17-digit line), so memory stays
/// bounded however long a stream shows no form.
#[test]
fn held_lines_are_read_past_1024() {
    let long = base62_17();
    let lines: Vec<&str> = std::iter::repeat_n(AMBIGUOUS, 1025)
        .chain([long.as_str(), AMBIGUOUS_2])
        .collect();
    let run = guid_stdin(["inspect"], (lines.join("\n") + "\n").as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let want = [
        as_written("string", &[AMBIGUOUS; 1024]),
        as_written("base62", &[AMBIGUOUS, &long, AMBIGUOUS_2]),
    ]
    .concat();
    assert_eq!(read(&run), want);
    assert_eq!(run.stderr.lines().count(), 1, "noted once: {run:?}");
    // Under --strict the first 1024 are refused, the rest read.
    let run = guid_stdin(
        ["inspect", "--strict"],
        (lines.join("\n") + "\n").as_bytes(),
    );
    assert_eq!(run.code, BAD_ID, "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1024, "{run:?}");
    assert_eq!(read(&run), want[1024..]);
}

/// The arguments and standard input (`-`) are one stream, in order.
#[test]
fn arguments_and_standard_input_are_one_stream() {
    let run = guid_stdin(
        ["inspect", AMBIGUOUS, "-"],
        format!("{STRING}\n").as_bytes(),
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    assert_eq!(read(&run), as_written("string", &[AMBIGUOUS, STRING]));
    let run = guid_stdin(
        ["inspect", "-", AMBIGUOUS],
        format!("{STRING}\n").as_bytes(),
    );
    assert_eq!(read(&run), as_written("string", &[STRING, AMBIGUOUS]));
    let run = guid(["inspect", AMBIGUOUS, &base62_17()]);
    assert_eq!(run.objects()[0]["form"], "base62", "{run:?}");
    let run = guid(["inspect", "--strict", AMBIGUOUS]);
    assert_eq!((run.code, run.stdout.as_str()), (BAD_ID, ""), "{run:?}");
    let run = guid(["inspect", AMBIGUOUS]);
    assert_eq!(read(&run), as_written("string", &[AMBIGUOUS]));
}

/// Flags come first: a form named is read whatever the stream shows, and
/// what --as leaves ambiguous is read by the evidence.
#[test]
fn flags_override_the_evidence() {
    let run = guid(["inspect", "--from", "base62", STRING, AMBIGUOUS]);
    assert_eq!(read(&run)[..], as_written("base62", &[AMBIGUOUS])[..]);
    assert_eq!(run.code, BAD_ID, "the string is no base62");
    let run = guid(["inspect", "--from", "string", AMBIGUOUS, &base62_17()]);
    assert_eq!(read(&run)[..], as_written("string", &[AMBIGUOUS])[..]);
    check(&["--as", "g"], &[AMBIGUOUS, STRING, AMBIGUOUS_2]);
    let run = check(&["--as", "g"], &[AMBIGUOUS, &base62_17()]);
    assert_eq!(run.objects()[0]["form"], "base62");
}

/// Starts `inspect flags` with a line reader on its stdout.
fn spawn(flags: &[&str]) -> (std::process::Child, mpsc::Receiver<String>) {
    let mut child = command(["inspect"].iter().chain(flags))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("inspect starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// A flag that leaves one reading reads each line as it comes; without
/// it an ambiguous line waits for a line that shows its form.
#[test]
fn a_flag_reads_line_by_line_and_held_lines_wait() {
    let wait = Duration::from_secs(30);
    let (mut child, rx) = spawn(&["--from", "string"]);
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{AMBIGUOUS}").expect("write");
    stdin.flush().expect("flush");
    let line = rx
        .recv_timeout(wait)
        .expect("printed before the input ends");
    assert!(
        line.contains(&format!(r#""string":"{AMBIGUOUS}""#)),
        "{line}"
    );
    drop(stdin);
    child.wait().expect("inspect ends");

    let (mut child, rx) = spawn(&[]);
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{AMBIGUOUS}\n{JSON}").expect("write");
    stdin.flush().expect("flush");
    assert!(rx.recv_timeout(Duration::from_millis(500)).is_err(), "held");
    writeln!(stdin, "{STRING}").expect("write");
    stdin.flush().expect("flush");
    let got: Vec<Value> = (0..3)
        .map(|_| {
            rx.recv_timeout(wait)
                .expect("printed before the input ends")
        })
        .map(|l| serde_json::from_str(&l).expect("an object"))
        .collect();
    let forms: Vec<&Value> = got.iter().map(|o| &o["form"]).collect();
    assert_eq!(forms, ["string", "json", "string"]);
    assert_eq!(got[0]["string"], AMBIGUOUS);
    drop(stdin);
    child.wait().expect("inspect ends");
}

/// The help tells the rule.
#[test]
fn help_tells_the_rule() {
    let help = guid(["inspect", "--help"]).stdout;
    for needle in [
        "The stream decides first",
        "shows that form",
        "held",
        "order",
        "two forms or more",
        "end of the input",
        "reads each line as it comes",
        "most likely wrote it",
        "ahead of now",
        "a drift code other than the default",
        "narrow alphabet",
        "note: ...",
        "--strict",
        "--from base62",
        "--sno",
    ] {
        assert!(help.contains(needle), "{needle}");
    }
}
