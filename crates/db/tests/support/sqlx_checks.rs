//! The sqlx checks, once for every database: the drivers differ only in
//! their placeholders and in how a bad value is written.

use guid::{Drift, Guid, Luid};
use sqlx::{ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Type};

use super::{guids, luids, made_since, sorted, timeline};

/// Ids of every kind stored through sqlx come back equal and in id order,
/// and a range query from `Luid::from_time` returns exactly the ids made
/// since. `p` is the database's first placeholder (`$1` or `?`); `bad` a
/// query of one binary value that is no id, which must fail to decode.
pub async fn keeps_ids_order_and_ranges<DB>(db: &mut DB::Connection, p: &str, bad: &str)
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> Guid: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Luid: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    insert(&mut *db, "g", p, &guids()).await;
    insert(&mut *db, "l", p, &luids()).await;
    let back: Vec<Guid> = sqlx::query_scalar("SELECT id FROM g ORDER BY id")
        .fetch_all(&mut *db)
        .await
        .unwrap();
    assert_eq!(back, sorted(&guids()));
    let back: Vec<Luid> = sqlx::query_scalar("SELECT id FROM l ORDER BY id")
        .fetch_all(&mut *db)
        .await
        .unwrap();
    assert_eq!(back, sorted(&luids()));

    sqlx::raw_sql("DELETE FROM l")
        .execute(&mut *db)
        .await
        .unwrap();
    let (ids, t) = timeline();
    insert(&mut *db, "l", p, &ids).await;
    let since = Luid::from_time(t, Drift::DEFAULT);
    let sql = format!("SELECT id FROM l WHERE id >= {p} ORDER BY id");
    let got: Vec<Luid> = sqlx::query_scalar(&sql)
        .bind(since)
        .fetch_all(&mut *db)
        .await
        .unwrap();
    assert_eq!(got, made_since(&ids, t));

    let bad = sqlx::query_scalar::<DB, Guid>(bad)
        .fetch_one(&mut *db)
        .await;
    assert!(
        matches!(bad, Err(sqlx::Error::ColumnDecode { .. })),
        "{bad:?}"
    );
}

async fn insert<DB, T>(db: &mut DB::Connection, table: &str, p: &str, ids: &[T])
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> T: Encode<'q, DB> + Type<DB> + Copy + Send,
{
    let sql = format!("INSERT INTO {table} VALUES ({p})");
    for &id in ids {
        sqlx::query(&sql).bind(id).execute(&mut *db).await.unwrap();
    }
}
