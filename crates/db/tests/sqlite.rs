//! Ids in SQLite through rusqlite (the `rusqlite` feature), sqlx (the
//! `sqlx` feature) and diesel (the `diesel` feature): round trips, `ORDER
//! BY` equal to the id order, range queries by time, and bad values as
//! typed errors.

mod support;

use guid::Id;
use guid::{Guid, Luid};
use rusqlite::{Connection, params};
use support::{guids, luids, made_since, sorted, timeline};

const TABLES: &str = "
    CREATE TABLE g (id BLOB PRIMARY KEY);
    CREATE TABLE l (id BLOB PRIMARY KEY);
    CREATE TABLE li (id INTEGER PRIMARY KEY);";

fn column<T: rusqlite::types::FromSql>(
    db: &Connection,
    sql: &str,
    arg: impl rusqlite::ToSql,
) -> Vec<T> {
    let mut query = db.prepare(sql).unwrap();
    let rows = query.query_map([arg], |r| r.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Every id of every drift code, sequence edge and clock direction goes
/// through rusqlite and comes back equal, in id order, in both columns.
#[test]
fn rusqlite_keeps_ids_and_their_order() {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(TABLES).unwrap();
    let (g, l) = (guids(), luids());
    for id in &g {
        db.execute("INSERT INTO g VALUES (?1)", [id]).unwrap();
    }
    for id in &l {
        db.execute("INSERT INTO l VALUES (?1)", [id]).unwrap();
        db.execute("INSERT INTO li VALUES (?1)", [id.to_i64()])
            .unwrap();
    }
    let back: Vec<Guid> = column(&db, "SELECT id FROM g WHERE ?1 ORDER BY id", 1);
    assert_eq!(back, sorted(&g));
    let back: Vec<Luid> = column(&db, "SELECT id FROM l WHERE ?1 ORDER BY id", 1);
    assert_eq!(back, sorted(&l));
    let back: Vec<i64> = column(&db, "SELECT id FROM li WHERE ?1 ORDER BY id", 1);
    let back: Vec<Luid> = back
        .into_iter()
        .map(|v| Luid::from_i64(v).unwrap())
        .collect();
    assert_eq!(back, sorted(&l));
}

/// `WHERE id >= from_time(t)` returns exactly the ids made at or after `t`.
#[test]
fn rusqlite_range_queries_by_time() {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(TABLES).unwrap();
    let (ids, t) = timeline();
    for id in &ids {
        db.execute("INSERT INTO l VALUES (?1)", [id]).unwrap();
        db.execute("INSERT INTO li VALUES (?1)", [id.to_i64()])
            .unwrap();
    }
    let since = Luid::from_time(t, guid::Drift::DEFAULT);
    let expected = made_since(&ids, t);
    assert!(!expected.is_empty() && expected.len() < ids.len());
    let got: Vec<Luid> = column(&db, "SELECT id FROM l WHERE id >= ?1 ORDER BY id", since);
    assert_eq!(got, expected);
    let got: Vec<i64> = column(
        &db,
        "SELECT id FROM li WHERE id >= ?1 ORDER BY id",
        since.to_i64(),
    );
    let got: Vec<Luid> = got
        .into_iter()
        .map(|v| Luid::from_i64(v).unwrap())
        .collect();
    assert_eq!(got, expected);
}

/// A blob of the wrong length, a drift code of 0, an integer or text is an
/// error from `get`, not a panic.
#[test]
fn rusqlite_bad_values_are_errors() {
    let db = Connection::open_in_memory().unwrap();
    let row = |sql: &str| -> (rusqlite::Result<Guid>, rusqlite::Result<Luid>) {
        db.query_row(sql, params![], |r| Ok((r.get(0), r.get(0))))
            .unwrap()
    };
    let (g, l) = row("SELECT x'00ff'");
    let message = g.unwrap_err().to_string();
    assert!(
        message.contains("12 byte value out of 2 byte blob"),
        "{message}"
    );
    assert!(l.is_err());
    let (g, _) = row("SELECT x'000000000000000000000000'");
    assert!(g.unwrap_err().to_string().contains("drift"));
    let (g, l) = row("SELECT 7");
    assert!(g.is_err() && l.is_err());
    let (g, _) = row("SELECT 'NkHHyvq1H59MZmlU'");
    assert!(g.is_err(), "text is not an id column");
}

/// The same round trip, order and range query through sqlx's SQLite driver.
#[test]
fn sqlx_sqlite_keeps_ids_order_and_ranges() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        use sqlx::Connection;
        let mut db = sqlx::SqliteConnection::connect("sqlite::memory:")
            .await
            .unwrap();
        sqlx::raw_sql(TABLES).execute(&mut db).await.unwrap();
        support::sqlx_checks::keeps_ids_order_and_ranges::<sqlx::Sqlite>(
            &mut db,
            "?",
            "SELECT x'00ff'",
        )
        .await;
    });
}

