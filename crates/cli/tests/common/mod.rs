//! Runs the built `guid` binary.

#![allow(dead_code)] // each test file uses a part

use guid::Id;
use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// What a run of the command left behind.
#[derive(Debug)]
pub struct Run {
    /// The exit status code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// The stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// Each stdout line as JSON.
    pub fn objects(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON object per line"))
            .collect()
    }
}

/// A command for the binary, with no node id in its environment.
pub fn command<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_guid"));
    cmd.args(args).env_remove("CONFIG_GUID_NODE_ID");
    cmd
}

/// Runs `guid args...` with `stdin` (empty if none) and waits for it.
pub fn run_with(mut cmd: Command, stdin: &[u8]) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the guid binary starts");
    let mut input = child.stdin.take().expect("piped stdin");
    let stdin = stdin.to_vec();
    // Written from another thread so a large input cannot deadlock against
    // a full stdout pipe; a command that reads no stdin may close it early.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().expect("the guid binary runs");
    writer.join().expect("stdin writer");
    Run {
        code: out.status.code().expect("an exit code, not a signal"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

/// Runs `guid args...` with empty stdin.
pub fn guid<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Run {
    run_with(command(args), b"")
}

/// Runs `guid args...` with `stdin`.
pub fn guid_stdin<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>, stdin: &[u8]) -> Run {
    run_with(command(args), stdin)
}

/// The object `inspect` prints for a global id, without its `time` text.
pub fn object_g(id: guid::Guid) -> serde_json::Value {
    serde_json::json!({
        "kind": "g",
        "drift": id.drift().code(),
        "time_ns": id.time(),
        "node": id.node(),
        "seq": id.seq(),
        "hex": data_encoding::HEXLOWER.encode(&id.to_bytes()),
        "string": id.to_string(),
        "base62": id.to_base62(),
        "json": serde_json::to_string(&id).expect("JSON of an id"),
    })
}

/// The object `inspect` prints for a local id, without its `time` text.
pub fn object_l(id: guid::Luid) -> serde_json::Value {
    serde_json::json!({
        "kind": "l",
        "drift": id.drift().code(),
        "time_ns": id.time(),
        "node": null,
        "seq": id.seq(),
        "hex": data_encoding::HEXLOWER.encode(&id.to_bytes()),
        "string": id.to_string(),
        "base62": id.to_base62(),
        "json": serde_json::to_string(&id).expect("JSON of an id"),
    })
}

/// The object `inspect` prints for a sno id, without its `time` text.
pub fn object_sno(id: guid::sno::Sno) -> serde_json::Value {
    serde_json::json!({
        "kind": "sno",
        "string": id.to_string(),
        "hex": format!("{id:x}"),
        "time_ns": id.unix_ns(),
        "meta": id.meta(),
        "partition": id.partition(),
        "seq": id.sequence(),
        "tick": u8::from(id.tick()),
    })
}

/// Every valid reading of `input` under the forms and kinds `flags`
/// (`--from F`, `--as K`) allow, with the name of its form (`string`,
/// `base62`, `hex`, `json`, `int` or `sno`), as objects: inspect's
/// readings, told with the library's decoders alone. An id valid in several
/// forms is listed once per form; a string of both kinds is a reading of
/// each; without --from or --as, a sno string is one.
pub fn spelled(input: &str, flags: &[&str]) -> Vec<(&'static str, serde_json::Value)> {
    let flag = |name: &str| flags.iter().position(|f| *f == name).map(|i| flags[i + 1]);
    let (from, kind) = (flag("--from"), flag("--as"));
    let bytes = input.as_bytes();
    let hex = data_encoding::HEXLOWER_PERMISSIVE.decode(bytes).ok();
    let hex = hex.as_deref();
    let int = (!input.is_empty() && input.bytes().all(|b| b.is_ascii_digit()))
        .then(|| input.parse::<u64>().ok())
        .flatten();
    let g = [
        ("string", guid::Guid::parse_bytes(bytes).ok()),
        ("base62", guid::Guid::from_base62(bytes).ok()),
        ("hex", hex.and_then(|b| guid::Guid::from_slice(b).ok())),
        ("json", serde_json::from_str(input).ok()),
    ];
    let l = [
        ("string", guid::Luid::parse_bytes(bytes).ok()),
        ("base62", guid::Luid::from_base62(bytes).ok()),
        ("hex", hex.and_then(|b| guid::Luid::from_slice(b).ok())),
        ("json", serde_json::from_str(input).ok()),
        ("int", int.and_then(|v| guid::Luid::from_u64(v).ok())),
    ];
    let allowed =
        |f: &str, k: &str| from.is_none_or(|from| from == f) && kind.is_none_or(|kind| kind == k);
    let ids = g
        .iter()
        .filter(|(f, _)| allowed(f, "g"))
        .filter_map(|&(f, id)| Some((f, object_g(id?))))
        .chain(
            l.iter()
                .filter(|(f, _)| allowed(f, "l"))
                .filter_map(|&(f, id)| Some((f, object_l(id?)))),
        );
    // Without --from or --as, a sno string too.
    let sno = (from.is_none() && kind.is_none())
        .then(|| guid::sno::Sno::parse_bytes(bytes).ok())
        .flatten()
        .map(|id| ("sno", object_sno(id)));
    ids.chain(sno).collect()
}

/// Every different id `input` reads as under `flags` (see `spelled`).
/// Several are ambiguous, read by the evidence of the stream, else by
/// likelihood (`inspected`).
pub fn readings(input: &str, flags: &[&str]) -> Vec<serde_json::Value> {
    let mut found: Vec<serde_json::Value> = Vec::new();
    for (_, id) in spelled(input, flags) {
        if !found.contains(&id) {
            found.push(id);
        }
    }
    found
}

/// The forms in which a line can read as different ids.
const SPELLINGS: [&str; 4] = ["string", "base62", "hex", "sno"];

/// The form `input` shows under `flags`: the one of [`SPELLINGS`] it is
/// valid in, if it is valid in one only, as one id.
pub fn shows(input: &str, flags: &[&str]) -> Option<&'static str> {
    let spelled = spelled(input, flags);
    let mut forms: Vec<&str> = spelled
        .iter()
        .map(|(f, _)| *f)
        .filter(|f| SPELLINGS.contains(f))
        .collect();
    forms.sort_unstable();
    forms.dedup();
    match (&forms[..], readings(input, flags).len()) {
        ([one], 1) => Some(one),
        _ => None,
    }
}

