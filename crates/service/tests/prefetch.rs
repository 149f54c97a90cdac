//! `Prefetch`: ids fetched ahead from a server in this process.
#![cfg(feature = "server")]

mod common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::{Server, eventually, scrape};
use guid::Guid;
use kguid_service::{Client, ClientError, Config, Prefetch};

/// Ids per fetch (16 requests of 255).
const BATCH: usize = 4_080;

fn strictly_increasing<T: Ord>(ids: &[T]) -> bool {
    ids.windows(2).all(|w| w[0] < w[1])
}

/// Four threads, each with a clone of one prefetcher (a small buffer, so
/// that they take turns at many refills): each one's ids increase, and
/// no id is handed out twice.
#[test]
fn shared_handles_increase_per_caller_and_are_distinct() {
    let server = Server::start_with(Config::default(), true);
    let client = Client::connect_g([server.global.unwrap()], None).unwrap();
    let ids = Prefetch::with_capacity(client, BATCH).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let mut ids = ids.clone();
            std::thread::spawn(move || -> Vec<Guid> {
                (0..50_000).map(|_| ids.next().unwrap()).collect()
            })
        })
        .collect();
    drop(ids);
    let mut all = HashSet::new();
    for t in threads {
        let mine = t.join().unwrap();
        assert!(strictly_increasing(&mine));
        all.extend(mine);
    }
    assert_eq!(all.len(), 200_000);
    let report = server.stop();
    assert!(report.global_ids >= 200_000);
}

/// Four threads, each with a prefetcher of its own (its own connection),
/// for 64-bit ids: each one's ids increase, none repeats across them.
#[test]
fn owned_prefetchers_increase_and_are_distinct() {
    let server = Server::start(Config::default());
    let addr = server.addr;
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || -> Vec<u64> {
                let mut ids = Prefetch::new(Client::connect([addr], None).unwrap()).unwrap();
                let mut mine = ids.next_n(7_000).unwrap();
                mine.extend((0..13_000).map(|_| ids.next().unwrap()));
                mine
            })
        })
        .collect();
    let mut all = HashSet::new();
    for t in threads {
        let mine = t.join().unwrap();
        assert!(strictly_increasing(&mine));
        all.extend(mine);
    }
    assert_eq!(all.len(), 80_000);
}

/// The buffer fills to its capacity, is not refilled while it holds at
/// least half, and is refilled to the full capacity once it holds less.
#[test]
fn refills_from_the_low_water_mark_to_the_capacity() {
    let server = Server::start_with(Config::default(), true);
    let client = Client::connect_g([server.global.unwrap()], None).unwrap();
    let mut ids = Prefetch::with_capacity(client, 4 * BATCH).unwrap();
    assert_eq!(ids.capacity(), 4 * BATCH);
    eventually(Duration::from_secs(5), "a full buffer", || {
        (ids.buffered() == 4 * BATCH).then_some(())
    });
    // Two batches taken: half the capacity left, no refill.
    ids.next().unwrap();
    ids.next_n(BATCH).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(ids.buffered(), 3 * BATCH - 1);
    // A third: below the mark, refilled to the capacity.
    ids.next_n(BATCH).unwrap();
    eventually(Duration::from_secs(5), "a refilled buffer", || {
        (ids.buffered() == 4 * BATCH + BATCH - 1).then_some(())
    });
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        ids.buffered(),
        5 * BATCH - 1,
        "no fetch beyond the capacity"
    );
}

/// A stopped server: the ids already buffered are handed out, then a
/// typed error, at once and again on every call; no panic, no hang.
#[test]
fn a_stopped_server_is_a_typed_error() {
    let server = Server::start_with(Config::default(), true);
    let client = Client::connect_g([server.global.unwrap()], None)
        .unwrap()
        .retries(1)
        .timeout(Duration::from_millis(500));
    let mut ids = Prefetch::with_capacity(client, 2 * BATCH).unwrap();
    let first = ids.next().unwrap();
    // Full, as the timing went: the first call took the first batch before
    // a second came (then the thread refills 2 batches: 3 batches less the
    // one id), or after the buffer's 2 were in (1 left, not below the
    // low-water mark: 2 batches less the id).
    let full = eventually(Duration::from_secs(5), "a full buffer", || {
        let n = ids.buffered();
        [2 * BATCH - 1, 3 * BATCH - 1].contains(&n).then_some(n)
    });
    let report = server.stop();
    let mut handed = 1u64;
    let mut last = first;
    let err = loop {
        match ids.next() {
            Ok(id) => {
                assert!(id > last);
                last = id;
                handed += 1;
                assert!(handed <= report.global_ids, "only ids the server issued");
            }
            Err(e) => break e,
        }
    };
    assert!(matches!(err, ClientError::Failed { .. }), "{err:?}");
    assert!(
        handed > full as u64,
        "every id buffered before the stop is handed out"
    );
    let started = Instant::now();
    for _ in 0..3 {
        assert!(matches!(ids.next(), Err(ClientError::Failed { .. })));
        assert!(matches!(ids.next_n(10), Err(ClientError::Failed { .. })));
    }
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "errors come at once"
    );
    drop(ids);
}

/// Dropping the last handle stops the thread, which closes its
/// connection; a clone keeps it running.
#[test]
fn dropping_the_last_handle_stops_the_thread() {
    let server = Server::start_full(Config::default(), true, true);
    let open = || scrape(server.metrics.unwrap())["guid_connections_open{listener=\"global\"}"];
    let client = Client::connect_g([server.global.unwrap()], None).unwrap();
    let mut ids = Prefetch::new(client).unwrap();
    ids.next().unwrap();
    let mut other = ids.clone();
    assert_eq!(open(), 1.0);
    drop(ids);
    other.next().unwrap();
    assert_eq!(open(), 1.0, "a clone keeps the thread");
    let started = Instant::now();
    drop(other);
    assert!(started.elapsed() < Duration::from_secs(1));
    eventually(Duration::from_secs(5), "the connection closed", || {
        (open() == 0.0).then_some(())
    });
}
