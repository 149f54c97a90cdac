//! Ids as PostgreSQL keys through tokio-postgres:
//! `cargo run -p kguid-db --example postgres -- "host=/var/run/postgresql user=postgres"`.

use guid::{Drift, Guid, Luid};
use tokio_postgres::NoTls;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), tokio_postgres::Error> {
    let config = std::env::args().nth(1);
    let events = run(config.as_deref().unwrap_or("host=localhost user=postgres")).await?;
    assert_eq!(events, ["created", "paid", "shipped"]);
    Ok(())
}

/// Stores ids in the database `config` names, reads them back, and returns
/// the events since it started.
pub async fn run(config: &str) -> Result<Vec<String>, tokio_postgres::Error> {
    let (db, connection) = tokio_postgres::connect(config, NoTls).await?;
    tokio::spawn(connection);

    // BYTEA for a global id: its bytes sort as the id does.
    db.batch_execute(
        "CREATE TEMP TABLE orders (id BYTEA PRIMARY KEY, item TEXT);
         CREATE TEMP TABLE events (id INT8 PRIMARY KEY, what TEXT);",
    )
    .await?;
    let order = Guid::now();
    db.execute("INSERT INTO orders VALUES ($1, $2)", &[&order, &"book"])
        .await?;
    let back: Guid = db.query_one("SELECT id FROM orders", &[]).await?.get(0);
    assert_eq!(back, order);

    // INT8 for a local id: its signed form keeps the order for every drift.
    let start = std::time::SystemTime::now();
    for what in ["created", "paid", "shipped"] {
        let id = Luid::now().to_i64();
        db.execute("INSERT INTO events VALUES ($1, $2)", &[&id, &what])
            .await?;
    }
    // Everything since `start`, in id (= time) order.
    let since = Luid::from_time(start, Drift::DEFAULT).to_i64();
    let sql = "SELECT id, what FROM events WHERE id >= $1 ORDER BY id";
    let mut events = Vec::new();
    for row in db.query(sql, &[&since]).await? {
        let id = Luid::from_i64(row.get(0)).expect("a local id");
        let what: String = row.get(1);
        println!("{id} {what}");
        events.push(what);
    }
    Ok(events)
}
