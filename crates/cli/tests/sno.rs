//! sno ids (muyo/sno) through the command: `gen --sno`, `inspect --sno`,
//! `compose --sno`; the `form` inspect names; and lines that are valid in
//! several forms, which inspect refuses rather than misread when nothing
//! in the stream shows their form (tests/evidence.rs: when something does).

mod common;

use common::{guid, guid_stdin};
use guid::sno::Sno;
use serde_json::Value;

/// The exit status of a usage error.
const USAGE: i32 = 2;

/// The exit status of input that is no id.
const BAD_ID: i32 = 3;

/// Asserts `run` was refused with `status` on one error line holding each
/// of `needles`, and printed nothing.
fn failed(run: &common::Run, status: i32, needles: &[&str]) {
    assert_eq!((run.code, run.stdout.as_str()), (status, ""), "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    for needle in needles {
        assert!(run.stderr.contains(needle), "{needle:?} in {run:?}");
    }
}

/// Checks that `o` is the object of the sno id of the string `s`, field
/// by field, from the library's decoder.
fn is_object_of(o: &Value, s: &str) -> Sno {
    let id: Sno = s.parse().expect("a sno string");
    let time = o["time"].as_str().expect("time");
    let ns = id.unix_ns();
    assert_eq!(o["kind"], "sno", "{o}");
    assert_eq!(o["form"], "string", "{o}");
    assert_eq!(o["string"], s, "{o}");
    assert_eq!(o["hex"], format!("{id:x}"), "{o}");
    assert_eq!(o["time_ns"], ns, "{o}");
    assert_eq!(o["meta"], id.meta(), "{o}");
    assert_eq!(o["partition"], id.partition(), "{o}");
    assert_eq!(o["seq"], id.sequence(), "{o}");
    assert_eq!(o["tick"], u8::from(id.tick()), "{o}");
    // The time is the RFC 3339 of time_ns, as compose reads it back.
    let back = guid(["compose", "--sno", "--time", time]);
    let again: Sno = back.stdout.trim().parse().expect("a sno string");
    assert_eq!(again.unix_ns(), ns, "{time}");
    assert!(time.ends_with('Z') && time.len() == 30, "{time}");
    let keys: Vec<&String> = o.as_object().expect("an object").keys().collect();
    assert_eq!(keys.len(), 10, "{o}");
    id
}

/// `guid gen --sno | guid inspect --sno`: every field is the id's, the
/// meta and partition those asked for, and the ids increase.
#[test]
fn gen_sno_pipes_to_inspect_sno() {
    let made = guid([
        "gen",
        "--sno",
        "-n",
        "2000",
        "--meta",
        "7",
        "--partition",
        "0x4142",
    ]);
    assert_eq!((made.code, made.stderr.as_str()), (0, ""), "{made:?}");
    let lines = made.lines();
    assert_eq!(lines.len(), 2000);
    assert!(lines.iter().all(|l| l.len() == 16), "16 characters");
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "increasing strings");
    let run = guid_stdin(["inspect", "--sno"], made.stdout.as_bytes());
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let objects = run.objects();
    assert_eq!(objects.len(), 2000);
    let mut last: Option<Sno> = None;
    for (o, line) in objects.iter().zip(&lines) {
        let id = is_object_of(o, line);
        assert_eq!(
            (o["meta"].as_u64(), o["partition"].as_u64()),
            (Some(7), Some(0x4142))
        );
        assert!(last.is_none_or(|last| last < id), "increasing ids");
        last = Some(id);
    }
    // Without --partition, one drawn for all the ids; meta 0.
    let made = guid(["gen", "--sno", "-n", "3"]);
    let run = guid_stdin(["inspect", "--sno"], made.stdout.as_bytes());
    let objects = run.objects();
    assert_eq!(objects.len(), 3);
    assert!(
        objects
            .iter()
            .all(|o| o["meta"] == 0 && o["partition"] == objects[0]["partition"])
    );
    // -n 0 prints nothing.
    let run = guid(["gen", "--sno", "-n", "0"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
}

/// `compose --sno` prints the string of the parts, and `inspect --sno`
/// gives them back; the time in either form compose takes, kept to its
/// 4 ms unit.
#[test]
fn compose_sno_gives_back_its_parts() {
    for (time, ns) in [
        ("2024-06-01T10:00:00.005Z", 1_717_236_000_004_000_000u64),
        ("1717236000005999999", 1_717_236_000_004_000_000),
        ("2010-01-01T00:00:00Z", 1_262_304_000_000_000_000),
    ] {
        for (meta, partition, seq, tick) in [
            ("0", "0", "0", "0"),
            ("255", "0xffff", "65535", "1"),
            ("0x07", "16706", "12", "1"),
        ] {
            let args = [
                "compose",
                "--sno",
                "--time",
                time,
                "--meta",
                meta,
                "--partition",
                partition,
                "--seq",
                seq,
                "--tick",
                tick,
            ];
            let run = guid(args);
            assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{args:?}");
            let string = run.stdout.trim_end();
            assert_eq!(run.stdout, format!("{string}\n"), "one line: the string");
            let inspected = guid(["inspect", "--sno", string]);
            let o = &inspected.objects()[0];
            is_object_of(o, string);
            let number = |s: &str| match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).expect("hex"),
                None => s.parse().expect("decimal"),
            };
            assert_eq!(o["time_ns"], ns, "{args:?}");
            for (field, given) in [
                ("meta", meta),
                ("partition", partition),
                ("seq", seq),
                ("tick", tick),
            ] {
                assert_eq!(o[field], number(given), "{field} of {args:?}");
            }
        }
    }
    // Without --meta, --partition, --seq, --tick: zeros.
    let run = guid(["compose", "--sno", "--time", "2024-06-01T10:00:00Z"]);
    let o = &guid(["inspect", "--sno", run.stdout.trim()]).objects()[0];
    assert_eq!(
        (&o["meta"], &o["partition"], &o["seq"], &o["tick"]),
        (&0.into(), &0.into(), &0.into(), &0.into())
    );
}

