//! Many connections at once, and a clock that steps back under load.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use common::{Server, shifted_clock};
use kguid_service::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Raises the soft limit of open files to the hard one (the test holds both
/// ends of every connection).
fn raise_nofile() {
    // SAFETY: getrlimit/setrlimit only read and write the struct given.
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// Opens `conns` connections, then on each sends `requests` lock-step
/// requests of sizes from `sizes`; returns every connection's ids, or the
/// first failure.
fn load(
    addr: SocketAddr,
    conns: usize,
    requests: usize,
    sizes: &'static [u8],
    during: impl FnOnce() + Send + 'static,
) -> Vec<Vec<u64>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let mut streams = Vec::with_capacity(conns);
        for _ in 0..conns {
            let s = TcpStream::connect(addr).await.expect("connect");
            s.set_nodelay(true).unwrap();
            streams.push(s);
        }
        let meddler = std::thread::spawn(during);
        let mut tasks = tokio::task::JoinSet::new();
        for (i, mut s) in streams.into_iter().enumerate() {
            tasks.spawn(async move {
                let mut ids = Vec::new();
                let mut buf = vec![0u8; 255 * 8];
                for r in 0..requests {
                    let n = sizes[(i + r) % sizes.len()];
                    s.write_all(&[n])
                        .await
                        .map_err(|e| format!("conn {i} write: {e}"))?;
                    let reply = &mut buf[..usize::from(n) * 8];
                    s.read_exact(reply)
                        .await
                        .map_err(|e| format!("conn {i} request {r}: {e}"))?;
                    ids.extend(
                        reply
                            .chunks_exact(8)
                            .map(|c| u64::from_be_bytes(c.try_into().unwrap())),
                    );
                }
                Ok::<_, String>(ids)
            });
        }
        let all = tokio::time::timeout(Duration::from_secs(60), tasks.join_all())
            .await
            .expect("load finished in time");
        meddler.join().unwrap();
        all.into_iter().collect::<Result<Vec<_>, _>>().unwrap()
    })
}

fn check_unique_and_increasing(per_conn: &[Vec<u64>]) -> usize {
    let mut all = Vec::with_capacity(per_conn.iter().map(Vec::len).sum());
    for ids in per_conn {
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "a connection's ids did not increase"
        );
        all.extend_from_slice(ids);
    }
    all.sort_unstable();
    if let Some(w) = all.windows(2).find(|w| w[0] == w[1]) {
        panic!("duplicate id {}", w[0]);
    }
    all.len()
}

/// 1,000 connections at once, 20 requests each of 1 to 255 ids: no id
/// twice, each connection's ids strictly increasing.
#[test]
fn thousand_connections() {
    raise_nofile();
    let server = Server::start(Config::default());
    let per_conn = load(server.addr, 1_000, 20, &[1, 7, 64, 255, 2], || {});
    assert_eq!(per_conn.len(), 1_000);
    let total = check_unique_and_increasing(&per_conn);
    assert_eq!(total, 1_000 * 4 * (1 + 7 + 64 + 255 + 2));
    let report = server.stop();
    assert_eq!(report.ids, total as u64);
    assert_eq!(report.connections, 1_000);
}

/// The server's clock steps back twice by seconds while 200 connections
/// ask for ids: every request is answered, no id twice, ids increasing.
/// (The max lead covers the steps, so the clock borrows through them
/// rather than waiting for the source to come back.)
#[test]
fn clock_steps_back_under_load() {
    let back = Arc::new(AtomicU64::new(0));
    let mut config = Config::default();
    config.time.max_lead = Duration::from_secs(10);
    config.time.source = Some(Arc::new(shifted_clock(Arc::clone(&back))));
    let server = Server::start(config);
    let meddle = {
        let back = Arc::clone(&back);
        move || {
            std::thread::sleep(Duration::from_millis(100));
            back.store(2_000_000_000, Ordering::Relaxed); // 2 s back
            std::thread::sleep(Duration::from_millis(100));
            back.store(5_000_000_000, Ordering::Relaxed); // 3 s further back
        }
    };
    let per_conn = load(server.addr, 200, 120, &[1, 16, 255, 3], meddle);
    assert_eq!(per_conn.len(), 200, "no connection closed");
    let total = check_unique_and_increasing(&per_conn);
    assert_eq!(total, 200 * 30 * (1 + 16 + 255 + 3));
    let report = server.stop();
    // The second step comes while the source is still behind: one episode,
    // whose largest step is nearly the whole 5 s.
    assert!(report.health.steps_back >= 1, "{:?}", report.health);
    assert!(
        report.health.max_step_back >= Duration::from_secs(4),
        "{:?}",
        report.health
    );
    assert_eq!(report.faults, 0);
}

