//! Ids in a real PostgreSQL through tokio-postgres (the `postgres` feature),
//! sqlx (the `sqlx` feature) and diesel (the `diesel` feature): round
//! trips, `ORDER BY` equal to the id order, range queries by time, and bad
//! values as typed errors.

mod support;

use guid::{Guid, Luid};
use support::{guids, luids, made_since, sorted, timeline};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// A session with the server, its connection driven on the runtime.
async fn connect(server: &support::Postgres) -> tokio_postgres::Client {
    let (db, connection) = tokio_postgres::connect(&server.config(), tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    db
}

/// Stores local ids in both of their columns: bytes (`l`) and the signed
/// integer (`li`).
async fn store_local(db: &tokio_postgres::Client, ids: &[Luid]) {
    for id in ids {
        db.execute("INSERT INTO l VALUES ($1)", &[id])
            .await
            .unwrap();
        db.execute("INSERT INTO li VALUES ($1)", &[&id.to_i64()])
            .await
            .unwrap();
    }
}

const TABLES: &str = "
    CREATE TABLE g (id BYTEA PRIMARY KEY);
    CREATE TABLE l (id BYTEA PRIMARY KEY);
    CREATE TABLE li (id INT8 PRIMARY KEY);";

/// Every id of every drift code, sequence edge and clock direction goes
/// through tokio-postgres and comes back equal, in id order.
#[test]
fn tokio_postgres_keeps_ids_and_their_order() {
    let Some(server) = support::postgres() else {
        return;
    };
    runtime().block_on(async {
        let db = connect(&server).await;
        db.batch_execute(TABLES).await.unwrap();

        let (g, l) = (guids(), luids());
        for id in &g {
            db.execute("INSERT INTO g VALUES ($1)", &[id])
                .await
                .unwrap();
        }
        store_local(&db, &l).await;

        let rows = db.query("SELECT id FROM g ORDER BY id", &[]).await.unwrap();
        let back: Vec<Guid> = rows.iter().map(|r| r.get(0)).collect();
        assert_eq!(back, sorted(&g));
        let rows = db.query("SELECT id FROM l ORDER BY id", &[]).await.unwrap();
        let back: Vec<Luid> = rows.iter().map(|r| r.get(0)).collect();
        assert_eq!(back, sorted(&l));
        let rows = db
            .query("SELECT id FROM li ORDER BY id", &[])
            .await
            .unwrap();
        let back: Vec<Luid> = rows
            .iter()
            .map(|r| Luid::from_i64(r.get(0)).unwrap())
            .collect();
        assert_eq!(back, sorted(&l));
    });
}

/// `WHERE id >= from_time(t)` returns exactly the ids made at or after `t`,
/// in both the byte and the signed integer column.
#[test]
fn tokio_postgres_range_queries_by_time() {
    let Some(server) = support::postgres() else {
        return;
    };
    runtime().block_on(async {
        let db = connect(&server).await;
        db.batch_execute(TABLES).await.unwrap();
        let (ids, t) = timeline();
        store_local(&db, &ids).await;
        let since = Luid::from_time(t, guid::Drift::DEFAULT);
        let expected = made_since(&ids, t);
        assert!(!expected.is_empty() && expected.len() < ids.len());

        let rows = db
            .query("SELECT id FROM l WHERE id >= $1 ORDER BY id", &[&since])
            .await
            .unwrap();
        let got: Vec<Luid> = rows.iter().map(|r| r.get(0)).collect();
        assert_eq!(got, expected);
        let rows = db
            .query(
                "SELECT id FROM li WHERE id >= $1 ORDER BY id",
                &[&since.to_i64()],
            )
            .await
            .unwrap();
        let got: Vec<Luid> = rows
            .iter()
            .map(|r| Luid::from_i64(r.get(0)).unwrap())
            .collect();
        assert_eq!(got, expected);
    });
}

/// A value of the wrong length or with drift code 0 is an error from
/// `try_get`, not a panic, and a column of another type is refused.
#[test]
fn tokio_postgres_bad_values_are_errors() {
    let Some(server) = support::postgres() else {
        return;
    };
    runtime().block_on(async {
        let db = connect(&server).await;
        let row = db
            .query_one(
                "SELECT '\\x00ff'::bytea, '\\x000000000000000000000000'::bytea, 7::int8, 'x'::text",
                &[],
            )
            .await
            .unwrap();
        let short = row.try_get::<_, Guid>(0).unwrap_err();
        assert!(short.to_string().contains("error deserializing"), "{short}");
        assert!(row.try_get::<_, Luid>(0).is_err());
        let drift = row.try_get::<_, Guid>(1).unwrap_err();
        assert!(format!("{drift:?}").contains("Drift"), "{drift:?}");
        assert!(
            row.try_get::<_, Luid>(2).is_err(),
            "INT8 is read with from_i64"
        );
        assert!(
            row.try_get::<_, Guid>(3).is_err(),
            "TEXT is not an id column"
        );
    });
}

/// The same round trip, order and range query through sqlx.
#[test]
fn sqlx_postgres_keeps_ids_order_and_ranges() {
    let Some(server) = support::postgres() else {
        return;
    };
    runtime().block_on(async {
        use sqlx::Connection;
        let mut db = sqlx::PgConnection::connect(&server.url())
            .await
            .expect("connect");
        sqlx::raw_sql(TABLES).execute(&mut db).await.unwrap();
        support::sqlx_checks::keeps_ids_order_and_ranges::<sqlx::Postgres>(
            &mut db,
            "$1",
            "SELECT '\\x00ff'::bytea",
        )
        .await;
    });
}

/// Ids of all five types stored through diesel's derived structs come back
/// equal and in id order, and compare with the column in a `WHERE`.
#[test]
fn diesel_postgres_keeps_ids_and_their_order() {
    use diesel::{Connection, connection::SimpleConnection};
    use support::diesel_checks::{pg, tables};
    let Some(server) = support::postgres() else {
        return;
    };
    let mut db = diesel::PgConnection::establish(&server.config()).expect("connect");
    db.batch_execute(&tables("BYTEA")).unwrap();
    pg::store_all(&mut db);
    pg::read_all(&mut db);
}

/// A `BYTEA` of the wrong length, or no valid id, is a `guid::Error` from
/// diesel, not a panic.
#[test]
fn diesel_postgres_bad_values_are_errors() {
    use diesel::Connection;
    let Some(server) = support::postgres() else {
        return;
    };
    let mut db = diesel::PgConnection::establish(&server.config()).expect("connect");
    support::diesel_checks::pg::bad_values_are_errors(&mut db, |hex| format!("'\\x{hex}'::bytea"));
}

#[allow(dead_code)]
#[path = "../examples/postgres.rs"]
mod example;

/// The tokio-postgres example runs against a real server and finds its
/// events in time order.
#[test]
fn the_example_runs() {
    let Some(server) = support::postgres() else {
        return;
    };
    let events = runtime().block_on(example::run(&server.config())).unwrap();
    assert_eq!(events, ["created", "paid", "shipped"]);
}

/// Id strings in a `TEXT COLLATE "C"` column sort as the ids do; under a
/// locale collation (ICU's en-US) they do not, as README warns.
#[test]
fn text_sorts_as_ids_only_in_byte_order() {
    let Some(server) = support::postgres() else {
        return;
    };
    runtime().block_on(async {
        let db = connect(&server).await;
        db.batch_execute("CREATE TABLE s (id TEXT COLLATE \"C\" PRIMARY KEY)")
            .await
            .unwrap();
        let ids = guids();
        for id in &ids {
            db.execute("INSERT INTO s VALUES ($1)", &[&id.to_string()])
                .await
                .unwrap();
        }
        let expected: Vec<String> = sorted(&ids).iter().map(Guid::to_string).collect();
        let rows = db.query("SELECT id FROM s ORDER BY id", &[]).await.unwrap();
        let got: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
        assert_eq!(got, expected);
        let rows = db
            .query("SELECT id FROM s ORDER BY id COLLATE \"en-US-x-icu\"", &[])
            .await
            .unwrap();
        let got: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
        assert_ne!(got, expected, "a locale collation reorders id strings");
    });
}
