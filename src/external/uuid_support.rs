//! uuid: a v3 128-bit id is an RFC 9562 UUIDv8, so it goes into a
//! `uuid::Uuid` as it is, and comes back from one of version 8 and the
//! RFC variant.
//!
//! ```
//! use guid::v3::Xuid;
//! let x = Xuid::now();
//! let u = uuid::Uuid::from(x);
//! assert_eq!(u.get_version_num(), 8);
//! assert_eq!(u.to_string(), x.to_string());
//! assert_eq!(Xuid::try_from(u), Ok(x));
//! assert!(Xuid::try_from(uuid::Uuid::nil()).is_err());
//! ```

use uuid::Uuid;

use crate::error::{Error, Result};
use crate::v3::Xuid;

impl From<Xuid> for Uuid {
    /// The UUID of the id's 16 bytes.
    fn from(x: Xuid) -> Uuid {
        Uuid::from_bytes(x.to_bytes())
    }
}

impl TryFrom<Uuid> for Xuid {
    type Error = Error;

    /// The id of a UUID; fails with
    /// [`ErrorKind::NotUuidV8`](crate::ErrorKind::NotUuidV8) unless it has
    /// version 8 and the RFC 9562 variant.
    fn try_from(u: Uuid) -> Result<Xuid> {
        Xuid::from_bytes(u.into_bytes())
    }
}
