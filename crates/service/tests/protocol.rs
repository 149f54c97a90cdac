//! noeqd's wire protocol, byte for byte, on real sockets.

mod common;

use guid::Id;
use std::io::Write;
use std::net::Shutdown;
use std::time::Duration;

use common::{Server, ask, closed, raw, read_ids, read_n, silent};
use guid::flake::{self, Layout};
use guid::{Guid, MockTime};
use kguid_service::Config;

const MS: u64 = 1_000_000;

/// noeqd's formula, written out as in its source.
fn noeqd(ms: u64, dc: u64, worker: u64, seq: u64) -> u64 {
    ((ms - 1_288_834_974_657) << 22) | (dc << 17) | (worker << 12) | seq
}

fn config() -> Config {
    let mut c = Config::default();
    c.ids.node = flake::noeqd_node(3, 7).unwrap();
    c
}

/// N = 1 and N = 2 at a known time: exactly noeqd's bytes. (A state file
/// says the previous run ended a millisecond before, so the server starts
/// at once rather than after its max lead.)
#[test]
fn n1_and_n2_are_noeqd_bytes() {
    let ms = 1_700_000_000_000;
    let time = MockTime::new(ms * MS);
    let mut c = config();
    c.time.source = Some(std::sync::Arc::new(time.clone()));
    let state = common::temp_dir("noeqd-bytes").join("state");
    std::fs::write(&state, format!("{}\n", (ms - 1) * MS)).unwrap();
    c.time.state = Some(state);
    let server = Server::start(c);
    let mut s = raw(server.addr);
    s.write_all(&[1]).unwrap();
    assert_eq!(read_n(&mut s, 8), noeqd(ms, 3, 7, 0).to_be_bytes());
    s.write_all(&[2]).unwrap();
    let mut two = noeqd(ms, 3, 7, 1).to_be_bytes().to_vec();
    two.extend(noeqd(ms, 3, 7, 2).to_be_bytes());
    assert_eq!(read_n(&mut s, 16), two);
    time.advance(MS);
    assert_eq!(ask(&mut s, 1), [noeqd(ms + 1, 3, 7, 0)]);
    assert!(
        silent(&mut s, Duration::from_millis(100)),
        "no byte beyond the reply"
    );
    drop(s);
    let report = server.stop();
    assert_eq!((report.ids, report.requests), (4, 3));
}

/// N = 255: 2,040 bytes, strictly increasing ids of this node, nothing more.
#[test]
fn n255() {
    let server = Server::start(config());
    let mut s = raw(server.addr);
    let ids = ask(&mut s, 255);
    assert_eq!(ids.len(), 255);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    for id in &ids {
        let p = Layout::NOEQD.decompose(*id).unwrap();
        assert_eq!(p.node, 3 << 5 | 7);
    }
    assert!(silent(&mut s, Duration::from_millis(100)));
}

/// Requests written together are answered in order, each whole.
#[test]
fn pipelined() {
    let server = Server::start(config());
    let mut s = raw(server.addr);
    let requests: Vec<u8> = (1..=64).map(|i| (i * 4 - 1) as u8).collect();
    let total: usize = requests.iter().map(|&n| usize::from(n)).sum();
    s.write_all(&requests).unwrap();
    let ids = read_ids(&mut s, total);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert!(silent(&mut s, Duration::from_millis(100)));
    // Requests split across writes are answered too.
    for chunk in [&[5u8][..], &[1, 2], &[255, 255, 255]] {
        s.write_all(chunk).unwrap();
    }
    let more = read_ids(&mut s, 5 + 3 + 3 * 255);
    assert!(more[0] > ids[ids.len() - 1]);
    assert!(more.windows(2).all(|w| w[0] < w[1]));
}

