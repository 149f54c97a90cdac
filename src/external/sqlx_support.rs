//! sqlx: ids as binary values (`BYTEA` in PostgreSQL, `BLOB` in SQLite,
//! `VARBINARY` in MySQL), their big-endian bytes, so that the column's byte
//! order is the id order. One impl serves every database whose driver maps
//! byte strings.
//!
//! For an integer column bind [`Luid::to_i64`](crate::Luid::to_i64) and read
//! with [`Luid::from_i64`](crate::Luid::from_i64), the signed form that
//! sorts as the id does.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Database, Decode, Encode, Type};

use crate::sno::Sno;
use crate::{Guid, Id, Luid, v3};

macro_rules! binary {
    ($id:ty) => {
        impl<DB: Database> Type<DB> for $id
        where
            [u8]: Type<DB>,
        {
            fn type_info() -> DB::TypeInfo {
                <[u8] as Type<DB>>::type_info()
            }

            fn compatible(ty: &DB::TypeInfo) -> bool {
                <[u8] as Type<DB>>::compatible(ty)
            }
        }

        impl<'q, DB: Database> Encode<'q, DB> for $id
        where
            Vec<u8>: Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as Database>::ArgumentBuffer<'q>,
            ) -> Result<IsNull, BoxDynError> {
                self.to_bytes().to_vec().encode(buf)
            }
        }

        impl<'r, DB: Database> Decode<'r, DB> for $id
        where
            &'r [u8]: Decode<'r, DB>,
        {
            /// Fails with a [`crate::Error`] on a value of another length or
            /// a drift code of 0.
            fn decode(value: <DB as Database>::ValueRef<'r>) -> Result<$id, BoxDynError> {
                Ok(<$id>::from_slice(<&[u8] as Decode<DB>>::decode(value)?)?)
            }
        }
    };
}

binary!(Guid);
binary!(Luid);
binary!(v3::Guid);
binary!(v3::Luid);
binary!(v3::Xuid);
binary!(Sno);
