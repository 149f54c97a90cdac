//! The textual forms of an id and how an input is read as one.

use clap::ValueEnum;
use data_encoding::{DecodeKind, HEXLOWER_PERMISSIVE};
use guid::{Guid, Luid};

use crate::id::{Id, Kind};

/// A textual form of an id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Form {
    /// The 16-character sortable string
    String,
    /// Base62 (11 digits for local ids, 16 or 17 for global ones)
    Base62,
    /// Hex of the big-endian bytes (24 digits global, 16 local)
    Hex,
    /// A JSON string literal: "…" global, "*…" local
    Json,
}

/// Reads `input` as an id. Without `form`, the form is recognised by length
/// and alphabet; without `kind`, the form decides (a sortable string is
/// global). The error says what is wrong, not what the input was.
pub fn decode(input: &[u8], kind: Option<Kind>, form: Option<Form>) -> Result<Id, String> {
    let form = match form {
        Some(form) => form,
        None => recognise(input)?,
    };
    let implied = kind.is_none();
    let kind = kind.unwrap_or_else(|| implied_kind(input, form));
    let text = |e: guid::Error| e.to_string();
    match (form, kind) {
        (Form::String, Kind::G) => Guid::parse_bytes(input).map(Id::G).map_err(|e| {
            let flags = if implied {
                other_readings(input)
            } else {
                Vec::new()
            };
            if flags.is_empty() {
                e.to_string()
            } else {
                format!("{e}; it reads as an id with {}", flags.join(" or "))
            }
        }),
        (Form::String, Kind::L) => Luid::parse_bytes(input).map(Id::L).map_err(text),
        (Form::Base62, Kind::G) => Guid::from_base62(input).map(Id::G).map_err(text),
        (Form::Base62, Kind::L) => Luid::from_base62(input).map(Id::L).map_err(text),
        (Form::Hex, Kind::G) => Guid::from_bytes(hex(input)?).map(Id::G).map_err(text),
        (Form::Hex, Kind::L) => Luid::from_bytes(hex(input)?).map(Id::L).map_err(text),
        (Form::Json, Kind::G) => serde_json::from_slice(input).map(Id::G).map_err(json_error),
        (Form::Json, Kind::L) => serde_json::from_slice(input).map(Id::L).map_err(json_error),
    }
}

/// The form of an input by its first byte and length: a 16-character input
/// is a sortable string (16-digit hex and 16-digit base62 need `--from`).
fn recognise(input: &[u8]) -> Result<Form, String> {
    match input.len() {
        _ if input.first() == Some(&b'"') => Ok(Form::Json),
        16 => Ok(Form::String),
        n if n == 2 * Guid::BYTES => Ok(Form::Hex),
        n if n == Luid::BASE62_LEN || n == Guid::BASE62_LEN => Ok(Form::Base62),
        n => Err(format!(
            "not an id form: {n} characters, expected a 16-character string, 11 or 17 \
             base62 digits, 24 hex digits or a JSON string (see --from)"
        )),
    }
}

/// The kind a form says: local for the shorter base62 and hex and for
/// `"*`-JSON, global otherwise.
fn implied_kind(input: &[u8], form: Form) -> Kind {
    let local = match form {
        Form::String => false,
        Form::Base62 => input.len() <= Luid::BASE62_LEN,
        Form::Hex => input.len() == 2 * Luid::BYTES,
        Form::Json => input.starts_with(b"\"*"),
    };
    if local { Kind::L } else { Kind::G }
}

/// For 16 characters that are not a global id's string: the flags under
/// which they are an id.
fn other_readings(input: &[u8]) -> Vec<&'static str> {
    let readings = [
        ("--as l", Luid::parse_bytes(input).is_ok()),
        (
            "--from hex",
            hex(input).is_ok_and(|b| Luid::from_bytes(b).is_ok()),
        ),
        ("--from base62", Guid::from_base62(input).is_ok()),
    ];
    readings.iter().filter(|r| r.1).map(|r| r.0).collect()
}

/// Exactly `2 * N` hex digits (either case) as `N` bytes.
fn hex<const N: usize>(input: &[u8]) -> Result<[u8; N], String> {
    if input.len() != 2 * N {
        return Err(format!(
            "invalid length: expected {} hex digits, found {}",
            2 * N,
            input.len()
        ));
    }
    let mut bytes = [0; N];
    HEXLOWER_PERMISSIVE
        .decode_mut(input, &mut bytes)
        .map_err(|e| {
            let index = e.error.position;
            match (e.error.kind, input.get(index)) {
                (DecodeKind::Symbol, Some(&b)) => {
                    format!("invalid hex digit {} at index {index}", Byte(b))
                }
                _ => e.error.to_string(),
            }
        })?;
    Ok(bytes)
}

/// serde_json's message, which names the id's own error.
fn json_error(e: serde_json::Error) -> String {
    format!("invalid JSON id: {e}")
}

/// A byte shown as a character when printable, else in hex.
struct Byte(u8);

impl std::fmt::Display for Byte {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_ascii_graphic() {
            write!(f, "'{}'", char::from(self.0))
        } else {
            write!(f, "0x{:02x}", self.0)
        }
    }
}
