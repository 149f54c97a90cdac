//! v3 ids: bad input is a typed error with a clear message; the readable
//! forms (`Debug`, `Display`, hex), serde's two forms and the `uuid`
//! conversions.

mod common;

use common::kind;
use guid::ErrorKind;
use guid::Id;
use guid::v3::{Drift, Guid, Luid, Xuid};

const X: &str = "030d98d5-9b81-8400-8000-00000000098e";

#[test]
fn uuid_strings_must_be_canonical_v8() {
    let x: Xuid = X.parse().unwrap();
    assert_eq!(x.to_string(), X);
    let cases = [
        ("", "invalid length: expected 36, found 0"),
        (
            "030D98D5-9B81-8400-8000-00000000098E",
            "invalid character 'D' at index 3",
        ),
        (
            "030d98d5-9b81-8400-8000-00000000098e ",
            "invalid length: expected 36, found 37",
        ),
        (
            "030d98d5+9b81-8400-8000-00000000098e",
            "invalid character '+' at index 8",
        ),
        (
            "030d98d5-9b81-7400-8000-00000000098e",
            "not an RFC 9562 UUIDv8: version 7, variant 0b10",
        ),
        (
            "030d98d5-9b81-8400-c000-00000000098e",
            "not an RFC 9562 UUIDv8: version 8, variant 0b11",
        ),
        (
            "030d98d5-9b81-8400-8000-00000000098\u{e9}",
            "invalid length: expected 36, found 37",
        ),
        (
            "030d98d5-9b81-8400-8000-0000000009\u{e9}",
            "invalid byte 0xc3 at index 34",
        ),
    ];
    for (s, message) in cases {
        let e = s.parse::<Xuid>().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid v3::Xuid: {message}"),
            "{s:?}"
        );
    }
    assert_eq!(
        kind(Xuid::from_bytes([0; 16])),
        ErrorKind::NotUuidV8 {
            version: 0,
            variant: 0
        }
    );
    assert_eq!(kind(Xuid::try_from(0u128)), kind(Xuid::from_bytes([0; 16])));
}

#[test]
fn base62_has_one_width() {
    let g = Guid::compose(1, 1 << 60, 5, Drift::MIN).unwrap();
    let text = g.to_base62();
    assert_eq!(text.len(), 17);
    assert!(text.starts_with('0'));
    assert_eq!(
        kind(Guid::from_base62(&text[1..])),
        ErrorKind::Length {
            expected: 17,
            found: 16
        }
    );
    assert_eq!(
        kind(Luid::from_base62("zzzzzzzzzzz")),
        ErrorKind::Overflow { bits: 64 }
    );
    assert_eq!(
        Xuid::from_base62("0000000000000000000000")
            .unwrap_err()
            .to_string(),
        "invalid v3::Xuid: not an RFC 9562 UUIDv8: version 0, variant 0b00"
    );
}

#[test]
fn parts_past_their_fields_are_refused() {
    assert_eq!(
        kind(Xuid::compose(1 << 58, 0, 0, Drift::DEFAULT)),
        ErrorKind::Part {
            name: "node",
            value: 1 << 58,
            max: (1 << 58) - 1
        }
    );
    assert!(Guid::compose(0, 0, 16_384, Drift::DEFAULT).is_err());
    assert!(Luid::zero(Drift::MAX).to_x(1 << 58).is_err());
    let wide = Xuid::compose(1 << 40, 0, 0, Drift::DEFAULT).unwrap();
    assert_eq!(
        Guid::try_from(wide).unwrap_err().to_string(),
        "node 1099511627776 is out of range 0..=4294967295"
    );
    assert_eq!(kind(Drift::new(8)), kind(Drift::try_from(8)));
    assert_eq!(
        Drift::new(8).unwrap_err().to_string(),
        "drift code 8 is outside 0..=7"
    );
}

