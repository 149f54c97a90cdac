//! The JSON object that describes one id.

use std::io::{self, Write};

use data_encoding::HEXLOWER;
use guid::Id;
use guid::flake::Layout;
use guid::sno::Sno;
use serde::Serialize;

use crate::form::Form;
use crate::rfc3339::Utc;

/// Every part and encoding of an id, in the order printed.
#[derive(Serialize, Debug)]
pub struct Report {
    /// With `inspect --extract`: the number of the line the id was found
    /// on, from 1; otherwise absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    /// `"g"`, `"l"`, `"x"`, `"sno"` or `"flake"`.
    kind: &'static str,
    /// With `inspect`: the form the id was read in (a `--from` value);
    /// otherwise absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    form: Option<&'static str>,
    /// The parts and encodings.
    #[serde(flatten)]
    parts: Parts,
}

/// The parts and encodings of one kind of id.
#[derive(Serialize, Debug)]
#[serde(untagged)]
enum Parts {
    /// An id of this crate's.
    Guid(GuidParts),
    /// An id of muyo/sno.
    Sno(SnoParts),
    /// A flake id of noeqd's layout.
    Flake(FlakeParts),
}

/// The parts and encodings of a global, local or 128-bit id.
#[derive(Serialize, Debug)]
struct GuidParts {
    /// The drift code of the id's generation: 1..=7 in v2, 0..=7 in v3.
    drift: u8,
    /// Unix nanoseconds, to the tick.
    time_ns: u64,
    /// The same time as RFC 3339 UTC with nanoseconds.
    time: String,
    /// The node; `null` for a local id.
    node: Option<u64>,
    /// The sequence number.
    seq: u16,
    /// Lowercase hex of the big-endian bytes.
    hex: String,
    /// The 16-character sortable string, or a 128-bit id's UUID.
    string: String,
    /// Base62.
    base62: String,
    /// The JSON encoding, quotes included.
    json: String,
}

/// The parts and encodings of a sno id.
#[derive(Serialize, Debug)]
struct SnoParts {
    /// The 16-character base32 string.
    string: String,
    /// Lowercase hex of the 10 bytes.
    hex: String,
    /// Unix nanoseconds: the start of the id's 4 ms unit.
    time_ns: u64,
    /// The same time as RFC 3339 UTC with nanoseconds.
    time: String,
    /// The metabyte.
    meta: u8,
    /// The partition.
    partition: u16,
    /// The sequence number.
    seq: u16,
    /// The tick-tock bit, 0 or 1.
    tick: u8,
}

/// The parts and encodings of a 64-bit flake id of noeqd's layout:
/// `((ms - epoch) << 22) | (datacenter << 17) | (worker << 12) | seq`.
#[derive(Serialize, Debug)]
struct FlakeParts {
    /// The value in decimal, a string: JSON numbers past 2^53 lose digits
    /// in many readers.
    int: String,
    /// Lowercase hex of the 8 big-endian bytes.
    hex: String,
    /// Unix nanoseconds: the start of the id's millisecond.
    time_ns: u64,
    /// The same time as RFC 3339 UTC with nanoseconds.
    time: String,
    /// The 10-bit node: `datacenter << 5 | worker`.
    node: u64,
    /// The node's datacenter, 0..=31.
    datacenter: u64,
    /// The node's worker, 0..=31.
    worker: u64,
    /// The sequence number, 0..=4095.
    seq: u64,
}

impl Report {
    /// Describes `id`, of either generation.
    pub fn of<I: Id + Serialize>(id: I) -> serde_json::Result<Report> {
        Ok(Report {
            line: None,
            kind: match I::NODE_BITS {
                0 => "l",
                32 => "g",
                _ => "x",
            },
            form: None,
            parts: Parts::Guid(GuidParts {
                drift: id.drift().into(),
                time_ns: id.time(),
                time: Utc(id.time()).to_string(),
                node: (I::NODE_BITS > 0).then(|| id.node()),
                seq: id.seq(),
                hex: HEXLOWER.encode(id.to_bytes().as_ref()),
                string: id.to_string(),
                base62: id.to_base62(),
                json: serde_json::to_string(&id)?,
            }),
        })
    }

    /// Describes a sno id.
    pub fn of_sno(id: Sno) -> Report {
        Report {
            line: None,
            kind: "sno",
            form: None,
            parts: Parts::Sno(SnoParts {
                string: id.to_string(),
                hex: HEXLOWER.encode(&id.to_bytes()),
                time_ns: id.unix_ns(),
                time: Utc(id.unix_ns()).to_string(),
                meta: id.meta(),
                partition: id.partition(),
                seq: id.sequence(),
                tick: id.tick().into(),
            }),
        }
    }

    /// Describes a flake id of noeqd's layout (one whose sign bit is clear).
    pub fn of_flake(id: u64) -> Report {
        let parts = Layout::NOEQD.decompose(id).unwrap_or_default();
        let time = guid::unix_nanos(Layout::NOEQD.time(parts.time));
        Report {
            line: None,
            kind: "flake",
            form: None,
            parts: Parts::Flake(FlakeParts {
                int: id.to_string(),
                hex: HEXLOWER.encode(&id.to_be_bytes()),
                time_ns: time,
                time: Utc(time).to_string(),
                node: parts.node,
                datacenter: parts.node >> 5,
                worker: parts.node & 31,
                seq: parts.seq,
            }),
        }
    }

    /// The same, naming the form the id was read in.
    pub fn read_as(mut self, form: Form) -> Report {
        self.form = Some(form.name());
        self
    }

    /// Writes the object and a newline.
    pub fn write_line(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer(&mut *out, self)?;
        out.write_all(b"\n")
    }

    /// The same, with the number of the line the id was found on first.
    pub fn write_found(mut self, line: u64, out: &mut impl Write) -> io::Result<()> {
        self.line = Some(line);
        self.write_line(out)
    }
}
