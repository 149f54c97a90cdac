//! `guid gen | guid inspect` reads back every id `gen` prints, in every
//! form, and `inspect --extract` finds the same ids: a string that also
//! reads as base62 or hex is read as a string, the form the stream's other
//! lines show, or the likeliest reading, not refused as ambiguous.

mod common;

use common::{guid, guid_stdin};
use guid::Id;
use serde_json::Value;

/// How many ids each run prints.
const N: usize = 5000;

/// `gen GEN...`'s lines.
fn gen_lines(gen_flags: &[&str]) -> Vec<String> {
    let n = N.to_string();
    let run = guid(["gen", "-n", &n].iter().chain(gen_flags));
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (0, ""),
        "gen {gen_flags:?}"
    );
    let lines: Vec<String> = run.lines().iter().map(|l| (*l).to_owned()).collect();
    assert_eq!(lines.len(), N, "gen {gen_flags:?}");
    lines
}

/// The field of `object` that is the text of `form`, to compare with the
/// line read: ints are compared through their hex.
fn text_of(object: &Value, form: &str, line: &str) -> (String, String) {
    match form {
        "int" => (
            object["hex"].as_str().expect("hex").to_owned(),
            format!("{:016x}", line.parse::<u64>().expect("an int")),
        ),
        _ => (
            object[form].as_str().expect("a text").to_owned(),
            line.to_owned(),
        ),
    }
}

/// Pipes `gen GEN...` into `inspect INSPECT...` and `inspect --extract
/// INSPECT...`: every line reads back as the id printed, with status 0
/// (and at most notes on standard error), and both modes give the same
/// objects. Returns the lines read back.
fn reads_back(gen_flags: &[&str], inspect_flags: &[&str], form: &str) -> usize {
    let lines = gen_lines(gen_flags);
    let input = lines.join("\n") + "\n";
    let run = guid_stdin(["inspect"].iter().chain(inspect_flags), input.as_bytes());
    let what = format!("gen {gen_flags:?} | inspect {inspect_flags:?}");
    let objects = run.objects();
    let same = objects
        .iter()
        .zip(&lines)
        .filter(|(o, l)| {
            let (got, want) = text_of(o, form, l);
            got == want
        })
        .count();
    // Counts, and the first error, rather than thousands of lines.
    assert_eq!(
        (run.code, objects.len(), same),
        (0, N, N),
        "{what}: (status, lines read back, as the id printed) of {N}: {}",
        run.stderr.lines().next().unwrap_or("")
    );
    // --extract reads the same tokens the same way (a UUID is a token only
    // under --v3, where `-` is an id character).
    let mut extract = vec!["inspect", "--extract"];
    if gen_flags.contains(&"--x") && !inspect_flags.contains(&"--v3") {
        extract.push("--v3");
    }
    extract.extend(inspect_flags);
    let found = guid_stdin(&extract, input.as_bytes());
    assert_eq!(found.code, 0, "{what} --extract");
    assert!(
        found.stderr.lines().all(|l| l.starts_with("note: ")),
        "{what} --extract: {}",
        found.stderr
    );
    let mut found = found.objects();
    let mut objects = objects;
    for o in &mut objects {
        o.as_object_mut().expect("an object").remove("form");
    }
    for (i, o) in found.iter_mut().enumerate() {
        let o = o.as_object_mut().expect("an object");
        // --extract reads a JSON token's contents alone: forms may differ.
        o.remove("form");
        assert_eq!(
            o.remove("line"),
            Some(Value::from(i + 1)),
            "{what} --extract"
        );
    }
    assert_eq!(found, objects, "{what}: --extract gives the same ids");
    same
}

/// The sortable string, `gen`'s default, of every kind, read without flags
/// (v3 global and local ids under --v3, which tells the generation; a UUID
/// without it).
#[test]
fn gen_strings_read_back_without_flags() {
    for (gen_flags, inspect_flags) in [
        (&[][..], &[][..]),
        (&["--local"], &[]),
        (&["--v3"], &["--v3"]),
        (&["--v3", "--local"], &["--v3"]),
        (&["--v3", "--x"], &[]),
        (&["--v3", "--x"], &["--v3"]),
    ] {
        assert_eq!(reads_back(gen_flags, inspect_flags, "string"), N);
    }
}

/// Every `--format` of `gen`, of every kind, reads back without `--from`:
/// by the form the output shows, or, where it shows none (16-digit v2
/// global base62, every line also a string; v3 local hex, every line also
/// a global string), as the likeliest reading. --strict refuses the lines
/// of such output, none misread.
#[test]
fn gen_formats_read_back_without_flags() {
    for (v3, kind) in [
        (&[][..], &[][..]),
        (&[], &["--local"]),
        (&["--v3"], &[]),
        (&["--v3"], &["--local"]),
        (&["--v3"], &["--x"]),
    ] {
        let local = kind.contains(&"--local");
        for form in ["string", "base62", "hex", "json", "int"] {
            if form == "int" && !local {
                continue;
            }
            let gen_flags: Vec<&str> = [v3, kind, &["--format", form]].concat();
            assert_eq!(reads_back(&gen_flags, v3, form), N, "{gen_flags:?}");
        }
    }
    // A form that shows none: under --strict every line refused, none
    // misread.
    let lines = gen_lines(&["--format", "base62"]);
    let run = guid_stdin(
        ["inspect", "--strict"],
        (lines.join("\n") + "\n").as_bytes(),
    );
    assert_eq!((run.code, run.stdout.as_str()), (3, ""));
    assert_eq!(run.stderr.matches("ambiguous").count(), N);
}