/// Bad meta, partition, sequence, tick or time, and flags that do not go
/// with --sno, are usage errors (2) naming the flag.
#[test]
fn bad_sno_flags_exit_2() {
    let cases: [(&[&str], &[&str]); 15] = [
        (
            &["gen", "--sno", "--meta", "256"],
            &["'256'", "--meta", "0..=255"],
        ),
        (&["gen", "--sno", "--meta", "-1"], &["'-1'", "--meta"]),
        (&["gen", "--sno", "--meta", "x"], &["'x'", "--meta"]),
        (
            &["gen", "--sno", "--partition", "65536"],
            &["'65536'", "--partition", "0..=65535"],
        ),
        (
            &["gen", "--sno", "--partition", "0x"],
            &["'0x'", "--partition"],
        ),
        (&["gen", "--meta", "1"], &["--sno"]),
        (&["gen", "--sno", "--local"], &["--local"]),
        (&["gen", "--sno", "--format", "hex"], &["--format"]),
        (&["compose", "--sno", "--time", "0"], &["--time", "2010"]),
        (
            &["compose", "--sno", "--time", "2079-09-08T00:00:00Z"],
            &["--time", "2079"],
        ),
        (
            &[
                "compose",
                "--sno",
                "--time",
                "2024-06-01T10:00:00Z",
                "--seq",
                "65536",
            ],
            &["'65536'", "--seq"],
        ),
        (
            &[
                "compose",
                "--sno",
                "--time",
                "2024-06-01T10:00:00Z",
                "--tick",
                "2",
            ],
            &["'2'", "--tick"],
        ),
        (
            &[
                "compose",
                "--sno",
                "--time",
                "2024-06-01T10:00:00Z",
                "--meta",
                "256",
            ],
            &["'256'", "--meta"],
        ),
        (&["compose", "--time", "1", "--tick", "1"], &["--sno"]),
        (&["inspect", "--sno", "--as", "g", "x"], &["--as"]),
    ];
    for (args, needles) in cases {
        let run = guid(args);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (USAGE, ""),
            "{args:?}: {run:?}"
        );
        for needle in needles {
            assert!(
                run.stderr.contains(needle),
                "{needle:?} in {args:?}: {run:?}"
            );
        }
    }
    // Over 16383, the sequence of the other ids is refused, with the range
    // of each.
    let run = guid(["compose", "--time", "1", "--seq", "20000"]);
    failed(&run, USAGE, &["'20000'", "0..=16383", "65535 with --sno"]);
}

/// `inspect --sno` refuses what is no sno string (3), and prints the rest.
#[test]
fn inspect_sno_reports_what_is_no_sno() {
    let good = guid(["compose", "--sno", "--time", "2024-06-01T10:00:00Z"]);
    let good = good.stdout.trim();
    for bad in [
        "N...0ngIdY...1..",
        "2222",
        "222222222222222z",
        "2222222222222222X",
    ] {
        let run = guid(["inspect", "--sno", good, bad]);
        assert_eq!(run.code, BAD_ID, "{bad}: {run:?}");
        assert_eq!(run.objects().len(), 1, "{bad}");
        assert!(
            run.stderr
                .starts_with(&format!("error: invalid id '{bad}': not a sno string")),
            "{run:?}"
        );
    }
}

/// `inspect --extract --sno` finds the sno strings in text.
#[test]
fn extract_sno_finds_sno_strings() {
    let id = guid([
        "compose",
        "--sno",
        "--time",
        "2024-06-01T10:00:00Z",
        "--meta",
        "3",
    ]);
    let id = id.stdout.trim().to_owned();
    let text = format!("a line\nrequest id={id} done N...0ngIdY...1.. x\n");
    let run = guid_stdin(["inspect", "--extract", "--sno"], text.as_bytes());
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let objects = run.objects();
    assert_eq!(objects.len(), 1, "{run:?}");
    assert_eq!(
        (&objects[0]["line"], &objects[0]["string"]),
        (&2.into(), &Value::from(id))
    );
}

