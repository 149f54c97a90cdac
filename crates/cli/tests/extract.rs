//! `guid inspect --extract`: every id in lines of text, such as logs.

mod common;

use guid::Id;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use common::{command, guid, guid_stdin, object_g, object_l};
use guid::{Drift, Guid, Luid};
use serde_json::{Value, json};

/// 2025-06-01T10:00:00Z in Unix nanoseconds.
const T: u64 = 1_748_772_000_000_000_000;

/// The ids of the log, one of each kind and form.
struct Ids {
    /// Printed as its sortable string and as JSON.
    order: Guid,
    /// Drift code 7: 17 base62 digits, which no other form has.
    payment: Guid,
    /// Printed as hex.
    request: Guid,
    /// Printed as its local string.
    slot: Luid,
    /// Printed as base62.
    key: Luid,
    /// Printed as int.
    version: Luid,
    /// Printed as JSON.
    parcel: Luid,
}

fn ids() -> Ids {
    let d7 = Drift::new(7).expect("drift code 7");
    Ids {
        order: Guid::compose(0x5305_1caf, T, 7, Drift::DEFAULT).expect("id"),
        payment: Guid::compose(0x0bad_cafe, T + 512_000_000, 1, d7).expect("id"),
        request: Guid::compose(42, T + 1_003_000_000, 0, Drift::DEFAULT).expect("id"),
        slot: Luid::compose(T + 4_250_000_000, 3, Drift::DEFAULT).expect("id"),
        key: Luid::compose(T + 4_000_000_000, 99, Drift::DEFAULT).expect("id"),
        version: Luid::compose(T + 3_000_000_000, 12, Drift::DEFAULT).expect("id"),
        parcel: Luid::compose(T + 2_000_000_000, 5, Drift::DEFAULT).expect("id"),
    }
}

/// A log with ids of every form, several on a line, words that are no
/// ids, a blank line and lines with no id; and the objects it holds, with
/// their line numbers.
fn log(ids: &Ids) -> (String, Vec<Value>) {
    let hex = |bytes: &[u8]| data_encoding::HEXLOWER.encode(bytes);
    let json = |text: String| serde_json::to_string(&text).expect("json");
    let o = ids.order;
    let lines = [
        format!("2025-06-01T10:00:00.000Z INFO  order created order={o} user=alice items=3"),
        format!(
            "2025-06-01T10:00:00.512Z INFO  payment accepted payment={} order={o} amount=12.50 currency=EUR",
            ids.payment.to_base62()
        ),
        format!(
            "2025-06-01T10:00:01.003Z WARN  retrying request_id={} after=250ms attempt=2",
            hex(&ids.request.to_bytes())
        ),
        format!(
            r#"{{"ts":"2025-06-01T10:00:02Z","level":"info","msg":"shipped","order":{},"parcel":{}}}"#,
            serde_json::to_string(&o).expect("json"),
            serde_json::to_string(&ids.parcel).expect("json"),
        ),
        "2025-06-01T10:00:03.000Z INFO  configuration reloaded from /etc/app/config.toml in 35ms (initializeServices, HelloWorld123)".to_owned(),
        String::new(),
        format!(
            "2025-06-01T10:00:04.250Z DEBUG cache hit key={} slot={} version={}",
            ids.key.to_base62(),
            ids.slot,
            ids.version.to_u64()
        ),
        // A UUID (a token under --v3 only), a token that reads as three
        // ids (a global and a local string, local hex: the global string,
        // the only one of no time ahead, is the likeliest, and noted), an
        // id the sentence's '.' touches, and a quoted id in a message.
        format!(
            "2025-06-01T10:00:05Z ERROR request 550e8400-e29b-41d4-a716-446655440000 failed: \
             code 7ABCDE0123456789, see order {o}. msg={}",
            json(o.to_string())
        ),
    ];
    let at = |line: u64, mut object: Value| {
        object
            .as_object_mut()
            .expect("object")
            .insert("line".into(), json!(line));
        object
    };
    let found = vec![
        at(1, object_g(o)),
        at(2, object_g(ids.payment)),
        at(2, object_g(o)),
        at(3, object_g(ids.request)),
        at(4, object_g(o)),
        at(4, object_l(ids.parcel)),
        at(7, object_l(ids.key)),
        at(7, object_l(ids.slot)),
        at(7, object_l(ids.version)),
        at(
            8,
            object_g("7ABCDE0123456789".parse().expect("a global string")),
        ),
        at(8, object_g(o)),
    ];
    (lines.join("\n") + "\n", found)
}

