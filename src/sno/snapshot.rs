//! A generator's bookkeeping, in sno's `GeneratorSnapshot` fields.

/// The bookkeeping of a [`Generator`](super::Generator) at one moment:
/// sno's `GeneratorSnapshot`, field for field, so that a snapshot taken by
/// the Go library restores a generator here and the other way round.
///
/// As in sno it serves both as configuration ([`Builder::restore`](super::Builder::restore))
/// and as the state saved across a restart. With the feature `serde` it
/// reads and writes sno's JSON: the field names `partition` (an array of
/// 2 bytes), `sequenceMin`, `sequenceMax`, `sequence`, `now`, `wallHi`,
/// `wallSafe` and `drifts`; a missing field reads as 0 and an unknown one
/// is skipped, as Go's `encoding/json` does.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use guid::sno::Snapshot;
/// let go = r#"{"partition":[88,193],"sequenceMin":0,"sequenceMax":65535,"sequence":3,
///     "now":306411524510,"wallHi":306411524510,"wallSafe":306411524514,"drifts":30}"#;
/// let s: Snapshot = serde_json::from_str(go)?;
/// assert_eq!((s.partition, s.sequence, s.drifts), (0x58c1, 3, 30));
/// assert_eq!(serde_json::to_string(&s)?, go.replace("\n    ", ""));
/// # }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Snapshot {
    /// The partition, big-endian (sno's `Partition`, 2 bytes).
    pub partition: u16,
    /// The lower bound of the sequence, inclusive.
    pub sequence_min: u16,
    /// The upper bound of the sequence, inclusive (0 with a
    /// `sequence_min` other than 65535 means 65535, as in sno).
    pub sequence_max: u16,
    /// The sequence of the last id in the unit `wall_hi` (0 means
    /// `sequence_min`). sno may write more than `sequence_max` while it
    /// is overflowing; such a value restores as an exhausted unit.
    pub sequence: u32,
    /// The time the snapshot was taken, in sno's units (4 ms since 2010).
    pub now: i64,
    /// The unit of the last id (sno's `wallHi`).
    pub wall_hi: i64,
    /// The highest unit of the other tick-tock timeline: a step back of
    /// the clock to or below it cannot flip the tick-tock bit (sno's
    /// `wallSafe`).
    pub wall_safe: i64,
    /// How many times the clock stepped back and the tick-tock bit was
    /// flipped; its lowest bit is the bit of the current ids.
    pub drifts: u32,
}

#[cfg(feature = "serde")]
mod serde_impl {
    use core::fmt;

    use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde::ser::{Serialize, SerializeStruct, Serializer};

    use super::Snapshot;

    /// sno's JSON field names, in its order.
    const FIELDS: [&str; 8] = [
        "partition",
        "sequenceMin",
        "sequenceMax",
        "sequence",
        "now",
        "wallHi",
        "wallSafe",
        "drifts",
    ];

    impl Serialize for Snapshot {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("GeneratorSnapshot", FIELDS.len())?;
            st.serialize_field(FIELDS[0], &self.partition.to_be_bytes())?;
            st.serialize_field(FIELDS[1], &self.sequence_min)?;
            st.serialize_field(FIELDS[2], &self.sequence_max)?;
            st.serialize_field(FIELDS[3], &self.sequence)?;
            st.serialize_field(FIELDS[4], &self.now)?;
            st.serialize_field(FIELDS[5], &self.wall_hi)?;
            st.serialize_field(FIELDS[6], &self.wall_safe)?;
            st.serialize_field(FIELDS[7], &self.drifts)?;
            st.end()
        }
    }

    /// A field name: its index in [`FIELDS`], or none for one sno does not
    /// have (older snapshots carry `monoHi` and `monoOffset`).
    struct Field(Option<usize>);

    impl<'de> Deserialize<'de> for Field {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Field, D::Error> {
            d.deserialize_identifier(FieldVisitor)
        }
    }

    struct FieldVisitor;

    impl Visitor<'_> for FieldVisitor {
        type Value = Field;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a GeneratorSnapshot field name")
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<Field, E> {
            Ok(Field(FIELDS.iter().position(|f| *f == s)))
        }

        fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Field, E> {
            Ok(Field(FIELDS.iter().position(|f| f.as_bytes() == b)))
        }

        fn visit_u64<E: de::Error>(self, i: u64) -> Result<Field, E> {
            Ok(Field(usize::try_from(i).ok().filter(|i| *i < FIELDS.len())))
        }
    }

    struct SnapshotVisitor;

    impl<'de> Visitor<'de> for SnapshotVisitor {
        type Value = Snapshot;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sno GeneratorSnapshot")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Snapshot, A::Error> {
            let mut s = Snapshot::default();
            while let Some(Field(field)) = map.next_key()? {
                match field {
                    Some(0) => s.partition = u16::from_be_bytes(map.next_value()?),
                    Some(1) => s.sequence_min = map.next_value()?,
                    Some(2) => s.sequence_max = map.next_value()?,
                    Some(3) => s.sequence = map.next_value()?,
                    Some(4) => s.now = map.next_value()?,
                    Some(5) => s.wall_hi = map.next_value()?,
                    Some(6) => s.wall_safe = map.next_value()?,
                    Some(7) => s.drifts = map.next_value()?,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(s)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Snapshot, A::Error> {
            fn next<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(
                seq: &mut A,
                i: usize,
            ) -> Result<T, A::Error> {
                seq.next_element()?
                    .ok_or_else(|| de::Error::invalid_length(i, &"8 fields"))
            }
            Ok(Snapshot {
                partition: u16::from_be_bytes(next(&mut seq, 0)?),
                sequence_min: next(&mut seq, 1)?,
                sequence_max: next(&mut seq, 2)?,
                sequence: next(&mut seq, 3)?,
                now: next(&mut seq, 4)?,
                wall_hi: next(&mut seq, 5)?,
                wall_safe: next(&mut seq, 6)?,
                drifts: next(&mut seq, 7)?,
            })
        }
    }

    impl<'de> Deserialize<'de> for Snapshot {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Snapshot, D::Error> {
            d.deserialize_struct("GeneratorSnapshot", &FIELDS, SnapshotVisitor)
        }
    }
}
