//! `guid gen … | guid inspect …`: what gen prints, inspect reads back as
//! the same id, in every form, global and local, with and without flags;
//! and what inspect does with a value that reads as more than one id.

mod common;

use guid::Id;
use std::process::Stdio;

use common::{check_each, command, guid, guid_stdin, object_g, object_l};
use guid::{Drift, Guid, Luid};
use serde_json::Value;

/// Ids per gen run: enough for sequences past 64, whose strings often
/// have no `.` and so also read as base62 (the other lines decide).
const N: &str = "300";

/// The object of the id gen printed as `line` in `form`, decoded here with
/// the library alone.
fn made(line: &str, form: &str, local: bool) -> Value {
    let bytes = line.as_bytes();
    let hex = || {
        data_encoding::HEXLOWER
            .decode(bytes)
            .expect("lowercase hex")
    };
    if local {
        object_l(
            match form {
                "string" => Luid::parse_bytes(bytes),
                "base62" => Luid::from_base62(bytes),
                "hex" => Luid::from_slice(&hex()),
                "json" => Ok(serde_json::from_str(line).expect("JSON")),
                "int" => Luid::from_u64(line.parse().expect("u64")),
                _ => unreachable!("{form}"),
            }
            .expect("a local id"),
        )
    } else {
        object_g(
            match form {
                "string" => Guid::parse_bytes(bytes),
                "base62" => Guid::from_base62(bytes),
                "hex" => Guid::from_slice(&hex()),
                "json" => Ok(serde_json::from_str(line).expect("JSON")),
                _ => unreachable!("{form}"),
            }
            .expect("a global id"),
        )
    }
}

/// Runs `guid gen gen_flags --format form`, feeds its stdout to
/// `guid inspect inspect_flags`, and checks every line (see `check_each`).
/// Returns the lines gen printed and how many inspect refused.
fn round_trip(gen_flags: &[&str], form: &str, inspect_flags: &[&str]) -> (Vec<String>, usize) {
    let local = gen_flags.contains(&"--local");
    let made_by = guid(["gen", "--format", form].iter().chain(gen_flags));
    assert_eq!(
        (made_by.code, made_by.stderr.as_str()),
        (0, ""),
        "{made_by:?}"
    );
    let lines: Vec<String> = made_by.lines().into_iter().map(str::to_owned).collect();
    let inputs: Vec<(String, Value)> = lines
        .iter()
        .map(|line| (line.clone(), made(line, form, local)))
        .collect();
    let run = guid_stdin(
        ["inspect"].iter().chain(inspect_flags),
        made_by.stdout.as_bytes(),
    );
    let refused = check_each(&inputs, inspect_flags, &run);
    (lines, refused)
}

/// Without flags, every form of both kinds reads back as the id gen made:
/// a line valid in several forms is read in the one form the stream's
/// other lines show (`check_each`), else as the likeliest reading, which
/// for what gen writes at its default drift code is the id made; with
/// --strict, a line of several readings that no line decides is refused.
#[test]
fn gen_pipes_to_inspect_without_flags() {
    // Unique by length or marker: 24 hex digits, JSON, 11 base62 digits,
    // 19 or 20 decimal digits; and, by the lines that show their form or
    // by likelihood, strings, local hex and 16-digit global base62.
    for (gen_flags, form) in [
        (&[][..], "hex"),
        (&[], "json"),
        (&["--local"], "json"),
        (&["--local"], "base62"),
        (&["--local"], "int"),
        (&[], "string"),
        (&["--local"], "string"),
        (&["--local"], "hex"),
        (&[], "base62"),
    ] {
        let flags = [gen_flags, &["-n", N]].concat();
        let (lines, misread) = round_trip(&flags, form, &[]);
        assert_eq!((lines.len(), misread), (300, 0), "{gen_flags:?} {form}");
    }

    // How many of those strings are also base62 depends on the time they
    // carry (at some times every one has a '.' or '_'): the lines read by
    // the others' evidence are tested with fixed ids in evidence.rs.

    // 16-digit global base62 always also spells a string, and so shows no
    // form: under --strict every line is refused, none read as another id.
    let (lines, refused) = round_trip(&["-n", N], "base62", &["--strict"]);
    assert_eq!((lines.len(), refused), (300, 300));

    // Drift code 7 gives 17 digits, which no other form has.
    let (lines, refused) = round_trip(&["-n", N, "--drift", "86400"], "base62", &["--strict"]);
    assert!(lines.iter().all(|line| line.len() == 17), "{lines:?}");
    assert_eq!(refused, 0);
}