/// The printed objects without their `time` text and `form` (checked
/// to be strings), each with `line` first.
fn objects(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| {
            assert!(line.starts_with(r#"{"line":"#), "{line}");
            let mut o: Value = serde_json::from_str(line).expect("a JSON object per line");
            let time = o.as_object_mut().and_then(|o| o.remove("time"));
            assert!(time.is_some_and(|t| t.is_string()), "{line}");
            let form = o.as_object_mut().and_then(|o| o.remove("form"));
            assert!(form.is_some_and(|f| f.is_string()), "{line}");
            o
        })
        .collect()
}

/// The line numbers of the printed objects.
fn line_numbers(stdout: &str) -> Vec<u64> {
    let line = |o: &Value| o["line"].as_u64().expect("a line number");
    objects(stdout).iter().map(line).collect()
}

/// The note of line 8's code, which reads as three ids.
fn noted_code(stderr: &str) {
    let notes: Vec<&str> = stderr.lines().collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    for needle in [
        "note: line 8: '7ABCDE0123456789' reads as 3 ids",
        "the sortable string of a global id, the likeliest",
        "(--from string --as l)",
        "(--from hex)",
    ] {
        assert!(notes[0].contains(needle), "{needle} in {stderr}");
    }
}

/// Every id of the log is found, in order, with its line; nothing else is,
/// and nothing is reported but the note of the token that reads as three
/// ids; --strict skips that one.
#[test]
fn extract_finds_every_id_in_a_log() {
    let ids = ids();
    let (text, found) = log(&ids);
    // Each form is one the id was printed in.
    assert!(ids.payment.to_base62().len() == 17);
    let run = guid_stdin(["inspect", "--extract"], text.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    noted_code(&run.stderr);
    assert_eq!(objects(&run.stdout), found, "{}", run.stdout);
    let run = guid_stdin(["inspect", "--extract", "--strict"], text.as_bytes());
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let unambiguous: Vec<Value> = found
        .iter()
        .filter(|o| o["string"] != "7ABCDE0123456789")
        .cloned()
        .collect();
    assert_eq!(objects(&run.stdout), unambiguous, "{}", run.stdout);

    // The same as arguments, one line each; `-` reads the log there.
    let lines: Vec<&str> = text.lines().collect();
    let run = guid_stdin(
        ["inspect", "--extract", lines[0], "-", lines[1]],
        text.as_bytes(),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let got = objects(&run.stdout);
    assert_eq!(got.len(), 1 + found.len() + 2);
    assert_eq!(got[0]["line"], 1);
    assert_eq!(got[1]["line"], 2);
    assert_eq!(got[found.len() + 1]["line"], 2 + lines.len() as u64);
}

/// The flags narrow the readings as for one id: local ids only, or one form.
#[test]
fn extract_with_as_and_from() {
    let ids = ids();
    let (text, found) = log(&ids);
    let run = guid_stdin(["inspect", "--extract", "--as", "l"], text.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let locals: Vec<Value> = found.iter().filter(|o| o["kind"] == "l").cloned().collect();
    // Line 8's code reads as a local string and local hex, both of a
    // time centuries ahead: no clock made it, so it is skipped, though
    // inspect reads it alone.
    let code = guid(["inspect", "--as", "l", "7ABCDE0123456789"]);
    assert_eq!(code.objects()[0]["form"], "hex", "{code:?}");
    assert!(
        code.objects()[0]["time"]
            .as_str()
            .is_some_and(|t| t > "2400")
    );
    assert_eq!(objects(&run.stdout), locals);

    // Under --from json only quoted ids are found, global ones too.
    let run = guid_stdin(["inspect", "--extract", "--from", "json"], text.as_bytes());
    assert_eq!(line_numbers(&run.stdout), [4, 4, 8]);
}

/// A 16-character string without '.' or '_' also reads as base62: read by
/// `--extract`, as by `inspect` alone, as the likelier, the string of the
/// default drift code (the base62 of drift code 1, and of the year 2463),
/// noting the other; --strict skips it (inspect refuses it); `--from
/// base62` reads the other alone, which --extract skips as no clock's.
#[test]
fn extract_takes_the_likelier_of_what_also_reads_as_base62() {
    let line = "2025-06-01T10:00:06Z INFO order=NkHHyvq1H59MZmlU user=bob\n";
    let plain = guid(["inspect", "NkHHyvq1H59MZmlU"]);
    assert_eq!(plain.code, 0, "the string alone: {plain:?}");
    assert!(plain.stderr.contains("(--from base62)"), "{plain:?}");
    let strict = guid(["inspect", "--strict", "NkHHyvq1H59MZmlU"]);
    assert_eq!(strict.code, 3, "{strict:?}");
    assert!(strict.stderr.contains("ambiguous"), "{strict:?}");
    let one = guid(["inspect", "--from", "string", "NkHHyvq1H59MZmlU"]);
    assert_eq!(plain.stdout, one.stdout);
    let expected = one.stdout.replacen('{', r#"{"line":1,"#, 1);
    for flags in [
        &["inspect", "--extract"][..],
        &["inspect", "--extract", "--from", "string"],
    ] {
        let run = guid_stdin(flags.iter().copied(), line.as_bytes());
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (0, expected.as_str()),
            "{run:?}"
        );
        let noted = run.stderr.starts_with("note: line 1: 'NkHHyvq1H59MZmlU'");
        assert_eq!(noted, flags.len() == 2, "{run:?}");
    }
    let run = guid_stdin(["inspect", "--extract", "--strict"], line.as_bytes());
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "")
    );
    // Its base62 is of a time centuries ahead: inspect reads it alone with
    // --from base62, --extract skips it (no clock made it).
    let base62 = guid(["inspect", "--from", "base62", "NkHHyvq1H59MZmlU"]);
    assert!(
        base62.objects()[0]["time"]
            .as_str()
            .is_some_and(|t| t > "2400")
    );
    let run = guid_stdin(
        ["inspect", "--extract", "--from", "base62"],
        line.as_bytes(),
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{run:?}");
}

/// A line of any length is searched whole, without the 1024-byte limit of
/// one id per line, and the lines after it keep their numbers.
#[test]
fn extract_searches_long_lines() {
    let o = ids().order;
    let mut text = format!("first={o} ").into_bytes();
    text.extend(std::iter::repeat_n(b"lorem ipsum ".as_slice(), 400_000).flatten());
    text.extend(format!("last={o}\nnext={o}\n").bytes());
    // A run of id characters longer than any id, then an id.
    text.extend(std::iter::repeat_n(b'a', 3 << 20));
    text.extend(format!(" after={o}").bytes());
    let run = guid_stdin(["inspect", "--extract"], &text);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(line_numbers(&run.stdout), [1, 1, 2, 3]);
    assert!(objects(&run.stdout).iter().all(|got| {
        let mut got = got.clone();
        got.as_object_mut().and_then(|g| g.remove("line"));
        got == object_g(o)
    }));
}

/// Ids are printed as their line arrives, as `tail -f app.log | guid
/// inspect --extract` needs.
#[test]
fn extract_follows_a_growing_log() {
    let o = ids().order;
    let mut child = command(["inspect", "--extract"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    for n in 1..=3 {
        writeln!(stdin, "tick {n} id={o}").expect("written");
        stdin.flush().expect("flushed");
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .expect("an object before more input");
        assert!(
            line.starts_with(&format!(r#"{{"line":{n},"kind":"g""#)),
            "{line}"
        );
    }
    drop(stdin);
    let out = child.wait_with_output().expect("ends");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Bytes that are not UTF-8, NULs and CRLF endings are text like any other.
#[test]
fn extract_takes_any_bytes() {
    let o = ids().order;
    let mut text = b"\xff\xfe\x00garbage ".to_vec();
    text.extend(format!("id={o}\r\n\x00{o}").bytes());
    text.extend(b"\x80\n");
    let run = guid_stdin(["inspect", "--extract"], &text);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(line_numbers(&run.stdout), [1, 2]);
}
