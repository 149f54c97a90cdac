//! The 96-bit global id.

use crate::Id;
use crate::drift::Drift;
use crate::encoding;
use crate::error::{Error, ErrorKind, Result};
use crate::id::sealed::Packing;
use crate::layout;
use crate::local::Luid;

crate::id::declare! {
    /// A 96-bit global id: drift, time, node and sequence, unique across nodes.
    ///
    /// Stored as its 12 big-endian bytes, so the derived `Ord` is the k-order
    /// and `Option<Guid>` is 13 bytes. Every `Guid` has a drift code in 1..=7;
    /// decoders reject anything else.
    ///
    /// ```
    /// let id = guid::g(&guid::CLOCK);
    /// let text = id.to_string();
    /// assert_eq!(text.len(), 16);
    /// assert_eq!(text.parse::<guid::Guid>(), Ok(id));
    /// ```
    pub struct Guid([u8; 12]): checked;
    name: "Guid",
    drift: Drift,
    local: Luid,
    text: layout::Text::Sortable { bits: 6 },
    node: layout::NODE_BITS_G,
    store: u96,
    now: crate::CLOCK.g(),
    int: u128, from_u128, fallible,
    bytes: fallible,
}

impl Guid {
    /// The id made of these parts: a 32-bit node, time in Unix nanoseconds
    /// (kept to the tick of 2^17 ns), sequence (0..=16383) and drift: what
    /// a clock with this node and drift gives at this time and sequence.
    /// Fails if the sequence is too wide.
    ///
    /// ```
    /// use guid::{Drift, Guid, Id};
    /// let id = Guid::compose(0x53051caf, 1_700_000_000_000_000_000, 7, Drift::DEFAULT)?;
    /// assert_eq!((id.node(), id.seq(), id.drift()), (0x53051caf, 7, Drift::DEFAULT));
    /// assert_eq!(id.time(), 1_700_000_000_000_000_000 >> 17 << 17);
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub fn compose(node: u32, time_ns: u64, seq: u16, drift: Drift) -> Result<Guid> {
        Guid::from_parts(node as u64, time_ns, seq, drift)
    }

    /// The global id of a local id made on `node` (Go's `FromL`).
    pub fn from_l64(local: Luid, node: u32) -> Guid {
        Guid::stamp(local.to_u64(), node as u64)
    }

    /// The id of 12 big-endian bytes; fails if the drift code is 0.
    pub const fn from_bytes(bytes: [u8; 12]) -> Result<Guid> {
        if bytes[0] >> 5 == 0 {
            return Err(Error::new(ErrorKind::Drift));
        }
        Ok(Guid(bytes))
    }

    /// The 96-bit value.
    pub const fn to_u128(self) -> u128 {
        encoding::from_bytes96(&self.0)
    }

    /// The id of a 96-bit value; fails if it is wider or its drift code is 0.
    pub const fn from_u128(v: u128) -> Result<Guid> {
        if v >> 96 != 0 {
            return Err(Error::new(ErrorKind::Overflow { bits: 96 }));
        }
        Guid::from_bytes(encoding::bytes96(v))
    }

    /// Reads the text form, refusing Go's JSON form of a local id (`*`
    /// first) by name.
    #[inline]
    fn read_text(s: &[u8]) -> Result<Guid> {
        let v = encoding::decode_sortable::<6>(s).map_err(|e| match s.first() {
            Some(b'*') => Error::new(ErrorKind::Marker { local: false }),
            _ => e,
        })?;
        Guid::from_u128(v)
    }
}