/// The first id of a clock has sequence 0, which puts `..` at the end of
/// its string (no base62, no hex): `guid gen | guid inspect` always reads
/// it back, for global and local ids.
#[test]
fn the_first_pipe_reads_back() {
    for gen_flags in [&[][..], &["--local"]] {
        let (lines, refused) = round_trip(gen_flags, "string", &[]);
        assert_eq!((lines.len(), refused), (1, 0), "{gen_flags:?}");
        assert!(lines[0].ends_with(".."), "{lines:?}");
    }
}

/// With the flags of the form, every id of every form reads back; none is
/// refused.
#[test]
fn gen_pipes_to_inspect_with_flags() {
    let cases: [(&[&str], &str, &[&str]); 22] = [
        (&[], "string", &["--from", "string", "--as", "g"]),
        // The default drift's global string is no local string.
        (&[], "string", &["--from", "string"]),
        (&[], "base62", &["--from", "base62"]),
        (&[], "base62", &["--from", "base62", "--as", "g"]),
        (&[], "hex", &["--from", "hex"]),
        (&[], "hex", &["--as", "g"]),
        (&[], "json", &["--from", "json"]),
        (&[], "json", &["--as", "g"]),
        (&["--local"], "string", &["--from", "string", "--as", "l"]),
        // Its local string is no global string (drift code 0 in 6 bits).
        (&["--local"], "string", &["--from", "string"]),
        (&["--local"], "base62", &["--from", "base62"]),
        (&["--local"], "base62", &["--as", "l"]),
        (&["--local"], "hex", &["--from", "hex"]),
        (&["--local"], "hex", &["--from", "hex", "--as", "l"]),
        (&["--local"], "json", &["--from", "json"]),
        (&["--local"], "json", &["--as", "l"]),
        (&["--local"], "int", &["--from", "int"]),
        (&["--local"], "int", &["--from", "int", "--as", "l"]),
        (&["--local"], "int", &["--as", "l"]),
        // A larger drift: 17 base62 digits, local ids from 7 on.
        (&["--drift", "86400"], "base62", &["--from", "base62"]),
        (
            &["--local", "--drift", "86400"],
            "string",
            &["--from", "string", "--as", "l"],
        ),
        (&["--local", "--drift", "86400"], "hex", &["--from", "hex"]),
    ];
    for (gen_flags, form, inspect_flags) in cases {
        let flags = [gen_flags, &["-n", N]].concat();
        let (lines, refused) = round_trip(&flags, form, inspect_flags);
        assert_eq!(
            (lines.len(), refused),
            (300, 0),
            "{gen_flags:?} {form} {inspect_flags:?}"
        );
    }
}

/// Through a real pipe between the two processes: hex, which only one
/// reading fits, of ids of one node, in order.
#[test]
fn gen_pipes_to_inspect_through_a_pipe() {
    let mut producer = command(["gen", "-n", "5000", "--node", "77", "--format", "hex"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("gen starts");
    let pipe = producer.stdout.take().expect("gen's stdout");
    let inspect = command(["inspect"])
        .stdin(pipe)
        .output()
        .expect("inspect runs");
    assert_eq!(producer.wait().expect("gen ends").code(), Some(0));
    assert_eq!(inspect.status.code(), Some(0), "{inspect:?}");
    let stdout = String::from_utf8(inspect.stdout).expect("UTF-8");
    let objects: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("an object"))
        .collect();
    assert_eq!(objects.len(), 5000);
    assert!(objects.iter().all(|o| o["node"] == 77 && o["kind"] == "g"));
    let hex: Vec<&str> = objects
        .iter()
        .map(|o| o["hex"].as_str().expect("hex"))
        .collect();
    assert!(hex.windows(2).all(|w| w[0] < w[1]), "increasing");
}

/// Asserts `inspect flags input` read the input as the id `want`.
fn read_as(flags: &[&str], input: &str, want: Value) {
    let run = guid(["inspect"].iter().chain(flags).chain([&input]));
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (0, ""),
        "{flags:?} {input}"
    );
    let mut got = run.objects().remove(0);
    got.as_object_mut().and_then(|o| o.remove("time"));
    got.as_object_mut().and_then(|o| o.remove("form"));
    assert_eq!(got, want, "{flags:?} {input}");
}

/// Asserts `inspect flags input` read the input, which reads as several
/// ids, as the id `want`, the likeliest, noting the others on standard
/// error with each of `needles` (their flags); and that `--strict`
/// refuses it, naming them.
fn likeliest(flags: &[&str], input: &str, want: Value, needles: &[&str]) {
    let run = guid(["inspect"].iter().chain(flags).chain([&input]));
    assert_eq!(run.code, 0, "{flags:?} {input}: {run:?}");
    let mut got = run.objects().remove(0);
    got.as_object_mut().and_then(|o| o.remove("time"));
    got.as_object_mut().and_then(|o| o.remove("form"));
    assert_eq!(got, want, "{flags:?} {input}");
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    assert!(run.stderr.starts_with("note: "), "{run:?}");
    for needle in needles {
        assert!(run.stderr.contains(needle), "{needle} in {run:?}");
    }
    refused(&[flags, &["--strict"]].concat(), input, needles);
}