#[test]
fn debug_display_and_hex_name_the_generation() {
    let x: Xuid = X.parse().unwrap();
    assert_eq!(format!("{x:?}"), format!("v3::Xuid({X})"));
    let g = Guid::try_from(x).unwrap();
    assert_eq!(format!("{g:?}"), "v3::Guid(.kqNpOi0F.....aD)");
    assert_eq!(format!("{:?}", g.to_l64()), "v3::Luid(.2.C87C48A70387D)");
    assert_eq!(format!("{:?}", Drift::DEFAULT), "v3::Drift(4)");
    assert_eq!(format!("{:>9}", Drift::MIN), "131.072µs");
    // Drift code 0: the hex keeps every leading zero of the bytes.
    assert_eq!(format!("{g:x}"), "030d98d59b8140000000098e");
    assert_eq!(format!("{:#X}", g.to_l64()), "0x030D98D59B81498E");
    assert_eq!(format!("{x:x}"), X.replace('-', ""));
    assert_eq!(format!("{:x}", Luid::zero(Drift::MIN)), "0000000000000000");
}

#[test]
fn bad_json_is_a_typed_error() {
    let bad = [
        (
            "\"*.2.C87C48A70387D\"",
            "invalid v3::Luid: invalid length: expected 16, found 17",
        ),
        ("null", "invalid type: null"),
        (
            "1",
            "invalid type: integer `1`, expected a v3::Luid string or 8 bytes",
        ),
        (
            "\"FFFFFFFFFFFFFFFF\"",
            "invalid v3::Luid: invalid character 'F' at index 0",
        ),
    ];
    for (json, message) in bad {
        let e = serde_json::from_str::<Luid>(json).unwrap_err();
        assert!(e.to_string().starts_with(message), "{json}: {e}");
    }
    let e = serde_json::from_str::<Xuid>("\"xxx\"").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("invalid v3::Xuid: invalid length: expected 36, found 3"),
        "{e}"
    );
}

/// The UUID string when readable, the 16 bytes when compact, either
/// accepted; the same for the v3 global and local ids.
#[test]
fn serde_uses_strings_when_readable_and_bytes_when_compact() {
    use serde_test::{Configure, Token, assert_de_tokens, assert_tokens};
    let x: Xuid = X.parse().unwrap();
    let bytes: &'static [u8; 16] = Box::leak(Box::new(x.to_bytes()));
    assert_tokens(&x.readable(), &[Token::Str(X)]);
    assert_tokens(&x.compact(), &[Token::Bytes(bytes)]);
    assert_de_tokens(&x.compact(), &[Token::Str(X)]);
    assert_de_tokens(&x.readable(), &[Token::Bytes(bytes)]);

    let g = Guid::try_from(x).unwrap();
    assert_tokens(&g.readable(), &[Token::Str(".kqNpOi0F.....aD")]);
    assert_tokens(
        &g.compact(),
        &[Token::Bytes(Box::leak(Box::new(g.to_bytes())))],
    );
    let l = g.to_l64();
    assert_tokens(&l.readable(), &[Token::Str(".2.C87C48A70387D")]);
    assert_tokens(
        &l.compact(),
        &[Token::Bytes(Box::leak(Box::new(l.to_bytes())))],
    );

    // postcard: the bytes and one length byte.
    let packed = postcard::to_allocvec(&x).unwrap();
    assert_eq!((packed.len(), &packed[1..]), (17, &x.to_bytes()[..]));
    assert_eq!(postcard::from_bytes::<Xuid>(&packed).unwrap(), x);
}

#[cfg(feature = "uuid")]
#[test]
fn uuids_convert_both_ways_when_they_are_v8() {
    let x: Xuid = X.parse().unwrap();
    let u = uuid::Uuid::from(x);
    assert_eq!(u.get_version(), Some(uuid::Version::Custom));
    assert_eq!(u.get_variant(), uuid::Variant::RFC4122);
    assert_eq!(u.hyphenated().to_string(), X);
    assert_eq!(Xuid::try_from(u), Ok(x));
    // Any case of the string, through uuid's parser.
    let upper = uuid::Uuid::parse_str(&X.to_uppercase()).unwrap();
    assert_eq!(Xuid::try_from(upper), Ok(x));
    for (u, version, variant) in [
        (uuid::Uuid::nil(), 0, 0),
        (uuid::Uuid::max(), 15, 0b11),
        (uuid::Uuid::now_v7(), 7, 0b10),
        (uuid::Uuid::new_v4(), 4, 0b10),
    ] {
        assert_eq!(
            Xuid::try_from(u).unwrap_err().kind(),
            ErrorKind::NotUuidV8 { version, variant },
            "{u}"
        );
    }
}