/// Past the 64-bit layout's cap the service paces the connection itself:
/// ids keep coming at the cap, the clock never sleeps the server's thread,
/// and the 96-bit listener keeps answering meanwhile. The layout has 8
/// sequence bits (256 ids per millisecond), so even a slow debug build
/// reaches the cap.
#[test]
fn at_the_cap_the_service_paces_without_blocking() {
    use std::io::{Read, Write};
    let layout = guid::flake::Layout::new(45, 10, 8).unwrap();
    let mut config = Config::default();
    config.ids.layout = layout;
    config.time.max_lead = Duration::from_millis(5);
    let server = Server::start_with(config, true);
    let flood = {
        let addr = server.addr;
        std::thread::spawn(move || {
            let mut s = common::raw(addr);
            let mut buf = vec![0u8; 16 * 255 * 8];
            let mut ids = Vec::new();
            let start = std::time::Instant::now();
            while start.elapsed() < Duration::from_millis(400) {
                s.write_all(&[255; 16]).unwrap();
                s.read_exact(&mut buf).unwrap();
                ids.extend(
                    buf.chunks_exact(8)
                        .map(|c| u64::from_be_bytes(c.try_into().unwrap())),
                );
            }
            (ids, std::time::SystemTime::now())
        })
    };
    let mut g = common::raw(server.global.unwrap());
    let mut answered = 0;
    while !flood.is_finished() {
        g.write_all(&[1]).unwrap();
        common::read_n(&mut g, 12);
        answered += 1;
    }
    let (ids, ended) = flood.join().unwrap();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // Whole milliseconds were used up: the cap was reached.
    let full = ids
        .chunk_by(|a, b| layout.decompose(*a).unwrap().time == layout.decompose(*b).unwrap().time)
        .filter(|ms| ms.len() as u64 == layout.max_seq() + 1)
        .count();
    assert!(full > 0, "no millisecond used up in {} ids", ids.len());
    // Paced, not run away: no id is further ahead than the lead allows.
    let last = layout.time_of(*ids.last().unwrap()).unwrap();
    assert!(
        last <= ended + Duration::from_millis(5) + layout.unit(),
        "{last:?} is past {ended:?} + 5 ms"
    );
    assert!(answered > 0);
    drop(g);
    let report = server.stop();
    assert!(report.health.borrowed > 0, "{:?}", report.health);
    assert_eq!(report.health.waits, 0, "{:?}", report.health);
}

/// With busy polling on, the loop watches the socket it served last before
/// it sleeps; a client on another socket is still served (after the watch
/// at most), and every id stays unique and increasing.
#[test]
fn busy_polling_serves_every_connection() {
    use std::io::Write;
    let mut config = Config::default();
    config.process.busy_poll = Duration::from_millis(2);
    let server = Server::start_with(config, false);
    let mut conns = [common::raw(server.addr), common::raw(server.addr)];
    let mut ids = [Vec::new(), Vec::new()];
    for round in 0..2_000 {
        // Mostly alternating, sometimes the same socket twice in a row.
        let i = if round % 7 == 0 { 0 } else { round % 2 };
        conns[i].write_all(&[1 + (round % 3) as u8]).unwrap();
        ids[i].extend(common::read_ids(&mut conns[i], 1 + round % 3));
    }
    for mine in &ids {
        assert!(mine.windows(2).all(|w| w[0] < w[1]));
    }
    let mut all: Vec<u64> = ids.concat();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "duplicates across connections");
    drop(conns);
    let report = server.stop();
    assert_eq!(report.ids, n as u64);
}
