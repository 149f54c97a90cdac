//! Bad input: a typed error with a clear message, never a panic.

mod common;

use common::kind;
use guid::Id;
use guid::{Drift, ErrorKind, Guid, Luid};

const G: &str = "NkHHyvq1H59MZmlU";
const L: &str = "52.381E986821B4E";

#[test]
fn wrong_lengths_are_named() {
    for s in ["", "NkHHyvq1H59MZml", "NkHHyvq1H59MZmlU0"] {
        let e = s.parse::<Guid>().unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::Length {
                expected: 16,
                found: s.len()
            }
        );
        assert_eq!(
            e.to_string(),
            format!(
                "invalid Guid: invalid length: expected 16, found {}",
                s.len()
            )
        );
        assert!(s.parse::<Luid>().is_err());
    }
    assert_eq!(
        kind(Guid::from_slice(&[0x60; 11])),
        ErrorKind::Length {
            expected: 12,
            found: 11
        }
    );
    assert_eq!(
        kind(Luid::from_slice(&[0x60; 9])),
        ErrorKind::Length {
            expected: 8,
            found: 9
        }
    );
    assert_eq!(
        kind(Guid::from_base62("")),
        ErrorKind::Length {
            expected: 17,
            found: 0
        }
    );
    assert_eq!(
        kind(Luid::from_base62("zzzzzzzzzzzz")),
        ErrorKind::Length {
            expected: 11,
            found: 12
        }
    );
}

#[test]
fn characters_outside_the_alphabet_are_located() {
    let e = "NkH!yvq1H59MZmlU".parse::<Guid>().unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::Char {
            byte: b'!',
            index: 3
        }
    );
    assert_eq!(
        e.to_string(),
        "invalid Guid: invalid character '!' at index 3"
    );
    // Non-UTF-8 and multi-byte input: the byte is reported.
    let e = Guid::parse_bytes(b"\xffkHHyvq1H59MZmlU").unwrap_err();
    assert_eq!(e.to_string(), "invalid Guid: invalid byte 0xff at index 0");
    assert_eq!(
        kind("NkHHyé1H59MZmlU".parse::<Guid>()),
        ErrorKind::Char {
            byte: 0xc3,
            index: 5
        }
    );
    // A local string has 16 symbols only: 'F' is past them.
    assert_eq!(
        kind("52.F81E986821B4E".parse::<Luid>()),
        ErrorKind::Char {
            byte: b'F',
            index: 3
        }
    );
    assert_eq!(
        kind(G.parse::<Luid>()),
        ErrorKind::Char {
            byte: b'N',
            index: 0
        }
    );
    assert_eq!(
        kind(Guid::from_base62("dqyr-WAFYCsNZ9uJ")),
        ErrorKind::Char {
            byte: b'-',
            index: 4
        }
    );
    assert_eq!(
        kind(Guid::from_base62("dqyrnéAFYCsNZ9uJ")),
        ErrorKind::Char {
            byte: 0xc3,
            index: 5
        }
    );
}

#[test]
fn values_that_are_not_ids_are_rejected() {
    // A local string read as a global id has drift code 0.
    let e = L.parse::<Guid>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Drift);
    assert_eq!(
        e.to_string(),
        "invalid Guid: drift code 0, which no clock makes"
    );
    assert_eq!(kind(Guid::from_bytes([0; 12])), ErrorKind::Drift);
    assert_eq!(kind(Luid::from_u64(1)), ErrorKind::Drift);
    assert_eq!(
        kind(Guid::from_u128(1 << 96)),
        ErrorKind::Overflow { bits: 96 }
    );
    // Base62: too wide for 96 or 64 bits, or not canonical.
    let e = Guid::from_base62("zzzzzzzzzzzzzzzzz").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow { bits: 96 });
    assert_eq!(e.to_string(), "invalid Guid: value does not fit 96 bits");
    assert_eq!(
        kind(Luid::from_base62("zzzzzzzzzzz")),
        ErrorKind::Overflow { bits: 64 }
    );
    assert_eq!(
        kind(Guid::from_base62("0dqyrnWAFYCsNZ9uJ")),
        ErrorKind::LeadingZero
    );
    // Parts out of range.
    let e = Guid::compose(1, 2, 16384, Drift::DEFAULT).unwrap_err();
    assert_eq!(e.to_string(), "seq 16384 is out of range 0..=16383");
    assert_eq!(
        kind(Drift::new(0)),
        ErrorKind::Range {
            name: "drift code",
            value: 0,
            min: 1,
            max: 7
        }
    );
    assert_eq!(
        Drift::new(0).unwrap_err().to_string(),
        "drift code 0 is outside 1..=7"
    );
    // Cells.
    let g: Guid = G.parse().unwrap();
    assert_eq!(kind(g.split(9)), ErrorKind::CellWidth(9));
    assert_eq!(kind(g.split(0)), ErrorKind::CellWidth(0));
    assert_eq!(
        kind(Guid::fold(8, &[0x60; 11])),
        ErrorKind::Length {
            expected: 12,
            found: 11
        }
    );
    assert_eq!(
        kind(Guid::fold(4, &[16; 24])),
        ErrorKind::Cell {
            value: 16,
            index: 0
        }
    );
}

