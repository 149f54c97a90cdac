//! The one error type of the crate.

use core::fmt;

/// Why an id, a drift or a part of an id was rejected.
///
/// Every decoder and constructor of this crate returns this type instead of
/// panicking or guessing: malformed input is always an `Err`.
///
/// A decoder's error names the type it was reading (`invalid Guid: …`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    /// The id type being read, for the message: an index into [`NAMES`]
    /// (0 for none), one byte so that results stay small.
    of: u8,
}

/// The id types an error may name.
const NAMES: [&str; 7] = [
    "", "Guid", "Luid", "v3::Guid", "v3::Luid", "v3::Xuid", "Sno",
];

/// What exactly was wrong, for callers that want to match on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input has the wrong length (bytes or characters).
    Length {
        /// The length the encoding needs (the longest allowed, when it varies).
        expected: usize,
        /// The length that was given.
        found: usize,
    },
    /// A byte at `index` is outside the encoding's alphabet.
    Char {
        /// The offending byte (not always a whole UTF-8 character).
        byte: u8,
        /// Its position in the input, counted in bytes.
        index: usize,
    },
    /// A base62 value has a leading zero digit, so it is not the canonical form.
    LeadingZero,
    /// A base62 value does not fit the id's width.
    Overflow {
        /// The width of the id in bits (96, 64 or 128).
        bits: u32,
    },
    /// The 3-bit drift code is 0, which no clock produces: the input is not an id.
    Drift,
    /// A part of an id (sequence, node, time…) is larger than its field.
    Part {
        /// Which part.
        name: &'static str,
        /// The value given.
        value: u64,
        /// The largest value the field holds.
        max: u64,
    },
    /// A cell width for `split`/`fold` outside 1..=8.
    CellWidth(u32),
    /// A cell in `fold` wider than the cell width.
    Cell {
        /// The offending cell value.
        value: u8,
        /// Its position.
        index: usize,
    },
    /// A global id's text starts with `*`, the mark of a local id's JSON.
    Marker {
        /// Whether a local (`*`-prefixed) id was expected: no reader of
        /// this crate asks for the mark any more (a local id reads both of
        /// its strings), so it is `false`.
        local: bool,
    },
    /// A flake layout whose bit widths do not add up to 63 or leave a part empty.
    Layout {
        /// Bits of time.
        time: u32,
        /// Bits of node.
        node: u32,
        /// Bits of sequence.
        seq: u32,
    },
    /// 16 bytes that are not an RFC 9562 UUIDv8 (version 8, variant
    /// `0b10`), which every v3 128-bit id is.
    NotUuidV8 {
        /// The version nibble found.
        version: u8,
        /// The two variant bits found.
        variant: u8,
    },
    /// A clock with a chosen node (a 96-bit clock's chosen node, every flake
    /// clock's, every sno generator's partition) was used in a forked child
    /// of the process that built it, where it would repeat its parent's ids.
    Forked,
    /// A 96-bit clock has used up its 47-bit tick range (the year 2554):
    /// its time source reports a time past the range, or it was restored at
    /// the range's end, and it refuses rather than wrap to 1970. (The flake
    /// clock and the sno generator report the end of their ranges as
    /// [`ErrorKind::Part`] of their time.)
    UsedUp,
    /// An inverse clock, whose ids decrease, where ids must increase (a
    /// clock resumed after a time, or fenced by one).
    Inverse,
    /// A setting outside the range it allows (a flake time unit of zero, a
    /// snowcast node width outside 7..=13).
    Range {
        /// Which setting.
        name: &'static str,
        /// The value given.
        value: u64,
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed.
        max: u64,
    },
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The error of this kind.
    pub(crate) const fn new(kind: ErrorKind) -> Error {
        Error { kind, of: 0 }
    }

    /// The same error, naming the id type that was being read (unless an
    /// inner reader named one already).
    #[cold]
    pub(crate) fn of(self, name: &str) -> Error {
        let of = match self.of {
            0 => NAMES.iter().position(|n| *n == name).unwrap_or(0) as u8,
            named => named,
        };
        Error { of, ..self }
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = NAMES.get(usize::from(self.of)).filter(|n| !n.is_empty()) {
            write!(f, "invalid {name}: ")?;
        }
        match self.kind {
            ErrorKind::Length { expected, found } => {
                write!(f, "invalid length: expected {expected}, found {found}")
            }
            ErrorKind::Char { byte, index } if byte.is_ascii_graphic() => write!(
                f,
                "invalid character {:?} at index {index}",
                char::from(byte)
            ),
            ErrorKind::Char { byte, index } => {
                write!(f, "invalid byte 0x{byte:02x} at index {index}")
            }
            ErrorKind::LeadingZero => f.write_str("base62 value has a leading zero digit"),
            ErrorKind::Overflow { bits } => write!(f, "value does not fit {bits} bits"),
            ErrorKind::Drift => f.write_str(
                "drift code 0, which no clock makes",
            ),
            ErrorKind::Part { name, value, max } => {
                write!(f, "{name} {value} is out of range 0..={max}")
            }
            ErrorKind::CellWidth(n) => write!(f, "cell width {n} is outside 1..=8"),
            ErrorKind::Cell { value, index } => {
                write!(f, "cell {index} value {value} is wider than the cell width")
            }
            ErrorKind::Marker { local: true } => f.write_str("local id must start with '*'"),
            ErrorKind::Marker { local: false } => {
                f.write_str("global id must not start with '*' (that is a local id)")
            }
            ErrorKind::Layout { time, node, seq } => write!(
                f,
                "invalid layout {time}/{node}/{seq}: needs time + node + seq = 63 bits, each at least 1"
            ),
            ErrorKind::NotUuidV8 { version, variant } => write!(
                f,
                "not an RFC 9562 UUIDv8: version {version}, variant {variant:#04b}"
            ),
            ErrorKind::Forked => f.write_str(
                "clock used in a forked child, where it would repeat its parent's ids: \
                 build the child's clock in the child",
            ),
            ErrorKind::UsedUp => f.write_str(
                "the clock has used up its 47-bit tick range (the year 2554): its time source \
                 reports a time past the range, or a restored state was at its end",
            ),
            ErrorKind::Inverse => f.write_str(
                "an inverse clock's ids decrease: it cannot resume after a time nor be fenced by one",
            ),
            ErrorKind::Range {
                name,
                value,
                min,
                max,
            } => write!(f, "{name} {value} is outside {min}..={max}"),
        }
    }
}

impl core::error::Error for Error {}

/// Shorthand for results of this crate.
pub type Result<T> = core::result::Result<T, Error>;
