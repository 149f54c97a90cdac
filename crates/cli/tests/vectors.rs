//! The command against the Go library's own output: for every id case of
//! the vectors, `compose` prints Go's encodings and `inspect` of each of
//! Go's encodings gives back its parts.

mod common;

use std::thread;

use common::{check_each, check_vectors as check, guid, guid_stdin, seconds, vector_hex as hex};
use serde_json::{Value, json};

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/fogfish-guid-v2.json"
);

/// One id case: its inputs and what Go printed for its global and local id.
struct Case {
    id: u64,
    node: u64,
    t: u64,
    seq: u64,
    /// Exact drift in nanoseconds, `None` for Go's default.
    drift_ns: Option<i64>,
    g: Value,
    l: Value,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(VECTORS).expect("the vector file");
    let data: Value = serde_json::from_str(&text).expect("vector JSON");
    let cases: Vec<Case> = data["ids"]
        .as_array()
        .expect("ids[]")
        .iter()
        .map(|c| Case {
            id: c["id"].as_u64().expect("id"),
            node: hex(&c["node"]),
            t: hex(&c["t"]),
            seq: c["seq"].as_u64().expect("seq"),
            drift_ns: match &c["drift"] {
                Value::String(s) if s == "default" => None,
                _ => Some(c["drift_ns"].as_i64().expect("drift_ns")),
            },
            g: c["g"].clone(),
            l: c["l"].clone(),
        })
        .collect();
    assert_eq!(cases.len(), 300, "every id case of the vectors");
    cases
}

/// The object Go's output of one id (`g` or `l` of a case) says `guid`
/// must print for it.
fn expected(go: &Value, local: bool) -> Value {
    json!({
        "kind": if local { "l" } else { "g" },
        "drift": go["drift_code"],
        "time_ns": hex(&go["time"]),
        "node": if local { Value::Null } else { json!(hex(&go["node"])) },
        "seq": hex(&go["seq"]),
        "hex": go["bytes"],
        "string": go["string"],
        "base62": go["base62"],
        "json": go["json"],
    })
}

/// `compose` with each case's parts prints Go's global and local id.
#[test]
fn compose_prints_gos_ids() {
    let cases = cases();
    let args = |c: &Case, local: bool| {
        let mut args = vec!["compose".to_string(), "--time".into(), c.t.to_string()];
        args.extend(["--seq".into(), c.seq.to_string()]);
        if local {
            args.push("--local".into());
        } else {
            args.extend(["--node".into(), c.node.to_string()]);
        }
        if let Some(ns) = c.drift_ns {
            args.push(format!("--drift={}", seconds(ns)));
        }
        args
    };
    // One process per id: two threads keep the wall time down.
    thread::scope(|s| {
        for half in cases.chunks(cases.len().div_ceil(2)) {
            s.spawn(move || {
                for c in half {
                    for (local, go) in [(false, &c.g), (true, &c.l)] {
                        let run = guid(args(c, local));
                        check(
                            &format!("compose {:?}", args(c, local)),
                            &run,
                            &[(c.id, expected(go, local))],
                        );
                    }
                }
            });
        }
    });
}

/// `inspect` of Go's string, base62, hex and JSON of every id gives back
/// its parts; the ids of each form go through one process on stdin.
#[test]
fn inspect_reads_gos_encodings() {
    let cases = cases();
    // (flags, which id, which of Go's encodings)
    // Flags where a form also reads as other ids (the Go cases are full of
    // such extremes); see `inspect_reads_or_refuses_gos_encodings`.
    let batches: [(&[&str], bool, &[&str]); 6] = [
        (&[], false, &["hex", "json"]),
        (&[], true, &["json", "base62"]),
        (&["--from", "string", "--as", "g"], false, &["string"]),
        (&["--from", "base62"], false, &["base62"]),
        (&["--from", "string", "--as", "l"], true, &["string"]),
        (&["--from", "hex"], true, &["hex"]),
    ];
    let mut covered = std::collections::BTreeSet::new();
    for (flags, local, fields) in batches {
        let mut input = String::new();
        let mut expect = Vec::new();
        for field in fields {
            covered.insert((local, *field));
            for c in &cases {
                let go = if local { &c.l } else { &c.g };
                let field = if *field == "hex" { "bytes" } else { field };
                input.push_str(go[field].as_str().expect("an encoding"));
                input.push('\n');
                expect.push((c.id, expected(go, local)));
            }
        }
        let run = guid_stdin(["inspect"].iter().chain(flags), input.as_bytes());
        check(
            &format!(
                "inspect {flags:?} {fields:?} of {}",
                if local { "l" } else { "g" }
            ),
            &run,
            &expect,
        );
    }
    assert_eq!(covered.len(), 8, "four encodings of both kinds");
}

/// `inspect` without flags of each of Go's encodings: the id Go encoded,
/// or, for 16 characters valid in several forms, refused as ambiguous
/// (such base62 and hex need `--from`); never another id.
#[test]
fn inspect_reads_or_refuses_gos_encodings() {
    let cases = cases();
    for local in [false, true] {
        for field in ["string", "base62", "bytes", "json"] {
            let inputs: Vec<(String, Value)> = cases
                .iter()
                .map(|c| {
                    let go = if local { &c.l } else { &c.g };
                    let input = go[field].as_str().expect("an encoding").to_owned();
                    (input, expected(go, local))
                })
                .collect();
            let stdin: String = inputs.iter().map(|(s, _)| format!("{s}\n")).collect();
            let run = guid_stdin(["inspect"], stdin.as_bytes());
            check_each(&inputs, &[], &run);
        }
    }
}

/// The same ids as arguments rather than stdin, in one process.
#[test]
fn inspect_takes_gos_ids_as_arguments() {
    let cases = cases();
    let mut args = vec!["inspect"];
    let mut expect = Vec::new();
    for c in &cases {
        args.push(c.g["bytes"].as_str().expect("hex"));
        expect.push((c.id, expected(&c.g, false)));
        args.push(c.l["json"].as_str().expect("json"));
        expect.push((c.id, expected(&c.l, true)));
    }
    check("inspect ARGS", &guid(args), &expect);
}