/// N = 0 closes the connection, after answering what came before it.
#[test]
fn n0_closes() {
    let server = Server::start(config());
    let mut s = raw(server.addr);
    s.write_all(&[0]).unwrap();
    assert!(closed(&mut s));
    let mut s = raw(server.addr);
    s.write_all(&[2, 0, 5]).unwrap();
    assert_eq!(read_ids(&mut s, 2).len(), 2);
    assert!(closed(&mut s), "the request after N = 0 is not answered");
}

fn with_token() -> Server {
    let mut c = config();
    c.conns.token = Some(b"s3cret".to_vec());
    Server::start(c)
}

/// The right token, then requests: served, also when it arrives in pieces.
#[test]
fn auth_right() {
    let server = with_token();
    let mut s = raw(server.addr);
    s.write_all(b"\x00\x06s3cret\x01").unwrap();
    assert_eq!(read_ids(&mut s, 1).len(), 1);
    assert_eq!(ask(&mut s, 3).len(), 3);
    let mut s = raw(server.addr);
    for piece in [&b"\x00"[..], b"\x06s3", b"cret", b"\x02"] {
        s.write_all(piece).unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(read_ids(&mut s, 2).len(), 2);
    drop(s);
    assert_eq!(server.stop().auth_failures, 0);
}

/// A wrong token, a missing one and a truncated one: closed, no id sent.
#[test]
fn auth_wrong_missing_truncated() {
    let server = with_token();
    let mut wrong = raw(server.addr);
    wrong.write_all(b"\x00\x06s3creT\x01").unwrap();
    assert!(closed(&mut wrong));
    let mut shorter = raw(server.addr);
    shorter.write_all(b"\x00\x05s3cre\x01").unwrap();
    assert!(closed(&mut shorter));
    let mut missing = raw(server.addr);
    missing.write_all(&[1]).unwrap();
    assert!(closed(&mut missing));
    let mut truncated = raw(server.addr);
    truncated.write_all(b"\x00\x06s3c").unwrap();
    assert!(
        silent(&mut truncated, Duration::from_millis(200)),
        "waits for the rest"
    );
    truncated.shutdown(Shutdown::Write).unwrap();
    assert!(closed(&mut truncated));
    drop((wrong, shorter, missing, truncated));
    assert_eq!(server.stop().auth_failures, 3);
}

/// The 96-bit listener: N x 12 bytes of valid, increasing global ids of
/// the configured node.
#[test]
fn global_ids() {
    let mut c = config();
    c.ids.global_node = Some(0xdead_beef);
    let server = Server::start_with(c, true);
    let mut s = raw(server.global.unwrap());
    for n in [1u8, 2, 255] {
        s.write_all(&[n]).unwrap();
        let bytes = read_n(&mut s, usize::from(n) * 12);
        let ids: Vec<Guid> = bytes
            .chunks_exact(12)
            .map(|b| Guid::from_slice(b).unwrap())
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(ids.iter().all(|g| g.node() == 0xdead_beef));
    }
    assert!(silent(&mut s, Duration::from_millis(100)));
    drop(s);
    assert_eq!(server.stop().global_ids, 258);
}

/// Shutdown answers requests already read, in full, then closes.
#[test]
fn shutdown_finishes_replies_in_flight() {
    let server = Server::start_with(config(), true);
    let mut s = raw(server.global.unwrap());
    // 64 x 255 x 12 bytes: far more than the socket buffers hold at once.
    s.write_all(&[255; 64]).unwrap();
    let first = read_n(&mut s, 12);
    assert_eq!(first.len(), 12);
    std::thread::sleep(Duration::from_millis(50));
    let stopper = std::thread::spawn(move || server.stop());
    std::thread::sleep(Duration::from_millis(100));
    let rest = read_n(&mut s, 64 * 255 * 12 - 12);
    assert_eq!(rest.len(), 64 * 255 * 12 - 12);
    assert!(closed(&mut s));
    let report = stopper.join().unwrap();
    assert_eq!(report.global_ids, 64 * 255);
}
