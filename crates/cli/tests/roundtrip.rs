//! Everything `guid gen` writes reads back: every kind, form, drift code
//! and node of `gen`, and sno ids, piped into `guid inspect` with no flag
//! but the generation's (`--v3`), with the flags of the form, found by
//! `inspect --extract`, and a line alone, as a user pastes an id from a
//! log; and the forms `guid compose` prints. Each time the fields read back
//! (kind, drift, time, node or partition and meta, sequence) are those of
//! the id written, told by the library's decoder of the form `gen` was
//! asked for, and checked against `gen`'s flags.

mod common;

use std::time::SystemTime;

use common::{Run, guid, guid_stdin};
use guid::Id;
use guid::sno::Sno;
use guid::v3;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Ids per `gen` run.
const N: usize = 24;

/// Lines of each run also inspected alone.
const ALONE: usize = 3;

/// What one `gen` run is asked for.
#[derive(Clone, Debug)]
struct Gen {
    /// `--v3`.
    v3: bool,
    /// `g`, `l`, `x` or `sno`.
    kind: &'static str,
    /// The `--format` (`string` for sno).
    format: &'static str,
    /// `--drift-code K` or `--drift SECS`, if given.
    drift: Option<Drift>,
    /// `--node N`, if given.
    node: Option<u64>,
    /// sno's `--meta M`, if given.
    meta: Option<u8>,
    /// sno's `--partition P`, if given.
    partition: Option<u16>,
}

/// A drift flag.
#[derive(Clone, Copy, Debug)]
enum Drift {
    /// `--drift-code K`.
    Code(u8),
    /// `--drift SECS`, in seconds.
    Secs(u32),
}

impl Gen {
    /// The flags of `guid gen`.
    fn flags(&self) -> Vec<String> {
        let mut flags: Vec<String> = vec!["gen".into(), "-n".into(), N.to_string()];
        let mut add = |f: &[&str]| flags.extend(f.iter().map(|s| s.to_string()));
        if self.kind == "sno" {
            add(&["--sno"]);
        } else {
            add(&["--format", self.format]);
        }
        if self.v3 {
            add(&["--v3"]);
        }
        match self.kind {
            "l" => add(&["--local"]),
            "x" => add(&["--x"]),
            _ => {}
        }
        match self.drift {
            Some(Drift::Code(k)) => add(&["--drift-code", &k.to_string()]),
            Some(Drift::Secs(s)) => add(&["--drift", &s.to_string()]),
            None => {}
        }
        if let Some(node) = self.node {
            add(&["--node", &format!("{node:#x}")]);
        }
        if let Some(meta) = self.meta {
            add(&["--meta", &meta.to_string()]);
        }
        if let Some(partition) = self.partition {
            add(&["--partition", &partition.to_string()]);
        }
        flags
    }

    /// The flags of `inspect` that name the generation only.
    fn generation(&self) -> Vec<&'static str> {
        if self.v3 { vec!["--v3"] } else { vec![] }
    }

    /// The flags of `inspect` that name the form and kind too.
    fn exact(&self) -> Vec<&'static str> {
        if self.kind == "sno" {
            return vec!["--sno"];
        }
        let mut flags = self.generation();
        flags.extend(["--from", self.format, "--as", self.kind]);
        flags
    }

    /// The drift code the ids must have.
    fn drift_code(&self) -> u8 {
        match (self.drift, self.v3) {
            (Some(Drift::Code(k)), _) => k,
            (Some(Drift::Secs(s)), false) => {
                guid::Drift::from_nanos(i64::from(s) * 1_000_000_000).code()
            }
            (Some(Drift::Secs(s)), true) => {
                v3::Drift::from_duration(std::time::Duration::from_secs(s.into())).code()
            }
            (None, false) => guid::Drift::DEFAULT.code(),
            (None, true) => v3::Drift::DEFAULT.code(),
        }
    }

    /// Whether every drift flag is left at its default: what `gen` writes
    /// without a flag but `--v3`, `--local`, `--x`, `--format` and `--node`.
    fn default_drift(&self) -> bool {
        self.drift.is_none()
    }
}

