//! rusqlite: ids as `BLOB`s of their big-endian bytes, which SQLite
//! compares with `memcmp`, so `ORDER BY` is the id order.
//!
//! Any rusqlite from 0.32 to 0.43 serves: the dependency is a range so that
//! it is the rusqlite of the rest of the build, since two versions would
//! link two libsqlite3-sys, which Cargo refuses.
//!
//! For an `INTEGER` column bind [`Luid::to_i64`](crate::Luid::to_i64) and
//! read with [`Luid::from_i64`](crate::Luid::from_i64), the signed form that
//! sorts as the id does.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::sno::Sno;
use crate::{Guid, Id, Luid, v3};

macro_rules! blob {
    ($id:ty) => {
        impl ToSql for $id {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.to_bytes().to_vec()))
            }
        }

        impl FromSql for $id {
            /// Fails on a value that is not a blob, a blob of another
            /// length, or a drift code of 0.
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<$id> {
                let blob = value.as_blob()?;
                if blob.len() != <$id>::BYTES {
                    return Err(FromSqlError::InvalidBlobSize {
                        expected_size: <$id>::BYTES,
                        blob_size: blob.len(),
                    });
                }
                <$id>::from_slice(blob).map_err(|e| FromSqlError::Other(Box::new(e)))
            }
        }
    };
}

blob!(Guid);
blob!(Luid);
blob!(v3::Guid);
blob!(v3::Luid);
blob!(v3::Xuid);
blob!(Sno);
