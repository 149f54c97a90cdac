//! diesel: ids as [`Binary`](diesel::sql_types::Binary) values of their
//! big-endian bytes (`BYTEA`, diesel's `Bytea`, in PostgreSQL; `BLOB` in
//! SQLite), so that the column's byte order is the id order.
//!
//! Every id derives diesel's `AsExpression` and `FromSqlRow` for `Binary`:
//! it can be a field of a `Queryable`, `Selectable` or `Insertable` struct
//! on a `Binary` column, `Option` of it on a nullable one, and compared
//! with the column (`ids::id.ge(since)`).
//!
//! For an integer column bind [`Luid::to_i64`](crate::Luid::to_i64) and read
//! with [`Luid::from_i64`](crate::Luid::from_i64), the signed form that
//! sorts as the id does.

use std::io::Write;

use diesel::deserialize::{self, FromSql};
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Binary;
use diesel::sqlite::{Sqlite, SqliteType, SqliteValue};

use crate::sno::Sno;
use crate::{Guid, Luid, v3};

fn write_pg(bytes: &[u8], out: &mut Output<'_, '_, Pg>) -> serialize::Result {
    out.write_all(bytes)?;
    Ok(IsNull::No)
}

/// SQLite binds a borrowed or an owned value; the bytes are made from the
/// id here, so they are handed over owned.
fn bind_sqlite(bytes: Vec<u8>, out: &mut Output<'_, '_, Sqlite>) -> serialize::Result {
    out.set_value(bytes);
    Ok(IsNull::No)
}

/// PostgreSQL's column type is fixed by the schema diesel checks against,
/// so only the bytes are checked here (an oid check would also refuse an
/// array's elements, which carry the array's oid).
fn read_pg<I: for<'a> TryFrom<&'a [u8], Error = crate::Error>>(
    value: PgValue<'_>,
) -> deserialize::Result<I> {
    Ok(I::try_from(value.as_bytes())?)
}

/// SQLite's values carry their own type whatever the column says: only a
/// blob is read, since SQLite would hand an integer or text over as the
/// bytes of its text.
fn read_sqlite<I: for<'a> TryFrom<&'a [u8], Error = crate::Error>>(
    mut value: SqliteValue<'_, '_, '_>,
) -> deserialize::Result<I> {
    match value.value_type() {
        Some(SqliteType::Binary) => Ok(I::try_from(value.read_blob())?),
        other => Err(format!("an id is a BLOB, not a value of type {other:?}").into()),
    }
}

macro_rules! binary {
    ($($id:ty),*) => {$(
        impl ToSql<Binary, Pg> for $id {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                write_pg(&self.to_bytes(), out)
            }
        }

        impl ToSql<Binary, Sqlite> for $id {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
                bind_sqlite(self.to_bytes().to_vec(), out)
            }
        }

        impl FromSql<Binary, Pg> for $id {
            /// Fails with a [`crate::Error`] on a value of another length or
            /// an invalid id (a drift code of 0, a UUID of another version).
            fn from_sql(value: PgValue<'_>) -> deserialize::Result<$id> {
                read_pg(value)
            }
        }

        impl FromSql<Binary, Sqlite> for $id {
            /// Fails on a value that is not a blob, and with a
            /// [`crate::Error`] on a blob of another length or an invalid id.
            fn from_sql(value: SqliteValue<'_, '_, '_>) -> deserialize::Result<$id> {
                read_sqlite(value)
            }
        }
    )*};
}

binary!(Guid, Luid, v3::Guid, v3::Luid, v3::Xuid, Sno);
