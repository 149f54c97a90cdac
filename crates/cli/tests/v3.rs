//! The v3 flags: `gen --v3`, `compose --v3`, `inspect --v3`,
//! `--drift-code` in both generations and `inspect --from-v2`.

mod common;

use common::{Run, guid, guid_stdin};
use serde_json::Value;

/// The one object a run printed.
fn object(run: &Run) -> Value {
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let mut objects = run.objects();
    assert_eq!(objects.len(), 1, "{run:?}");
    objects.remove(0)
}

/// Asserts a run failed with `code` and one `error:` line holding `needle`.
fn fails(run: &Run, code: i32, needle: &str) {
    assert_eq!(run.code, code, "{run:?}");
    assert!(run.stderr.starts_with("error: "), "{run:?}");
    assert!(run.stderr.contains(needle), "{needle:?} in {run:?}");
    assert!(!run.stderr.contains("panicked"), "{run:?}");
}

/// What `inspect --v3` says of one id.
fn inspect_v3(id: &str) -> Value {
    object(&guid(["inspect", "--v3", id]))
}

#[test]
fn gen_v3_makes_each_kind() {
    let run = guid(["gen", "--v3", "-n", "3"]);
    assert_eq!(run.code, 0, "{run:?}");
    for line in run.lines() {
        let o = inspect_v3(line);
        assert_eq!(
            (o["kind"].as_str(), o["drift"].as_u64()),
            (Some("g"), Some(4))
        );
    }
    let l = guid(["gen", "--v3", "--local", "--drift-code", "0"]);
    let o = object(&guid(["inspect", "--v3", "--as", "l", l.stdout.trim()]));
    assert_eq!(
        (o["kind"].as_str(), o["drift"].as_u64()),
        (Some("l"), Some(0))
    );
    let x = guid(["gen", "--v3", "--x", "--node", "0x3ffffffffffffff"]);
    let text = x.stdout.trim();
    assert_eq!((text.len(), &text[14..15]), (36, "8"), "a UUIDv8: {text}");
    let o = inspect_v3(text);
    assert_eq!(o["kind"], "x");
    assert_eq!(o["node"].as_u64(), Some((1 << 58) - 1));
    assert_eq!(o["string"], text);
    // Every form of gen reads back as the same id.
    for form in ["base62", "hex", "json"] {
        let run = guid(["gen", "--v3", "--x", "--format", form]);
        assert_eq!(inspect_v3(run.stdout.trim())["kind"], "x", "{form}");
    }
    let run = guid(["gen", "--v3", "--local", "--format", "int"]);
    assert_eq!(inspect_v3(run.stdout.trim())["kind"], "l");
}

#[test]
fn drift_code_in_both_generations() {
    for (flags, code) in [
        (&["gen", "--drift-code", "5"][..], 5),
        (&["gen", "--drift-code", "1", "--local"], 1),
        (&["gen", "--v3", "--drift-code", "0"], 0),
        (&["gen", "--v3", "--drift", "300"], 5),
        (&["gen", "--v3"], 4),
        (&["gen"], 3),
    ] {
        let id = guid(flags);
        let v3 = flags.contains(&"--v3");
        let local = flags.contains(&"--local");
        let mut args = vec!["inspect"];
        if v3 {
            args.push("--v3");
        }
        if local {
            args.extend(["--as", "l", "--from", "string"]);
        }
        args.push(id.stdout.trim());
        assert_eq!(object(&guid(&args))["drift"], code, "{flags:?}");
    }
    for (flags, code) in [
        (&["compose", "--time", "0", "--drift-code", "7"][..], 7),
        (&["compose", "--v3", "--time", "0", "--drift-code", "0"], 0),
    ] {
        assert_eq!(object(&guid(flags))["drift"], code, "{flags:?}");
    }
}

#[test]
fn usage_errors_exit_2() {
    for (flags, needle) in [
        (&["gen", "--drift-code", "0"][..], "--drift-code"),
        (&["gen", "--v3", "--drift-code", "8"], "--drift-code"),
        (
            &["gen", "--drift", "1", "--drift-code", "2"],
            "cannot be used",
        ),
        (&["gen", "--x"], "--v3"),
        (&["gen", "--v3", "--x", "--local"], "cannot be used"),
        (
            &["gen", "--v3", "--node", "0x400000000000000"],
            "out of range",
        ),
        (&["compose", "--time", "0", "--drift-code", "0"], "1..=7"),
        (
            &["compose", "--v3", "--time", "0", "--node", "0x100000000"],
            "'0x100000000'",
        ),
        (&["compose", "--time", "0", "--x"], "--v3"),
        (&["inspect", "--v3", "--from-v2", "x"], "cannot be used"),
        (&["inspect", "--from", "nope", "x"], "--from"),
    ] {
        fails(&guid(flags), 2, needle);
    }
    // A 58-bit node fits a 128-bit id.
    let o = object(&guid([
        "compose",
        "--v3",
        "--x",
        "--time",
        "0",
        "--node",
        "0x100000000",
    ]));
    assert_eq!(o["node"].as_u64(), Some(1 << 32));
}