/// The fields of the id of type `I` written as `line` in `form`, decoded
/// with the library.
fn written_as<I: Id + DeserializeOwned>(line: &str, form: &str, kind: &str) -> Value {
    let bytes = line.as_bytes();
    let id = match form {
        "string" => I::parse_bytes(bytes),
        "base62" => I::from_base62(bytes),
        "hex" => I::from_slice(
            &data_encoding::HEXLOWER
                .decode(bytes)
                .expect("lowercase hex"),
        ),
        "json" => Ok(serde_json::from_str(line).expect("JSON")),
        "int" => I::from_u128(line.parse().expect("an unsigned number")),
        _ => unreachable!("{form}"),
    }
    .unwrap_or_else(|e| panic!("{line} as {form}: {e}"));
    json!({
        "kind": kind,
        "drift": id.drift().into(),
        "time_ns": id.time(),
        "node": (I::NODE_BITS > 0).then(|| id.node()),
        "seq": id.seq(),
    })
}

/// The fields of the id `gen` wrote as `line`.
fn written(spec: &Gen, line: &str) -> Value {
    let f = spec.format;
    match (spec.v3, spec.kind) {
        (_, "sno") => {
            let id = Sno::parse_bytes(line.as_bytes()).expect("a sno string");
            json!({
                "kind": "sno",
                "time_ns": id.unix_ns(),
                "meta": id.meta(),
                "partition": id.partition(),
                "seq": id.sequence(),
                "tick": u8::from(id.tick()),
            })
        }
        (false, "g") => written_as::<guid::Guid>(line, f, "g"),
        (false, "l") => written_as::<guid::Luid>(line, f, "l"),
        (true, "g") => written_as::<v3::Guid>(line, f, "g"),
        (true, "l") => written_as::<v3::Luid>(line, f, "l"),
        (true, "x") => written_as::<v3::Xuid>(line, f, "x"),
        _ => unreachable!("{spec:?}"),
    }
}

/// The same fields of an object `inspect` printed.
fn read(object: &Value) -> Value {
    let keys: &[&str] = match object["kind"].as_str() {
        Some("sno") => &["kind", "time_ns", "meta", "partition", "seq", "tick"],
        _ => &["kind", "drift", "time_ns", "node", "seq"],
    };
    Value::Object(
        keys.iter()
            .map(|&k| (k.to_owned(), object[k].clone()))
            .collect(),
    )
}

/// Unix nanoseconds now.
fn now() -> u64 {
    guid::unix_nanos(SystemTime::now())
}

/// Runs `gen` and checks what it wrote against its flags: the kind, the
/// drift code, the node, sno's meta and partition, a time between the
/// run's start and end. Returns the lines and the fields of each.
fn generate(spec: &Gen) -> (Vec<String>, Vec<Value>) {
    let start = now();
    let run = guid(spec.flags());
    let end = now();
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (0, ""),
        "{spec:?}: {run:?}"
    );
    let lines: Vec<String> = run.lines().into_iter().map(str::to_owned).collect();
    assert_eq!(lines.len(), N, "{spec:?}");
    let fields: Vec<Value> = lines.iter().map(|l| written(spec, l)).collect();
    for (line, f) in lines.iter().zip(&fields) {
        let what = format!("{spec:?} wrote {line}: {f}");
        assert_eq!(f["kind"], spec.kind, "{what}");
        let time = f["time_ns"].as_u64().expect("time_ns");
        // A tick is 2^17 ns, a sno unit 4 ms; the clock may run ahead of
        // the wall clock by a few ids' worth.
        assert!(
            time + 5_000_000 >= start && time <= end + 1_000_000_000,
            "{what}"
        );
        if spec.kind == "sno" {
            assert_eq!(f["meta"], spec.meta.unwrap_or(0), "{what}");
            if let Some(p) = spec.partition {
                assert_eq!(f["partition"], p, "{what}");
            }
        } else {
            assert_eq!(f["drift"], spec.drift_code(), "{what}");
            if let Some(node) = spec.node {
                assert_eq!(f["node"], node, "{what}");
            }
        }
    }
    (lines, fields)
}