/// Without flags, inspect names the form it read each line in.
#[test]
fn inspect_names_the_form() {
    let cases = [
        ("N...0ngIdY...1..", "string", "g"),
        ("600000073b13a63000002000", "hex", "g"),
        (r#""N...0ngIdY...1..""#, "json", "g"),
        ("8F0M5kuYtDE", "base62", "l"),
        ("6917529027641090048", "int", "l"),
        ("5...........1...", "string", "l"),
        ("82fa9b21-09d4-828a-9828-e57965f04001", "uuid", "x"),
        // 2 first: no global string (drift code 0), no base62, no hex.
        ("2abcdefghijkmnop", "string", "sno"),
    ];
    for (input, form, kind) in cases {
        let run = guid(["inspect", input]);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{input}: {run:?}");
        let o = &run.objects()[0];
        assert_eq!(
            (&o["form"], &o["kind"]),
            (&Value::from(form), &Value::from(kind)),
            "{input}"
        );
    }
    // Under the flags too, and in what --extract finds; compose names none.
    let run = guid(["inspect", "--from", "base62", "cdfbqcXW5qATldeS"]);
    assert_eq!(run.objects()[0]["form"], "base62");
    let run = guid_stdin(["inspect", "--extract"], b"x=\"*N............1..\"\n");
    assert_eq!(run.objects()[0]["form"], "json");
    let run = guid(["compose", "--time", "0"]);
    assert!(run.objects()[0].get("form").is_none(), "{run:?}");
}

/// `gen --sno | inspect` without flags: each line is read as the sno id
/// (a global string is almost never spelled in sno's alphabet), the other
/// reading noted once; never printed as another id. With --strict each is
/// refused as ambiguous naming --sno: no line of today's shows sno (each
/// is also a global string).
#[test]
fn sno_strings_are_never_misread() {
    let made = guid(["gen", "--sno", "-n", "500"]);
    let run = guid_stdin(["inspect"], made.stdout.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let objects = run.objects();
    let strings: Vec<&str> = objects
        .iter()
        .map(|o| o["string"].as_str().expect("string"))
        .collect();
    assert_eq!(strings, made.lines());
    assert!(objects.iter().all(|o| o["kind"] == "sno"), "{run:?}");
    let notes: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(notes.len(), 1, "{run:?}");
    assert!(notes[0].starts_with("note: ") && notes[0].contains("(--from string)"));

    let run = guid_stdin(["inspect", "--strict"], made.stdout.as_bytes());
    let objects = run.objects();
    for o in &objects {
        assert_eq!(o["kind"], "sno", "read as another id: {o}");
    }
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(objects.len() + errors.len(), 500, "{run:?}");
    for e in &errors {
        assert!(
            e.contains("ambiguous") && e.contains("--sno") && e.contains("--from string"),
            "{e}"
        );
    }
    assert_eq!(run.code, if errors.is_empty() { 0 } else { BAD_ID });
    // Ids made now begin with '9', which is also a global string.
    assert_eq!(errors.len(), 500, "{run:?}");
}

/// `gen --format base62 | inspect` without flags: every line (16 digits,
/// also a sortable string, so none shows base62) is read as base62, of
/// the default drift code where the string is not, the other reading
/// noted once; none is printed as the string's id. With --strict every
/// line is refused, naming --from base62; with --from base62 each reads
/// back.
#[test]
fn base62_is_never_misread() {
    let made = guid(["gen", "--format", "base62", "-n", "300"]);
    let lines = made.lines();
    let want: Vec<Value> = lines.iter().map(|&l| Value::from(l)).collect();
    let run = guid_stdin(["inspect"], made.stdout.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let back: Vec<Value> = run.objects().iter().map(|o| o["base62"].clone()).collect();
    assert_eq!(back, want);
    assert!(run.objects().iter().all(|o| o["form"] == "base62"));
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");

    let run = guid_stdin(["inspect", "--strict"], made.stdout.as_bytes());
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (BAD_ID, ""),
        "no id printed"
    );
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 300);
    for (e, line) in errors.iter().zip(&lines) {
        for needle in [
            &format!("'{line}'"),
            "ambiguous",
            "--from base62",
            "--from string",
        ] {
            assert!(e.contains(needle), "{needle} in {e}");
        }
    }
    let run = guid_stdin(["inspect", "--from", "base62"], made.stdout.as_bytes());
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let back: Vec<Value> = run.objects().iter().map(|o| o["base62"].clone()).collect();
    assert_eq!(back, want);
    assert!(run.objects().iter().all(|o| o["form"] == "base62"));
}

/// The help tells the rule and the flags.
#[test]
fn help_tells_sno_and_the_rule() {
    let help = guid(["inspect", "--help"]).stdout;
    for needle in [
        "--sno",
        "ambiguous",
        "\"form\"",
        "--from base62",
        "most likely wrote it",
        "--strict",
    ] {
        assert!(help.contains(needle), "{needle}");
    }
    let help = guid(["gen", "--help"]).stdout;
    for needle in ["--sno", "--meta", "--partition"] {
        assert!(help.contains(needle), "{needle}");
    }
    let help = guid(["compose", "--help"]).stdout;
    for needle in ["--sno", "--meta", "--partition", "--tick"] {
        assert!(help.contains(needle), "{needle}");
    }
}
