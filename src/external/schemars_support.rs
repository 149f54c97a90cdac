//! schemars: the JSON Schema of the string that serde writes for each id in
//! JSON (see the feature `serde`), with its exact length and a pattern that
//! matches the strings serde writes and reads, no others.
//!
//! | id | JSON string | pattern |
//! |---|---|---|
//! | `Guid` | 16 sortable characters, drift code 1..=7 | `^[7-9A-Z_a-z][.0-9A-Z_a-z]{15}$` |
//! | `Luid` | `*` and 16 sortable characters | `^\*[7-9A-Z_a-z][.0-9A-Z_a-z]{15}$` |
//! | `v3::Guid` | 16 sortable characters | `^[.0-9A-Z_a-z]{16}$` |
//! | `v3::Luid` | 16 sortable characters of 4 bits | `^[.0-9A-E]{16}$` |
//! | `v3::Xuid` | canonical lowercase UUIDv8 | `^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$` |
//! | `sno::Sno` | 16 characters of sno's base32, or `null` for the zero id | `^[2-9a-x]{16}$` |
//!
//! The sortable alphabet is `.0-9A-Z_a-z` in ASCII order; a v2 id's first
//! character holds its drift code in its top 3 bits, so a code of 0 (`.`
//! to `6`) is left out. The schemas are inlined, as those of other string
//! types such as `uuid::Uuid` are.
//!
//! ```
//! let schema = schemars::schema_for!(guid::v3::Xuid);
//! assert_eq!(schema.get("maxLength"), Some(&serde_json::json!(36)));
//! ```

use alloc::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::sno::Sno;
use crate::{Guid, Id, Luid, v3};

macro_rules! string {
    ($id:ty, $name:literal, $path:literal, $len:expr, $pattern:literal, $format:expr, $what:literal) => {
        impl JsonSchema for $id {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }

            fn schema_id() -> Cow<'static, str> {
                Cow::Borrowed($path)
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                string(concat!("`", $path, "`: ", $what), $pattern, $len, $format)
            }
        }
    };
}

string!(
    Guid,
    "Guid",
    "guid::Guid",
    Guid::STRING_LEN,
    "^[7-9A-Z_a-z][.0-9A-Z_a-z]{15}$",
    None,
    "a k-ordered 96-bit global id (drift, time, node, sequence) as its 16-character sortable string, which sorts as the id does"
);
string!(
    Luid,
    "Luid",
    "guid::Luid",
    Luid::STRING_LEN + 1,
    r"^\*[7-9A-Z_a-z][.0-9A-Z_a-z]{15}$",
    None,
    "a k-ordered 64-bit local id (drift, time, sequence) as `*` and the 16-character sortable string of its global id with node 0"
);
string!(
    v3::Guid,
    "GuidV3",
    "guid::v3::Guid",
    v3::Guid::STRING_LEN,
    "^[.0-9A-Z_a-z]{16}$",
    None,
    "a k-ordered v3 96-bit global id (drift, time, node, sequence) as its 16-character sortable string, which sorts as the id does"
);
string!(
    v3::Luid,
    "LuidV3",
    "guid::v3::Luid",
    v3::Luid::STRING_LEN,
    "^[.0-9A-E]{16}$",
    None,
    "a k-ordered v3 64-bit local id (drift, time, sequence) as its 16-character sortable string of 4 bits a character"
);
string!(
    v3::Xuid,
    "Xuid",
    "guid::v3::Xuid",
    v3::Xuid::STRING_LEN,
    "^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
    Some("uuid"),
    "a k-ordered v3 128-bit id, an RFC 9562 UUIDv8, as its canonical lowercase UUID string"
);

/// sno's JSON: the string, or `null` for the zero id.
impl JsonSchema for Sno {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Sno")
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("guid::sno::Sno")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["string", "null"],
            "description": "`guid::sno::Sno`: an id of muyo/sno (time, tick-tock bit, metabyte, partition, sequence) as its 16-character base32 string, which sorts as the id does, or null for the zero id",
            "pattern": "^[2-9a-x]{16}$",
            "minLength": Sno::STRING_LEN,
            "maxLength": Sno::STRING_LEN,
        })
    }
}

/// The schema of a string of exactly `len` characters matching `pattern`,
/// with a `format` where JSON Schema names one.
fn string(description: &str, pattern: &str, len: usize, format: Option<&str>) -> Schema {
    let mut schema = json_schema!({
        "type": "string",
        "description": description,
        "pattern": pattern,
        "minLength": len,
        "maxLength": len,
    });
    if let Some(format) = format {
        schema.insert("format".into(), format.into());
    }
    schema
}
