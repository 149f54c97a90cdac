//! Timestamps to and from Unix nanoseconds, through jiff: ids' times run
//! from 1970 to 2554 (`u64` nanoseconds), well inside jiff's range.

use std::fmt;

use jiff::Timestamp;

/// What a timestamp that jiff cannot read gets in front of jiff's reason.
const EXPECTED: &str =
    "expected Unix nanoseconds or an RFC 3339 timestamp such as 2024-06-01T12:00:00Z";

/// Parses an RFC 3339 timestamp, `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`
/// (or the other ISO 8601 forms jiff reads), into Unix nanoseconds.
///
/// A leap second (`:60`), which jiff would read as `:59`, has no Unix
/// time and is rejected, as are more than 9 fractional digits and times
/// before the epoch or past `u64`.
pub fn parse(s: &str) -> Result<u64, String> {
    if s.get(16..19) == Some(":60") {
        return Err("a leap second has no Unix time".into());
    }
    // jiff stops reading after nine digits; say why rather than where.
    let fraction = s.get(19..).and_then(|rest| rest.strip_prefix('.'));
    if fraction.is_some_and(|f| f.bytes().take_while(u8::is_ascii_digit).count() > 9) {
        return Err("more than 9 fractional digits (the unit is 1 ns)".into());
    }
    let t: Timestamp = s.parse().map_err(|e| format!("{EXPECTED}: {e}"))?;
    let ns = t.as_nanosecond();
    if ns < 0 {
        return Err("before the Unix epoch".into());
    }
    u64::try_from(ns).map_err(|_| format!("after {}, the last u64 nanosecond", Utc(u64::MAX)))
}

/// Unix nanoseconds shown as RFC 3339 in UTC with nine fractional digits,
/// such as `2024-06-01T12:00:00.123456789Z`.
#[derive(Clone, Copy, Debug)]
pub struct Utc(pub u64);

impl fmt::Display for Utc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Every u64 of nanoseconds is a time jiff holds (it reaches 9999).
        let t = Timestamp::from_nanosecond(i128::from(self.0)).map_err(|_| fmt::Error)?;
        write!(f, "{t:.9}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        let cases: [(&str, u64); 7] = [
            ("1970-01-01T00:00:00Z", 0),
            ("1970-01-01T00:00:00.000000001Z", 1),
            ("2024-06-01T12:00:00Z", 1_717_243_200_000_000_000),
            ("2024-06-01T14:00:00.5+02:00", 1_717_243_200_500_000_000),
            (
                "2024-06-01t09:30:00.123456789-02:30",
                1_717_243_200_123_456_789,
            ),
            ("2024-06-01 12:00:00z", 1_717_243_200_000_000_000),
            ("2554-07-21T23:34:33.709551615Z", u64::MAX),
        ];
        for (s, ns) in cases {
            assert_eq!(parse(s), Ok(ns), "{s}");
        }
        assert_eq!(Utc(0).to_string(), "1970-01-01T00:00:00.000000000Z");
        assert_eq!(
            Utc(1_717_243_200_123_456_789).to_string(),
            "2024-06-01T12:00:00.123456789Z"
        );
        assert_eq!(Utc(u64::MAX).to_string(), "2554-07-21T23:34:33.709551615Z");
    }

    #[test]
    fn format_then_parse_is_identity() {
        let mut ns: u64 = 1;
        while ns < u64::MAX / 3 {
            assert_eq!(parse(&Utc(ns).to_string()), Ok(ns));
            ns = ns * 3 + 7;
        }
    }

    #[test]
    fn rejects_what_is_not_an_instant() {
        for s in [
            "",
            "2024-06-01",
            "2024-06-01T12:00:00",
            "2024-06-01T12:00:00.Z",
            "2024-06-01T12:00:00.1234567891Z",
            "2024-06-01T12:00:00+02:00x",
            "2024-06-01T12:00:00Zx",
            "2024-6-01T12:00:00Z",
            "2024-02-30T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-06-01T24:00:00Z",
            "2024-06-01T12:60:00Z",
            "2016-12-31T23:59:60Z",
            "1969-12-31T23:59:59.999999999Z",
            "1970-01-01T00:00:00+00:01",
            "2554-07-21T23:34:33.709551616Z",
            "9999-12-31T23:59:59Z",
            "２０２４-06-01T12:00:00Z",
        ] {
            assert!(parse(s).is_err(), "{s:?}");
        }
        assert!(parse("2024-02-29T00:00:00Z").is_ok());
        assert!(parse("2000-02-29T00:00:00Z").is_ok());
        assert!(parse("1900-02-29T00:00:00Z").is_err());
    }
}
