//! Values of flags: node, sequence, drift seconds, time, and sno's meta
//! and partition. Each parser returns what is wrong as a short phrase;
//! clap puts the input before it.

use std::time::Duration;

use guid::{Drift, v3};

use crate::rfc3339;

/// The largest sequence number: ids have 14 bits of sequence.
const SEQ_MAX: u16 = (1 << 14) - 1;

/// Nanoseconds in a second.
const NANOS: i128 = 1_000_000_000;

/// A node id as given: its value and its text, for messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// The value, at most 58 bits.
    pub value: u64,
    /// The flag's value as typed.
    text: String,
}

/// A node id: decimal or `0x` hex, at most 58 bits (a v3 clock's or
/// 128-bit id's); [`node32`] narrows it where 32 bits are the limit.
pub fn node(s: &str) -> Result<Node, String> {
    let v = uint(s)?;
    u64::try_from(v)
        .ok()
        .filter(|&v| v <= v3::node::MAX)
        .map(|value| Node {
            value,
            text: s.to_owned(),
        })
        .ok_or_else(|| format!("node is out of range 0..={}", v3::node::MAX))
}

/// A node of 32 bits (v2 ids, v3 global ids), refused in clap's words.
pub fn node32(node: &Node) -> Result<u32, String> {
    u32::try_from(node.value).map_err(|_| {
        format!(
            "invalid value '{}' for '--node <N>': node is out of range 0..={}",
            node.text,
            u32::MAX
        )
    })
}

/// The v2 drift of `--drift SECS` or `--drift-code K` [default: 3].
pub fn drift_v2(ns: Option<i64>, code: Option<u8>) -> Result<Drift, String> {
    match (ns, code) {
        (Some(ns), _) => Ok(Drift::from_nanos(ns)),
        (None, Some(code)) => Drift::new(code)
            .map_err(|_| format!("invalid value '{code}' for '--drift-code <K>': v2 drift codes are 1..=7 (0 is v3's, with --v3)")),
        (None, None) => Ok(Drift::default()),
    }
}

/// The v3 drift of `--drift SECS` or `--drift-code K` [default: 4]: the
/// smallest window that holds the skew, as Go's `DriftOf`.
pub fn drift_v3(ns: Option<i64>, code: Option<u8>) -> v3::Drift {
    match (ns, code) {
        (Some(ns), _) => v3::Drift::from_duration(Duration::from_nanos(ns.max(0).unsigned_abs())),
        (None, Some(code)) => v3::Drift::new(code).unwrap_or_default(),
        (None, None) => v3::Drift::default(),
    }
}

/// A sequence number of a sno id, or of any id before its kind is known:
/// decimal or `0x` hex, at most 65535 ([`seq14`] narrows it for the
/// others).
pub fn seq16(s: &str) -> Result<u16, String> {
    u16::try_from(uint(s)?)
        .map_err(|_| format!("sequence is out of range 0..={SEQ_MAX}, 0..=65535 with --sno"))
}

/// A sequence number of a global or local id (14 bits), refused in clap's
/// words.
pub fn seq14(seq: u16) -> Result<u16, String> {
    seq.le(&SEQ_MAX).then_some(seq).ok_or_else(|| {
        format!(
            "invalid value '{seq}' for '--seq <S>': sequence is out of range 0..={SEQ_MAX}, \
             0..=65535 with --sno"
        )
    })
}

/// A sno metabyte: decimal or `0x` hex, at most 255.
pub fn meta(s: &str) -> Result<u8, String> {
    u8::try_from(uint(s)?).map_err(|_| format!("meta is out of range 0..={}", u8::MAX))
}

/// A sno partition: decimal or `0x` hex, at most 65535.
pub fn partition(s: &str) -> Result<u16, String> {
    u16::try_from(uint(s)?).map_err(|_| format!("partition is out of range 0..={}", u16::MAX))
}

/// A time: Unix nanoseconds (digits only) or an RFC 3339 timestamp.
pub fn time(s: &str) -> Result<u64, String> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s
            .parse()
            .map_err(|_| format!("more nanoseconds than {} (u64)", u64::MAX));
    }
    rfc3339::parse(s)
}

