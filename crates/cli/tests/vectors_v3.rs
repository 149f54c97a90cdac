//! The command against the Go library's v3 output: for every id case of
//! the v3 vectors, `compose --v3` prints Go's global, local and 128-bit
//! ids, and `inspect --v3` of each of Go's encodings gives back its parts.

mod common;

use std::thread;

use common::{check_vectors as check, guid, guid_stdin, seconds, vector_hex as hex};
use serde_json::{Value, json};

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/fogfish-guid-v3.json"
);

/// The three ids of a case, as `--as` names them.
const KINDS: [&str; 3] = ["g", "l", "x"];

/// One id case: its inputs and what Go printed for each kind of id.
struct Case {
    id: u64,
    t: u64,
    seq: u64,
    drift: u64,
    /// Go's `g`, `l` and `x` objects.
    go: [Value; 3],
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(VECTORS).expect("the vector file");
    let data: Value = serde_json::from_str(&text).expect("vector JSON");
    let cases: Vec<Case> = data["g"]
        .as_array()
        .expect("g[]")
        .iter()
        .map(|c| Case {
            id: c["id"].as_u64().expect("id"),
            t: hex(&c["input"]["time_ns"]),
            seq: c["input"]["seq"].as_u64().expect("seq"),
            drift: c["input"]["drift"].as_u64().expect("drift"),
            go: KINDS.map(|k| c[k].clone()),
        })
        .collect();
    assert_eq!(cases.len(), 304, "every id case of the v3 vectors");
    cases
}

/// The object `guid` must print for Go's id of kind `KINDS[k]`.
fn expected(go: &Value, k: usize) -> Value {
    json!({
        "kind": KINDS[k],
        "drift": go["drift"],
        "time_ns": hex(&go["time"]),
        "node": if k == 1 { Value::Null } else { json!(hex(&go["node"])) },
        "seq": go["seq"],
        "hex": go["hex"],
        "string": go["string"],
        "base62": go["base62"],
        "json": go["json"],
    })
}

/// `compose --v3` with each case's parts prints Go's three ids.
#[test]
fn compose_v3_prints_gos_ids() {
    let cases = cases();
    let args = |c: &Case, k: usize| {
        let mut args = vec!["compose".to_string(), "--v3".into()];
        args.extend(["--time".into(), c.t.to_string()]);
        args.extend(["--seq".into(), c.seq.to_string()]);
        args.extend(["--drift-code".into(), c.drift.to_string()]);
        match KINDS[k] {
            "l" => args.push("--local".into()),
            "x" => args.push("--x".into()),
            _ => {}
        }
        if k != 1 {
            args.extend(["--node".into(), hex(&c.go[k]["node"]).to_string()]);
        }
        args
    };
    thread::scope(|s| {
        for part in cases.chunks(cases.len().div_ceil(4)) {
            s.spawn(move || {
                for c in part {
                    for k in 0..KINDS.len() {
                        let run = guid(args(c, k));
                        check(
                            &format!("{:?}", args(c, k)),
                            &run,
                            &[(c.id, expected(&c.go[k], k))],
                        );
                    }
                }
            });
        }
    });
}

/// `inspect --v3` of Go's string, base62, JSON, hex and (for 128-bit ids)
/// UUID of every id gives back its parts; each batch goes through one
/// process on stdin.
#[test]
fn inspect_v3_reads_gos_encodings() {
    let cases = cases();
    // (flags, kind, Go's encodings): a string and JSON of 16 characters
    // are of either kind, and local hex has a global string's length: the
    // vectors' extremes (the zero id, the largest times) are read as the
    // likelier id without flags, which need not be theirs; the flags read
    // them as the kind and form they are.
    let batches: [(&[&str], usize, &[&str]); 8] = [
        (&[], 0, &["base62", "hex"]),
        (&["--as", "g"], 0, &["string", "json"]),
        (&[], 1, &["base62"]),
        (&["--as", "l"], 1, &["string", "json"]),
        (&["--from", "hex"], 1, &["hex"]),
        (&[], 2, &["string", "base62", "json", "hex"]),
        (&["--from", "uuid"], 2, &["string"]),
        (&["--strict"], 2, &["string", "base62", "json", "hex"]),
    ];
    for (flags, k, fields) in batches {
        let mut input = String::new();
        let mut expect = Vec::new();
        for field in fields {
            for c in &cases {
                input.push_str(c.go[k][field].as_str().expect("an encoding"));
                input.push('\n');
                expect.push((c.id, expected(&c.go[k], k)));
            }
        }
        let run = guid_stdin(["inspect", "--v3"].iter().chain(flags), input.as_bytes());
        check(
            &format!("inspect --v3 {flags:?} {fields:?} of {}", KINDS[k]),
            &run,
            &expect,
        );
    }
}

/// `inspect --from-v2` of each v2 string and base62 of the vectors'
/// `from_v2` cases prints Go's `FromV2` of it (v2 code 0, which no v2
/// clock makes, is refused).
#[test]
fn inspect_from_v2_gives_gos_conversion() {
    let text = std::fs::read_to_string(VECTORS).expect("the vector file");
    let data: Value = serde_json::from_str(&text).expect("vector JSON");
    let mut n = 0;
    for c in data["from_v2"].as_array().expect("from_v2[]") {
        for (flags, field, want) in [
            (["--from", "string"], "v2_string", "from_v2_string"),
            (["--from", "base62"], "v2_base62", "from_v2_base62"),
        ] {
            let input = c[field].as_str().expect("v2 text");
            let run = guid([
                "inspect",
                "--from-v2",
                "--as",
                "g",
                flags[0],
                flags[1],
                input,
            ]);
            if c["v2_code"] == 0 {
                assert_eq!(run.code, 3, "{input}: {run:?}");
                continue;
            }
            let go = &c[want];
            assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{input}");
            let got = &run.objects()[0];
            assert_eq!(got["kind"], "g", "{input}");
            for key in ["hex", "string", "base62", "seq", "drift"] {
                assert_eq!(got[key], go[key], "{input} {key}");
            }
            assert_eq!(got["node"], json!(hex(&go["node"])), "{input}");
            assert_eq!(got["time_ns"], json!(hex(&go["time"])), "{input}");
            n += 1;
        }
    }
    assert!(n > 0, "some convertible cases");
}

/// `compose --v3 --drift SECS` picks Go's `DriftOf` code for every budget
/// of the vectors.
#[test]
fn drift_seconds_pick_gos_codes() {
    let text = std::fs::read_to_string(VECTORS).expect("the vector file");
    let data: Value = serde_json::from_str(&text).expect("vector JSON");
    for c in data["drift_of"].as_array().expect("drift_of[]") {
        let ns: i64 = c["budget_ns"].as_str().expect("ns").parse().expect("i64");
        let drift = format!("--drift={}", seconds(ns));
        let run = guid(["compose", "--v3", "--time", "0", &drift]);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{drift}");
        assert_eq!(run.objects()[0]["drift"], c["code"], "{drift}");
    }
}