/// Checks `run` printed, in order, objects whose fields are `want` (with
/// the line numbers `lines`, if given), with status 0 and no error. Returns
/// the number of ids read otherwise, which a note on standard error must
/// then explain, naming the flags that read them as written.
fn reads_back(what: &str, run: &Run, want: &[Value], lines: Option<&[u64]>, spec: &Gen) -> usize {
    assert_eq!(run.code, 0, "{what}: {run:?}");
    assert!(
        run.stderr.lines().all(|l| l.starts_with("note: ")),
        "{what}: only notes on stderr: {run:?}"
    );
    let objects = run.objects();
    assert_eq!(objects.len(), want.len(), "{what}: {run:?}");
    let mut misread = 0;
    for (i, (o, w)) in objects.iter().zip(want).enumerate() {
        if let Some(lines) = lines {
            assert_eq!(o["line"], lines[i], "{what}: {o}");
        }
        if read(o) != *w {
            misread += 1;
            // Such an id reads as several: the note names the other
            // readings, the one written among them.
            let flag = format!("--from {}", spec.format);
            let kind = format!("--as {}", spec.kind);
            assert!(
                run.stderr.contains(&flag) || run.stderr.contains(&kind),
                "{what}: {o} read for {w}, and no note names {flag} or {kind}: {run:?}"
            );
        }
    }
    misread
}

/// Pipes one `gen` run into `inspect` every way and checks each reads the
/// ids back. Without a drift flag, every id must read back as written
/// without a flag but `--v3`; with one, a line alone may read as another id
/// in a form that meets `gen`'s (a note names the flags that read it as
/// written), but the lines of one run read back (their first, of sequence
/// 0, shows its form), and with the form's flags every id does.
fn round_trip(spec: &Gen) {
    let (lines, fields) = generate(spec);
    let input = lines.join("\n") + "\n";

    // With the flags of the form and kind: exactly, with nothing to note.
    let run = guid_stdin(["inspect"].iter().chain(&spec.exact()), input.as_bytes());
    let what = format!("{spec:?} | inspect {:?}", spec.exact());
    assert_eq!(reads_back(&what, &run, &fields, None, spec), 0);
    assert_eq!(run.stderr, "", "{what}");

    // No flag but the generation's (sno ids too: they read as sno ids).
    let run = guid_stdin(
        ["inspect"].iter().chain(&spec.generation()),
        input.as_bytes(),
    );
    let what = format!("{spec:?} | inspect {:?}", spec.generation());
    let misread = reads_back(&what, &run, &fields, None, spec);
    if spec.default_drift() {
        assert_eq!(misread, 0, "{what}: {run:?}");
    }

    // Found in text. A sno id is found with --sno only.
    let text: String = lines.iter().map(|l| format!("t=1 id={l} ok\n")).collect();
    let mut flags = vec!["inspect", "--extract"];
    flags.extend(if spec.kind == "sno" {
        vec!["--sno"]
    } else {
        spec.generation()
    });
    let run = guid_stdin(&flags, text.as_bytes());
    let numbers: Vec<u64> = (1..=N as u64).collect();
    let what = format!("{spec:?} | {flags:?}");
    let misread = reads_back(&what, &run, &fields, Some(&numbers), spec);
    if spec.default_drift() {
        assert_eq!(misread, 0, "{what}: {run:?}");
    }

    // A line alone, as pasted from a log: read as written, noting any
    // other reading; under --strict read as written or refused.
    for (line, want) in lines.iter().zip(&fields).take(ALONE) {
        let mut flags = vec!["inspect"];
        flags.extend(spec.generation());
        flags.push(line);
        let run = guid(&flags);
        let what = format!("{spec:?}: {flags:?}");
        let misread = reads_back(&what, &run, std::slice::from_ref(want), None, spec);
        if spec.default_drift() {
            assert_eq!(misread, 0, "{what}: {run:?}");
        }
        flags.insert(1, "--strict");
        let run = guid(&flags);
        if run.code == 0 {
            assert_eq!(run.stderr, "", "{flags:?}");
            assert_eq!(
                run.objects().iter().map(read).collect::<Vec<_>>(),
                std::slice::from_ref(want),
                "{flags:?}"
            );
        } else {
            assert_eq!(
                (run.code, run.stdout.as_str()),
                (3, ""),
                "{flags:?}: {run:?}"
            );
            assert!(run.stderr.contains("ambiguous"), "{flags:?}: {run:?}");
        }
    }
}

