//! The real Go libraries beside this crate, differential: fogfish/guid v2
//! and muyo/sno, run from the Go module in `interop/` (built here with
//! `go build`). Go makes ids of random parts and this crate reads and writes
//! them back; this crate composes and Go reads; both decoders get the same
//! random and mutated inputs and must agree, but for the differences listed
//! in docs/compatibility.md ([`DIFFERENCES`]); ids of Go's generators and of
//! this crate's sort the same way under both comparisons.
//!
//! `KGUID_INTEROP_SEED` replays a run (a failure prints its seed; a fresh
//! one is drawn otherwise) and `KGUID_INTEROP_CASES` sets the number of
//! random cases (default 100,000, shared among the tests). Without Go the
//! tests are skipped, or fail if `KGUID_REQUIRE_SERVERS` is set.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::SplitMix;
use guid::sno::{EPOCH_NS, Generator, Sno, UNIT_NS};
use guid::{Drift, Guid, Id, Luid};

/// The Go module, beside the crate's manifest.
fn module() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

/// The Go program, built once per test binary into target/; `None` (the
/// test skips) when there is no Go.
fn program() -> Option<&'static Path> {
    static PROGRAM: OnceLock<Option<PathBuf>> = OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            if Command::new("go").arg("version").output().is_err() {
                let why = "go is not installed (the Go toolchain, 1.22 or later)";
                assert!(
                    std::env::var_os("KGUID_REQUIRE_SERVERS").is_none(),
                    "{why}, and KGUID_REQUIRE_SERVERS is set"
                );
                eprintln!("skipped: {why}");
                return None;
            }
            let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kguid-interop");
            let build = go()
                .args(["build", "-o"])
                .arg(&out)
                .arg(".")
                .output()
                .expect("go build runs");
            assert!(
                build.status.success(),
                "go build of interop/ failed:\n{}",
                String::from_utf8_lossy(&build.stderr)
            );
            Some(out)
        })
        .as_deref()
}

/// The go command in the module, its go.mod and go.sum as committed.
fn go() -> Command {
    let mut go = Command::new("go");
    // No VCS stamp: a checkout owned by another user would fail the build.
    go.current_dir(module())
        .env("GOFLAGS", "-mod=readonly -buildvcs=false");
    go
}

/// Sends the requests in one batch; Go's answers, one per request.
fn ask(program: &Path, requests: &[String]) -> Vec<String> {
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the Go program starts");
    let mut stdin = child.stdin.take().unwrap();
    let text = requests.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let answers: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| l.expect("an answer"))
        .collect();
    // The program's own failure (stderr inherited: its panic) says more
    // than the broken pipe it leaves the writer.
    let status = child.wait().unwrap();
    assert!(status.success(), "the Go program failed: {status}");
    writer.join().unwrap().expect("requests sent");
    assert_eq!(answers.len(), requests.len(), "one answer per request");
    answers
}

/// The run's seed: `KGUID_INTEROP_SEED`, else drawn from the clock.
fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| match std::env::var("KGUID_INTEROP_SEED") {
        Ok(s) => s.parse().expect("KGUID_INTEROP_SEED is a u64"),
        Err(_) => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    })
}

/// The random cases of the whole run (`KGUID_INTEROP_CASES`).
fn cases() -> usize {
    std::env::var("KGUID_INTEROP_CASES")
        .map(|s| s.parse().expect("KGUID_INTEROP_CASES is a number"))
        .unwrap_or(100_000)
}