/// Every `--format` of `gen`, of every kind, under `--from FORM`.
#[test]
fn gen_formats_read_back() {
    for (v3, kind) in [
        (&[][..], &[][..]),
        (&[], &["--local"]),
        (&["--v3"], &[]),
        (&["--v3"], &["--local"]),
        (&["--v3"], &["--x"]),
    ] {
        let local = kind.contains(&"--local");
        for form in ["string", "base62", "hex", "json", "int"] {
            if form == "int" && !local {
                continue;
            }
            let gen_flags: Vec<&str> = [v3, kind, &["--format", form]].concat();
            let from = [v3, &["--from", form]].concat();
            assert_eq!(reads_back(&gen_flags, &from, form), N, "{gen_flags:?}");
        }
    }
}

/// A local string with drift code 4 or more is also a global string (of
/// drift code 1 or 2), which is almost never spelled in a local string's 16
/// symbols: it reads as the local id, with status 0 and `"kind":"l"`
/// saying so, noting the global reading, and as the global id with
/// `--as g`.
#[test]
fn a_string_of_both_kinds_is_local_unless_as_g() {
    let lines = gen_lines(&["--local", "--drift-code", "5"]);
    let input = lines.join("\n") + "\n";
    // Those that are also hex are read as strings, which the others show.
    let run = guid_stdin(["inspect"], input.as_bytes());
    let local = run.objects().iter().filter(|o| o["kind"] == "l").count();
    assert_eq!((run.code, local), (0, N), "{}", run.stderr);
    assert!(run.stderr.contains("(--as g)"), "{}", run.stderr);
    assert_eq!(
        reads_back(&["--local", "--drift-code", "5"], &["--as", "l"], "string"),
        N
    );
    let run = guid_stdin(["inspect", "--as", "g"], input.as_bytes());
    let global = run.objects().iter().filter(|o| o["kind"] == "g").count();
    assert_eq!((run.code, global), (0, N), "{}", run.stderr);
    let run = guid(["inspect", "7..............."]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.starts_with("note: ") && run.stderr.contains("(--as g)"),
        "{run:?}"
    );
    assert_eq!(run.objects()[0]["kind"], "l");
}

/// `inspect --from-v2 --as g` reads every v2 global string of the Go v3
/// vectors' `from_v2` cases without --from, given together (those that are
/// also base62 are read as strings, which those with '.' show), and prints
/// Go's `FromV2` of each. Without --as, a string that is also a local one
/// (in a local string's 16 symbols: a time of 0 and node 0) is read as the
/// local id, noted. Alone, nothing shows the form: a string that is also
/// base62 is read as the likelier, noted, and --strict refuses it.
#[test]
fn from_v2_reads_every_v2_string_of_the_vectors() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/fogfish-guid-v3.json"
    ))
    .expect("the vector file");
    let data: Value = serde_json::from_str(&text).expect("vector JSON");
    let cases: Vec<&Value> = data["from_v2"]
        .as_array()
        .expect("from_v2[]")
        .iter()
        .filter(|c| c["v2_code"] != 0)
        .collect();
    assert!(!cases.is_empty());
    let inputs: Vec<&str> = cases
        .iter()
        .map(|c| c["v2_string"].as_str().expect("v2 text"))
        .collect();
    let want: Vec<Value> = cases
        .iter()
        .map(|c| c["from_v2_string"]["string"].clone())
        .collect();
    let run = guid(["inspect", "--from-v2", "--as", "g"].iter().chain(&inputs));
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let got: Vec<Value> = run.objects().iter().map(|o| o["string"].clone()).collect();
    assert_eq!(got, want, "v2 strings read as Go converts them");

    let run = guid(["inspect", "--from-v2"].iter().chain(&inputs));
    assert_eq!(run.code, 0, "{run:?}");
    let local = |i: &str| guid::Luid::parse_bytes(i.as_bytes()).is_ok();
    for ((o, want), input) in run.objects().iter().zip(&want).zip(&inputs) {
        match local(input) {
            true => assert_eq!(o["kind"], "l", "{input}"),
            false => assert_eq!(o["string"], *want, "{input}"),
        }
    }
    let locals = inputs.iter().filter(|i| local(i)).count();
    assert!(locals > 0 && run.stderr.contains("(--as g)"), "{run:?}");

    // Alone, those that are also base62 are noted, and refused with
    // --strict.
    let (mut noted, mut refused) = (0, 0);
    for input in inputs.iter().filter(|i| !local(i)) {
        let run = guid(["inspect", "--from-v2", input]);
        if run.stderr.contains("(--from base62)") {
            noted += 1;
            let strict = guid(["inspect", "--from-v2", "--strict", input]);
            refused += usize::from(strict.stderr.contains("ambiguous"));
        }
    }
    assert!(
        noted > 0 && refused == noted,
        "{noted} noted, {refused} refused alone"
    );
}
