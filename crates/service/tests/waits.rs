//! A connection waiting at the 64-bit clock's cap is not stuck there: the
//! wait ends on shutdown and on the idle timeout, and the exit totals count
//! the ids it was sent.

mod common;

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Server, ask, closed, raw};
use guid::MockTime;
use guid::flake::Layout;
use kguid_service::Config;

/// A minute into an hour (Unix ns).
const T0: u64 = 1_700_002_860_000_000_000;

/// 256 ids per hour-long unit, no lead, and a clock that stands still: the
/// third request of 255 waits for the next hour. A state file says the
/// previous run ended the hour before (without one, a restart could not
/// issue in the hour it starts in, where the previous run may have).
fn hourly(name: &str) -> Config {
    let mut c = Config::default();
    c.ids.layout = Layout::new(45, 10, 8)
        .unwrap()
        .with_unit(Duration::from_secs(3600))
        .unwrap();
    c.time.max_lead = Duration::ZERO;
    c.time.source = Some(Arc::new(MockTime::new(T0)));
    let state = common::temp_dir(name).join("state");
    std::fs::write(&state, format!("{}\n", T0 - 3_600_000_000_000)).unwrap();
    c.time.state = Some(state);
    c
}

/// Two requests answered (the second spills into the next unit), the third
/// left waiting.
fn wait_at_the_cap(server: &Server) -> std::net::TcpStream {
    let mut s = raw(server.addr);
    assert_eq!(ask(&mut s, 255).len(), 255);
    assert_eq!(ask(&mut s, 255).len(), 255);
    s.write_all(&[255]).unwrap();
    assert!(
        common::silent(&mut s, Duration::from_millis(200)),
        "not waiting"
    );
    s
}

#[test]
fn a_wait_at_the_cap_ends_on_shutdown_and_its_ids_are_counted() {
    let mut c = hourly("wait-shutdown");
    c.process.grace = Duration::from_secs(30);
    let server = Server::start(c);
    let _s = wait_at_the_cap(&server);
    let asked = Instant::now();
    let report = server.stop();
    // Far from the grace period it would otherwise wait out.
    assert!(
        asked.elapsed() < Duration::from_secs(15),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!((report.ids, report.requests), (510, 2));
}

#[test]
fn a_wait_at_the_cap_ends_on_the_idle_timeout() {
    let mut c = hourly("wait-idle");
    c.conns.idle_timeout = Some(Duration::from_millis(500));
    let server = Server::start(c);
    let mut s = wait_at_the_cap(&server);
    assert!(closed(&mut s), "still waiting past the idle timeout");
    let report = server.stop();
    assert_eq!(report.idle_closed, 1);
    assert_eq!(report.ids, 510);
}

/// A client that asks for far more than the sockets hold and stops
/// reading: shutdown gives up on it after the grace period, and the totals
/// still count what it was sent.
#[test]
fn a_connection_cut_short_at_shutdown_is_counted() {
    let mut c = Config::default();
    c.process.grace = Duration::from_millis(300);
    let server = Server::start_with(c, true);
    let mut s = raw(server.global.unwrap());
    s.write_all(&[255; 8_000]).unwrap(); // 24 MB of replies
    let read = 100 * 255;
    common::read_n(&mut s, read * 12);
    let report = server.stop();
    assert!(
        report.global_ids >= read as u64,
        "{} ids reported, {read} read",
        report.global_ids
    );
}
