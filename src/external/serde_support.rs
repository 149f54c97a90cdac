//! serde: the text form in human-readable formats (the Go library's JSON:
//! the sortable string, or the UUID string of a v3 128-bit id; a v2 local
//! id's is Go's `*` form), the big-endian bytes in compact ones; either
//! form is accepted, and a v2 local id's `Display` string too. A
//! [`Sno`](crate::sno::Sno) is sno's JSON: its string, or `null` for the
//! zero id, as sno writes and reads it.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::encoding::{self, STRING_LEN};
use crate::sno::Sno;
use crate::{Guid, Id, Luid, v3};

/// Writes an id as its text or its bytes.
fn serialize<I: Id, S: Serializer>(id: &I, s: S) -> Result<S::Ok, S::Error> {
    if s.is_human_readable() {
        s.serialize_str(id.encode(&mut [0; 36]))
    } else {
        s.serialize_bytes(id.to_bytes().as_ref())
    }
}

/// Reads an id from its text or its bytes.
fn deserialize<'de, I: Id, D: Deserializer<'de>>(d: D) -> Result<I, D::Error> {
    let visitor = IdVisitor(PhantomData);
    if d.is_human_readable() {
        d.deserialize_str(visitor)
    } else {
        d.deserialize_bytes(visitor)
    }
}

struct IdVisitor<I>(PhantomData<I>);

impl<I: Id> Visitor<'_> for IdVisitor<I> {
    type Value = I;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} string or {} bytes", I::NAME, I::BYTES)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<I, E> {
        I::parse_bytes(s).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<I, E> {
        I::from_slice(b).map_err(E::custom)
    }
}

/// `Serialize` and `Deserialize` through the functions above.
macro_rules! serde_impls {
    ($($id:ty),*) => {$(
        impl Serialize for $id {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serialize(self, s)
            }
        }

        impl<'de> Deserialize<'de> for $id {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$id, D::Error> {
                deserialize(d)
            }
        }
    )*};
}

serde_impls!(Guid, v3::Guid, v3::Luid, v3::Xuid);

impl<'de> Deserialize<'de> for Luid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Luid, D::Error> {
        deserialize(d)
    }
}

/// Go's JSON of a local id: `*` and the string of the global id with node 0.
impl Serialize for Luid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            let mut buf = [b'*'; STRING_LEN + 1];
            s.serialize_str(encoding::encode_sortable::<6, { STRING_LEN + 1 }>(
                self.to_g(0).to_u128(),
                &mut buf,
            ))
        } else {
            serialize(self, s)
        }
    }
}

/// sno's JSON: the string, or `null` for the zero id; the 10 bytes in
/// compact formats.
impl Serialize for Sno {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (s.is_human_readable(), self.is_zero()) {
            (true, true) => s.serialize_none(),
            (true, false) => s.serialize_str(self.encode(&mut [0; 16])),
            (false, _) => s.serialize_bytes(self.as_bytes()),
        }
    }
}

/// Reads the string (the zero id's too) or `null`, or the 10 bytes.
impl<'de> Deserialize<'de> for Sno {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sno, D::Error> {
        if d.is_human_readable() {
            d.deserialize_option(SnoVisitor)
        } else {
            d.deserialize_bytes(SnoVisitor)
        }
    }
}

struct SnoVisitor;

impl<'de> Visitor<'de> for SnoVisitor {
    type Value = Sno;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sno string, null or 10 bytes")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Sno, E> {
        Sno::parse_bytes(s).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Sno, E> {
        Sno::from_slice(b).map_err(E::custom)
    }

    fn visit_none<E: de::Error>(self) -> Result<Sno, E> {
        Ok(Sno::ZERO)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Sno, E> {
        Ok(Sno::ZERO)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Sno, D::Error> {
        d.deserialize_str(SnoVisitor)
    }
}
