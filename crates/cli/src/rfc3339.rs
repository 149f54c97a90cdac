//! RFC 3339 timestamps to and from Unix nanoseconds, exact to the
//! nanosecond over the whole `u64` range (1970 to 2554).

use std::fmt;

const NANOS: i128 = 1_000_000_000;
const DAY: i64 = 86_400;

/// What a timestamp that does not follow the grammar gets.
const EXPECTED: &str =
    "expected Unix nanoseconds or an RFC 3339 timestamp such as 2024-06-01T12:00:00Z";

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` into Unix nanoseconds.
///
/// The fraction has 1 to 9 digits. `t`, `z` and a space for `T` are
/// accepted (RFC 3339 allows them). A leap second (`:60`) has no Unix time
/// and is rejected, as are times before the epoch or past `u64`.
pub fn parse(s: &str) -> Result<u64, String> {
    let mut p = Cursor(s.as_bytes());
    let year = p.digits(4)?;
    p.one_of(b"-")?;
    let month = p.digits(2)?;
    p.one_of(b"-")?;
    let day = p.digits(2)?;
    p.one_of(b"Tt ")?;
    let hour = p.digits(2)?;
    p.one_of(b":")?;
    let minute = p.digits(2)?;
    p.one_of(b":")?;
    let second = p.digits(2)?;
    let mut nanos = 0;
    if p.one_of(b".").is_ok() {
        let mut places = 0;
        while p.0.first().is_some_and(u8::is_ascii_digit) {
            if places == 9 {
                return Err("more than 9 fractional digits (the unit is 1 ns)".into());
            }
            nanos = nanos * 10 + p.digits(1)?;
            places += 1;
        }
        if places == 0 {
            return Err(EXPECTED.into());
        }
        nanos *= 10i64.pow(9 - places);
    }
    let offset = match p.one_of(b"Zz+-")? {
        b'Z' | b'z' => 0,
        sign => {
            let h = p.digits(2)?;
            p.one_of(b":")?;
            let m = p.digits(2)?;
            if h > 23 || m > 59 {
                return Err(format!("no such offset {h:02}:{m:02}"));
            }
            if sign == b'-' {
                -(h * 3600 + m * 60)
            } else {
                h * 3600 + m * 60
            }
        }
    };
    if !p.0.is_empty() {
        return Err(EXPECTED.into());
    }
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return Err(format!("no such date {year:04}-{month:02}-{day:02}"));
    }
    if second == 60 {
        return Err("a leap second has no Unix time".into());
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!(
            "no such time of day {hour:02}:{minute:02}:{second:02}"
        ));
    }
    let secs =
        days_from_civil(year, month, day) * DAY + hour * 3600 + minute * 60 + second - offset;
    let ns = i128::from(secs) * NANOS + i128::from(nanos);
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
        let secs = (self.0 / NANOS as u64) as i64;
        let nanos = self.0 % NANOS as u64;
        let (year, month, day) = civil_from_days(secs.div_euclid(DAY));
        let t = secs.rem_euclid(DAY);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{nanos:09}Z",
            t / 3600,
            t / 60 % 60,
            t % 60
        )
    }
}

/// Reads the fixed-width fields of a timestamp.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    /// `n` ASCII digits as a number.
    fn digits(&mut self, n: usize) -> Result<i64, String> {
        match self.0.split_at_checked(n) {
            Some((head, rest)) if head.iter().all(u8::is_ascii_digit) => {
                self.0 = rest;
                Ok(head.iter().fold(0, |v, d| v * 10 + i64::from(d - b'0')))
            }
            _ => Err(EXPECTED.into()),
        }
    }

    /// One byte of `set`.
    fn one_of(&mut self, set: &[u8]) -> Result<u8, String> {
        match self.0.split_first() {
            Some((&b, rest)) if set.contains(&b) => {
                self.0 = rest;
                Ok(b)
            }
            _ => Err(EXPECTED.into()),
        }
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// `days_from_civil`: eras of 400 years, March-based years).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (the inverse of the above).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks every day from 1970 to 2600 one by one, so the closed forms are
    /// checked against plain counting rather than against themselves.
    #[test]
    fn day_arithmetic_agrees_with_counting() {
        let mut days = 0;
        for year in 1970..2600 {
            for month in 1..=12 {
                for day in 1..=days_in_month(year, month) {
                    assert_eq!(days_from_civil(year, month, day), days);
                    assert_eq!(civil_from_days(days), (year, month, day));
                    days += 1;
                }
            }
        }
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

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
            "2024-06-01T12:00Z",
            "2024-06-01T12:00:00",
            "2024-06-01T12:00:00.Z",
            "2024-06-01T12:00:00.1234567891Z",
            "2024-06-01T12:00:00+0200",
            "2024-06-01T12:00:00+02:00x",
            "2024-06-01T12:00:00Zx",
            "2024-6-01T12:00:00Z",
            "2024-02-30T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-06-01T24:00:00Z",
            "2024-06-01T12:60:00Z",
            "2016-12-31T23:59:60Z",
            "2024-06-01T12:00:00+24:00",
            "1969-12-31T23:59:59.999999999Z",
            "1970-01-01T00:00:00+00:01",
            "2554-07-21T23:34:33.709551616Z",
            "9999-12-31T23:59:59Z",
            "+2024-06-01T12:00:00Z",
            "２０２４-06-01T12:00:00Z",
        ] {
            assert!(parse(s).is_err(), "{s:?}");
        }
        assert!(parse("2024-02-29T00:00:00Z").is_ok());
        assert!(parse("2000-02-29T00:00:00Z").is_ok());
        assert!(parse("1900-02-29T00:00:00Z").is_err());
    }
}
