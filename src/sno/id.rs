//! The sno id: 10 big-endian bytes, its parts and its base32 string.

use core::fmt;
use core::str::FromStr;
#[cfg(feature = "std")]
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{EPOCH_NS, MAX_NS, MAX_UNITS, UNIT_NS};
use crate::encoding;
use crate::error::{Error, ErrorKind, Result};

/// sno's alphabet: two ASCII runs (`2-9`, `a-x`) in ascending order, so
/// strings sort as the ids do.
const ALPHABET: &[u8; 32] = b"23456789abcdefghijklmnopqrstuvwx";

/// Not a digit of [`ALPHABET`].
const INVALID: u8 = 0xff;

/// Byte → digit, [`INVALID`] for every byte outside the alphabet.
static DIGITS: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        t[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    t
};

crate::id::declare! {
    @struct pod
    /// An id of the Go library muyo/sno: 80 bits, big-endian, byte for byte.
    ///
    /// ```text
    /// byte  0        4 |  5   | 6      7 | 8      9
    ///      | units: 39 |tick| meta: 8 | partition: 16 | sequence: 16 |
    /// ```
    ///
    /// - `units`: the time in units of 4 ms since 2010-01-01 00:00:00 UTC
    ///   ([`super::EPOCH_NS`]), floored, up to `2^39 - 1` (2079-09-07);
    /// - `tick`: the tick-tock bit, the lowest bit of byte 4, flipped by a
    ///   generator each time its clock steps back;
    /// - `meta`: the metabyte, any byte the caller puts there;
    /// - `partition`: the generator's 2 bytes;
    /// - `sequence`: the count within a 4 ms unit.
    ///
    /// Every 10 bytes are a `Sno`, so only text of the wrong length or with a
    /// character outside the alphabet fails to decode. The derived `Ord` is the
    /// byte order (sno's `Compare`), and the string sorts the same way.
    ///
    /// ```
    /// use guid::sno::Sno;
    ///
    /// let id = Sno::compose(1_700_000_000_123_456_789, false, 7, 0x4142, 9)?;
    /// assert_eq!(id.unix_ns(), 1_700_000_000_120_000_000); // floored to 4 ms
    /// assert_eq!((id.meta(), id.partition(), id.sequence(), id.tick()), (7, 0x4142, 9, false));
    /// let text = id.to_string();
    /// assert_eq!(text, "8ds7ow3u2v2m622b");
    /// assert_eq!(text.parse::<Sno>()?, id);
    /// assert_eq!(Sno::from_bytes(id.to_bytes()), id);
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub struct Sno([u8; 10]);
}

const _: () = assert!(size_of::<Sno>() == 10);

impl Sno {
    /// The length of the bytes.
    pub const BYTES: usize = 10;
    /// The length of the string.
    pub const STRING_LEN: usize = 16;
    /// The zero id, all bytes 0: what sno writes as JSON `null`.
    pub const ZERO: Sno = Sno([0; 10]);
    /// The smallest id, [`Sno::ZERO`].
    pub const MIN: Sno = Sno::ZERO;
    /// The largest id, all bytes `0xff`.
    pub const MAX: Sno = Sno([0xff; 10]);

