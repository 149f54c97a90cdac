//! The client: failover across servers, auth, and a typed error when every
//! address fails.

mod common;

use std::net::TcpListener;
use std::time::Duration;

use common::{ChildServer, Server};
use guid::flake::Layout;
use kguid_service::{Client, ClientError, Config};

/// Three servers; two are killed (SIGKILL) while the client takes ids: it
/// keeps getting unique ids from the one left, then fails with a typed
/// error when that one dies too.
#[test]
fn three_servers_two_killed() {
    let mut servers: Vec<ChildServer> = (0..3)
        .map(|w| ChildServer::binary(&["-w", &w.to_string()], |_| {}))
        .collect();
    let addrs: Vec<_> = servers.iter().map(|s| s.addr).collect();
    let mut client = Client::connect(&addrs[..], None)
        .unwrap()
        .retries(6)
        .timeout(Duration::from_secs(2));
    let mut ids = Vec::new();
    let mut killed = Vec::new();
    for round in 0..60 {
        ids.extend(client.next_n(300).unwrap());
        ids.push(client.next().unwrap());
        if round == 20 || round == 40 {
            // Kill the server the client is using, so it must move.
            let current = client.addr().unwrap();
            let victim = servers.iter_mut().find(|s| s.addr == current).unwrap();
            victim.kill();
            killed.push(current);
        }
    }
    assert_eq!(ids.len(), 60 * 301);
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len(), "duplicate ids");
    // The ids after the second kill all come from the survivor.
    let survivor = servers.iter().find(|s| !killed.contains(&s.addr)).unwrap();
    let worker = addrs.iter().position(|a| *a == survivor.addr).unwrap() as u64;
    assert_eq!(client.addr(), Some(survivor.addr));
    let tail = &ids[ids.len() - 301 * 19..];
    assert!(
        tail.iter()
            .all(|id| Layout::NOEQD.decompose(*id).unwrap().node == worker)
    );
    // Every server gone: a typed error after the retry budget, not a hang.
    for s in &mut servers {
        s.kill();
    }
    match client.next() {
        Err(ClientError::Failed { attempts, .. }) => assert_eq!(attempts, 7),
        other => panic!("expected Failed, got {other:?}"),
    }
}

/// No server at any address: `connect` fails with the attempts it made.
#[test]
fn nothing_listening() {
    let dead: Vec<_> = (0..2)
        .map(|_| {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap() // closed when `l` drops
        })
        .collect();
    match Client::connect(&dead[..], None) {
        Err(ClientError::Failed { attempts, last }) => {
            assert_eq!(attempts, 6);
            assert_eq!(last.kind(), std::io::ErrorKind::ConnectionRefused);
        }
        other => panic!("expected Failed, got {other:?}"),
    }
    let none: [&str; 0] = [];
    assert!(matches!(
        Client::connect(none, None),
        Err(ClientError::NoAddress)
    ));
    let long = vec![b'x'; 256];
    assert!(matches!(
        Client::connect(&dead[..], Some(&long)),
        Err(ClientError::TokenTooLong(256))
    ));
}

/// The client authenticates; a wrong token is a failure, not ids.
#[test]
fn client_auth_and_global_ids() {
    let mut config = Config::default();
    config.conns.token = Some(b"open sesame".to_vec());
    let server = Server::start_with(config, true);
    let mut ok = Client::connect([server.addr], Some(b"open sesame")).unwrap();
    let ids = ok.next_n(1_000).unwrap();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let mut g = Client::connect_g([server.global.unwrap()], Some(b"open sesame")).unwrap();
    let gs = g.next_n(600).unwrap();
    assert!(gs.windows(2).all(|w| w[0] < w[1]));
    let mut wrong = Client::connect([server.addr], Some(b"open sesamE"))
        .unwrap()
        .retries(2);
    assert!(matches!(
        wrong.next(),
        Err(ClientError::Failed { attempts: 3, .. })
    ));
    drop((ok, g, wrong));
    let report = server.stop();
    assert_eq!((report.ids, report.global_ids), (1_000, 600));
    assert_eq!(report.auth_failures, 3);
}