/// Every `--format` of a kind.
fn formats(kind: &str) -> &'static [&'static str] {
    match kind {
        "l" => &["string", "base62", "hex", "json", "int"],
        _ => &["string", "base62", "hex", "json"],
    }
}

/// Every run of `gen` of one generation and kind: each form, each drift
/// code, a drift in seconds and the default, with and without a node.
fn every(v3: bool, kind: &'static str) -> Vec<Gen> {
    let codes = if v3 { 0..=7 } else { 1..=7 };
    let drifts: Vec<Option<Drift>> = std::iter::once(None)
        .chain(codes.map(|k| Some(Drift::Code(k))))
        .chain([Some(Drift::Secs(3600))])
        .collect();
    let nodes: &[Option<u64>] = match kind {
        "g" => &[None, Some(0x5305_1caf)],
        "x" => &[None, Some(v3::node::MAX)],
        _ => &[None],
    };
    let mut all = Vec::new();
    for &format in formats(kind) {
        for &drift in &drifts {
            for &node in nodes {
                all.push(Gen {
                    v3,
                    kind,
                    format,
                    drift,
                    node,
                    meta: None,
                    partition: None,
                });
            }
        }
    }
    all
}

#[test]
fn every_v2_global_form_reads_back() {
    every(false, "g").iter().for_each(round_trip);
}

#[test]
fn every_v2_local_form_reads_back() {
    every(false, "l").iter().for_each(round_trip);
}

#[test]
fn every_v3_global_form_reads_back() {
    every(true, "g").iter().for_each(round_trip);
}

#[test]
fn every_v3_local_form_reads_back() {
    every(true, "l").iter().for_each(round_trip);
}

#[test]
fn every_v3_128_bit_form_reads_back() {
    every(true, "x").iter().for_each(round_trip);
}

#[test]
fn every_sno_id_reads_back() {
    for (meta, partition) in [
        (None, None),
        (Some(7), None),
        (None, Some(0x4142)),
        (Some(255), Some(0)),
    ] {
        round_trip(&Gen {
            v3: false,
            kind: "sno",
            format: "string",
            drift: None,
            node: None,
            meta,
            partition,
        });
    }
}

