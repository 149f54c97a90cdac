//! The JSON object that describes one id.

use std::io::{self, Write};

use data_encoding::HEXLOWER;
use serde::Serialize;

use crate::id::{Id, Kind};
use crate::rfc3339::Utc;

/// Every part and encoding of an id, in the order printed.
#[derive(Serialize, Debug)]
pub struct Report {
    /// With `inspect --extract`: the number of the line the id was found
    /// on, from 1; otherwise absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    /// `"g"` or `"l"`.
    kind: &'static str,
    /// The drift code, 1..=7.
    drift: u8,
    /// Unix nanoseconds, to the tick.
    time_ns: u64,
    /// The same time as RFC 3339 UTC with nanoseconds.
    time: String,
    /// The node; `null` for a local id.
    node: Option<u32>,
    /// The sequence number.
    seq: u16,
    /// Lowercase hex of the big-endian bytes.
    hex: String,
    /// The 16-character sortable string.
    string: String,
    /// Base62.
    base62: String,
    /// The JSON encoding, quotes included.
    json: String,
}

impl Report {
    /// Describes `id`.
    pub fn of(id: Id) -> serde_json::Result<Report> {
        let (hex, string, base62, json) = match id {
            Id::G(g) => (
                HEXLOWER.encode(&g.to_bytes()),
                g.to_string(),
                g.to_base62(),
                serde_json::to_string(&g)?,
            ),
            Id::L(l) => (
                HEXLOWER.encode(&l.to_bytes()),
                l.to_string(),
                l.to_base62(),
                serde_json::to_string(&l)?,
            ),
        };
        Ok(Report {
            line: None,
            kind: match id.kind() {
                Kind::G => "g",
                Kind::L => "l",
            },
            drift: id.drift().code(),
            time_ns: id.time(),
            time: Utc(id.time()).to_string(),
            node: id.node(),
            seq: id.seq(),
            hex,
            string,
            base62,
            json,
        })
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
