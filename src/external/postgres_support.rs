//! postgres-types: ids as `BYTEA`, their big-endian bytes, so that the
//! column's byte order is the id order (for tokio-postgres and postgres).
//! A `Guid` and a `Luid` are also the `guid` and `luid` types of the
//! `kguid` PostgreSQL extension, whose binary form is the same bytes.
//!
//! A local id is 8 bytes here too; for an `INT8` column bind
//! [`Luid::to_i64`](crate::Luid::to_i64) and read with
//! [`Luid::from_i64`](crate::Luid::from_i64), the signed form that sorts as
//! the id does.

use std::error::Error;

use bytes::BytesMut;
use postgres_types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

use crate::sno::Sno;
use crate::{Guid, Id, Luid, v3};

macro_rules! bytea {
    ($id:ty $(, $extension_type:literal)?) => {
        impl ToSql for $id {
            fn to_sql(
                &self,
                _: &Type,
                out: &mut BytesMut,
            ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
                out.extend_from_slice(&self.to_bytes());
                Ok(IsNull::No)
            }

            fn accepts(ty: &Type) -> bool {
                *ty == Type::BYTEA $(|| ty.name() == $extension_type)?
            }

            to_sql_checked!();
        }

        impl<'a> FromSql<'a> for $id {
            /// Fails with a [`crate::Error`] on a value of another length or
            /// a drift code of 0.
            fn from_sql(_: &Type, raw: &'a [u8]) -> Result<$id, Box<dyn Error + Sync + Send>> {
                Ok(<$id>::from_slice(raw)?)
            }

            fn accepts(ty: &Type) -> bool {
                <$id as ToSql>::accepts(ty)
            }
        }
    };
}

bytea!(Guid, "guid");
bytea!(Luid, "luid");
bytea!(v3::Guid);
bytea!(v3::Luid);
bytea!(v3::Xuid);
bytea!(Sno);
