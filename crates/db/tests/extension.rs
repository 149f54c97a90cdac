//! The `kguid` PostgreSQL extension (`crates/pg`) in a real server: its
//! types against the library (every drift code, text, binary and `bytea`,
//! the order, casts, errors), range queries through the index, the one
//! clock shared by the server's backends, restarts, and ids read back by
//! the `guid` command.
//!
//! The extension must be installed in the server the tests run
//! (`crates/pg/install`); without it they are skipped, or fail with
//! `KGUID_REQUIRE_SERVERS` set.

mod support;

use std::collections::HashSet;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::{Drift, Guid, Id, Luid, v3};
use support::{Postgres, guids, luids, sorted};
use tokio_postgres::Client;

/// The node of the preloading servers.
const NODE: u32 = 0x5eed;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// A server with the extension created, its library preloaded (the shared
/// clock, on [`NODE`]) or not; `None` if the test is skipped.
fn server(preload: bool) -> Option<Postgres> {
    match preload {
        true => server_with(&[]),
        false => server_of(&[]),
    }
}

/// The settings of a server that preloads the library, on [`NODE`] (in
/// decimal).
const PRELOAD: [(&str, &str); 2] = [
    ("shared_preload_libraries", "kguid"),
    ("kguid.node", "24301"),
];

/// A preloading server with these settings too.
fn server_with(settings: &[(&str, &str)]) -> Option<Postgres> {
    server_of(&[&PRELOAD[..], settings].concat())
}

/// A server with these settings and the extension created.
fn server_of(settings: &[(&str, &str)]) -> Option<Postgres> {
    let installed = support::extension_dir().is_some_and(|d| d.join("kguid.control").exists());
    if !installed {
        support::skip_or_fail("the kguid extension is not installed (crates/pg/install)");
        return None;
    }
    let server = support::postgres_with(settings)?;
    runtime().block_on(async {
        let db = connect(&server).await;
        db.batch_execute("CREATE EXTENSION kguid").await.unwrap();
    });
    Some(server)
}