/// Ids of all five types stored through diesel's derived structs in a
/// database file come back equal and in id order from a new connection,
/// and compare with the column in a `WHERE`.
#[test]
fn diesel_sqlite_keeps_ids_and_their_order() {
    use diesel::{Connection, SqliteConnection, connection::SimpleConnection};
    use support::diesel_checks::{sqlite, tables};
    let path = std::env::temp_dir().join(format!("kguid-diesel-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let url = path.to_str().unwrap();
    let mut db = SqliteConnection::establish(url).unwrap();
    db.batch_execute(&tables("BLOB")).unwrap();
    sqlite::store_all(&mut db);
    drop(db);
    let mut db = SqliteConnection::establish(url).unwrap();
    sqlite::read_all(&mut db);
    drop(db);
    std::fs::remove_file(&path).unwrap();
}

/// A blob of the wrong length, or no valid id, is a `guid::Error` from
/// diesel, not a panic; an integer or text is refused too.
#[test]
fn diesel_sqlite_bad_values_are_errors() {
    use diesel::{Connection, SqliteConnection, sql_types::Binary};
    let mut db = SqliteConnection::establish(":memory:").unwrap();
    support::diesel_checks::sqlite::bad_values_are_errors(&mut db, |hex| format!("x'{hex}'"));
    for sql in ["7", "'NkHHyvq1H59MZmlU'", "'0123456789ab'"] {
        let value = diesel::select(diesel::dsl::sql::<Binary>(sql));
        let e = diesel::RunQueryDsl::get_result::<Guid>(value, &mut db).unwrap_err();
        assert!(e.to_string().contains("BLOB"), "{sql}: {e}");
    }
}

#[allow(dead_code)]
#[path = "../examples/rusqlite.rs"]
mod rusqlite_example;
#[allow(dead_code)]
#[path = "../examples/sqlx.rs"]
mod sqlx_example;

/// The rusqlite and sqlx examples run and find their events in time order.
#[test]
fn the_examples_run() {
    assert_eq!(
        rusqlite_example::run().unwrap(),
        ["created", "paid", "shipped"]
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let events = runtime.block_on(sqlx_example::run()).unwrap();
    assert_eq!(events, ["created", "paid", "shipped"]);
}

/// Id strings in a `TEXT` column (SQLite's default BINARY collation) sort
/// as the ids do.
#[test]
fn text_sorts_as_ids() {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch("CREATE TABLE s (id TEXT PRIMARY KEY)")
        .unwrap();
    let ids = guids();
    for id in &ids {
        db.execute("INSERT INTO s VALUES (?1)", [id.to_string()])
            .unwrap();
    }
    let expected: Vec<String> = sorted(&ids).iter().map(Guid::to_string).collect();
    assert_eq!(
        column::<String>(&db, "SELECT id FROM s WHERE ?1 ORDER BY id", 1),
        expected
    );
}

/// The fleet's key, `(node, to_l64().to_i64())`, gives every global id back
/// whole, and sorts each node's ids in id order.
#[test]
fn the_fleet_key_keeps_global_ids() {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch("CREATE TABLE e (node INTEGER, id INTEGER, PRIMARY KEY (node, id))")
        .unwrap();
    let clocks: Vec<guid::Clock> = [7, 0x8000_0000, u32::MAX]
        .into_iter()
        .map(|n| guid::Clock::builder().node(n).build())
        .collect();
    let mut ids = Vec::new();
    for _ in 0..300 {
        for clock in &clocks {
            let g = clock.g();
            db.execute(
                "INSERT INTO e VALUES (?1, ?2)",
                (g.node() as i32, g.to_l64().to_i64()),
            )
            .unwrap();
            ids.push(g);
        }
    }
    let mut query = db
        .prepare("SELECT node, id FROM e ORDER BY node, id")
        .unwrap();
    let back: Vec<Guid> = query
        .query_map([], |r| Ok((r.get::<_, i32>(0)?, r.get::<_, i64>(1)?)))
        .unwrap()
        .map(|r| {
            let (node, id) = r.unwrap();
            Luid::from_i64(id).unwrap().to_g(node as u32)
        })
        .collect();
    // Nodes as i32 sort 0x8000_0000 and u32::MAX (negative) before 7.
    let mut expected = ids.clone();
    expected.sort_by_key(|g| (g.node() as i32, *g));
    assert_eq!(back, expected);
}
