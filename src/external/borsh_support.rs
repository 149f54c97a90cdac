//! borsh: an id is its big-endian bytes (`to_bytes`), with no length
//! prefix, so borsh output sorts as the ids do. Reading checks the bytes
//! as `from_bytes` does: a v2 id with drift code 0 or a 128-bit id that is
//! not a UUIDv8 is an error of kind `InvalidData`, too few bytes one of
//! kind `UnexpectedEof`.
//!
//! ```
//! use guid::{Guid, v3};
//! let id = Guid::now();
//! let bytes = borsh::to_vec(&id)?;
//! assert_eq!(bytes, id.to_bytes());
//! assert_eq!(borsh::from_slice::<Guid>(&bytes)?, id);
//!
//! let err = borsh::from_slice::<v3::Xuid>(&[0; 16]).unwrap_err(); // the nil UUID
//! assert_eq!(err.kind(), borsh::io::ErrorKind::InvalidData);
//! # Ok::<(), borsh::io::Error>(())
//! ```

use borsh::io::{Error, ErrorKind, Read, Result, Write};
use borsh::{BorshDeserialize, BorshSerialize};

use alloc::string::ToString;

use crate::sno::Sno;
use crate::{Guid, Luid, v3};

macro_rules! bytes {
    ($id:ty, $n:literal) => {
        impl BorshSerialize for $id {
            fn serialize<W: Write>(&self, writer: &mut W) -> Result<()> {
                write(self.to_bytes(), writer)
            }
        }

        impl BorshDeserialize for $id {
            /// Fails with `InvalidData` on bytes that are not an id of
            /// this type.
            fn deserialize_reader<R: Read>(reader: &mut R) -> Result<$id> {
                read::<$id, $n, R>(reader)
            }
        }
    };
}

bytes!(Guid, 12);
bytes!(Luid, 8);
bytes!(v3::Guid, 12);
bytes!(v3::Luid, 8);
bytes!(v3::Xuid, 16);
bytes!(Sno, 10);

fn write<const N: usize, W: Write>(bytes: [u8; N], writer: &mut W) -> Result<()> {
    writer.write_all(&bytes)
}

/// The id of the next `N` bytes, checked by its `TryFrom<[u8; N]>` (`From`
/// for the v3 ids that take any bytes).
fn read<T, const N: usize, R: Read>(reader: &mut R) -> Result<T>
where
    T: TryFrom<[u8; N]>,
    T::Error: core::fmt::Display,
{
    let mut bytes = [0; N];
    reader.read_exact(&mut bytes)?;
    // A message, not the error itself: without its `std` feature, borsh's
    // own `io::Error` holds only a `String`.
    T::try_from(bytes).map_err(|e| Error::new(ErrorKind::InvalidData, e.to_string()))
}