    /// The id of these parts: the time in Unix nanoseconds (floored to its
    /// 4 ms unit), the tick-tock bit, the metabyte, the partition and the
    /// sequence. Fails with [`ErrorKind::Range`] for a time before sno's
    /// epoch (2010) or past its last unit (2079-09-07 15:47:35.548 UTC),
    /// which sno would wrap.
    pub const fn compose(
        unix_ns: u64,
        tick: bool,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> Result<Sno> {
        match units_of(unix_ns) {
            Ok(units) => Ok(Sno::pack(units, tick, meta, partition, sequence)),
            Err(e) => Err(e),
        }
    }

    /// The id of these parts, the time given in sno's units (4 ms since
    /// 2010): fails with [`ErrorKind::Part`] if `units` is wider than 39
    /// bits.
    pub const fn from_units(
        units: u64,
        tick: bool,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> Result<Sno> {
        if units > MAX_UNITS {
            return Err(Error::new(ErrorKind::Part {
                name: "units",
                value: units,
                max: MAX_UNITS,
            }));
        }
        Ok(Sno::pack(units, tick, meta, partition, sequence))
    }

    /// The id of checked parts.
    #[inline]
    pub(crate) const fn pack(
        units: u64,
        tick: bool,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> Sno {
        let head = (units << 1 | tick as u64).to_be_bytes();
        let [p0, p1] = partition.to_be_bytes();
        let [s0, s1] = sequence.to_be_bytes();
        Sno([
            head[3], head[4], head[5], head[6], head[7], meta, p0, p1, s0, s1,
        ])
    }

    /// The time of the id in sno's units: 4 ms since 2010-01-01 UTC.
    #[inline]
    pub const fn units(&self) -> u64 {
        self.head() >> 1
    }

    /// The first 5 bytes: units and the tick-tock bit.
    #[inline]
    const fn head(&self) -> u64 {
        let b = &self.0;
        (b[0] as u64) << 32
            | (b[1] as u64) << 24
            | (b[2] as u64) << 16
            | (b[3] as u64) << 8
            | b[4] as u64
    }

    /// The time in Unix nanoseconds (a multiple of 4 ms).
    #[inline]
    pub const fn unix_ns(&self) -> u64 {
        EPOCH_NS + self.units() * UNIT_NS
    }

    /// The time (sno's `Time`).
    #[cfg(feature = "std")]
    pub fn time(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_nanos(self.unix_ns())
    }

    /// The tick-tock bit: flipped by a generator when its clock steps
    /// back.
    #[inline]
    pub const fn tick(&self) -> bool {
        self.0[4] & 1 == 1
    }

    /// The metabyte (sno's `Meta`).
    #[inline]
    pub const fn meta(&self) -> u8 {
        self.0[5]
    }

    /// The partition, big-endian (sno's `Partition().AsUint16()`).
    #[inline]
    pub const fn partition(&self) -> u16 {
        u16::from_be_bytes([self.0[6], self.0[7]])
    }

    /// The sequence (sno's `Sequence`).
    #[inline]
    pub const fn sequence(&self) -> u16 {
        u16::from_be_bytes([self.0[8], self.0[9]])
    }

    /// Whether this is the zero id (sno's `IsZero`).
    #[inline]
    pub const fn is_zero(&self) -> bool {
        u128::from_be_bytes(self.widen()) == 0
    }

    /// The id of 10 big-endian bytes: any 10 bytes are one.
    #[inline]
    pub const fn from_bytes(bytes: [u8; 10]) -> Sno {
        Sno(bytes)
    }

    /// The 10 big-endian bytes (sno's `Bytes`).
    #[inline]
    pub const fn to_bytes(self) -> [u8; 10] {
        self.0
    }

    /// The 10 big-endian bytes, borrowed.
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; 10] {
        &self.0
    }

    /// The id of exactly 10 bytes: fails with [`ErrorKind::Length`] for any
    /// other length (sno's `FromBytes` does not check).
    #[inline]
    pub fn from_slice(bytes: &[u8]) -> Result<Sno> {
        match bytes.try_into() {
            Ok(b) => Ok(Sno(b)),
            Err(_) => Err(encoding::length(Sno::BYTES, bytes.len()).of("Sno")),
        }
    }

    /// The 80-bit value.
    #[inline]
    pub const fn to_u128(self) -> u128 {
        u128::from_be_bytes(self.widen())
    }

    /// The id of an 80-bit value; fails with [`ErrorKind::Overflow`] if it
    /// is wider.
    pub const fn from_u128(v: u128) -> Result<Sno> {
        if v >> 80 != 0 {
            return Err(Error::new(ErrorKind::Overflow { bits: 80 }));
        }
        let b = v.to_be_bytes();
        Ok(Sno([
            b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15],
        ]))
    }

    /// The bytes in the low 10 of 16.
    #[inline]
    const fn widen(&self) -> [u8; 16] {
        let b = &self.0;
        [
            0, 0, 0, 0, 0, 0, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
        ]
    }

    /// Writes the 16-character string into `buf` and returns it, without
    /// allocating.
    #[inline]
    pub fn encode(self, buf: &mut [u8; 16]) -> &str {
        let b = &self.0;
        let halves = [
            self.head(),
            (b[5] as u64) << 32
                | (b[6] as u64) << 24
                | (b[7] as u64) << 16
                | (b[8] as u64) << 8
                | b[9] as u64,
        ];
        for (half, out) in halves.into_iter().zip(buf.chunks_exact_mut(8)) {
            for (i, c) in out.iter_mut().enumerate() {
                *c = ALPHABET[(half >> (35 - 5 * i) & 31) as usize];
            }
        }
        // Every byte written is from the ASCII alphabet.
        core::str::from_utf8(buf).unwrap_or_default()
    }

    /// Parses the 16-character string, from bytes so that non-UTF-8 input
    /// is a typed error too: [`ErrorKind::Length`] for another length,
    /// [`ErrorKind::Char`] for the first byte outside `2-9a-x` (sno's
    /// decoder reads such input without a word).
    pub fn parse_bytes(s: impl AsRef<[u8]>) -> Result<Sno> {
        Sno::decode(s.as_ref()).map_err(|e| e.of("Sno"))
    }

    /// The id of a string, its error naming no type yet.
    fn decode(s: &[u8]) -> Result<Sno> {
        let Ok(s) = <&[u8; 16]>::try_from(s) else {
            return Err(encoding::length(Sno::STRING_LEN, s.len()));
        };
        let mut halves = [0u64; 2];
        for (h, (half, chars)) in halves.iter_mut().zip(s.chunks_exact(8)).enumerate() {
            for (i, &byte) in chars.iter().enumerate() {
                let digit = DIGITS[usize::from(byte)];
                if digit == INVALID {
                    return Err(Error::new(ErrorKind::Char {
                        byte,
                        index: 8 * h + i,
                    }));
                }
                *half = *half << 5 | u64::from(digit);
            }
        }
        let [hi, lo] = halves.map(u64::to_be_bytes);
        Ok(Sno([
            hi[3], hi[4], hi[5], hi[6], hi[7], lo[3], lo[4], lo[5], lo[6], lo[7],
        ]))
    }
}

/// sno's unit of Unix time `ns`, or [`ErrorKind::Range`] outside its epoch.
#[inline]
pub(crate) const fn units_of(ns: u64) -> Result<u64> {
    if ns < EPOCH_NS || ns > MAX_NS {
        return Err(Error::new(ErrorKind::Range {
            name: "sno time (Unix ns)",
            value: ns,
            min: EPOCH_NS,
            max: MAX_NS,
        }));
    }
    Ok((ns - EPOCH_NS) / UNIT_NS)
}

impl fmt::Display for Sno {
    /// The 16-character string; width and alignment flags pad it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.encode(&mut [0; 16]))
    }
}

