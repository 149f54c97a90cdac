//! Ids as SQLite keys through rusqlite: `cargo run -p kguid-db --example rusqlite`.

use guid::{Drift, Guid, Luid};
use rusqlite::Connection;

fn main() -> rusqlite::Result<()> {
    let events = run()?;
    assert_eq!(events, ["created", "paid", "shipped"]);
    Ok(())
}

/// Stores ids, reads them back, and returns the events since it started.
pub fn run() -> rusqlite::Result<Vec<String>> {
    let db = Connection::open_in_memory()?;
    db.execute_batch(
        "CREATE TABLE orders (id BLOB PRIMARY KEY, item TEXT);
         CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT);",
    )?;

    // A global id is a 12-byte BLOB; SQLite compares blobs bytewise.
    let order = Guid::now();
    db.execute("INSERT INTO orders VALUES (?1, ?2)", (order, "book"))?;
    let back: Guid = db.query_row("SELECT id FROM orders", [], |r| r.get(0))?;
    assert_eq!(back, order);

    // A local id in an INTEGER column: the signed form that sorts as it does.
    let start = std::time::SystemTime::now();
    for what in ["created", "paid", "shipped"] {
        let id = Luid::now().to_i64();
        db.execute("INSERT INTO events VALUES (?1, ?2)", (id, what))?;
    }
    // Everything since `start`, in id (= time) order.
    let since = Luid::from_time(start, Drift::DEFAULT).to_i64();
    let mut query = db.prepare("SELECT id, what FROM events WHERE id >= ?1 ORDER BY id")?;
    let mut events = Vec::new();
    for row in query.query_map([since], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?)))? {
        let (id, what): (i64, String) = row?;
        println!("{} {what}", Luid::from_i64(id).expect("a local id"));
        events.push(what);
    }
    Ok(events)
}