/// Decimal seconds with at most 9 fractional digits, as exact nanoseconds.
pub fn seconds(s: &str) -> Result<i64, String> {
    let (negative, digits) = match s.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    let (whole, frac) = match digits.iter().position(|&b| b == b'.') {
        Some(dot) => (&digits[..dot], &digits[dot + 1..]),
        None => (digits, &[][..]),
    };
    let all_digits = |part: &[u8]| part.iter().all(u8::is_ascii_digit);
    if whole.len() + frac.len() == 0 || !all_digits(whole) || !all_digits(frac) {
        return Err("expected seconds as a decimal number, such as 300 or -1 or 68.5".into());
    }
    if frac.len() > 9 {
        return Err("more than 9 fractional digits (the unit is 1 ns)".into());
    }
    let range = || {
        format!(
            "out of range {}..={} seconds",
            Secs(i64::MIN),
            Secs(i64::MAX)
        )
    };
    let mut ns: i128 = 0;
    for &d in whole {
        ns = ns
            .checked_mul(10)
            .and_then(|v| v.checked_add(i128::from(d - b'0')))
            .filter(|&v| v <= i128::from(i64::MAX) / NANOS + 1)
            .ok_or_else(range)?;
    }
    let mut sub: i128 = 0;
    for i in 0..9 {
        sub = sub * 10 + frac.get(i).map_or(0, |&d| i128::from(d - b'0'));
    }
    ns = ns * NANOS + sub;
    if negative {
        ns = -ns;
    }
    i64::try_from(ns).map_err(|_| range())
}

/// Nanoseconds written as decimal seconds, for messages.
struct Secs(i64);

impl std::fmt::Display for Secs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ns = i128::from(self.0);
        let sign = if ns < 0 { "-" } else { "" };
        let abs = ns.abs();
        write!(f, "{sign}{}.{:09}", abs / NANOS, abs % NANOS)
    }
}

/// An unsigned number, decimal or `0x` hex.
fn uint(s: &str) -> Result<u128, String> {
    let (radix, digits) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None => (10, s),
    };
    // `from_str_radix` would also take a leading '+'.
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        let form = if radix == 16 { "hex" } else { "decimal" };
        return Err(format!("expected an unsigned {form} number"));
    }
    // Only overflow is left; any such value is out of range.
    Ok(u128::from_str_radix(digits, radix).unwrap_or(u128::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact_nanoseconds() {
        let cases: [(&str, i64); 12] = [
            ("0", 0),
            ("300", 300_000_000_000),
            ("68.000000001", 68_000_000_001),
            ("-1", -1_000_000_000),
            ("+2.5", 2_500_000_000),
            (".5", 500_000_000),
            ("7.", 7_000_000_000),
            ("-0.000000001", -1),
            ("0009223372036.854775807", i64::MAX),
            ("-9223372036.854775808", i64::MIN),
            ("0.1", 100_000_000),
            ("86400", 86_400_000_000_000),
        ];
        for (s, ns) in cases {
            assert_eq!(seconds(s), Ok(ns), "{s}");
        }
    }

    #[test]
    fn seconds_reject_what_is_not_exact() {
        for s in [
            "",
            "-",
            ".",
            "1e3",
            "1,5",
            "0x10",
            " 1",
            "1s",
            "--1",
            "1.2.3",
            "0.0000000001",
            "9223372036.854775808",
            "-9223372036.854775809",
            "99999999999999999999999999999999999999999",
        ] {
            assert!(seconds(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn drift_buckets_as_the_library() {
        let cases = [
            ("-1", 1),
            ("0", 1),
            ("68", 1),
            ("68.000000001", 2),
            ("274", 3),
            ("274.5", 4),
            ("86400", 7),
        ];
        for (s, code) in cases {
            assert_eq!(
                seconds(s).map(|ns| drift_v2(Some(ns), None).map(Drift::code)),
                Ok(Ok(code)),
                "{s}"
            );
        }
    }

    #[test]
    fn numbers_in_decimal_and_hex() {
        let value = |s| node(s).map(|n| n.value);
        assert_eq!(value("4294967295"), Ok(u32::MAX.into()));
        assert_eq!(value("0x3ffffffffffffff"), Ok(v3::node::MAX));
        assert!(node32(&node("0x100000000").expect("58 bits")).is_err());
        assert_eq!(value("0x53051caf"), Ok(0x5305_1caf));
        assert_eq!(value("0XFF"), Ok(255));
        for s in ["0x400000000000000", "", "0x", "+1", "-1", "1.0", "0b1", "x"] {
            assert!(node(s).is_err(), "{s:?}");
        }
        assert_eq!(seq16("16383").and_then(seq14), Ok(16383));
        assert_eq!(seq16("0x3fff").and_then(seq14), Ok(16383));
        assert!(seq16("16384").and_then(seq14).is_err());
        assert_eq!(seq16("65535"), Ok(u16::MAX));
        assert!(seq16("65536").is_err());
        assert!(seq14(16384).is_err());
        assert_eq!(meta("0xff"), Ok(255));
        assert!(meta("256").is_err());
        assert_eq!(partition("0x4142"), Ok(0x4142));
        assert!(partition("65536").is_err());
        assert_eq!(time("18446744073709551615"), Ok(u64::MAX));
        assert!(time("18446744073709551616").is_err());
        assert!(time("-1").is_err());
    }
}