/// `gen --v3 --local | inspect --v3`: a local id, of the time it was made,
/// not a global one of 1973 (every v3 local string is also a global one).
#[test]
fn v3_local_strings_read_back_as_local() {
    let start = now();
    let made = guid(["gen", "--v3", "--local"]);
    let run = guid_stdin(["inspect", "--v3"], made.stdout.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let o = &run.objects()[0];
    assert_eq!(
        (o["kind"].as_str(), o["drift"].as_u64()),
        (Some("l"), Some(4)),
        "{run:?}"
    );
    assert!(
        o["time_ns"]
            .as_u64()
            .is_some_and(|t| t + 1_000_000 >= start),
        "{run:?}"
    );
    // The other reading is named, with the flag that picks it.
    assert!(
        run.stderr.starts_with("note: ") && run.stderr.contains("--as g"),
        "{run:?}"
    );
}

/// `inspect --extract` without --sno finds no sno id, and reads none as a
/// global id (of 2178): it says on standard error that --sno finds it.
#[test]
fn extract_reads_no_sno_token_as_another_id() {
    let made = guid(["gen", "--sno", "-n", "3"]);
    let text: String = made
        .lines()
        .iter()
        .map(|l| format!("job={l} done\n"))
        .collect();
    let run = guid_stdin(["inspect", "--extract"], text.as_bytes());
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{run:?}");
    let notes: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(notes.len(), 1, "noted once: {run:?}");
    assert!(
        notes[0].starts_with("note: line 1: ") && notes[0].contains("--sno"),
        "{run:?}"
    );
    let run = guid_stdin(["inspect", "--extract", "--sno"], text.as_bytes());
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    assert!(run.objects().iter().all(|o| o["kind"] == "sno"), "{run:?}");
    assert_eq!(run.objects().len(), 3, "{run:?}");
}

/// One id of `gen` alone, as pasted from a log, reads back without a flag:
/// one that also reads as base62 (a global string without `.` or `_`) is
/// read as the string, as gen writes it, and the other reading is noted on
/// standard error with its flag; `--strict` refuses it.
#[test]
fn a_lone_gen_id_reads_back_without_flags() {
    // A run gives ids of no '.' or '_' when its node and time have none:
    // most runs do.
    let mut plain: Vec<String> = Vec::new();
    for _ in 0..20 {
        let made = guid(["gen", "-n", "2000"]);
        let lines = made.lines().into_iter().filter(|l| !l.contains(['.', '_']));
        plain.extend(lines.take(10).map(str::to_owned));
        if plain.len() >= 20 {
            break;
        }
    }
    assert!(!plain.is_empty(), "some ids of no '.' or '_'");
    for line in &plain {
        let line = line.as_str();
        let run = guid(["inspect", line]);
        assert_eq!(run.code, 0, "{run:?}");
        let o = &run.objects()[0];
        assert_eq!(
            (o["form"].as_str(), o["string"].as_str()),
            (Some("string"), Some(line)),
            "{run:?}"
        );
        assert!(
            run.stderr.starts_with("note: ") && run.stderr.contains("--from base62"),
            "{run:?}"
        );
        assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
        let run = guid(["inspect", "--strict", line]);
        assert_eq!((run.code, run.stdout.as_str()), (3, ""), "{run:?}");
        assert!(
            run.stderr.contains("ambiguous") && run.stderr.contains("--from base62"),
            "{run:?}"
        );
    }
}

/// What `compose --sno` prints reads back alone, without --sno, as the
/// sno id of the parts given (a global string is almost never spelled in
/// sno's alphabet), at times from 2012 to now. (The zero sno id, of 2010
/// and no parts, is 16 hex digits of a local id of 2008, the likelier.)
#[test]
fn composed_sno_ids_read_back_without_sno() {
    for time in [
        "2012-03-04T05:06:07Z",
        "2015-06-01T10:00:00Z",
        "2024-06-01T10:00:00Z",
    ]
    .map(str::to_owned)
    .into_iter()
    .chain([now().to_string()])
    {
        for (meta, partition, seq, tick) in [("0", "0", "0", "0"), ("255", "65535", "65535", "1")] {
            let flags = [
                "--time",
                &time,
                "--meta",
                meta,
                "--partition",
                partition,
                "--seq",
                seq,
            ];
            let composed = guid(
                ["compose", "--sno"]
                    .iter()
                    .chain(&flags)
                    .chain(&["--tick", tick]),
            );
            assert_eq!(composed.code, 0, "{composed:?}");
            let run = guid(["inspect", composed.stdout.trim_end()]);
            assert_eq!(run.code, 0, "{flags:?}: {run:?}");
            let o = &run.objects()[0];
            let got = (
                &o["kind"],
                &o["meta"],
                &o["partition"],
                &o["seq"],
                &o["tick"],
            );
            let want = (
                &json!("sno"),
                &json!(meta.parse::<u8>().unwrap()),
                &json!(partition.parse::<u16>().unwrap()),
                &json!(seq.parse::<u16>().unwrap()),
                &json!(tick.parse::<u8>().unwrap()),
            );
            assert_eq!(got, want, "{flags:?}: {run:?}");
        }
    }
}

/// What `compose` prints reads back in each of its forms, alone: of the
/// default drift code at a time up to now, as written; at any other drift
/// code or a time ahead of now (which no clock makes), as written or, when
/// it reads as several ids, with a note naming the others.
#[test]
fn composed_ids_read_back_in_every_form() {
    let times = [now(), 1_000_000_000_000_000_000, 1_900_000_000_000_000_000];
    for v3 in [false, true] {
        let kinds: &[&str] = if v3 { &["g", "l", "x"] } else { &["g", "l"] };
        let codes = if v3 { 0..=7 } else { 1..=7 };
        let default = if v3 { 4 } else { 3 };
        for &kind in kinds {
            for code in codes.clone() {
                for time in times {
                    let mut flags =
                        vec!["compose".to_owned(), "--time".to_owned(), time.to_string()];
                    flags.extend(["--drift-code".to_owned(), code.to_string()]);
                    flags.extend(["--seq".to_owned(), "77".to_owned()]);
                    if v3 {
                        flags.push("--v3".to_owned());
                    }
                    match kind {
                        "l" => flags.push("--local".to_owned()),
                        "x" => flags.extend(["--x", "--node", "0x2bad"].map(str::to_owned)),
                        _ => flags.extend(["--node", "0x53051caf"].map(str::to_owned)),
                    }
                    let composed = guid(&flags);
                    assert_eq!(composed.code, 0, "{composed:?}");
                    let object = &composed.objects()[0];
                    let want = read(object);
                    for form in ["string", "base62", "hex", "json"] {
                        let text = object[form].as_str().expect("a form");
                        let mut inspect = vec!["inspect"];
                        if v3 {
                            inspect.push("--v3");
                        }
                        inspect.push(text);
                        let run = guid(&inspect);
                        assert_eq!(run.code, 0, "{flags:?} {form}: {run:?}");
                        let got = read(&run.objects()[0]);
                        if got != want {
                            let what = format!("{flags:?} {form}: {got} for {want}: {run:?}");
                            assert!(code != default || time > now(), "{what}");
                            assert!(run.stderr.starts_with("note: "), "{what}");
                        }
                    }
                }
            }
        }
    }
}

/// The objects `inspect` and `compose` print read back: each line that is
/// such an object is read as the id it describes (by its kind and its
/// forms, all checked), for every kind and generation, sno and flake ids;
/// so `inspect | inspect` prints the same objects again. One of the other
/// generation is refused, naming the flag.
#[test]
fn printed_objects_read_back() {
    let t = "2024-06-01T10:00:00Z";
    let mut objects: Vec<(Vec<&str>, String)> = Vec::new();
    for (flags, inspect) in [
        (&["--node", "7"][..], &[][..]),
        (&["--local"], &[]),
        (&["--v3", "--node", "7"], &["--v3"]),
        (&["--v3", "--local"], &["--v3"]),
        (&["--v3", "--x", "--node", "0x3ffffffffffffff"], &["--v3"]),
    ] {
        let run = guid(["compose", "--time", t, "--seq", "9"].iter().chain(flags));
        assert_eq!(run.code, 0, "{run:?}");
        objects.push((inspect.to_vec(), run.stdout.trim_end().to_owned()));
    }
    let sno = guid([
        "compose",
        "--sno",
        "--time",
        t,
        "--meta",
        "7",
        "--partition",
        "9",
    ]);
    let run = guid(["inspect", "--sno", sno.stdout.trim_end()]);
    objects.push((vec![], run.stdout.trim_end().to_owned()));
    let run = guid(["inspect", "--flake", "2129406907130052609"]);
    objects.push((vec![], run.stdout.trim_end().to_owned()));
    for (flags, object) in &objects {
        let mut want: Value = serde_json::from_str(object).expect("an object");
        want.as_object_mut().expect("an object").remove("form");
        let run = guid_stdin(
            ["inspect"].iter().chain(flags),
            format!("{object}\n").as_bytes(),
        );
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (0, ""),
            "{object}: {run:?}"
        );
        let mut got = run.objects().remove(0);
        assert_eq!(got["form"], "object", "{run:?}");
        got.as_object_mut().expect("an object").remove("form");
        assert_eq!(got, want, "{object}");
        // And the line of `inspect`'s own output, "form" and all.
        let again = guid_stdin(["inspect"].iter().chain(flags), run.stdout.as_bytes());
        assert_eq!(
            (again.code, again.stdout.as_str()),
            (0, run.stdout.as_str()),
            "{again:?}"
        );
    }
    // A v3 global object without --v3, and a v2 one with it.
    for (object, flags, needle) in [
        (&objects[2].1, &[][..], "add --v3"),
        (&objects[0].1, &["--v3"][..], "drop --v3"),
    ] {
        let run = guid_stdin(
            ["inspect"].iter().chain(flags),
            format!("{object}\n").as_bytes(),
        );
        assert_eq!((run.code, run.stdout.as_str()), (3, ""), "{run:?}");
        assert!(run.stderr.contains(needle), "{needle} in {run:?}");
    }
    // An object whose fields disagree is refused, naming the field.
    let bad = objects[0].1.replace(r#""seq":9"#, r#""seq":8"#);
    let run = guid(["inspect", &bad]);
    assert_eq!((run.code, run.stdout.as_str()), (3, ""), "{run:?}");
    assert!(run.stderr.contains("\"seq\""), "{run:?}");
}

/// `--extract` finds in `inspect`'s output the id it describes, and no
/// other: the JSON of a local id escaped in a JSON string (`\"*…\"`) is
/// that local id, not a global string; a 19-digit time in nanoseconds,
/// which under --v3 reads as a local id of the year 2405, is no id (no
/// clock makes ids more than a day ahead).
#[test]
fn extract_finds_only_the_id_in_printed_objects() {
    let t = "2024-06-01T10:00:00Z";
    for (flags, v3) in [
        (&["--local"][..], false),
        (&["--node", "7"], false),
        (&["--v3", "--local"], true),
        (&["--v3", "--node", "7"], true),
        (&["--v3", "--x", "--node", "0x3ffffffffffffff"], true),
    ] {
        let composed = guid(["compose", "--time", t].iter().chain(flags));
        let object: Value = serde_json::from_str(composed.stdout.trim_end()).expect("an object");
        let mut extract = vec!["inspect", "--extract"];
        if v3 {
            extract.push("--v3");
        }
        let run = guid_stdin(&extract, composed.stdout.as_bytes());
        assert_eq!(run.code, 0, "{run:?}");
        let found = run.objects();
        assert!(found.len() >= 3, "{flags:?}: {run:?}");
        for o in &found {
            assert_eq!(
                (&o["kind"], &o["hex"]),
                (&object["kind"], &object["hex"]),
                "{flags:?}: {o}"
            );
        }
    }
    let log = "ts=1717235999999918080 id=VjeQ8I0Gmj4deV.6\n";
    let run = guid_stdin(["inspect", "--extract", "--v3"], log.as_bytes());
    assert_eq!(run.objects().len(), 1, "{run:?}");
    assert_eq!(run.objects()[0]["string"], "VjeQ8I0Gmj4deV.6");
}
