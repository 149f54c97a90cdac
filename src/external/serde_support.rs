//! serde: the text form in human-readable formats (the Go library's JSON:
//! the sortable string, or the UUID string of a v3 128-bit id), the
//! big-endian bytes in compact ones; either form is accepted.

use core::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::encoding::{self, STRING_LEN};
use crate::{Guid, Luid, v3};

/// The marker that starts the JSON string of a local id.
const LOCAL: u8 = b'*';

/// The text form in human-readable formats, the bytes in compact ones,
/// for every id whose JSON is its `Display` (all but v2's local id).
macro_rules! plain {
    ($id:ty) => {
        impl Serialize for $id {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                if s.is_human_readable() {
                    s.serialize_str(self.encode(&mut [0; <$id>::STRING_LEN]))
                } else {
                    s.serialize_bytes(&self.to_bytes())
                }
            }
        }

        impl<'de> Deserialize<'de> for $id {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$id, D::Error> {
                deserialize(d)
            }
        }
    };
}

plain!(Guid);
plain!(v3::Guid);
plain!(v3::Luid);
plain!(v3::Xuid);

/// The two forms of a v3 id: its text form, or its bytes.
macro_rules! v3_forms {
    ($id:ty, $expecting:literal) => {
        impl Forms for $id {
            const EXPECTING: &'static str = $expecting;
            fn from_text(s: &[u8]) -> crate::Result<$id> {
                <$id>::parse_bytes(s)
            }
            fn from_raw(b: &[u8]) -> crate::Result<$id> {
                <$id>::from_slice(b)
            }
        }
    };
}

v3_forms!(v3::Guid, "a 16-character v3 global id string or 12 bytes");
v3_forms!(v3::Luid, "a 16-character v3 local id string or 8 bytes");
v3_forms!(v3::Xuid, "a UUIDv8 string or 16 bytes");

impl Serialize for Luid {
    /// `"*"` and the string of the id promoted to a global id with node 0:
    /// the Go library's form, made deterministic.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            let mut buf = [LOCAL; STRING_LEN + 1];
            s.serialize_str(encoding::encode_sortable::<6, { STRING_LEN + 1 }>(
                self.to_g(0).to_u128(),
                &mut buf,
            ))
        } else {
            s.serialize_bytes(&self.to_bytes())
        }
    }
}

struct IdVisitor<T>(core::marker::PhantomData<T>);

/// How each id type reads its two forms.
trait Forms: Sized {
    const EXPECTING: &'static str;
    fn from_text(s: &[u8]) -> crate::Result<Self>;
    fn from_raw(b: &[u8]) -> crate::Result<Self>;
}

impl Forms for Guid {
    const EXPECTING: &'static str = "a 16-character global id string or 12 bytes";
    fn from_text(s: &[u8]) -> crate::Result<Guid> {
        if s.first() == Some(&LOCAL) {
            return Err(crate::Error(crate::ErrorKind::Marker { local: false }));
        }
        Guid::parse_bytes(s)
    }
    fn from_raw(b: &[u8]) -> crate::Result<Guid> {
        Guid::from_slice(b)
    }
}

impl Forms for Luid {
    const EXPECTING: &'static str = "a '*'-prefixed local id string or 8 bytes";
    fn from_text(s: &[u8]) -> crate::Result<Luid> {
        match s.split_first() {
            Some((&LOCAL, rest)) => Ok(Guid::parse_bytes(rest)?.to_l64()),
            _ => Err(crate::Error(crate::ErrorKind::Marker { local: true })),
        }
    }
    fn from_raw(b: &[u8]) -> crate::Result<Luid> {
        Luid::from_slice(b)
    }
}

impl<T: Forms> Visitor<'_> for IdVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
        T::from_text(s.as_bytes()).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<T, E> {
        T::from_raw(b).map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for Luid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Luid, D::Error> {
        deserialize(d)
    }
}

fn deserialize<'de, T: Forms, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    let visitor = IdVisitor(core::marker::PhantomData);
    if d.is_human_readable() {
        d.deserialize_str(visitor)
    } else {
        d.deserialize_bytes(visitor)
    }
}