/// A session with the server, its connection driven on the runtime.
async fn connect(server: &Postgres) -> Client {
    let (db, connection) = tokio_postgres::connect(&server.config(), tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    db
}

/// The SQLSTATE of a failed statement.
fn code(e: &tokio_postgres::Error) -> String {
    e.code()
        .map_or_else(|| format!("{e}"), |c| c.code().to_owned())
}

/// Every id of every drift code goes in as text, as the binary `guid`, and
/// as `bytea`, and comes back equal through text, binary and `bytea`, with
/// the parts the library reads.
#[test]
fn every_drift_round_trips_as_text_binary_and_bytea() {
    let Some(server) = server(false) else { return };
    runtime().block_on(async {
        let db = connect(&server).await;
        let ids = guids();
        assert!((1..=7).all(|c| ids.iter().any(|g| g.drift().code() == c)));
        for g in &ids {
            let text = g.to_string();
            let row = db
                .query_one(
                    "SELECT $1::text::guid, $2::guid, $3::bytea::guid, $1::text::guid::text,
                            guid_node($2), guid_seq($2), guid_drift($2), guid_time($2),
                            $2::guid::bytea",
                    &[&text, g, &g.to_bytes().to_vec()],
                )
                .await
                .unwrap();
            let (a, b, c): (Guid, Guid, Guid) = (row.get(0), row.get(1), row.get(2));
            assert_eq!((a, b, c), (*g, *g, *g));
            assert_eq!(row.get::<_, String>(3), text);
            assert_eq!(row.get::<_, i64>(4) as u64, g.node());
            assert_eq!(row.get::<_, i32>(5), i32::from(g.seq()));
            assert_eq!(row.get::<_, i32>(6), i32::from(g.drift().code()));
            let micros = UNIX_EPOCH + Duration::from_micros(g.time() / 1_000);
            assert_eq!(row.get::<_, SystemTime>(7), micros, "{g}");
            assert_eq!(row.get::<_, Vec<u8>>(8), g.to_bytes());
        }
        for l in &luids() {
            let row = db
                .query_one(
                    "SELECT $1::text::luid, $2::luid, $3::bytea::luid, $1::text::luid::text,
                            luid_seq($2), luid_drift($2), $2::luid::int8, $4::int8::luid",
                    &[&l.to_string(), l, &l.to_bytes().to_vec(), &l.to_i64()],
                )
                .await
                .unwrap();
            let (a, b, c, d): (Luid, Luid, Luid, Luid) =
                (row.get(0), row.get(1), row.get(2), row.get(7));
            assert_eq!((a, b, c, d), (*l, *l, *l, *l));
            assert_eq!(row.get::<_, String>(3), l.to_string());
            assert_eq!(row.get::<_, i32>(4), i32::from(l.seq()));
            assert_eq!(row.get::<_, i32>(5), i32::from(l.drift().code()));
            assert_eq!(row.get::<_, i64>(6), l.to_i64());
        }
        // The cast to luid drops the node, as `to_l64` does.
        for g in &ids {
            let l: Luid = db
                .query_one("SELECT $1::guid::luid", &[g])
                .await
                .unwrap()
                .get(0);
            assert_eq!(l, g.to_l64());
        }
    });
}

/// `ORDER BY`, btree and hash index lookups, `DISTINCT`, `min`/`max` and a
/// hash join all follow the library's order and equality.
#[test]
fn order_indexes_and_joins_are_the_librarys() {
    let Some(server) = server(false) else { return };
    runtime().block_on(async {
        let db = connect(&server).await;
        db.batch_execute(
            "CREATE TABLE g (id guid PRIMARY KEY);
             CREATE TABLE l (id luid PRIMARY KEY);
             CREATE INDEX g_hash ON g USING hash (id);
             CREATE INDEX l_hash ON l USING hash (id);",
        )
        .await
        .unwrap();
        let mut gs: Vec<Guid> = guids();
        // Ids of many nodes and times, from clocks with random nodes.
        let clocks: Vec<guid::Clock> = (0..8).map(|_| guid::Clock::new()).collect();
        gs.extend((0..4000).map(|i| clocks[i % 8].g()));
        gs = sorted(&gs);
        gs.dedup();
        let ls: Vec<Luid> = {
            let mut ls = sorted(&gs.iter().map(|g| g.to_l64()).collect::<Vec<_>>());
            ls.dedup();
            ls
        };
        for g in &gs {
            db.execute("INSERT INTO g VALUES ($1)", &[g]).await.unwrap();
        }
        for l in &ls {
            db.execute("INSERT INTO l VALUES ($1)", &[l]).await.unwrap();
        }
        db.batch_execute("ANALYZE g; ANALYZE l").await.unwrap();
        let all = |q: &'static str| {
            let db = &db;
            async move { db.query(q, &[]).await.unwrap() }
        };
        let back: Vec<Guid> = column(&db, "SELECT id FROM g ORDER BY id").await;
        assert_eq!(back, gs);
        let back: Vec<Guid> = column(&db, "SELECT id FROM g ORDER BY id DESC").await;
        assert_eq!(back, gs.iter().rev().copied().collect::<Vec<_>>());
        let back: Vec<Luid> = column(&db, "SELECT id FROM l ORDER BY id").await;
        assert_eq!(back, ls);
        let row = &all("SELECT min(id), max(id), count(DISTINCT id) FROM g").await[0];
        assert_eq!((row.get(0), row.get(1)), (gs[0], *gs.last().unwrap()));
        assert_eq!(row.get::<_, i64>(2) as usize, gs.len());
        let row = &all("SELECT min(id), max(id) FROM l").await[0];
        assert_eq!((row.get(0), row.get(1)), (ls[0], *ls.last().unwrap()));

        // Lookups and ranges through each index, with the sequential scan off.
        db.batch_execute("SET enable_seqscan = off; SET enable_bitmapscan = off")
            .await
            .unwrap();
        let middle = gs[gs.len() / 2];
        let upper: Vec<Guid> = db
            .query("SELECT id FROM g WHERE id >= $1 ORDER BY id", &[&middle])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(upper, gs[gs.len() / 2..]);
        let plan = explain(&db, &format!("SELECT id FROM g WHERE id >= '{middle}'")).await;
        assert!(plan.contains("g_pkey"), "{plan}");
        // Equality through the primary key alone, then the hash index alone.
        db.batch_execute("DROP INDEX g_hash").await.unwrap();
        for index in ["g_pkey", "g_hash"] {
            let plan = explain(&db, &format!("SELECT id FROM g WHERE id = '{middle}'")).await;
            assert!(plan.contains(index), "{plan}");
            let found = db
                .query("SELECT id FROM g WHERE id = $1", &[&middle])
                .await
                .unwrap();
            assert_eq!(found.len(), 1);
            db.batch_execute(
                "ALTER TABLE g DROP CONSTRAINT g_pkey; CREATE INDEX g_hash ON g USING hash (id)",
            )
            .await
            .ok();
        }
        // A hash join on guid, and one on the luid cast.
        db.batch_execute(
            "SET enable_mergejoin = off; SET enable_nestloop = off; SET enable_seqscan = on",
        )
        .await
        .unwrap();
        let q = "SELECT count(*) FROM g a JOIN g b USING (id)";
        let plan = explain(&db, q).await;
        assert!(plan.contains("Hash Join"), "{plan}");
        assert_eq!(all(q).await[0].get::<_, i64>(0) as usize, gs.len());
        let q = "SELECT count(*) FROM g JOIN l ON g.id::luid = l.id";
        let plan = explain(&db, q).await;
        assert!(plan.contains("Hash Join"), "{plan}");
        assert_eq!(all(q).await[0].get::<_, i64>(0) as usize, gs.len());
    });
}