#[cfg(feature = "serde")]
#[test]
fn bad_json_is_a_typed_error() {
    let bad = [
        ("\"\"", "invalid Guid: invalid length: expected 16, found 0"),
        (
            "null",
            "invalid type: null, expected a Guid string or 12 bytes",
        ),
        (
            "123",
            "invalid type: integer `123`, expected a Guid string or 12 bytes",
        ),
        (
            "\"abc\"",
            "invalid Guid: invalid length: expected 16, found 3",
        ),
        (
            "\"*NkHHyvq1H59MZmlU\"",
            "invalid Guid: global id must not start with '*' (that is a local id)",
        ),
        (
            "\"################\"",
            "invalid Guid: invalid character '#' at index 0",
        ),
        (
            "{}",
            "invalid type: map, expected a Guid string or 12 bytes",
        ),
    ];
    for (json, message) in bad {
        let e = serde_json::from_str::<Guid>(json).unwrap_err();
        assert!(e.to_string().starts_with(message), "{json}: {e}");
    }
    let bad_local = [
        (
            "\"*\"",
            "invalid Luid: invalid length: expected 16, found 0",
        ),
        ("\"*52.381E986821B4E\"", "invalid Luid: drift code 0"),
        (
            "\"**NkHHyvq1H59MZml\"",
            "invalid Luid: invalid character '*' at index 0",
        ),
        ("null", "invalid type: null"),
        ("[1,2]", "invalid type: sequence"),
    ];
    for (json, message) in bad_local {
        let e = serde_json::from_str::<Luid>(json).unwrap_err();
        assert!(e.to_string().starts_with(message), "{json}: {e}");
    }
    // The `Display` string is read too: both strings of a local id parse.
    let local: Luid = serde_json::from_str("\"52.E81E986821B4E\"").unwrap();
    assert_eq!(local.to_string(), "52.E81E986821B4E");
    let go = serde_json::to_string(&local).unwrap();
    assert_eq!(go[1..go.len() - 1].parse::<Luid>(), Ok(local));
}

#[cfg(feature = "serde")]
#[test]
fn serde_uses_strings_when_readable_and_bytes_when_compact() {
    use serde_test::{Configure, Token, assert_de_tokens, assert_tokens};
    let g: Guid = G.parse().unwrap();
    assert_tokens(&g.readable(), &[Token::Str(G)]);
    assert_tokens(
        &g.compact(),
        &[Token::Bytes(&[
            0x63, 0x04, 0x92, 0xfb, 0xbd, 0x82, 0x48, 0x62, 0x97, 0x93, 0x2c, 0x5f,
        ])],
    );
    let l = g.to_l64();
    // The values are checked against Go's in the vector tests; here the form.
    let text: &'static str = Box::leak(format!("*{}", l.to_g(0)).into_boxed_str());
    assert_tokens(&l.readable(), &[Token::Str(text)]);
    assert_tokens(
        &l.compact(),
        &[Token::Bytes(Box::leak(Box::new(l.to_bytes())))],
    );
    // Either form is accepted.
    assert_de_tokens(&g.compact(), &[Token::Str(G)]);
    assert_de_tokens(
        &g.readable(),
        &[Token::Bytes(Box::leak(Box::new(g.to_bytes())))],
    );
}

#[test]
fn debug_and_display_are_readable() {
    let g: Guid = G.parse().unwrap();
    assert_eq!(format!("{g:?}"), "Guid(NkHHyvq1H59MZmlU)");
    assert_eq!(format!("{g:>18}"), "  NkHHyvq1H59MZmlU");
    let l: Luid = L.parse().unwrap();
    assert_eq!(format!("{l:?}"), "Luid(52.381E986821B4E)");
    assert_eq!(format!("{:?}", Drift::DEFAULT), "Drift(3)");
}