/// Unix nanoseconds now.
pub fn now() -> u64 {
    guid::unix_nanos(std::time::SystemTime::now())
}

/// The likeliest of the different readings `spelled` (of a v2 id, from
/// `spelled`), by inspect's rule told here apart from its code: fewest
/// marks of a misreading, a time over a day ahead of now first, then a
/// drift code other than v2's default 3 (or none, as a sno id's), then a
/// global string or base62 of an input that also reads in a narrow
/// alphabet (hex, a sno string, a local string); then the sortable string
/// (local, then global), hex, a sno string, base62, in that order.
pub fn likeliest(spelled: &[(&'static str, serde_json::Value)]) -> serde_json::Value {
    let narrow = |(form, o): &(&str, Value)| {
        *form == "hex" || o["kind"] == "sno" || (*form == "string" && o["kind"] == "l")
    };
    let any_narrow = spelled.iter().any(narrow);
    let ahead = now() + 24 * 3600 * 1_000_000_000;
    let rank = |r: &(&str, Value)| {
        let (form, o) = r;
        let wide = matches!(*form, "string" | "base62") && o["kind"] == "g";
        let marks = u8::from(o["drift"] != 3) + u8::from(wide && any_narrow);
        let order = match (*form, o["kind"].as_str()) {
            ("string" | "json", Some("l")) => 0,
            ("string" | "json", Some("g")) => 1,
            ("hex", _) => 2,
            ("sno", _) => 3,
            ("base62", _) => 4,
            _ => 5,
        };
        (
            o["time_ns"].as_u64().is_some_and(|t| t > ahead),
            marks,
            order,
        )
    };
    spelled
        .iter()
        .min_by_key(|r| rank(r))
        .expect("several")
        .1
        .clone()
}

/// What `inspect flags` prints for each of `inputs`, in order, by its rule
/// told here apart from its code: the one id of an input, or, of an
/// ambiguous one, the reading in the one form the inputs before it showed
/// (or, if they showed none, the first after it that shows one; the
/// likeliest, if it has several in that form), else the likeliest of all;
/// `None` for an input refused as ambiguous (under --strict, an input that
/// no form shown decides).
pub fn inspected(inputs: &[&str], flags: &[&str]) -> Vec<Option<serde_json::Value>> {
    let strict = flags.contains(&"--strict");
    let shown: Vec<Option<&str>> = inputs.iter().map(|i| shows(i, flags)).collect();
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            match &readings(input, flags)[..] {
                // No id: an error, as a refusal is.
                [] => return None,
                [one] => return Some(one.clone()),
                _ => {}
            }
            let spelled = spelled(input, flags);
            let mut before: Vec<&str> = shown[..i].iter().flatten().copied().collect();
            before.sort_unstable();
            before.dedup();
            let evidence = match &before[..] {
                [] => shown[i..].iter().flatten().next().copied(),
                [one] => Some(*one),
                _ => None,
            };
            let mut within: Vec<(&str, Value)> = Vec::new();
            for (f, id) in spelled.iter().filter(|(f, _)| Some(*f) == evidence) {
                if !within.iter().any(|(_, seen)| seen == id) {
                    within.push((f, id.clone()));
                }
            }
            match (&within[..], strict) {
                ([(_, one)], _) => Some(one.clone()),
                ([], true) | ([_, _, ..], true) => None,
                ([], false) => Some(likeliest(&distinct(&spelled))),
                ([_, _, ..], false) => Some(likeliest(&within)),
            }
        })
        .collect()
}