impl fmt::Debug for Sno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sno({self})")
    }
}

crate::id::declare!(@hex Sno);

impl Default for Sno {
    /// The zero id.
    fn default() -> Sno {
        Sno::ZERO
    }
}

impl FromStr for Sno {
    type Err = Error;
    fn from_str(s: &str) -> Result<Sno> {
        Sno::parse_bytes(s)
    }
}

impl TryFrom<&str> for Sno {
    type Error = Error;
    fn try_from(s: &str) -> Result<Sno> {
        Sno::parse_bytes(s)
    }
}

impl TryFrom<&[u8]> for Sno {
    type Error = Error;
    /// The 10 bytes (not the string).
    fn try_from(bytes: &[u8]) -> Result<Sno> {
        Sno::from_slice(bytes)
    }
}

impl From<[u8; 10]> for Sno {
    fn from(bytes: [u8; 10]) -> Sno {
        Sno(bytes)
    }
}

impl From<Sno> for [u8; 10] {
    fn from(id: Sno) -> [u8; 10] {
        id.0
    }
}

impl TryFrom<u128> for Sno {
    type Error = Error;
    /// Fails if the value is wider than 80 bits.
    fn try_from(v: u128) -> Result<Sno> {
        Sno::from_u128(v)
    }
}

impl From<Sno> for u128 {
    fn from(id: Sno) -> u128 {
        id.to_u128()
    }
}

impl AsRef<[u8]> for Sno {
    /// The 10 bytes.
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_max_strings() {
        assert_eq!(Sno::ZERO.encode(&mut [0; 16]), "2222222222222222");
        assert_eq!(Sno::MAX.encode(&mut [0; 16]), "xxxxxxxxxxxxxxxx");
        assert_eq!("xxxxxxxxxxxxxxxx".parse::<Sno>(), Ok(Sno::MAX));
    }

    #[test]
    fn strict_decode() {
        let kind = |s: &[u8]| Sno::parse_bytes(s).unwrap_err().kind();
        assert_eq!(
            kind(b"222"),
            ErrorKind::Length {
                expected: 16,
                found: 3
            }
        );
        assert_eq!(
            kind(b"22222222y2222222"),
            ErrorKind::Char {
                byte: b'y',
                index: 8
            }
        );
        assert_eq!(
            kind(b"1222222222222222"),
            ErrorKind::Char {
                byte: b'1',
                index: 0
            }
        );
        assert_eq!(
            kind(b"222222222222222A"),
            ErrorKind::Char {
                byte: b'A',
                index: 15
            }
        );
    }

    #[test]
    fn time_range() {
        assert_eq!(Sno::compose(EPOCH_NS, false, 0, 0, 0), Ok(Sno::ZERO));
        assert!(Sno::compose(EPOCH_NS - 1, false, 0, 0, 0).is_err());
        let last = Sno::compose(MAX_NS, true, 0xff, 0xffff, 0xffff).unwrap();
        assert_eq!(last, Sno::MAX);
        assert!(Sno::compose(MAX_NS + 1, false, 0, 0, 0).is_err());
        assert!(Sno::from_units(MAX_UNITS + 1, false, 0, 0, 0).is_err());
    }
}