/// Asserts `inspect flags input` refused the input as ambiguous, naming
/// each of `needles` (the flags of the readings).
fn refused(flags: &[&str], input: &str, needles: &[&str]) {
    let run = guid(["inspect"].iter().chain(flags).chain([&input]));
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (3, ""),
        "{flags:?} {input}"
    );
    for needle in [&"ambiguous"].into_iter().chain(needles) {
        assert!(run.stderr.contains(needle), "{needle} in {run:?}");
    }
}

/// Each way 16 characters can read as two or three ids: alone, with
/// nothing to show its form, read as the likeliest (of the default drift
/// code, in a narrow alphabet, not ahead of now), noting the others with
/// their flags; refused with --strict; the flags pick any reading.
#[test]
fn sixteen_characters_of_several_forms() {
    let d4 = Drift::new(4).expect("drift code 4");
    let g = Guid::compose(0xe762_74c6, 0, 8192, Drift::DEFAULT).expect("id");
    let l4 = Luid::compose(0, 8192, d4).expect("id");

    // 16-digit global base62 is also a global string (of drift code 5).
    let base62 = g.to_base62();
    assert_eq!(base62, "cdfbqcXW5qATldeS");
    let string_of_other = Guid::parse_bytes(base62.as_bytes()).expect("a string too");
    assert_eq!(string_of_other.drift().code(), 5);
    likeliest(&[], &base62, object_g(g), &["(--from string)"]);
    likeliest(&["--as", "g"], &base62, object_g(g), &["(--from string)"]);
    read_as(&["--from", "string"], &base62, object_g(string_of_other));
    read_as(&["--from", "base62"], &base62, object_g(g));

    // A global string without '.' or '_' is also base62 (of drift code 2).
    let string = "NlpJwpyS1Q9vEZ12";
    let as_string = Guid::parse_bytes(string.as_bytes()).expect("a string");
    let as_base62 = Guid::from_base62(string).expect("base62 too");
    likeliest(&[], string, object_g(as_string), &["(--from base62)"]);
    read_as(&["--from", "string"], string, object_g(as_string));
    read_as(&["--from", "base62"], string, object_g(as_base62));

    // Local hex of digits only is also a local string, of a time 312 years
    // later.
    let hex = "6000000000002000";
    let as_hex = Luid::from_u64(0x6000_0000_0000_2000).expect("id");
    let as_string = Luid::parse_bytes(hex.as_bytes()).expect("a string too");
    assert!(as_string.time() > 300 * 365 * 86400 * 1_000_000_000);
    for flags in [&[][..], &["--as", "l"]] {
        likeliest(flags, hex, object_l(as_hex), &["(--from string)"]);
    }
    read_as(&["--from", "string"], hex, object_l(as_string));
    read_as(&["--from", "hex"], hex, object_l(as_hex));

    // A local string of drift code 4 or more is also a global string (of
    // drift code 1), which is almost never spelled in a local string's 16
    // symbols: the local id, unless --as g.
    let string = l4.to_string();
    assert_eq!(string, "7...........1...");
    let as_global = Guid::parse_bytes(string.as_bytes()).expect("global too");
    for flags in [&[][..], &["--from", "string"]] {
        likeliest(flags, &string, object_l(l4), &["(--as g)"]);
    }
    read_as(&["--as", "l"], &string, object_l(l4));
    read_as(&["--as", "g"], &string, object_g(as_global));

    // Its hex is also a local and a global string: read as hex, the one
    // of no time ahead in a narrow alphabet; each reading picked by its
    // flags.
    let hex = data_encoding::HEXLOWER.encode(&l4.to_bytes());
    assert_eq!(hex, "8000000000002000");
    let global = Guid::parse_bytes(hex.as_bytes()).expect("global string");
    let local = Luid::parse_bytes(hex.as_bytes()).expect("local string");
    likeliest(
        &[],
        &hex,
        object_l(l4),
        &["(--as g)", "(--from string --as l)"],
    );
    read_as(&["--from", "string", "--as", "g"], &hex, object_g(global));
    read_as(&["--from", "string", "--as", "l"], &hex, object_l(local));
    read_as(&["--from", "hex"], &hex, object_l(l4));
}