/// The first column of every row of `query`.
async fn column<T: for<'a> tokio_postgres::types::FromSql<'a>>(db: &Client, query: &str) -> Vec<T> {
    db.query(query, &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// The plan of a query, one line per node.
async fn explain(db: &Client, query: &str) -> String {
    db.query(&format!("EXPLAIN (COSTS OFF) {query}"), &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Bad text, bytes and values are typed errors, never a crash: the server
/// answers the next statement.
#[test]
fn bad_input_is_a_typed_error() {
    let Some(server) = server(false) else { return };
    runtime().block_on(async {
        let db = connect(&server).await;
        let cases: &[(&str, &str)] = &[
            ("SELECT 'xx'::guid", "22P02"),
            ("SELECT ''::guid", "22P02"),
            ("SELECT 'NkHHyvq1H59MZmlU!'::guid", "22P02"),
            ("SELECT '........'::luid", "22P02"),
            ("SELECT '\\x00'::bytea::guid", "22P03"),
            ("SELECT '\\x000000000000000000000000'::bytea::guid", "22P03"),
            ("SELECT '\\x0000000000000000'::bytea::luid", "22P03"),
            (
                "SELECT '\\x0102030405060708090a0b0c0d'::bytea::guid",
                "22P03",
            ),
            ("SELECT (-9223372036854775808)::int8::luid", "22023"),
            ("SELECT guid_from_time('1969-12-31', 1)", "22008"),
            ("SELECT guid_from_time('infinity', 1)", "22008"),
            ("SELECT guid_from_time('3000-01-01', 1)", "22008"),
            ("SELECT guid_from_time(now(), -1)", "22023"),
            ("SELECT guid_from_time(now(), 4294967296)", "22023"),
            ("SELECT guid_from_time(now(), 1, 0)", "22023"),
            ("SELECT guid_from_time(now(), 1, 8)", "22023"),
            ("SELECT luid_from_time(now(), 9)", "22023"),
            ("SELECT luid_from_time('-infinity')", "22008"),
        ];
        for (query, expected) in cases {
            let e = db.query(*query, &[]).await.expect_err(query);
            assert_eq!(code(&e), *expected, "{query}: {e:?}");
        }
        // The library refuses to bind a local id to a guid; raw binary
        // input of the wrong length or drift reaches the server's receive.
        let e = db
            .query("SELECT $1::guid", &[&Luid::now()])
            .await
            .expect_err("a luid as a guid");
        assert!(e.to_string().contains("serializing"), "{e:?}");
        for (query, raw) in [
            ("SELECT $1::guid", &[1u8; 11][..]),
            ("SELECT $1::guid", &[0u8; 12][..]),
            ("SELECT $1::luid", &[1u8; 9][..]),
            ("SELECT $1::luid", &[0u8; 8][..]),
        ] {
            let e = db.query(query, &[&Raw(raw)]).await.expect_err(query);
            assert_eq!(code(&e), "22P03", "{query} {raw:?}: {e:?}");
        }
        assert_eq!(
            db.query_one("SELECT 1", &[])
                .await
                .unwrap()
                .get::<_, i32>(0),
            1
        );
    });
}

/// Bytes sent as the binary form of any type.
#[derive(Debug)]
struct Raw(&'static [u8]);

impl tokio_postgres::types::ToSql for Raw {
    fn to_sql(
        &self,
        _: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0);
        Ok(tokio_postgres::types::IsNull::No)
    }

    fn accepts(_: &tokio_postgres::types::Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

/// `guid_from_time` bounds ids by time: a range query returns exactly the
/// ids whose tick is in the range, through the primary key's index.
#[test]
fn range_queries_by_time_use_the_index() {
    let Some(server) = server(true) else { return };
    runtime().block_on(async {
        let db = connect(&server).await;
        db.batch_execute("CREATE TABLE g (id guid PRIMARY KEY, n int)").await.unwrap();
        // Ids of this server's node over two hours, one every 3.6 s.
        let start = 1_790_000_000_000_000_000u64;
        let ids: Vec<Guid> = (0..2000u64)
            .map(|i| Guid::compose(NODE, start + i * 3_600_000_000, 7, Drift::DEFAULT).unwrap())
            .collect();
        for (n, g) in ids.iter().enumerate() {
            db.execute("INSERT INTO g VALUES ($1, $2)", &[g, &(n as i32)])
                .await
                .unwrap();
        }
        db.batch_execute("ANALYZE g").await.unwrap();
        let at = |ns: u64| UNIX_EPOCH + Duration::from_nanos(ns);
        let (from, to) = (start + 1_800_000_000_000, start + 3_600_000_000_000);
        let q = "SELECT id FROM g WHERE id >= guid_from_time($1) AND id < guid_from_time($2) ORDER BY id";
        let plan = db
            .query(&format!("EXPLAIN (COSTS OFF) {q}"), &[&at(from), &at(to)])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(plan.contains("Index") && plan.contains("g_pkey"), "{plan}");
        let got: Vec<Guid> = db
            .query(q, &[&at(from), &at(to)])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let tick = |ns: u64| ns >> 17 << 17;
        let expected: Vec<Guid> = ids
            .iter()
            .copied()
            .filter(|g| g.time() >= tick(from) && g.time() < tick(to))
            .collect();
        assert!(expected.len() > 400, "{}", expected.len());
        assert_eq!(got, expected);
        // The two-argument form names the node: the same bounds here.
        let row = db
            .query_one(
                "SELECT guid_from_time($1) = guid_from_time($1, $2), guid_from_time($1, $2, 3)",
                &[&at(from), &i64::from(NODE)],
            )
            .await
            .unwrap();
        assert!(row.get::<_, bool>(0));
        let bound: Guid = row.get(1);
        assert_eq!(bound, Guid::compose(NODE, from, 0, Drift::DEFAULT).unwrap());
        let l: Luid = db
            .query_one("SELECT luid_from_time($1)", &[&at(from)])
            .await
            .unwrap()
            .get(0);
        assert_eq!(l, Luid::from_time(at(from), Drift::DEFAULT));
    });
}

/// `n` ids from `guid_generate()` in one statement, in the order made.
async fn generate(db: &Client, n: i32) -> Vec<Guid> {
    db.query("SELECT guid_generate() FROM generate_series(1, $1)", &[&n])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// One id from `xuid_generate()`.
async fn xuid(db: &Client) -> v3::Xuid {
    let row = db
        .query_one("SELECT uuid_send(xuid_generate())", &[])
        .await
        .unwrap();
    v3::Xuid::from_slice(row.get::<_, &[u8]>(0)).unwrap()
}

/// Eight backends at once, 100,000 ids each: no id repeats, each backend's
/// ids increase, all carry the server's node; the local ids of the same
/// clock are distinct too.
#[test]
fn eight_backends_share_one_clock() {
    let Some(server) = server(true) else { return };
    const N: i32 = 100_000;
    let rt = runtime();
    let (globals, locals) = rt.block_on(async {
        let mut dbs = Vec::new();
        for _ in 0..8 {
            dbs.push(connect(&server).await);
        }
        let tasks: Vec<_> = dbs
            .into_iter()
            .map(|db| {
                tokio::spawn(async move {
                    let g = generate(&db, N).await;
                    let l: Vec<Luid> = db
                        .query("SELECT luid_generate() FROM generate_series(1, 10000)", &[])
                        .await
                        .unwrap()
                        .iter()
                        .map(|r| r.get(0))
                        .collect();
                    (g, l)
                })
            })
            .collect();
        let mut globals = Vec::new();
        let mut locals = Vec::new();
        for task in tasks {
            let (g, l) = task.await.unwrap();
            globals.push(g);
            locals.push(l);
        }
        (globals, locals)
    });
    let mut seen = HashSet::new();
    for ids in &globals {
        assert_eq!(ids.len(), N as usize);
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "a backend's ids increase"
        );
        assert!(ids.iter().all(|g| g.node() == u64::from(NODE)));
        seen.extend(ids.iter().copied());
    }
    assert_eq!(seen.len(), 8 * N as usize, "0 duplicates");
    let mut local_seen = HashSet::new();
    for ids in &locals {
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        local_seen.extend(ids.iter().copied());
    }
    assert_eq!(local_seen.len(), 80_000);
    // The globals' local casts and the locals come from one state word.
    assert!(
        globals
            .iter()
            .flatten()
            .all(|g| !local_seen.contains(&g.to_l64()))
    );
}

/// A restart never repeats an id: after a clean stop and after killing
/// every process of the server, the next ids are later than every id made
/// before, and after a kill at most 2 s (the horizon's reach) ahead of the
/// wall clock; a horizon saved in the future holds the ids back past it,
/// and a damaged one stops the start.
#[test]
fn restarts_never_repeat() {
    let Some(mut server) = server(true) else {
        return;
    };
    let rt = runtime();
    let tick = 1 << 17;
    let mut last = rt.block_on(async {
        *generate(&connect(&server).await, 20_000)
            .await
            .last()
            .unwrap()
    });
    let mut last_x = rt.block_on(async { xuid(&connect(&server).await).await });
    for crash in [false, true, false, true] {
        server.restart(crash);
        let ids = rt.block_on(async { generate(&connect(&server).await, 20_000).await });
        let x = rt.block_on(async { xuid(&connect(&server).await).await });
        let now = guid::unix_nanos(SystemTime::now());
        assert!(ids[0] > last, "crash: {crash}: {} after {last}", ids[0]);
        assert!(x > last_x, "crash: {crash}: {x} after {last_x}");
        last_x = x;
        assert!(
            ids[0].time() <= now + 2_000_000_000 + tick,
            "crash: {crash}: {} ns ahead",
            ids[0].time() - now
        );
        last = *ids.last().unwrap();
    }
    // A backend killed: the postmaster ends every session and builds the
    // shared memory, and so the clock, anew from the horizon.
    let ids = rt.block_on(async {
        let db = connect(&server).await;
        let ids = generate(&db, 20_000).await;
        let pid: i32 = db
            .query_one("SELECT pg_backend_pid()", &[])
            .await
            .unwrap()
            .get(0);
        // SAFETY: signalling one of the server's processes, which this test started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        ids
    });
    assert!(ids[0] > last);
    last = *ids.last().unwrap();
    let after = rt.block_on(async {
        let until = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok((db, connection)) =
                tokio_postgres::connect(&server.config(), tokio_postgres::NoTls).await
            {
                tokio::spawn(connection);
                if let Ok(rows) = db.query("SELECT guid_generate()", &[]).await {
                    break rows[0].get::<_, Guid>(0);
                }
            }
            assert!(std::time::Instant::now() < until, "no reinitialization");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    assert!(
        after > last,
        "after a backend's crash: {after} after {last}"
    );
    assert!(server.log().contains("terminated by signal 9"));
    last = after;
    let file = server.data().join("kguid.horizon");
    // A horizon 30 s ahead (as after a clock stepped back while stopped).
    let ahead = guid::unix_nanos(SystemTime::now()) + 30_000_000_000;
    server.stop(false);
    std::fs::write(&file, format!("{ahead}\n")).unwrap();
    server.start().unwrap();
    let first = rt.block_on(async { generate(&connect(&server).await, 1).await[0] });
    assert!(first.time() >= ahead >> 17 << 17, "{first} vs {ahead}");
    assert!(first > last);
    // A damaged horizon: the server refuses to start, and says why.
    server.stop(false);
    let saved = std::fs::read_to_string(&file).unwrap();
    for damaged in ["", "12x\n", "0\n", "1795836968655388672"] {
        std::fs::write(&file, damaged).unwrap();
        let log = server.start().expect_err(damaged);
        assert!(
            log.contains("kguid.horizon does not hold a time"),
            "{damaged:?}: {log}"
        );
    }
    std::fs::write(&file, saved).unwrap();
    server.start().unwrap();
    let next = rt.block_on(async { generate(&connect(&server).await, 1).await[0] });
    assert!(next > first);
}

/// v3's 128-bit ids as `uuid`: from the server's v3 clock on its node,
/// increasing, read back by the library with the same parts; a uuid that
/// is no such id is refused.
#[test]
fn xuids_are_uuids_of_the_servers_v3_clock() {
    let Some(server) = server(true) else { return };
    runtime().block_on(async {
        let db = connect(&server).await;
        let rows = db
            .query(
                "SELECT uuid_send(x), x::text, xuid_time(x), xuid_node(x), xuid_seq(x)
                   FROM (SELECT xuid_generate() x FROM generate_series(1, 5000)) s",
                &[],
            )
            .await
            .unwrap();
        let mut last = None;
        for row in &rows {
            let x = v3::Xuid::from_slice(row.get::<_, &[u8]>(0)).unwrap();
            assert_eq!(x.node(), u64::from(NODE));
            assert_eq!(row.get::<_, String>(1).parse::<v3::Xuid>(), Ok(x));
            let micros = UNIX_EPOCH + Duration::from_micros(x.time() / 1_000);
            assert_eq!(row.get::<_, SystemTime>(2), micros);
            assert_eq!(row.get::<_, i64>(3) as u64, x.node());
            assert_eq!(row.get::<_, i32>(4), i32::from(x.seq()));
            assert!(last < Some(x), "increasing");
            last = Some(x);
        }
        // uuid's own order is the ids': a bound by time selects the later ones.
        db.batch_execute("CREATE TABLE x (id uuid PRIMARY KEY DEFAULT xuid_generate(), n int)")
            .await
            .unwrap();
        db.batch_execute("INSERT INTO x (n) SELECT generate_series(1, 1000)")
            .await
            .unwrap();
        let t = SystemTime::now() + Duration::from_millis(5);
        std::thread::sleep(Duration::from_millis(10));
        db.batch_execute("INSERT INTO x (n) SELECT generate_series(1001, 1500)")
            .await
            .unwrap();
        let n: i64 = db
            .query_one(
                "SELECT count(*) FROM x WHERE id >= xuid_from_time($1)",
                &[&t],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(n, 500);
        let e = db
            .query("SELECT xuid_time(gen_random_uuid())", &[])
            .await
            .expect_err("a random uuid");
        assert_eq!(code(&e), "22023", "{e:?}");
    });
}

/// Without `shared_preload_libraries` the types work and generating
/// refuses, naming the setting.
#[test]
fn without_preloading_generating_refuses() {
    let Some(server) = server(false) else { return };
    runtime().block_on(async {
        let db = connect(&server).await;
        for query in [
            "SELECT guid_generate()",
            "SELECT luid_generate()",
            "SELECT kguid_node()",
        ] {
            let e = db.query(query, &[]).await.expect_err(query);
            assert_eq!(code(&e), "55000", "{e:?}");
            let detail = e.as_db_error().and_then(|e| e.detail()).unwrap_or_default();
            assert!(
                detail.contains("shared_preload_libraries = 'kguid'"),
                "{e:?}"
            );
        }
        let g = Guid::now();
        let back: Guid = db
            .query_one("SELECT $1::text::guid", &[&g.to_string()])
            .await
            .unwrap()
            .get(0);
        assert_eq!(back, g);
    });
}

/// Ids made in SQL, printed by `psql`-style text output, are read by the
/// `guid` command and by the library, with the same parts.
#[test]
fn sql_ids_read_back_by_the_guid_command_and_the_library() {
    let Some(server) = server(true) else { return };
    let ids: Vec<(String, Guid)> = runtime().block_on(async {
        let db = connect(&server).await;
        db.query(
            "SELECT g::text, g FROM (SELECT guid_generate() g FROM generate_series(1, 50)) s",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
    });
    let mut command = Command::new(env!("CARGO"));
    command.args(["run", "-q", "-p", "kguid-cli", "--", "inspect"]);
    command.args(ids.iter().map(|(text, _)| text));
    let out = command.output().expect("run the guid command");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), ids.len());
    for ((text, g), line) in ids.iter().zip(&lines) {
        assert_eq!(text.parse::<Guid>().unwrap(), *g);
        assert_eq!(line["kind"], "g", "{text}");
        assert_eq!(line["node"], g.node(), "{text}");
        assert_eq!(line["seq"], g.seq(), "{text}");
        assert_eq!(line["time_ns"], g.time(), "{text}");
        assert_eq!(line["hex"], format!("{g:x}"), "{text}");
    }
}

/// Ids made at once on two servers, `n` on each.
fn at_once(a: &Postgres, b: &Postgres, n: i32) -> (Vec<Guid>, Vec<Guid>) {
    runtime().block_on(async {
        let (da, db) = (connect(a).await, connect(b).await);
        tokio::join!(generate(&da, n), generate(&db, n))
    })
}

/// How many ids of `a` are also in `b`.
fn in_common(a: &[Guid], b: &[Guid]) -> usize {
    let a: HashSet<Guid> = a.iter().copied().collect();
    b.iter().filter(|id| a.contains(id)).count()
}

/// The SQLSTATE and message of each generator on `server`, which refuses.
fn refusals(server: &Postgres) -> Vec<(String, String)> {
    runtime().block_on(async {
        let db = connect(server).await;
        let mut seen = Vec::new();
        for query in [
            "SELECT guid_generate()",
            "SELECT luid_generate()",
            "SELECT xuid_generate()",
            "SELECT kguid_node()",
        ] {
            let e = db.query(query, &[]).await.expect_err(query);
            let db_error = e.as_db_error().expect("a server's error");
            seen.push((
                code(&e),
                format!(
                    "{} {}",
                    db_error.message(),
                    db_error.hint().or(db_error.detail()).unwrap_or_default()
                ),
            ));
        }
        seen
    })
}

/// Waits until `server` has ended recovery.
fn until_primary(server: &Postgres) {
    runtime().block_on(async {
        let db = connect(server).await;
        let until = std::time::Instant::now() + Duration::from_secs(60);
        while db
            .query_one("SELECT pg_is_in_recovery()", &[])
            .await
            .unwrap()
            .get::<_, bool>(0)
        {
            assert!(std::time::Instant::now() < until, "still in recovery");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}

/// The node of `server`'s ids.
fn node_of(server: &Postgres) -> u32 {
    runtime().block_on(async {
        let db = connect(server).await;
        let node: i64 = db
            .query_one("SELECT kguid_node()", &[])
            .await
            .unwrap()
            .get(0);
        node as u32
    })
}

/// A streaming standby, its clock 2 s behind its primary's: it refuses to
/// make ids while it follows, and once promoted (here while the old
/// primary still runs, as in a split brain) makes ids on a node of its own,
/// its new timeline's, so that none is the old primary's.
#[test]
fn standbys_refuse_and_a_promoted_one_makes_ids_of_its_own() {
    let Some(primary) = server(true) else { return };
    let before = runtime().block_on(async { generate(&connect(&primary).await, 100_000).await });
    let behind = ["env", "DONT_FAKE_MONOTONIC=1", "faketime", "-f", "-2"];
    let standby = primary.backup(true, &PRELOAD, &behind, |_| {});
    for (code, message) in refusals(&standby) {
        assert_eq!(code, "25006", "{message}");
        assert!(message.contains("in recovery"), "{message}");
    }
    runtime().block_on(async {
        let db = connect(&standby).await;
        let promoted: bool = db
            .query_one("SELECT pg_promote(true, 60)", &[])
            .await
            .unwrap()
            .get(0);
        assert!(promoted);
    });
    assert_eq!(node_of(&primary), NODE);
    assert_eq!(node_of(&standby), 1 << 24 | NODE, "timeline 2's node");
    let (old, new) = at_once(&primary, &standby, 300_000);
    assert_eq!(in_common(&old, &new), 0);
    assert_eq!(in_common(&before, &new), 0);
    assert!(new.iter().all(|id| id.node() == u64::from(1 << 24 | NODE)));
    assert!(new.windows(2).all(|w| w[0] < w[1]));
}

/// A base backup started as a primary of its own beside the original keeps
/// the original's timeline and settings: it refuses to make ids until given
/// a node of its own (or told, by removing its mark, that the original
/// makes no more), and then makes none of the original's.
#[test]
fn a_copy_started_as_a_primary_refuses_until_given_a_node() {
    let Some(original) = server(true) else { return };
    let first = runtime().block_on(async { generate(&connect(&original).await, 10_000).await });
    let mut copy = original.backup(false, &PRELOAD, &[], |_| {});
    let mark = copy.data().join("kguid.copy");
    for restart in [false, true] {
        for (code, message) in refusals(&copy) {
            assert_eq!(code, "55000", "restart {restart}: {message}");
            assert!(message.contains(&format!("node {NODE}")), "{message}");
            assert!(message.contains("kguid.node"), "{message}");
        }
        assert_eq!(std::fs::read_to_string(&mark).unwrap(), format!("{NODE}\n"));
        copy.restart(restart);
    }
    // A node of its own: the mark goes, and no id is the original's.
    copy.set("kguid.node", "24302");
    copy.restart(false);
    assert_eq!(node_of(&copy), 24302);
    assert!(!mark.exists());
    let (a, b) = at_once(&original, &copy, 300_000);
    assert_eq!(in_common(&a, &b) + in_common(&first, &b), 0);

    // Told that the original makes no more ids: its node, after its ids.
    let mut moved = original.backup(false, &PRELOAD, &[], |_| {});
    assert_eq!(refusals(&moved).len(), 4);
    std::fs::remove_file(moved.data().join("kguid.copy")).unwrap();
    moved.restart(false);
    let ids = runtime().block_on(async { generate(&connect(&moved).await, 1_000).await });
    assert!(ids[0] > *a.last().unwrap(), "after the original's ids");
    assert_eq!(ids[0].node(), u64::from(NODE));
}

/// A file-system snapshot of a running server's data directory, started as
/// a primary beside it (no `backup_label`: it reads as a restart after a
/// crash): the ids of its node were last made in another directory, so it
/// refuses until given a node of its own, or told by removing its mark;
/// the original goes on, and a restart of either keeps what it does.
#[test]
fn a_snapshot_started_beside_its_original_refuses_until_given_a_node() {
    let Some(mut original) = server(true) else {
        return;
    };
    let first = runtime().block_on(async { generate(&connect(&original).await, 10_000).await });
    let mut copy = original.snapshot(&PRELOAD);
    let mark = copy.data().join("kguid.copy");
    for restart in [false, true] {
        for (code, message) in refusals(&copy) {
            assert_eq!(code, "55000", "restart {restart}: {message}");
            assert!(message.contains(&format!("node {NODE}")), "{message}");
        }
        assert_eq!(std::fs::read_to_string(&mark).unwrap(), format!("{NODE}\n"));
        copy.restart(restart);
    }
    original.restart(false);
    assert_eq!(node_of(&original), NODE, "the original goes on");
    assert!(!original.data().join("kguid.copy").exists());

    copy.set("kguid.node", "24302");
    copy.restart(false);
    assert_eq!(node_of(&copy), 24302);
    assert!(!mark.exists());
    let (a, b) = at_once(&original, &copy, 300_000);
    assert_eq!(in_common(&a, &b) + in_common(&first, &b), 0);

    // Told that the original makes no more ids: not marked again.
    let mut told = original.snapshot(&PRELOAD);
    assert_eq!(refusals(&told).len(), 4);
    std::fs::remove_file(told.data().join("kguid.copy")).unwrap();
    told.restart(false);
    assert_eq!(node_of(&told), NODE);
    told.restart(true);
    assert_eq!(node_of(&told), NODE);
}

/// A point-in-time recovery of a backup, to a time in the past, started
/// beside the original: the recovery starts a new timeline, and its ids
/// are on that timeline's node.
#[test]
fn a_point_in_time_recovery_makes_ids_of_its_own() {
    let archive = std::env::temp_dir().join(format!("kguid-pg-archive-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&archive);
    std::fs::create_dir_all(&archive).unwrap();
    support::give_to_server(&archive);
    let archive_command = format!("cp %p {}/%f", archive.display());
    let settings = [
        ("archive_mode", "on"),
        ("archive_command", archive_command.as_str()),
    ];
    let Some(original) = server_with(&settings) else {
        return;
    };
    let rt = runtime();
    let mut before = Vec::new();
    let restored = original.backup(false, &PRELOAD, &[], |data| {
        rt.block_on(async {
            let db = connect(&original).await;
            before = generate(&db, 50_000).await;
            db.batch_execute("CREATE TABLE t (id guid DEFAULT guid_generate())").await.unwrap();
            std::thread::sleep(Duration::from_millis(20));
            let target: String =
                db.query_one("SELECT now()::text", &[]).await.unwrap().get(0);
            std::thread::sleep(Duration::from_millis(20));
            db.batch_execute("INSERT INTO t DEFAULT VALUES").await.unwrap();
            before.extend(generate(&db, 50_000).await);
            db.batch_execute("SELECT pg_switch_wal()").await.unwrap();
            // Until the switched segment is archived.
            let until = std::time::Instant::now() + Duration::from_secs(60);
            loop {
                let row = db
                    .query_one("SELECT last_archived_wal IS NOT NULL AND last_failed_wal IS NULL FROM pg_stat_archiver", &[])
                    .await
                    .unwrap();
                if row.get::<_, bool>(0) {
                    break;
                }
                assert!(std::time::Instant::now() < until, "nothing archived");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            support::write_as_server(&data.join("recovery.signal"), "");
            let auto = data.join("postgresql.auto.conf");
            let mut conf = std::fs::read_to_string(&auto).unwrap();
            conf += &format!(
                "restore_command = 'cp {}/%f %p'\nrecovery_target_time = '{target}'\nrecovery_target_action = 'promote'\n",
                archive.display()
            );
            support::write_as_server(&auto, &conf);
        });
    });
    until_primary(&restored);
    assert_eq!(node_of(&restored), 1 << 24 | NODE, "timeline 2's node");
    let rows: i64 = rt.block_on(async {
        connect(&restored)
            .await
            .query_one("SELECT count(*) FROM t", &[])
            .await
            .unwrap()
            .get(0)
    });
    assert_eq!(rows, 0, "recovered to the time before the insert");
    let (a, b) = at_once(&original, &restored, 300_000);
    assert_eq!(in_common(&a, &b) + in_common(&before, &b), 0);
    drop((original, restored));
    let _ = std::fs::remove_dir_all(&archive);
}

/// `pg_upgrade` makes a new cluster (on timeline 1, without the old data
/// directory's files): with `kguid.horizon` copied over, as README says,
/// the upgraded server's ids follow the old one's, even those that ran
/// ahead of the wall clock.
#[test]
fn an_upgraded_cluster_goes_on_after_the_old_ones_ids() {
    let Some(mut server) = server(true) else {
        return;
    };
    let rt = runtime();
    // Ids 30 s ahead of the wall clock, as after a clock that stepped back.
    server.stop(false);
    let ahead = guid::unix_nanos(SystemTime::now()) + 30_000_000_000;
    support::write_as_server(&server.data().join("kguid.horizon"), &format!("{ahead}\n"));
    server.start().unwrap();
    let old = rt.block_on(async { generate(&connect(&server).await, 10_000).await });
    server.upgrade(|old, new| {
        let horizon = std::fs::read_to_string(old.join("kguid.horizon")).unwrap();
        support::write_as_server(&new.join("kguid.horizon"), &horizon);
    });
    let new = rt.block_on(async { generate(&connect(&server).await, 10_000).await });
    assert!(
        new[0] > *old.last().unwrap(),
        "{} after {}",
        new[0],
        old.last().unwrap()
    );
    assert_eq!(new[0].node(), u64::from(NODE));
}

/// A node past 24 bits stops the start, saying why: the top 8 bits carry
/// the timeline.
#[test]
fn a_node_past_24_bits_stops_the_start() {
    let Some(mut server) = server(true) else {
        return;
    };
    server.stop(false);
    server.set("kguid.node", "16777216");
    assert_eq!(PRELOAD[1].1.parse(), Ok(NODE));
    let log = server.start().expect_err("a node past 24 bits");
    assert!(
        log.contains("kguid.node = '16777216' is not a node id: 0 to 16777215"),
        "{log}"
    );
    server.set("kguid.node", "0xffffff");
    server.start().unwrap();
    assert_eq!(node_of(&server), 0xff_ffff);
}