#[test]
fn inspect_v3_reads_by_length_and_flags() {
    let uuid = "030d98d5-9b81-8400-8000-00000000098e";
    assert_eq!(inspect_v3(uuid)["kind"], "x");
    // 16 characters: a sortable string. In a local string's 16 symbols
    // it is also a global one, which a global id is almost never spelled
    // in: the local id, noting the global one and --as g; --as says which,
    // --strict refuses it.
    let run = guid(["inspect", "--v3", ".2.C87C48A70387D"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.objects()[0]["hex"], "030d98d59b81498e");
    assert!(
        run.stderr.starts_with("note: ") && run.stderr.contains("(--as g)"),
        "{run:?}"
    );
    let as_l = object(&guid(["inspect", "--v3", "--as", "l", ".2.C87C48A70387D"]));
    assert_eq!(as_l["hex"], "030d98d59b81498e");
    let as_g = object(&guid(["inspect", "--v3", "--as", "g", ".2.C87C48A70387D"]));
    assert_eq!(as_g["kind"], "g");
    fails(
        &guid(["inspect", "--v3", "--strict", ".2.C87C48A70387D"]),
        3,
        "--as l",
    );
    // A global string of a symbol past the local string's 16 is global.
    assert_eq!(inspect_v3("VkHHyvq1H59MZmlU")["kind"], "g");
    let hex = object(&guid([
        "inspect",
        "--v3",
        "--from",
        "hex",
        "030d98d59b81498e",
    ]));
    assert_eq!(hex["string"], ".2.C87C48A70387D");
    let int = object(&guid(["inspect", "--v3", "220000000000000000"]));
    assert_eq!(int["kind"], "l");
    // Bad input: status 3, each named, the good ids still printed.
    let run = guid([
        "inspect",
        "--v3",
        "030d98d5-9b81-7400-8000-00000000098e",
        "zz",
        uuid,
    ]);
    assert_eq!(run.code, 3, "{run:?}");
    assert_eq!(run.objects().len(), 1);
    assert_eq!(run.stderr.lines().count(), 2, "{run:?}");
    assert!(
        run.stderr
            .lines()
            .all(|l| l.starts_with("error: invalid id '")),
        "{run:?}"
    );
    assert!(run.stderr.contains("UUIDv8"), "{run:?}");
    // A UUID is v3's 128-bit id, read without --v3 too.
    assert_eq!(object(&guid(["inspect", uuid])), inspect_v3(uuid));
    fails(
        &guid(["inspect", "--as", "x", "N...0ngIdY...1.."]),
        3,
        "add --v3",
    );
}

#[test]
fn extract_finds_uuids_only_under_v3() {
    let log = "req=030d98d5-9b81-8400-8000-00000000098e id=N...0ngIdY...1..\n";
    let run = guid_stdin(["inspect", "--v3", "--extract"], log.as_bytes());
    let kinds: Vec<Value> = run.objects().iter().map(|o| o["kind"].clone()).collect();
    assert_eq!(kinds, ["x", "g"], "{run:?}");
    let run = guid_stdin(["inspect", "--extract"], log.as_bytes());
    let kinds: Vec<Value> = run.objects().iter().map(|o| o["kind"].clone()).collect();
    assert_eq!((run.code, kinds), (0, vec![Value::from("g")]), "{run:?}");
}

#[test]
fn from_v2_prints_the_v3_id() {
    let v2 = object(&guid(["inspect", "--from", "string", "NkHHyvq1H59MZmlU"]));
    let v3 = object(&guid([
        "inspect",
        "--from-v2",
        "--from",
        "string",
        "NkHHyvq1H59MZmlU",
    ]));
    for key in ["node", "time_ns", "seq"] {
        assert_eq!(v3[key], v2[key], "{key}");
    }
    assert_eq!(
        (v2["drift"].as_u64(), v3["drift"].as_u64()),
        (Some(3), Some(4))
    );
    // Its string reads back as that v3 id.
    let back = inspect_v3(v3["string"].as_str().expect("string"));
    assert_eq!(back, v3);
    // Any v2 form: hex of a local id.
    let l = object(&guid([
        "inspect",
        "--from-v2",
        "--from",
        "hex",
        "6000080000000200",
    ]));
    assert_eq!(l["kind"], "l");
}
