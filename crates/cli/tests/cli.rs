//! The `guid` command as a user runs it: stdout, stderr and exit status of
//! every subcommand and error path.

mod common;

use guid::Id;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{SystemTime, UNIX_EPOCH};

use common::{Run, command, guid, guid_stdin};
use guid::{Guid, Luid};
use serde_json::{Value, json};

/// The first id of the Go vectors (node 0xe76274c6, t 0, seq 8192, default
/// drift) in every form Go printed, and its local cast.
const G_STRING: &str = "N...0ngIdY...1..";
const G_BASE62: &str = "cdfbqcXW5qATldeS";
const G_HEX: &str = "600000073b13a63000002000";
const G_JSON: &str = r#""N...0ngIdY...1..""#;
const L_STRING: &str = "5...........1...";
const L_BASE62: &str = "8F0M5kuYtDE";
const L_HEX: &str = "6000000000002000";
const L_JSON: &str = r#""*N............1..""#;
const L_INT: &str = "6917529027641090048";

/// The object of that global id, field by field in the documented order.
const G_OBJECT: &str = concat!(
    r#"{"kind":"g","drift":3,"time_ns":0,"time":"1970-01-01T00:00:00.000000000Z","#,
    r#""node":3881989318,"seq":8192,"hex":"600000073b13a63000002000","#,
    r#""string":"N...0ngIdY...1..","base62":"cdfbqcXW5qATldeS","json":"\"N...0ngIdY...1..\""}"#
);

/// The object of its local cast.
const L_OBJECT: &str = concat!(
    r#"{"kind":"l","drift":3,"time_ns":0,"time":"1970-01-01T00:00:00.000000000Z","#,
    r#""node":null,"seq":8192,"hex":"6000000000002000","#,
    r#""string":"5...........1...","base62":"8F0M5kuYtDE","json":"\"*N............1..\""}"#
);

/// The exit status of a usage error.
const USAGE: i32 = 2;

/// The exit status of input that is no id.
const BAD_ID: i32 = 3;

/// Asserts a run succeeded quietly.
fn ok(run: &Run) {
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
}

/// Asserts a run failed on a bad id with exactly one error line that
/// contains each of `needles`.
fn bad(run: &Run, needles: &[&str]) {
    failed(run, BAD_ID, needles);
}

/// Asserts a run was refused as a usage error (a bad flag value or flags
/// that cannot go together) with one error line that contains each of
/// `needles`.
fn refused(run: &Run, needles: &[&str]) {
    failed(run, USAGE, needles);
}

/// Asserts a run failed with `status` and exactly one error line that
/// contains each of `needles`.
fn failed(run: &Run, status: i32, needles: &[&str]) {
    assert_eq!(run.code, status, "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "one line: {run:?}");
    assert!(run.stderr.starts_with("error: "), "{run:?}");
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "{needle:?} in {:?}",
            run.stderr
        );
    }
    assert!(!run.stderr.contains("panicked"), "{run:?}");
}

