//! Idle connections are closed; connections past the cap are refused.

mod common;

use std::io::Write;
use std::time::Duration;

use common::{Server, ask, closed, raw};
use kguid_service::Config;

/// A silent connection is closed after the idle timeout; a busy one is not.
#[test]
fn idle_timeout() {
    let mut config = Config::default();
    config.conns.idle_timeout = Some(Duration::from_millis(300));
    let server = Server::start(config);
    let mut idle = raw(server.addr);
    let mut busy = raw(server.addr);
    assert_eq!(ask(&mut idle, 1).len(), 1);
    for _ in 0..8 {
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(ask(&mut busy, 2).len(), 2);
    }
    // 800 ms without a request: the idle one is gone, the busy one is served.
    assert!(closed(&mut idle));
    assert_eq!(ask(&mut busy, 1).len(), 1);
    drop(busy); // closed by the client, not idle
    // A connection that never sends a byte is closed too.
    let mut mute = raw(server.addr);
    let start = std::time::Instant::now();
    assert!(closed(&mut mute));
    assert!(
        start.elapsed() >= Duration::from_millis(250),
        "{:?}",
        start.elapsed()
    );
    let report = server.stop();
    assert_eq!(report.idle_closed, 2);
}

/// Past `max_conns`, new connections are closed at once; when one of the
/// served ones goes, a new one is served again.
#[test]
fn connection_cap() {
    let mut config = Config::default();
    config.conns.max_conns = 2;
    let server = Server::start(config);
    let mut a = raw(server.addr);
    let mut b = raw(server.addr);
    assert_eq!(ask(&mut a, 1).len(), 1);
    assert_eq!(ask(&mut b, 1).len(), 1);
    let mut c = raw(server.addr);
    let _ = c.write_all(&[1]);
    assert!(closed(&mut c), "the third connection is refused");
    drop(a);
    std::thread::sleep(Duration::from_millis(100));
    let mut d = raw(server.addr);
    assert_eq!(ask(&mut d, 3).len(), 3);
    assert_eq!(ask(&mut b, 1).len(), 1);
    drop((b, d));
    let report = server.stop();
    assert_eq!(report.rejected, 1);
    assert_eq!(report.connections, 4);
}
