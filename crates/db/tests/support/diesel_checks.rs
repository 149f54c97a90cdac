//! The diesel checks, once for each connection: PostgreSQL and SQLite
//! differ only in the column type and in how a byte string is written.

use diesel::prelude::*;
use diesel::sql_types::Binary;
use guid::{ErrorKind, Guid, Luid, v3};

use super::{guids, luids, sorted, v3_guids, v3_luids, xuids};

diesel::table! { g (id) { id -> Binary, } }
diesel::table! { l (id) { id -> Binary, } }
diesel::table! { g3 (id) { id -> Binary, } }
diesel::table! { l3 (id) { id -> Binary, } }
diesel::table! { x3 (id) { id -> Binary, } }

/// One struct per table, with the id as a field of diesel's derives.
macro_rules! rows {
    ($($row:ident($id:ty) in $table:ident;)*) => {$(
        #[derive(Queryable, Selectable, Insertable, Debug, PartialEq)]
        #[diesel(table_name = $table)]
        pub struct $row {
            pub id: $id,
        }
    )*};
}

rows! {
    G(Guid) in g;
    L(Luid) in l;
    G3(v3::Guid) in g3;
    L3(v3::Luid) in l3;
    X3(v3::Xuid) in x3;
}

/// The tables of the checks, their `id` of type `binary` (`BYTEA`, `BLOB`).
pub fn tables(binary: &str) -> String {
    ["g", "l", "g3", "l3", "x3"]
        .map(|t| format!("CREATE TABLE {t} (id {binary} PRIMARY KEY);"))
        .concat()
}

/// Stores `ids` in `$table` through its struct.
macro_rules! store {
    ($db:expr, $table:ident, $row:ident, $ids:expr) => {{
        let rows: Vec<$row> = $ids.iter().map(|&id| $row { id }).collect();
        let n = diesel::insert_into($table::table)
            .values(&rows)
            .execute($db)
            .unwrap();
        assert_eq!(n, rows.len());
    }};
}

/// `$table`'s ids read back through its struct, `ORDER BY id`, equal
/// `$ids` sorted; and `WHERE id >= ` the middle one returns the upper half.
macro_rules! read_back {
    ($db:expr, $table:ident, $row:ident($id:ty), $ids:expr) => {{
        let expected: Vec<$id> = sorted(&$ids);
        assert!(expected.len() > 100, "too few ids to tell an order");
        let back: Vec<_> = $table::table
            .select($row::as_select())
            .order($table::id)
            .load($db)
            .unwrap()
            .into_iter()
            .map(|r: $row| r.id)
            .collect();
        assert_eq!(back, expected, concat!("ORDER BY ", stringify!($table)));
        let middle = expected[expected.len() / 2];
        let upper: Vec<$id> = $table::table
            .select($table::id)
            .filter($table::id.ge(middle))
            .order($table::id)
            .load($db)
            .unwrap();
        assert_eq!(upper, expected[expected.len() / 2..]);
    }};
}

/// One function per connection type: diesel's queries are typed by it.
macro_rules! checks {
    ($backend:ident, $connection:ty) => {
        pub mod $backend {
            use super::*;

            /// Stores ids of every type in the tables of [`tables`].
            pub fn store_all(db: &mut $connection) {
                store!(db, g, G, guids());
                store!(db, l, L, luids());
                store!(db, g3, G3, v3_guids());
                store!(db, l3, L3, v3_luids());
                store!(db, x3, X3, xuids());
            }

            /// The ids of [`store_all`] come back equal, in id order.
            pub fn read_all(db: &mut $connection) {
                read_back!(db, g, G(Guid), guids());
                read_back!(db, l, L(Luid), luids());
                read_back!(db, g3, G3(v3::Guid), v3_guids());
                read_back!(db, l3, L3(v3::Luid), v3_luids());
                read_back!(db, x3, X3(v3::Xuid), xuids());
            }

            /// Values that are no id fail to load as one, with a
            /// `guid::Error` that says why. `bytes` writes a byte string
            /// literal of the database from its hex digits.
            pub fn bad_values_are_errors(db: &mut $connection, bytes: fn(&str) -> String) {
                let short = bytes("00ff");
                let length = |expected| ErrorKind::Length { expected, found: 2 };
                assert_eq!(load::<Guid>(db, &short), length(12));
                assert_eq!(load::<Luid>(db, &short), length(8));
                assert_eq!(load::<v3::Guid>(db, &short), length(12));
                assert_eq!(load::<v3::Luid>(db, &short), length(8));
                assert_eq!(load::<v3::Xuid>(db, &short), length(16));
                let zeros = bytes(&"00".repeat(12));
                assert_eq!(load::<Guid>(db, &zeros), ErrorKind::Drift);
                // Drift code 0 is a v3 code: those 12 bytes are a v3 id.
                assert!(load_value::<v3::Guid>(db, &zeros).is_ok());
                let zeros = bytes(&"00".repeat(16));
                let long = ErrorKind::Length {
                    expected: 12,
                    found: 16,
                };
                assert_eq!(load::<Guid>(db, &zeros), long);
                let no_uuid = ErrorKind::NotUuidV8 {
                    version: 0,
                    variant: 0,
                };
                assert_eq!(load::<v3::Xuid>(db, &zeros), no_uuid);
            }

            fn load_value<T>(db: &mut $connection, sql: &str) -> QueryResult<T>
            where
                T: diesel::deserialize::FromSqlRow<Binary, <$connection as Connection>::Backend>
                    + 'static,
            {
                diesel::select(diesel::dsl::sql::<Binary>(sql)).get_result::<T>(db)
            }

            /// The kind of the `guid::Error` that loading `sql` as a `T` fails with.
            fn load<T>(db: &mut $connection, sql: &str) -> ErrorKind
            where
                T: diesel::deserialize::FromSqlRow<Binary, <$connection as Connection>::Backend>
                    + std::fmt::Debug
                    + 'static,
            {
                match load_value::<T>(db, sql) {
                    Err(diesel::result::Error::DeserializationError(e)) => id_error(&*e),
                    other => panic!("{sql} as an id: {other:?}"),
                }
            }
        }
    };
}

/// The kind of the `guid::Error` in `e` or among its sources (PostgreSQL's
/// connection wraps it with the column's name).
fn id_error(e: &(dyn std::error::Error + 'static)) -> ErrorKind {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(id) = e.downcast_ref::<guid::Error>() {
            return id.kind();
        }
        next = e.source();
    }
    panic!("{e}: no guid::Error")
}

checks!(pg, diesel::PgConnection);
checks!(sqlite, diesel::SqliteConnection);