/// `inspect`'s output without the `"form"` field of each object, which
/// the tests of the forms check (tests/sno.rs), so that an object compares
/// with the constants above.
fn formless(stdout: &str) -> String {
    stdout
        .split_inclusive('\n')
        .map(
            |line| match (line.find(r#","form":""#), line.find(r#"","drift""#)) {
                (Some(start), Some(end)) if start < end => {
                    format!("{}{}", &line[..start], &line[end + 1..])
                }
                _ => line.to_owned(),
            },
        )
        .collect()
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

// --- help and version -------------------------------------------------------

/// `--help` of the command and of each subcommand goes to stdout with status 0.
#[test]
fn help_lists_subcommands_and_flags() {
    let run = guid(["--help"]);
    ok(&run);
    for word in ["gen", "inspect", "compose"] {
        assert!(run.stdout.contains(word), "{word}: {}", run.stdout);
    }
    let cases: [(&str, &[&str]); 3] = [
        ("gen", &["-n", "--local", "--drift", "--node", "--format"]),
        ("inspect", &["--as", "--from", "ID", "int", "refused"]),
        (
            "compose",
            &["--time", "--node", "--seq", "--drift", "--local"],
        ),
    ];
    for (cmd, flags) in cases {
        let run = guid([cmd, "--help"]);
        ok(&run);
        for flag in flags {
            assert!(run.stdout.contains(flag), "{cmd} {flag}: {}", run.stdout);
        }
    }
}

/// `--version` prints the package version.
#[test]
fn version_is_the_package_version() {
    let run = guid(["--version"]);
    ok(&run);
    assert_eq!(run.stdout, format!("guid {}\n", env!("CARGO_PKG_VERSION")));
}

/// A missing or unknown subcommand or flag is a usage error: status 2,
/// with the usage on stderr.
#[test]
fn usage_errors_exit_2() {
    for args in [
        &["bogus"][..],
        &["gen", "--bogus"],
        &["gen", "extra"],
        &["compose"],
        &["compose", "--time", "1", "--node", "1", "--local"],
        &["gen", "--node", "1", "--local"],
    ] {
        let run = guid(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stdout.is_empty(), "{args:?}");
        assert!(run.stderr.contains("Usage: guid"), "{args:?}: {run:?}");
    }
}

// --- gen ----------------------------------------------------------------------

/// One id by default, a sortable string of a global id made just now.
#[test]
fn gen_prints_one_global_id_by_default() {
    let before = now_ns();
    let run = guid(["gen"]);
    let after = now_ns();
    ok(&run);
    let lines = run.lines();
    assert_eq!(lines.len(), 1);
    let id: Guid = lines[0].parse().expect("a global id string");
    assert_eq!(id.drift().code(), 3);
    let tick = 1 << 17;
    assert!(
        before - before % tick <= id.time() && id.time() <= after,
        "{id:?}"
    );
}

/// `-n` ids from one clock: distinct, increasing, one node.
#[test]
fn gen_ids_increase_and_share_a_node() {
    let run = guid(["gen", "-n", "5000"]);
    ok(&run);
    let ids: Vec<Guid> = run.lines().iter().map(|s| s.parse().expect("id")).collect();
    assert_eq!(ids.len(), 5000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "strictly increasing");
    assert!(ids.iter().all(|id| id.node() == ids[0].node()));
    // Text order is id order.
    assert!(run.lines().windows(2).all(|w| w[0] < w[1]));
}

/// The default node is random: two runs differ.
#[test]
fn gen_default_node_is_random() {
    let node = |run: Run| run.stdout.trim().parse::<Guid>().expect("id").node();
    let nodes: Vec<u64> = (0..3).map(|_| node(guid(["gen"]))).collect();
    assert!(nodes[0] != nodes[1] || nodes[1] != nodes[2], "{nodes:?}");
}

/// `-n 0` prints nothing.
#[test]
fn gen_zero_ids() {
    let run = guid(["gen", "-n", "0"]);
    ok(&run);
    assert_eq!(run.stdout, "");
}

/// `--node` stamps the node; `CONFIG_GUID_NODE_ID` names it when `--node`
/// is absent, as in the Go library.
#[test]
fn gen_node_from_flag_and_environment() {
    let node = |run: &Run| run.stdout.trim().parse::<Guid>().expect("id").node();
    let run = guid(["gen", "--node", "0x53051caf"]);
    ok(&run);
    assert_eq!(node(&run), 0x5305_1caf);
    let run = guid(["gen", "--node", "4294967295"]);
    assert_eq!(node(&run), u32::MAX as u64);

    let mut cmd = command(["gen"]);
    cmd.env("CONFIG_GUID_NODE_ID", "abc@go");
    let run = common::run_with(cmd, b"");
    ok(&run);
    assert_eq!(node(&run), 0x5305_1caf);

    let mut cmd = command(["gen", "--node", "7"]);
    cmd.env("CONFIG_GUID_NODE_ID", "abc@go");
    assert_eq!(node(&common::run_with(cmd, b"")), 7);
}

/// `--drift SECS` buckets the seconds as the library does; `-1` may be
/// written with or without `=`.
#[test]
fn gen_drift_from_seconds() {
    let cases: [(&[&str], u8); 8] = [
        (&["--drift", "300"], 4),
        (&["--drift", "68"], 1),
        (&["--drift", "68.000000001"], 2),
        (&["--drift", "0"], 1),
        (&["--drift=-1"], 1),
        (&["--drift", "-1"], 1),
        (&["--drift", "86400"], 7),
        (&[], 3),
    ];
    for (flags, code) in cases {
        let run = guid(["gen"].iter().chain(flags));
        ok(&run);
        let id: Guid = run.stdout.trim().parse().expect("id");
        assert_eq!(id.drift().code(), code, "{flags:?}");
        let run = guid(["gen", "--local"].iter().chain(flags));
        let id: Luid = run.stdout.trim().parse().expect("local id");
        assert_eq!(id.drift().code(), code, "--local {flags:?}");
    }
}

/// A `--format` name and how to read its lines back.
type Decoder<I> = (&'static str, fn(&str) -> I);

/// Every format of global ids decodes back to an increasing run of ids.
#[test]
fn gen_formats_of_global_ids() {
    let decode: [Decoder<Guid>; 4] = [
        ("string", |s| s.parse().expect("string")),
        ("base62", |s| Guid::from_base62(s).expect("base62")),
        ("hex", |s| {
            assert_eq!(s.len(), 24, "{s}");
            assert_eq!(s, s.to_lowercase());
            let bytes = data_encoding::HEXLOWER.decode(s.as_bytes()).expect("hex");
            Guid::from_slice(&bytes).expect("12 bytes")
        }),
        ("json", |s| serde_json::from_str(s).expect("json")),
    ];
    for (format, decode) in decode {
        let run = guid(["gen", "-n", "300", "--format", format, "--node", "9"]);
        ok(&run);
        let ids: Vec<Guid> = run.lines().into_iter().map(decode).collect();
        assert_eq!(ids.len(), 300, "{format}");
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{format}");
        assert!(ids.iter().all(|id| id.node() == 9), "{format}");
    }
}

/// Every format of local ids, `int` included, decodes back in order.
#[test]
fn gen_formats_of_local_ids() {
    let decode: [Decoder<Luid>; 5] = [
        ("string", |s| s.parse().expect("string")),
        ("base62", |s| Luid::from_base62(s).expect("base62")),
        ("hex", |s| {
            assert_eq!(s.len(), 16, "{s}");
            let bytes = data_encoding::HEXLOWER.decode(s.as_bytes()).expect("hex");
            Luid::from_slice(&bytes).expect("8 bytes")
        }),
        ("json", |s| {
            assert!(s.starts_with("\"*"), "{s}");
            serde_json::from_str(s).expect("json")
        }),
        ("int", |s| {
            Luid::from_u64(s.parse().expect("u64")).expect("local id")
        }),
    ];
    for (format, decode) in decode {
        let run = guid(["gen", "--local", "-n", "300", "--format", format]);
        ok(&run);
        let ids: Vec<Luid> = run.lines().into_iter().map(decode).collect();
        assert_eq!(ids.len(), 300, "{format}");
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{format}");
    }
}

/// A global id has no 64-bit integer form.
#[test]
fn gen_int_needs_local() {
    let run = guid(["gen", "--format", "int"]);
    refused(&run, &["--format int", "--local"]);
    assert_eq!(run.stdout, "");
}

/// Bad flag values: one line naming the value and what is wrong, a usage
/// error.
#[test]
fn gen_rejects_bad_values() {
    let cases: [(&[&str], &[&str]); 7] = [
        (
            &["--node", "4294967296"],
            &["'4294967296'", "--node", "out of range"],
        ),
        (&["--node", "-1"], &["'-1'", "--node"]),
        (
            &["--node", "0xfffffffff"],
            &["'0xfffffffff'", "out of range"],
        ),
        (&["-n", "ten"], &["'ten'", "--count"]),
        (
            &["--drift", "1.0000000001"],
            &["'1.0000000001'", "9 fractional digits"],
        ),
        (&["--drift", "5m"], &["'5m'", "decimal"]),
        (&["--format", "xml"], &["'xml'", "possible values"]),
    ];
    for (flags, needles) in cases {
        let run = guid(["gen"].iter().chain(flags));
        refused(&run, needles);
        assert_eq!(run.stdout, "", "{flags:?}");
    }
    refused(
        &guid(["gen", "--drift", "9223372037"]),
        &["'9223372037'", "out of range"],
    );
}

/// A reader that stops early (`guid gen -n 1000000 | head -1`) ends the
/// command quietly, with no error and no panic.
#[test]
fn gen_stops_quietly_when_the_reader_goes() {
    let mut child = command(["gen", "-n", "100000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut first = String::new();
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    stdout.read_line(&mut first).expect("one line");
    assert_eq!(first.trim_end().len(), 16);
    drop(stdout);
    let out = child.wait_with_output().expect("ends");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

// --- inspect --------------------------------------------------------------------

/// The object has exactly the documented fields, in order, with the values
/// Go gives this id.
#[test]
fn inspect_prints_the_documented_object() {
    let run = guid(["inspect", G_STRING, L_JSON]);
    ok(&run);
    assert_eq!(formless(&run.stdout), format!("{G_OBJECT}\n{L_OBJECT}\n"));
}

/// Without `--from`, each form is recognised by its length and alphabet;
/// the kind follows the form.
#[test]
fn inspect_recognises_forms() {
    for (input, object) in [
        (G_STRING, G_OBJECT),
        (G_HEX, G_OBJECT),
        (G_JSON, G_OBJECT),
        (L_JSON, L_OBJECT),
        (L_BASE62, L_OBJECT),
        // Not a global string (drift code 0 in 6-bit cells), nor hex ('.').
        (L_STRING, L_OBJECT),
        (L_INT, L_OBJECT),
    ] {
        let run = guid(["inspect", input]);
        ok(&run);
        assert_eq!(formless(&run.stdout).trim_end(), object, "{input}");
    }
    // 17-digit base62 is global.
    let id = Guid::compose(u32::MAX, u64::MAX, 1, guid::Drift::MAX).expect("id");
    let base62 = id.to_base62();
    assert_eq!(base62.len(), 17);
    let run = guid(["inspect", &base62]);
    ok(&run);
    assert_eq!(run.objects()[0]["string"], json!(id.to_string()));
}

/// `--as` and `--from` narrow the readings tried; a 16-character input
/// that reads as two different ids needs them.
#[test]
fn inspect_as_and_from_override_recognition() {
    let cases: [(&[&str], &str, &str); 8] = [
        (&["--as", "l"], L_STRING, L_OBJECT),
        (&["--as", "g"], G_STRING, G_OBJECT),
        (&["--from", "hex"], L_HEX, L_OBJECT),
        (&["--from", "hex"], G_HEX, G_OBJECT),
        (&["--from", "base62"], G_BASE62, G_OBJECT),
        (&["--from", "base62"], L_BASE62, L_OBJECT),
        (&["--from", "string", "--as", "l"], L_STRING, L_OBJECT),
        (&["--from", "json"], L_JSON, L_OBJECT),
    ];
    for (flags, input, object) in cases {
        let run = guid(["inspect"].iter().chain(flags).chain([&input]));
        ok(&run);
        assert_eq!(
            formless(&run.stdout).trim_end(),
            object,
            "{flags:?} {input}"
        );
    }
    // Uppercase hex is read too; output hex stays lowercase.
    let run = guid(["inspect", &G_HEX.to_uppercase()]);
    ok(&run);
    assert_eq!(formless(&run.stdout).trim_end(), G_OBJECT);
    // The base62 of this id is 16 characters, also another id's string:
    // without --from it is read as the likelier (of the default drift
    // code), noting the other with its flag; --strict refuses it, --from
    // base62 reads it as above, and --from string reads the other id.
    let run = guid(["inspect", G_BASE62]);
    assert_eq!(formless(&run.stdout).trim_end(), G_OBJECT);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    assert!(run.stderr.starts_with("note: ") && run.stderr.contains("(--from string)"));
    let run = guid(["inspect", "--strict", G_BASE62]);
    bad(&run, &["ambiguous", "--from string", "--from base62"]);
    assert_eq!(run.stdout, "");
    let run = guid(["inspect", "--from", "string", G_BASE62]);
    ok(&run);
    assert_eq!(run.objects()[0]["string"], G_BASE62);
}

/// With no ID arguments, ids are read from standard input one per line;
/// blank lines, surrounding spaces and CRLF endings are ignored.
#[test]
fn inspect_reads_standard_input() {
    let input = format!("{G_STRING}\r\n\n   {L_JSON}  \n{G_HEX}");
    let run = guid_stdin(["inspect"], input.as_bytes());
    ok(&run);
    assert_eq!(
        formless(&run.stdout),
        format!("{G_OBJECT}\n{L_OBJECT}\n{G_OBJECT}\n")
    );

    let run = guid_stdin(["inspect", "--as", "l"], format!("{L_STRING}\n").as_bytes());
    ok(&run);
    assert_eq!(formless(&run.stdout).trim_end(), L_OBJECT);

    let run = guid_stdin(["inspect"], b"");
    ok(&run);
    assert_eq!(run.stdout, "");
}

/// Each bad id gets one error line naming it and what is wrong; the others
/// are still printed, and the status is 3 at the end.
#[test]
fn inspect_reports_bad_ids_and_goes_on() {
    let cases: [(&[&str], &str, &[&str]); 21] = [
        (
            &[],
            "N...0ngIdY...1.!",
            &["'N...0ngIdY...1.!'", "'!'", "index 15"],
        ),
        (&[], "abc", &["'abc'", "3 characters"]),
        (&[], "", &["''", "0 characters"]),
        (&[], "x", &["'x'", "not an id form: 1 character,"]),
        (&[], "000000073b13a63000002000", &["drift code 0"]),
        (
            &[],
            "600000073b13a6300000200g",
            &["hex digit 'g'", "index 23"],
        ),
        (
            &[],
            "zzzzzzzzzzzzzzzzz",
            &["'zzzzzzzzzzzzzzzzz'", "96 bits"],
        ),
        (&[], "0cdfbqcXW5qATlde", &["drift code 0"]),
        (&["--from", "base62"], "0cdfbqcXW5qATlde", &["leading zero"]),
        (&["--from", "base62"], "cdfbqcXW5qATldeS!", &["'!'"]),
        (
            &["--from", "hex"],
            "60000007",
            &["expected 24 hex digits", "found 8"],
        ),
        (
            &["--as", "l"],
            G_STRING,
            &["invalid character 'N' at index 0"],
        ),
        (&["--as", "g"], L_JSON, &["must not start with '*'"]),
        (
            &["--as", "l"],
            G_JSON,
            &["invalid Luid", "invalid character 'N' at index 0"],
        ),
        (&[], r#""N...""#, &["expected 16, found 4"]),
        (&[], r#""N...0ngIdY...1.."#, &["JSON"]),
        (
            &[],
            "52.F81E986821B4E",
            &["invalid character 'F' at index 3"],
        ),
        (
            &[],
            "N...0ngIdY...1..x",
            &["sortable string has 16 characters", "found 17"],
        ),
        (
            &["--from", "int"],
            "71419430882992783x6",
            &["'x'", "index 17"],
        ),
        (&["--from", "int"], "99999999999999999999", &["64 bits"]),
        (&["--as", "g"], "7141943088299278336", &["local ids only"]),
    ];
    for (flags, input, needles) in cases {
        // A good id in the form the flags ask for, before and after.
        let (good, object) = match flags {
            ["--from", "base62"] => (G_BASE62, G_OBJECT),
            ["--from", "hex"] => (G_HEX, G_OBJECT),
            ["--from", "int"] => (L_INT, L_OBJECT),
            ["--as", "l"] => (L_STRING, L_OBJECT),
            _ => (G_STRING, G_OBJECT),
        };
        let run = guid(
            ["inspect"]
                .iter()
                .chain(flags)
                .chain([&good, &input, &good]),
        );
        bad(&run, needles);
        assert_eq!(
            formless(&run.stdout),
            format!("{object}\n{object}\n"),
            "{flags:?} {input}"
        );
    }
}

/// Bytes that are not UTF-8 are an error like any other, on the command
/// line and on standard input.
#[cfg(unix)]
#[test]
fn inspect_rejects_non_utf8_input() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    let mut id = G_STRING.as_bytes().to_vec();
    id[3] = 0xff;
    let run = guid([OsString::from("inspect"), OsString::from_vec(id.clone())]);
    bad(&run, &[r"'N..\xff0ngIdY...1..'", "0xff", "index 3"]);

    id.push(b'\n');
    id.extend_from_slice(G_STRING.as_bytes());
    let run = guid_stdin(["inspect"], &id);
    bad(&run, &[r"\xff"]);
    assert_eq!(formless(&run.stdout).trim_end(), G_OBJECT);
}

/// A byte past an id's form, such as a trailing NUL, is named with its
/// index, not reported as some other form's error.
#[test]
fn inspect_names_a_trailing_nul() {
    let cases: [(&[u8], &str); 4] = [
        (
            b"N...0ngIdY...1..\0",
            r"'N...0ngIdY...1..\x00': invalid byte 0x00 at index 16, after the 16 characters of a sortable string",
        ),
        (
            b"N...0ngIdY...1.\0",
            r"'N...0ngIdY...1.\x00': invalid Guid: invalid byte 0x00 at index 15",
        ),
        (
            b"cdfbqcXW5qATldeS\0",
            r"'cdfbqcXW5qATldeS\x00': invalid Guid: invalid byte 0x00 at index 16",
        ),
        (
            b"600000073b13a63000002000\0",
            r"'600000073b13a63000002000\x00': invalid byte 0x00 at index 24, after the 24 characters of hex",
        ),
    ];
    for (input, message) in cases {
        let stdin = [input, b"\n", G_STRING.as_bytes()].concat();
        let run = guid_stdin(["inspect"], &stdin);
        assert_eq!(run.code, BAD_ID, "{run:?}");
        assert_eq!(run.stderr, format!("error: invalid id {message}\n"));
        assert_eq!(formless(&run.stdout).trim_end(), G_OBJECT);
    }
}

/// A line longer than any id is reported without being read whole, and
/// the lines after it are still inspected; one of whitespace is blank.
#[test]
fn inspect_reports_an_over_long_line_and_goes_on() {
    let mib = 1 << 20;
    let line = |byte: u8, len: usize| vec![byte; len];
    let input = [
        G_STRING.as_bytes(),
        b"\n",
        &line(b'x', 5 * mib),
        b"\n",
        L_JSON.as_bytes(),
        b"\n",
        &line(b' ', 3 * mib),
        b"\n",
        G_HEX.as_bytes(),
        b"\n",
        // The last line, with no newline.
        &line(b'y', 2 * mib),
    ]
    .concat();
    let run = guid_stdin(["inspect"], &input);
    assert_eq!(run.code, BAD_ID, "{}", run.stderr);
    assert_eq!(
        formless(&run.stdout),
        format!("{G_OBJECT}\n{L_OBJECT}\n{G_OBJECT}\n")
    );
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    for (error, byte, len) in [(errors[0], "x", 5 * mib), (errors[1], "y", 2 * mib)] {
        let start = format!(
            "error: invalid id '{}' (cut, {len} bytes): line too long",
            byte.repeat(64)
        );
        assert!(error.starts_with(&start), "{error}");
    }
}

/// A line of up to 1024 bytes, padding included, is read; one more byte
/// is too long.
#[test]
fn inspect_reads_lines_of_up_to_1024_bytes() {
    let padded = |len: usize| format!("{}{G_STRING}\n", " ".repeat(len - G_STRING.len()));
    let run = guid_stdin(["inspect"], padded(1024).as_bytes());
    ok(&run);
    assert_eq!(formless(&run.stdout).trim_end(), G_OBJECT);
    let run = guid_stdin(["inspect"], padded(1025).as_bytes());
    bad(&run, &["(cut, 1025 bytes)", "line too long", "1024"]);
    assert_eq!(run.stdout, "");
}

/// Many bad lines: every one is reported, every good one printed.
#[test]
fn inspect_counts_every_line() {
    let mut input = String::new();
    for i in 0..200 {
        input.push_str(if i % 3 == 0 {
            "nope\n"
        } else {
            "N...0ngIdY...1..\n"
        });
    }
    let run = guid_stdin(["inspect"], input.as_bytes());
    assert_eq!(run.code, BAD_ID);
    assert_eq!(run.stderr.lines().count(), 67);
    assert_eq!(run.lines().len(), 133);
    assert!(formless(&run.stdout).lines().all(|line| line == G_OBJECT));
}

/// Ids from `gen` inspect to their own parts.
#[test]
fn inspect_what_gen_made() {
    let run = guid(["gen", "-n", "50", "--node", "77", "--drift", "1000"]);
    ok(&run);
    let run = guid_stdin(["inspect"], run.stdout.as_bytes());
    ok(&run);
    let objects = run.objects();
    assert_eq!(objects.len(), 50);
    for o in &objects {
        assert_eq!(
            (&o["kind"], &o["node"], &o["drift"]),
            (&json!("g"), &json!(77), &json!(5))
        );
    }
}

// --- compose ----------------------------------------------------------------------

/// Parts in, the object of the id out; the time is kept to the tick.
#[test]
fn compose_builds_the_id_of_parts() {
    let t: u64 = 1_717_243_200_123_456_789; // 2024-06-01T12:00:00.123456789Z
    let run = guid([
        "compose",
        "--time",
        &t.to_string(),
        "--node",
        "0x53051caf",
        "--seq",
        "7",
    ]);
    ok(&run);
    let o = &run.objects()[0];
    let kept = t >> 17 << 17;
    assert_eq!(o["kind"], "g");
    assert_eq!(o["time_ns"], json!(kept));
    let frac = kept - 1_717_243_200_000_000_000;
    assert_eq!(o["time"], json!(format!("2024-06-01T12:00:00.{frac:09}Z")));
    assert_eq!(
        (&o["node"], &o["seq"], &o["drift"]),
        (&json!(0x5305_1caf_u32), &json!(7), &json!(3))
    );
    let id = Guid::compose(0x5305_1caf, t, 7, guid::Drift::DEFAULT).expect("id");
    assert_eq!(o["string"], json!(id.to_string()));
}

/// `--time` in RFC 3339 (any offset, up to 9 fractional digits) is the
/// same instant as in Unix nanoseconds.
#[test]
fn compose_time_as_rfc3339() {
    let ns = guid(["compose", "--time", "1717243200500000000"]);
    ok(&ns);
    for text in [
        "2024-06-01T12:00:00.5Z",
        "2024-06-01T14:00:00.500000000+02:00",
        "2024-06-01t09:30:00.5-02:30",
    ] {
        let run = guid(["compose", "--time", text]);
        ok(&run);
        assert_eq!(run.stdout, ns.stdout, "{text}");
    }
}

/// Without `--node`, `--seq` and `--drift`: node 0, seq 0, drift 3. With
/// `--local`: the smallest local id at that time, for range queries.
#[test]
fn compose_defaults_and_local() {
    let run = guid(["compose", "--time", "2024-06-01T10:00:00Z"]);
    ok(&run);
    let o = &run.objects()[0];
    assert_eq!(
        (&o["node"], &o["seq"], &o["drift"]),
        (&json!(0), &json!(0), &json!(3))
    );

    let run = guid([
        "compose",
        "--time",
        "2024-06-01T10:00:00Z",
        "--local",
        "--drift=-1",
    ]);
    ok(&run);
    let o = &run.objects()[0];
    assert_eq!(
        (&o["kind"], &o["node"], &o["seq"], &o["drift"]),
        (&json!("l"), &Value::Null, &json!(0), &json!(1))
    );
    let local =
        Luid::from_u64(u64::from_str_radix(o["hex"].as_str().expect("hex"), 16).expect("u64"))
            .expect("local id");
    let ten = UNIX_EPOCH + std::time::Duration::from_secs(1_717_236_000);
    assert_eq!(local, Luid::from_time(ten, guid::Drift::MIN));
}

/// The extremes of every part are accepted.
#[test]
fn compose_extremes() {
    let run = guid([
        "compose",
        "--time",
        "18446744073709551615",
        "--node",
        "4294967295",
        "--seq",
        "16383",
        "--drift",
        "3600",
    ]);
    ok(&run);
    let o = &run.objects()[0];
    assert_eq!(o["time"], "2554-07-21T23:34:33.709420544Z");
    assert_eq!(
        (&o["node"], &o["seq"], &o["drift"]),
        (&json!(u32::MAX), &json!(16383), &json!(7))
    );
    let run = guid(["compose", "--time", "0"]);
    ok(&run);
    assert_eq!(run.objects()[0]["time"], "1970-01-01T00:00:00.000000000Z");
}

/// Bad parts: one line naming the value and what is wrong, a usage error.
#[test]
fn compose_rejects_bad_parts() {
    let cases: [(&[&str], &[&str]); 12] = [
        (
            &["--time", "1", "--seq", "16384"],
            &["'16384'", "0..=16383"],
        ),
        (
            &["--time", "1", "--seq", "99999"],
            &["'99999'", "0..=16383"],
        ),
        (
            &["--time", "1", "--node", "4294967296"],
            &["'4294967296'", "out of range"],
        ),
        (
            &["--time", "18446744073709551616"],
            &["'18446744073709551616'", "u64"],
        ),
        (&["--time", "-1"], &["'-1'", "RFC 3339"]),
        (&["--time", "yesterday"], &["'yesterday'", "RFC 3339"]),
        (
            &["--time", "2024-02-30T00:00:00Z"],
            &["'day' for `2024-02` is invalid"],
        ),
        (&["--time", "2016-12-31T23:59:60Z"], &["leap second"]),
        (
            &["--time", "1969-12-31T23:59:59Z"],
            &["before the Unix epoch"],
        ),
        (
            &["--time", "2554-07-21T23:34:34Z"],
            &["last u64 nanosecond"],
        ),
        (
            &["--time", "2024-06-01T12:00:00.1234567891Z"],
            &["9 fractional digits"],
        ),
        (&["--time", "1", "--drift", "1e3"], &["'1e3'", "decimal"]),
    ];
    for (flags, needles) in cases {
        let run = guid(["compose"].iter().chain(flags));
        refused(&run, needles);
        assert_eq!(run.stdout, "", "{flags:?}");
    }
}