/// A test's random numbers: the run's seed and the test's own stream.
fn rng(stream: u64) -> SplitMix {
    SplitMix(seed() ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Collects mismatches and fails at the end with the seed to replay.
struct Check {
    what: &'static str,
    found: Vec<String>,
    count: usize,
}

impl Check {
    fn new(what: &'static str) -> Check {
        Check {
            what,
            found: Vec::new(),
            count: 0,
        }
    }

    fn eq<T: PartialEq + std::fmt::Debug>(&mut self, case: &str, ours: T, go: T) {
        if ours != go {
            self.fail(format!("{case}: kguid {ours:?}, Go {go:?}"));
        }
    }

    fn fail(&mut self, why: String) {
        self.count += 1;
        if self.found.len() < 20 {
            self.found.push(why);
        }
    }

    fn done(self, n: usize) {
        eprintln!("{}: {n} cases", self.what);
        assert!(
            self.found.is_empty(),
            "{}: {} mismatches in {n} cases (replay: KGUID_INTEROP_SEED={} KGUID_INTEROP_CASES={}):\n{}",
            self.what,
            self.count,
            seed(),
            cases(),
            self.found.join("\n")
        );
    }
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into(); // the Go program's empty input
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn num(s: &str) -> u64 {
    s.parse().expect("a number")
}

/// One of `edges` half the time, else any value below `below`.
fn pick(rng: &mut SplitMix, edges: &[u64], below: u64) -> u64 {
    if rng.next() % 2 == 0 {
        edges[(rng.next() % edges.len() as u64) as usize]
    } else {
        rng.next() % below
    }
}

/// A v2 id's parts: any node, any time, a 14-bit sequence, and a drift
/// given as Go takes it (none, or a duration around the buckets' edges).
fn v2_parts(rng: &mut SplitMix) -> (u32, u64, u16, Option<u64>) {
    const S: u64 = 1_000_000_000;
    let node = pick(rng, &[0, 1, 0x8000_0000, u32::MAX as u64], 1 << 32) as u32;
    let now = 1_764_000_000 * S;
    let time = pick(rng, &[0, 1 << 17, now, u64::MAX, u64::MAX >> 1], u64::MAX);
    let seq = pick(rng, &[0, 1, 0x2000, 0x3fff], 1 << 14) as u16;
    let edges = [0, 68, 137, 274, 549, 1099, 2199, 4000];
    let drift = match rng.next() % 4 {
        0 => None,
        1 => Some(edges[(rng.next() % 8) as usize] * S + rng.next() % 2),
        _ => Some(rng.next() % (3000 * S)),
    };
    (node, time, seq, drift)
}

fn drift_of(ns: Option<u64>) -> Drift {
    ns.map_or(Drift::DEFAULT, |ns| {
        Drift::from_duration(Duration::from_nanos(ns))
    })
}

fn json<T: serde::Serialize>(id: &T) -> String {
    serde_json::to_string(id).unwrap()
}

#[test]
fn v2_go_makes_kguid_reads_and_writes_back() {
    let Some(program) = program() else { return };
    let mut rng = rng(1);
    let n = cases() / 8;
    let parts: Vec<_> = (0..n).map(|_| v2_parts(&mut rng)).collect();
    let requests: Vec<String> = parts
        .iter()
        .map(|&(node, t, seq, d)| {
            let d = d.map_or("-1".to_string(), |d| d.to_string());
            // The local id is cast back with the node reversed.
            format!("g2make {node} {t} {seq} {d} {}", node.reverse_bits())
        })
        .collect();
    let mut check = Check::new("v2: Go makes, kguid reads (8 forms each)");
    for ((&(node, t, seq, d), answer), request) in
        parts.iter().zip(ask(program, &requests)).zip(&requests)
    {
        let f: Vec<&str> = answer.split(' ').collect();
        let (gb, gs, g62, gj) = (
            unhex(f[0]),
            f[1],
            f[2],
            String::from_utf8(unhex(f[3])).unwrap(),
        );
        let (lb, ls, l62, lj) = (
            unhex(f[4]),
            f[5],
            f[6],
            String::from_utf8(unhex(f[7])).unwrap(),
        );
        let (time, go_node, go_seq) = (num(f[8]), num(f[9]), num(f[10]));
        let c = request.as_str();
        let Ok(g) = Guid::from_slice(&gb) else {
            check.fail(format!("{c}: bytes {} refused", f[0]));
            continue;
        };
        check.eq(
            c,
            (g.time(), g.node(), g.seq() as u64),
            (time, go_node, go_seq),
        );
        check.eq(c, Guid::compose(node, t, seq, drift_of(d)).ok(), Some(g));
        check.eq(c, gs.parse::<Guid>().ok(), Some(g));
        check.eq(c, Guid::from_base62(g62).ok(), Some(g));
        check.eq(c, serde_json::from_str::<Guid>(&gj).ok(), Some(g));
        check.eq(c, g.to_bytes().to_vec(), gb);
        check.eq(c, g.to_string().as_str(), gs);
        check.eq(c, g.to_base62().as_str(), g62);
        check.eq(c, json(&g), gj);
        let Ok(l) = Luid::from_slice(&lb) else {
            check.fail(format!("{c}: local bytes {} refused", f[4]));
            continue;
        };
        check.eq(c, g.to_l64(), l);
        check.eq(
            c,
            hex(&l.to_g(node.reverse_bits()).to_bytes()),
            f[11].to_string(),
        );
        check.eq(c, (l.time(), l.seq()), (g.time(), g.seq()));
        check.eq(c, ls.parse::<Luid>().ok(), Some(l));
        check.eq(c, Luid::from_base62(l62).ok(), Some(l));
        check.eq(c, serde_json::from_str::<Luid>(&lj).ok(), Some(l));
        check.eq(c, l.to_bytes().to_vec(), lb);
        check.eq(c, l.to_string().as_str(), ls);
        check.eq(c, l.to_base62().as_str(), l62);
        check.eq(c, json(&l), lj);
    }
    check.done(n);
}

/// What Go's decoder answers: `Some(value)` (a local id's in the low 64
/// bits) or `None` for an error or a panic.
fn go_value(answer: &str) -> Option<u128> {
    let f: Vec<&str> = answer.split(' ').collect();
    match f[0] {
        "ok" if f.len() == 3 => Some(
            (u128::from(u64::from_str_radix(f[1], 16).unwrap()) << 64)
                | u128::from(u64::from_str_radix(f[2], 16).unwrap()),
        ),
        "ok" => Some(u128::from_str_radix(f[1], 16).unwrap()),
        "err" | "panic" => None,
        _ => panic!("answer {answer}"),
    }
}

#[test]
fn v2_kguid_composes_go_reads() {
    let Some(program) = program() else { return };
    let mut rng = rng(2);
    let n = cases() / 8;
    let mut requests = Vec::new();
    let mut expect = Vec::new();
    for _ in 0..n {
        let (node, t, seq, d) = v2_parts(&mut rng);
        let g = Guid::compose(node, t, seq, drift_of(d)).unwrap();
        let l = g.to_l64();
        let (gv, lv) = (g.to_u128(), u128::from(l.to_u64()));
        for (form, input, value) in [
            ("bytes", g.to_bytes().to_vec(), gv),
            ("strg", g.to_string().into_bytes(), gv),
            ("base62", g.to_base62().into_bytes(), gv),
            ("json", json(&g).into_bytes(), gv),
            ("bytes", l.to_bytes().to_vec(), lv),
            ("strl", l.to_string().into_bytes(), lv),
            ("base62", l.to_base62().into_bytes(), lv),
            ("json", json(&l).into_bytes(), lv),
        ] {
            requests.push(format!("g2dec {form} {}", hex(&input)));
            expect.push((g, value));
        }
    }
    let mut check = Check::new("v2: kguid composes, Go reads (8 forms each)");
    for ((answer, (g, value)), request) in ask(program, &requests).iter().zip(expect).zip(&requests)
    {
        check.eq(&format!("{request} ({g:?})"), Some(value), go_value(answer));
    }
    check.done(n);
}

/// Where this crate refuses on purpose what Go reads: the form, and a test
/// of the input that says it is that case. docs/compatibility.md lists each
/// ("Differences the differential tests know").
struct Difference {
    form: &'static str,
    name: &'static str,
    /// Go reads the input and this crate refuses it (else the reverse).
    go_reads: bool,
    applies: fn(&[u8]) -> bool,
}

const SORTABLE: &[u8] = b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SNO: &[u8] = b"23456789abcdefghijklmnopqrstuvwx";

fn outside(s: &[u8], alphabet: &[u8]) -> bool {
    s.iter().any(|b| !alphabet.contains(b))
}

/// The index of a sortable-string symbol (Go's 0 for any other byte).
fn symbol(b: u8) -> u8 {
    SORTABLE.iter().position(|&c| c == b).unwrap_or(0) as u8
}

/// The string Go's JSON decoder reads as a global id: one `*` dropped.
fn unstarred(v: &str) -> &str {
    v.strip_prefix('*').unwrap_or(v)
}

/// The string inside a JSON input, when it is one.
fn json_str(s: &[u8]) -> Option<String> {
    serde_json::from_slice::<String>(s).ok()
}

const DIFFERENCES: &[Difference] = &[
    Difference {
        form: "strg",
        go_reads: true,
        name: "global string: bytes outside the alphabet, read by Go as 0",
        applies: |s| outside(s, SORTABLE),
    },
    Difference {
        form: "strg",
        go_reads: true,
        name: "global string of drift code 0 (a first symbol below '7'; a local id's string)",
        applies: |s| symbol(s[0]) >> 3 == 0,
    },
    Difference {
        form: "strl",
        go_reads: true,
        name: "local string: bytes outside the alphabet, read by Go as 0",
        applies: |s| outside(s, SORTABLE),
    },
    Difference {
        form: "strl",
        go_reads: true,
        name: "local string: symbols past the 16 of a local id ('F' to 'z'), masked by Go to 4 bits",
        applies: |s| s.iter().any(|&b| symbol(b) > 15),
    },
    Difference {
        form: "strl",
        go_reads: true,
        name: "local string of drift code 0 (a first symbol '.' or '0')",
        applies: |s| symbol(s[0]) & 0xe == 0,
    },
    Difference {
        form: "strl",
        go_reads: false,
        name: "local string in Go's JSON form, `*` and a global string: read here (its node dropped, as Go's JSON decoder does); Go's FromStringL takes 16 bytes only",
        applies: |s| s.len() == 17 && s[0] == b'*',
    },
    Difference {
        form: "bytes",
        go_reads: true,
        name: "bytes of drift code 0 (a first byte below 0x20)",
        applies: |s| s[0] < 0x20,
    },
    Difference {
        form: "base62",
        go_reads: true,
        name: "base62 with leading zeros ('0'), or of another width than 17 / 11",
        applies: |s| s.first() == Some(&b'0') || (s.len() != 17 && s.len() != 11),
    },
    Difference {
        form: "base62",
        go_reads: true,
        name: "base62 of a value of drift code 0",
        applies: |_| true, // confirmed below: Go's value has drift code 0
    },
    Difference {
        form: "json",
        go_reads: true,
        name: "JSON string: bytes outside the alphabet, read by Go as 0",
        applies: |s| json_str(s).is_some_and(|v| outside(unstarred(&v).as_bytes(), SORTABLE)),
    },
    Difference {
        form: "json",
        go_reads: true,
        name: "JSON string of drift code 0, or a local id's of a global string of code 0",
        applies: |s| {
            json_str(s).is_some_and(|v| {
                unstarred(&v)
                    .bytes()
                    .next()
                    .is_some_and(|b| symbol(b) >> 3 == 0)
            })
        },
    },
    Difference {
        form: "sno string",
        go_reads: true,
        name: "sno string: bytes outside the alphabet, decoded by sno without a check",
        applies: |s| outside(s, SNO),
    },
    Difference {
        form: "sno json",
        go_reads: true,
        name: "sno JSON string: bytes outside the alphabet (not UTF-8 too), decoded by sno without a check",
        // sno reads the 16 raw bytes between the quotes, unescaped.
        applies: |s| s.len() == 18 && outside(&s[1..17], SNO),
    },
    Difference {
        form: "sno json",
        go_reads: false,
        name: "sno JSON string with escapes (\\u0032 for '2'): read here as the string it stands for; sno reads the raw bytes, 16 between the quotes",
        applies: |s| s.contains(&b'\\'),
    },
];

/// The listed difference that explains why one decoder reads `input` (Go:
/// `go`) and the other refuses it; none means one not on the list.
fn known(form: &str, input: &[u8], go: Option<u128>) -> Option<&'static str> {
    DIFFERENCES
        .iter()
        .filter(|d| d.form == form && d.go_reads == go.is_some() && (d.applies)(input))
        .find(|d| {
            // Go's value must show it, where the input alone cannot.
            let go = go.unwrap_or_default();
            !d.name.starts_with("base62 of a value of drift code 0")
                || (go >> 64 != 0 && go >> 93 == 0)
                || (go >> 64 == 0 && go >> 61 == 0)
        })
        .map(|d| d.name)
}

/// JSON around a valid one: the same string with a character escaped,
/// whitespace around it, a prefix or the quotes changed, or other values.
fn json_variant(rng: &mut SplitMix, valid: &[u8]) -> Vec<u8> {
    let inner = &valid[1..valid.len() - 1];
    let i = (rng.next() % inner.len().max(1) as u64) as usize;
    let quoted = |s: &[u8]| [&b"\""[..], s, b"\""].concat();
    match rng.next() % 8 {
        0 => {
            let escaped = format!("\\u{:04x}", inner.get(i).copied().unwrap_or(b'2'));
            quoted(
                &[
                    &inner[..i.min(inner.len())],
                    escaped.as_bytes(),
                    inner.get(i + 1..).unwrap_or(&[]),
                ]
                .concat(),
            )
        }
        1 => [&b" "[..], valid, b"\n"].concat(),
        2 => quoted(&[&b"*"[..], inner].concat()),
        3 => quoted(inner.strip_prefix(b"*").unwrap_or(inner)),
        4 => [&b"'"[..], inner, b"'"].concat(),
        5 => inner.to_vec(),
        6 => quoted(&inner[..i]),
        _ => [
            &b"null"[..],
            b"\"\"",
            b"\"*\"",
            b"0",
            b"[]",
            b"{}",
            b"\"\\u0000\"",
        ][(rng.next() % 7) as usize]
            .to_vec(),
    }
}

/// Inputs around a valid one: a byte changed (to the alphabets' edges,
/// others, or a multi-byte character), inserted or removed, the input cut
/// or grown, or random bytes of nearby lengths.
fn mutate(rng: &mut SplitMix, valid: &[u8], alphabet: &[u8]) -> Vec<u8> {
    const EDGES: &[u8] = b"./0129:@AEFZ[_`awxyz{\"*\\ -~\x00\x7f\x80\xff";
    let mut s = valid.to_vec();
    let any = |rng: &mut SplitMix| match rng.next() % 3 {
        0 => EDGES[(rng.next() % EDGES.len() as u64) as usize],
        1 => alphabet[(rng.next() % alphabet.len() as u64) as usize],
        _ => rng.next() as u8,
    };
    let at = |rng: &mut SplitMix, len: usize| (rng.next() % len.max(1) as u64) as usize;
    match rng.next() % 8 {
        0..=2 if !s.is_empty() => {
            let i = at(rng, s.len());
            s[i] = any(rng);
        }
        3 => {
            let i = at(rng, s.len() + 1).min(s.len());
            s.insert(i, any(rng));
        }
        4 if !s.is_empty() => {
            let i = at(rng, s.len());
            s.remove(i);
        }
        5 if !s.is_empty() => {
            let i = at(rng, s.len());
            s.splice(i..i + 1, "é".bytes());
        }
        6 => {
            let len = (valid.len() + 3).saturating_sub((rng.next() % 7) as usize);
            s = (0..len)
                .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
                .collect();
        }
        _ => {
            let len = (valid.len() + 2).saturating_sub((rng.next() % 5) as usize);
            s = (0..len).map(|_| any(rng)).collect();
        }
    }
    s
}

/// This crate's reading of a v2 input, as Go's answer gives it.
fn ours_v2(form: &str, input: &[u8]) -> Option<u128> {
    match form {
        "bytes" if input.len() == 8 => Luid::from_slice(input).ok().map(|l| l.to_u64().into()),
        "bytes" => Guid::from_slice(input).ok().map(Guid::to_u128),
        "strg" => Guid::parse_bytes(input).ok().map(Guid::to_u128),
        "strl" => Luid::parse_bytes(input).ok().map(|l| l.to_u64().into()),
        "base62" => (Guid::from_base62(input).map(Guid::to_u128))
            .or_else(|_| Luid::from_base62(input).map(|l| l.to_u64().into()))
            .ok(),
        // Go's one type reads a local id where the string starts with `*`
        // and a global one otherwise: the type to read into here.
        "json" if json_str(input).is_some_and(|v| v.starts_with('*')) => {
            serde_json::from_slice::<Luid>(input)
                .ok()
                .map(|l| l.to_u64().into())
        }
        "json" => serde_json::from_slice::<Guid>(input)
            .ok()
            .map(Guid::to_u128),
        _ => unreachable!(),
    }
}

/// Both decoders on the same inputs: Go's answer and this crate's agree,
/// or the case is a listed difference (Go reads, this crate refuses).
fn agree(
    check: &mut Check,
    tally: &mut std::collections::BTreeMap<&'static str, usize>,
    form: &str,
    input: &[u8],
    ours: Option<u128>,
    go: Option<u128>,
) {
    match (ours, go) {
        (a, b) if a == b => {}
        (None, Some(_)) | (Some(_), None) => match known(form, input, go) {
            Some(name) => *tally.entry(name).or_default() += 1,
            None => check.fail(format!(
                "{form} {:?} ({}): kguid {ours:x?}, Go {go:x?}, and no listed difference says why",
                String::from_utf8_lossy(input),
                hex(input)
            )),
        },
        (ours, go) => check.fail(format!(
            "{form} {:?} ({}): kguid {ours:x?}, Go {go:x?}",
            String::from_utf8_lossy(input),
            hex(input)
        )),
    }
}

#[test]
fn v2_decoders_agree_on_random_and_mutated_inputs() {
    let Some(program) = program() else { return };
    let mut rng = rng(3);
    let n = cases() / 4;
    let mut inputs = Vec::new();
    for i in 0..n {
        let (node, t, seq, d) = v2_parts(&mut rng);
        let g = Guid::compose(node, t, seq, drift_of(d)).unwrap();
        let l = g.to_l64();
        let (form, valid, alphabet) = match i % 8 {
            0 => ("bytes", g.to_bytes().to_vec(), &[][..]),
            1 => ("bytes", l.to_bytes().to_vec(), &[][..]),
            2 => ("strg", g.to_string().into_bytes(), SORTABLE),
            3 => ("strl", l.to_string().into_bytes(), &SORTABLE[..16]),
            4 => ("base62", g.to_base62().into_bytes(), BASE62),
            5 => ("base62", l.to_base62().into_bytes(), BASE62),
            6 => ("json", json(&g).into_bytes(), SORTABLE),
            _ => ("json", json(&l).into_bytes(), SORTABLE),
        };
        let alphabet = if alphabet.is_empty() {
            &[0u8, 0x1f, 0x20, 0xff][..]
        } else {
            alphabet
        };
        // One in eight stays valid, so that acceptance is tested too.
        let input = if form == "json" && rng.next() % 4 == 0 {
            json_variant(&mut rng, &valid)
        } else if rng.next() % 8 == 0 {
            valid
        } else {
            mutate(&mut rng, &valid, alphabet)
        };
        inputs.push((form, input));
    }
    let requests: Vec<String> = inputs
        .iter()
        .map(|(f, s)| format!("g2dec {f} {}", hex(s)))
        .collect();
    let mut check = Check::new("v2: both decoders on random and mutated inputs");
    let mut tally = std::collections::BTreeMap::new();
    let mut accepted = 0;
    for ((form, input), answer) in inputs.iter().zip(ask(program, &requests)) {
        let (ours, go) = (ours_v2(form, input), go_value(&answer));
        accepted += usize::from(ours.is_some());
        agree(&mut check, &mut tally, form, input, ours, go);
    }
    eprintln!("accepted by both: {accepted}; listed differences met: {tally:#?}");
    check.done(n);
}

/// A sno generator's settings and the times of its ids (unix ns).
fn sno_parts(rng: &mut SplitMix) -> (u16, u16, u16, u8, Vec<u64>) {
    let partition = pick(rng, &[0, 1, 0xffff], 1 << 16) as u16;
    let min = pick(rng, &[0, 1, 65530, 65535], 1 << 16) as u16;
    let max = pick(rng, &[0, 5, 65535], 1 << 16) as u16;
    let meta = rng.next() as u8;
    let last = EPOCH_NS + ((1 << 39) - 1) * UNIT_NS + UNIT_NS - 1;
    let times = (0..1 + rng.next() % 4)
        .map(|_| EPOCH_NS + pick(rng, &[0, 1, UNIT_NS, last - EPOCH_NS], last - EPOCH_NS + 1))
        .collect();
    (partition, min, max, meta, times)
}

#[test]
fn sno_go_makes_kguid_reads_and_writes_back() {
    let Some(program) = program() else { return };
    let mut rng = rng(4);
    let n = cases() / 8;
    let parts: Vec<_> = (0..n).map(|_| sno_parts(&mut rng)).collect();
    let requests: Vec<String> = parts
        .iter()
        .map(|(p, min, max, meta, times)| {
            let times: Vec<String> = times.iter().map(u64::to_string).collect();
            format!("snomake {p} {min} {max} {meta} {}", times.join(" "))
        })
        .collect();
    let mut check = Check::new("sno: Go makes, kguid reads (3 forms each, and the generator)");
    for (((p, min, max, meta, times), answer), c) in
        parts.iter().zip(ask(program, &requests)).zip(&requests)
    {
        let ours = Generator::builder()
            .partition(*p)
            .sequence_min(*min)
            .sequence_max(*max)
            .build();
        if answer == "err" {
            check.eq(c, ours.is_err(), true);
            continue;
        }
        let Ok(generator) = ours else {
            check.fail(format!("{c}: kguid's generator refused the bounds"));
            continue;
        };
        let f: Vec<&str> = answer.split(' ').collect();
        let Some(id) = read_sno(&mut check, c, &f) else {
            continue;
        };
        check.eq(c, id.tick(), false);
        let t = *times.last().unwrap();
        let composed = Sno::compose(t, false, *meta, *p, id.sequence()).ok();
        check.eq(c, composed, Some(id));
        let mut made = None;
        for &t in times {
            made = generator
                .next_with_time(*meta, UNIX_EPOCH + Duration::from_nanos(t))
                .ok();
        }
        check.eq(c, made, Some(id));
    }
    // Ids of sno's `New` (the wall clock) from generators restored with a
    // count of clock regressions: its parity is the tick-tock bit.
    let news: Vec<(u16, u32, u8)> = (0..n / 8)
        .map(|_| (rng.next() as u16, rng.next() as u32, rng.next() as u8))
        .collect();
    let requests: Vec<String> = news
        .iter()
        .map(|(p, drifts, meta)| format!("snonew {p} 0 0 {drifts} {meta}"))
        .collect();
    for ((&(p, drifts, meta), answer), c) in news.iter().zip(ask(program, &requests)).zip(&requests)
    {
        let f: Vec<&str> = answer.split(' ').collect();
        let Some(id) = read_sno(&mut check, c, &f) else {
            continue;
        };
        check.eq(
            c,
            (id.tick(), f[7]),
            (drifts & 1 == 1, if drifts & 1 == 1 { "1" } else { "0" }),
        );
        let composed = Sno::compose(id.unix_ns(), drifts & 1 == 1, meta, p, id.sequence()).ok();
        check.eq(c, composed, Some(id));
    }
    check.done(n + n / 8);
}

/// Reads Go's description of a sno id (bytes, string, JSON, time, meta,
/// partition, sequence): the same id from each form, the same fields, and
/// the same forms written back.
fn read_sno(check: &mut Check, c: &str, f: &[&str]) -> Option<Sno> {
    let (bytes, s, j) = (unhex(f[0]), f[1], String::from_utf8(unhex(f[2])).unwrap());
    let Ok(id) = Sno::from_slice(&bytes) else {
        check.fail(format!("{c}: bytes {} refused", f[0]));
        return None;
    };
    let go_fields = (num(f[3]), num(f[4]), num(f[5]), num(f[6]));
    let fields = (
        id.unix_ns(),
        u64::from(id.meta()),
        u64::from(id.partition()),
        u64::from(id.sequence()),
    );
    check.eq(c, fields, go_fields);
    check.eq(c, s.parse::<Sno>().ok(), Some(id));
    check.eq(c, serde_json::from_str::<Sno>(&j).ok(), Some(id));
    check.eq(c, id.to_bytes().to_vec(), bytes);
    check.eq(c, id.to_string().as_str(), s);
    check.eq(c, json(&id), j);
    Some(id)
}

fn ours_sno(form: &str, input: &[u8]) -> Option<u128> {
    match form {
        "sno bytes" => Sno::from_slice(input).ok(),
        "sno string" => Sno::parse_bytes(input).ok(),
        "sno json" => serde_json::from_slice::<Sno>(input).ok(),
        _ => unreachable!(),
    }
    .map(Sno::to_u128)
}

#[test]
fn sno_kguid_composes_go_reads_and_decoders_agree() {
    let Some(program) = program() else { return };
    let mut rng = rng(5);
    let n = cases() / 4;
    let mut inputs = Vec::new();
    for i in 0..n {
        let (p, _, _, meta, times) = sno_parts(&mut rng);
        let seq = pick(&mut rng, &[0, 1, 0xffff], 1 << 16) as u16;
        let tick = rng.next() % 2 == 0;
        let id = Sno::compose(times[0], tick, meta, p, seq).unwrap();
        let id = if i % 16 == 0 { Sno::ZERO } else { id };
        // The valid forms first (kguid composes, Go reads), then mutated.
        for (form, valid, alphabet) in [
            ("sno bytes", id.to_bytes().to_vec(), &[0u8, 0xff][..]),
            ("sno string", id.to_string().into_bytes(), SNO),
            ("sno json", json(&id).into_bytes(), SNO),
        ] {
            inputs.push((form, valid.clone(), true));
            let input = if form == "sno json" && valid[0] == b'"' && rng.next() % 4 == 0 {
                json_variant(&mut rng, &valid)
            } else {
                mutate(&mut rng, &valid, alphabet)
            };
            inputs.push((form, input, false));
        }
    }
    let requests: Vec<String> = inputs
        .iter()
        .map(|(f, s, _)| format!("snodec {} {}", f.trim_start_matches("sno "), hex(s)))
        .collect();
    let mut composed = Check::new("sno: kguid composes, Go reads (3 forms each)");
    let mut check = Check::new("sno: both decoders on mutated inputs (3 forms each)");
    let mut tally = std::collections::BTreeMap::new();
    for ((form, input, valid), answer) in inputs.iter().zip(ask(program, &requests)) {
        let (ours, go) = (ours_sno(form, input), go_value(&answer));
        if *valid {
            composed.eq(
                &format!("{form} {}", String::from_utf8_lossy(input)),
                ours,
                go,
            );
            composed.eq("accepted", ours.is_some(), true);
        } else {
            agree(&mut check, &mut tally, form, input, ours, go);
        }
    }
    eprintln!("listed differences met: {tally:#?}");
    composed.done(n);
    check.done(n);
}

#[test]
fn generators_sort_alike_under_both_comparisons() {
    let Some(program) = program() else { return };
    let mut rng = rng(6);
    let n = 2_000;
    let answers = ask(program, &[format!("g2clock {n}"), format!("snogen {n}")]);
    // Go's default clock (default drift) and this crate's, interleaved.
    let clock = guid::Clock::builder().build();
    let mut ids: Vec<Guid> = answers[0]
        .split(' ')
        .map(|h| Guid::from_slice(&unhex(h)).expect("Go's id"))
        .collect();
    ids.extend((0..n).map(|_| clock.g()));
    ids.extend((0..n).map(|_| guid::g(&guid::CLOCK)));
    shuffle(&mut rng, &mut ids);
    let sno_gen = Generator::builder().build().unwrap();
    let mut snos: Vec<Sno> = answers[1]
        .split(' ')
        .map(|h| Sno::from_slice(&unhex(h)).expect("Go's id"))
        .collect();
    snos.extend((0..n).map(|i| sno_gen.next(i as u8)));
    shuffle(&mut rng, &mut snos);
    let requests = [
        format!(
            "g2sort {}",
            ids.iter()
                .map(|g| hex(&g.to_bytes()))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        format!(
            "snosort {}",
            snos.iter()
                .map(|s| hex(&s.to_bytes()))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    ];
    let orders = ask(program, &requests);
    let mut check = Check::new("generators: ids sort alike (Go's and kguid's)");
    check.eq("v2 ids", sorted(&ids), parse_order(&orders[0]));
    check.eq("sno ids", sorted(&snos), parse_order(&orders[1]));
    // Each generator's own ids come out in the order it made them.
    let ours: Vec<Guid> = (0..n).map(|_| clock.g()).collect();
    check.eq("kguid's clock", sorted(&ours), (0..ours.len()).collect());
    check.done(3 * n * 2);
}

fn shuffle<T>(rng: &mut SplitMix, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        v.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
}

fn sorted<T: Ord>(ids: &[T]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..ids.len()).collect();
    idx.sort_by(|&a, &b| ids[a].cmp(&ids[b]));
    idx
}

fn parse_order(s: &str) -> Vec<usize> {
    s.split(' ').map(|i| i.parse().unwrap()).collect()
}

#[test]
fn go_module_is_vetted_and_formatted() {
    if program().is_none() {
        return;
    }
    let vet = go().args(["vet", "./..."]).output().expect("go vet runs");
    assert!(
        vet.status.success(),
        "go vet:\n{}",
        String::from_utf8_lossy(&vet.stderr)
    );
    let fmt = Command::new("gofmt")
        .arg("-l")
        .arg(module())
        .output()
        .expect("gofmt runs");
    assert!(fmt.status.success(), "gofmt failed");
    assert!(
        fmt.stdout.is_empty(),
        "not gofmt'ed: {}",
        String::from_utf8_lossy(&fmt.stdout)
    );
}