/// The first reading of each different id, as inspect keeps them.
fn distinct(spelled: &[(&'static str, Value)]) -> Vec<(&'static str, Value)> {
    let mut kept: Vec<(&'static str, Value)> = Vec::new();
    for (f, id) in spelled {
        if !kept.iter().any(|(_, seen)| seen == id) {
            kept.push((f, id.clone()));
        }
    }
    kept
}

/// Checks what `inspect flags` printed for `inputs` (each with the object
/// of the id it was made from), in order: each input `inspected` reads is
/// that id on stdout (with a note on stderr when it also read otherwise
/// and no form shown decided); each it refuses is one stderr line naming
/// `--from` or `--as`; the status says whether any was. Returns how many
/// were not read as the id made: refused, or read as another.
pub fn check_each(inputs: &[(String, serde_json::Value)], flags: &[&str], run: &Run) -> usize {
    let mut objects = run.objects().into_iter();
    let mut errors = run.stderr.lines().filter(|l| !l.starts_with("note: "));
    let notes = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("note: "))
        .count();
    let (mut refused, mut other) = (0, 0);
    let lines: Vec<&str> = inputs.iter().map(|(i, _)| i.as_str()).collect();
    for ((input, want), read) in inputs.iter().zip(inspected(&lines, flags)) {
        if let Some(one) = read {
            let mut got = objects.next().unwrap_or_else(|| panic!("{input}: {run:?}"));
            let time = got.as_object_mut().and_then(|o| o.remove("time"));
            assert!(time.is_some_and(|t| t.is_string()), "{input}");
            let form = got.as_object_mut().and_then(|o| o.remove("form"));
            assert!(form.is_some_and(|f| f.is_string()), "{input}");
            assert_eq!(got, one, "{input} {flags:?}");
            if one != *want {
                other += 1;
            }
        } else {
            let readings = readings(input, flags);
            assert!(readings.contains(want), "{input} {flags:?}: {readings:?}");
            refused += 1;
            let error = errors.next().unwrap_or_else(|| panic!("{input}: {run:?}"));
            for needle in [&format!("invalid id '{input}'"), "ambiguous"] {
                assert!(error.contains(needle), "{needle:?} in {error}");
            }
            assert!(
                error.contains("--from") || error.contains("--as"),
                "{error}"
            );
        }
    }
    assert_eq!(objects.next(), None, "{flags:?}: no more objects");
    assert_eq!(errors.next(), None, "{flags:?}: no more errors");
    assert!(other == 0 || notes > 0, "a misread is noted: {run:?}");
    assert_eq!(run.code, if refused > 0 { 3 } else { 0 }, "{run:?}");
    refused + other
}

/// A vector number: a `0x` hex string.
pub fn vector_hex(v: &Value) -> u64 {
    let s = v.as_str().expect("a hex string");
    u64::from_str_radix(s.strip_prefix("0x").expect("0x prefix"), 16).expect("hex number")
}

/// Checks a vector test's run printed, line by line, the objects of
/// `expect`, minus the `time` text (Go prints none; RFC 3339 is checked
/// elsewhere).
pub fn check_vectors(what: &str, run: &Run, expect: &[(u64, Value)]) {
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{what}");
    let got = run.objects();
    assert_eq!(got.len(), expect.len(), "{what}: one object per id");
    for (mut got, (id, want)) in got.into_iter().zip(expect) {
        let time = got.as_object_mut().and_then(|o| o.remove("time"));
        assert!(
            time.as_ref().is_some_and(Value::is_string),
            "{what}, case {id}"
        );
        got.as_object_mut().and_then(|o| o.remove("form"));
        assert_eq!(&got, want, "{what}, case {id}");
    }
}

/// Nanoseconds written as the decimal seconds a user would type.
pub fn seconds(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let (whole, frac) = (
        ns.unsigned_abs() / 1_000_000_000,
        ns.unsigned_abs() % 1_000_000_000,
    );
    if frac == 0 {
        format!("{sign}{whole}")
    } else {
        let frac = format!("{frac:09}");
        format!("{sign}{whole}.{}", frac.trim_end_matches('0'))
    }
}
