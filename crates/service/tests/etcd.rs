//! `guid-serve --etcd`: 64-bit node ids leased from a real etcd.
#![cfg(feature = "etcd")]

mod common;
#[path = "../../etcd/tests/support/mod.rs"]
mod support;

use std::collections::BTreeSet;
use std::net::SocketAddr;

use common::{ChildServer, ask, raw};
use guid::flake::Layout;

/// Ids from 20 requests of 255 on one connection.
fn fetch(addr: SocketAddr) -> Vec<u64> {
    let mut s = raw(addr);
    (0..20).flat_map(|_| ask(&mut s, 255)).collect()
}

/// The node ids the ids carry.
fn nodes(ids: &[u64]) -> BTreeSet<u64> {
    ids.iter()
        .map(|&id| Layout::NOEQD.decompose(id).expect("id decodes").node)
        .collect()
}

/// Two servers on one prefix lease distinct node ids and issue distinct
/// ids; after one stops gracefully, a third gets its node id back and
/// issues ids later than every id of the first.
#[tokio::test]
async fn servers_lease_distinct_nodes_and_a_released_node_comes_back_later() {
    let Some(etcd) = support::etcd().await else {
        return;
    };
    let endpoint = etcd.endpoint();
    let args = [
        "--etcd",
        &endpoint,
        "--prefix",
        "/test/serve",
        "--lease-ttl",
        "2s",
    ];
    let mut a = ChildServer::binary(&args, |_| {});
    let b = ChildServer::binary(&args, |_| {});
    let (ids_a, ids_b) = (fetch(a.addr), fetch(b.addr));
    let (node_a, node_b) = (nodes(&ids_a), nodes(&ids_b));
    assert_eq!(node_a.len(), 1, "one node per server: {node_a:?}");
    assert_eq!(node_b.len(), 1, "one node per server: {node_b:?}");
    assert_ne!(node_a, node_b, "two servers, two leased nodes");
    let mut all: Vec<u64> = ids_a.iter().chain(&ids_b).copied().collect();
    let checked = support::assert_unique(&mut all);
    assert_eq!(checked, 2 * 20 * 255);

    // SAFETY: kill only sends a signal to the child we started.
    unsafe {
        libc::kill(a.child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = a.child.wait().expect("wait for the first server");
    assert!(status.success(), "{status:?}");
    let log = a.rest_of_stderr();
    let node = node_a.first().copied().expect("a node");
    assert!(log.contains(&format!("node {node} leased")), "{log}");
    assert!(
        log.contains(&format!("lease of node {node} released")),
        "{log}"
    );

    let c = ChildServer::binary(&args, |_| {});
    let ids_c = fetch(c.addr);
    assert_eq!(nodes(&ids_c), node_a, "the released node id comes back");
    let last_a = ids_a.iter().max().copied().expect("ids");
    let first_c = ids_c.iter().min().copied().expect("ids");
    let time = |id| Layout::NOEQD.decompose(id).expect("id decodes").time;
    assert!(
        time(first_c) > time(last_a),
        "the new holder starts after the old one's ids: {} <= {}",
        time(first_c),
        time(last_a)
    );
    let mut all: Vec<u64> = all.into_iter().chain(ids_c).collect();
    support::assert_unique(&mut all);
    println!(
        "3 servers, {} ids, 0 duplicates; node {node} released and leased again",
        all.len()
    );
    drop((b, c));
}
