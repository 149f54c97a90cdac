//! Ids as keys through sqlx (SQLite in memory here; PostgreSQL takes the
//! same code with `$1` placeholders): `cargo run -p kguid-db --example sqlx`.

use guid::{Drift, Guid, Luid};
use sqlx::Connection;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), sqlx::Error> {
    let events = run().await?;
    assert_eq!(events, ["created", "paid", "shipped"]);
    Ok(())
}

/// Stores ids, reads them back, and returns the events since it started.
pub async fn run() -> Result<Vec<String>, sqlx::Error> {
    let mut db = sqlx::SqliteConnection::connect("sqlite::memory:").await?;
    sqlx::raw_sql(
        "CREATE TABLE orders (id BLOB PRIMARY KEY, item TEXT);
         CREATE TABLE events (id BLOB PRIMARY KEY, what TEXT);",
    )
    .execute(&mut db)
    .await?;

    // A global id is a 12-byte BLOB, compared bytewise.
    let order = Guid::now();
    sqlx::query("INSERT INTO orders VALUES (?, ?)")
        .bind(order)
        .bind("book")
        .execute(&mut db)
        .await?;
    let back: Guid = sqlx::query_scalar("SELECT id FROM orders")
        .fetch_one(&mut db)
        .await?;
    assert_eq!(back, order);

    // A local id is an 8-byte BLOB, and sorts by time exactly.
    let start = std::time::SystemTime::now();
    for what in ["created", "paid", "shipped"] {
        sqlx::query("INSERT INTO events VALUES (?, ?)")
            .bind(Luid::now())
            .bind(what)
            .execute(&mut db)
            .await?;
    }
    // The smallest id of a time bounds a range: every event since `start`.
    let since = Luid::from_time(start, Drift::DEFAULT);
    let rows: Vec<(Luid, String)> =
        sqlx::query_as("SELECT id, what FROM events WHERE id >= ? ORDER BY id")
            .bind(since)
            .fetch_all(&mut db)
            .await?;
    for (id, what) in &rows {
        println!("{id} {what}");
    }
    Ok(rows.into_iter().map(|(_, what)| what).collect())
}
