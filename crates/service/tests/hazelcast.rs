//! `guid-serve --hazelcast`: 64-bit node ids leased from a real Hazelcast
//! cluster (members started by the test).
#![cfg(feature = "hazelcast")]

mod common;
#[path = "../../hazelcast/tests/support/mod.rs"]
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use common::{ChildServer, eventually, exit_and_stderr, fetch, fetch_serving, nodes, try_ask};
use guid::flake::Layout;
use kguid_hazelcast::{Client, Config, HazelcastStore};
use kguid_lease::store::{Claim, Store};
use support::{Cluster, Setup};

/// The flags of a server leasing its node id under `prefix` from
/// `cluster`, with a 2 s TTL.
fn lease_args(cluster: &Cluster, prefix: &str) -> Vec<String> {
    vec![
        "--hazelcast".into(),
        cluster.addresses().join(","),
        "--hazelcast-cluster".into(),
        cluster.name.clone(),
        "--prefix".into(),
        prefix.into(),
        "--lease-ttl".into(),
        "2s".into(),
    ]
}

fn serve(args: &[String]) -> ChildServer {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ChildServer::binary(&args, |_| {})
}

/// The one node id that all of `ids` carry.
#[track_caller]
fn node_of(ids: &[u64]) -> u64 {
    let nodes = nodes(ids);
    assert_eq!(nodes.len(), 1, "one node per server: {nodes:?}");
    nodes.first().copied().expect("a node")
}

fn time(id: u64) -> SystemTime {
    Layout::NOEQD.time_of(id).expect("id decodes")
}

fn assert_unique(ids: &mut [u64]) -> usize {
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|w| w[0] == w[1]) {
        panic!("duplicate id {}", pair[0]);
    }
    ids.len()
}

/// Claims every node id of the noeqd layout but `node` under `prefix`, for
/// a minute, as a rival server would: the next server must take `node`.
fn rival_claims(cluster: &Cluster, prefix: &str, node: u64) {
    claim(cluster, prefix, (0..1024).filter(|&n| n != node as u32));
}

/// Claims `nodes` under `prefix` for a minute, as a rival server would.
fn claim(cluster: &Cluster, prefix: &str, nodes: impl Iterator<Item = u32>) {
    let mut config = Config::new(cluster.addresses());
    config.cluster = cluster.name.clone();
    let store = HazelcastStore::new(Client::new(config).unwrap());
    let minute = Duration::from_secs(60);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for n in nodes {
            let claim = store.claim(prefix, n, n, minute, "rival").await.unwrap();
            assert!(matches!(claim, Claim::Held(_)), "node {n}: {claim:?}");
        }
    });
}

/// The ids of a server that turns clients away until its lease lets it
/// issue ids: the first ones it gives, and a batch more.
fn first_ids(server: &ChildServer) -> Vec<u64> {
    let first = eventually(Duration::from_secs(30), "ids from a leasing server", || {
        try_ask(server.addr, 255)
    });
    first.into_iter().chain(fetch(server.addr)).collect()
}

/// Two servers lease distinct node ids, the lowest first; one stopped
/// gracefully releases its node id, which a third server leases again and
/// issues ids after every id of the first.
#[test]
fn servers_lease_distinct_nodes_and_a_released_node_comes_back_later() {
    let Some(cluster) = Cluster::start(Setup::new(3)) else {
        return;
    };
    let args = lease_args(&cluster, "/test/serve");
    let mut a = serve(&args);
    let b = serve(&args);
    let (ids_a, ids_b) = (fetch_serving(a.addr), fetch_serving(b.addr));
    assert_eq!((node_of(&ids_a), node_of(&ids_b)), (0, 1));
    let status = a.terminate();
    assert!(status.success(), "{status:?}");
    let log = a.rest_of_stderr();
    assert!(log.contains("lease of node 0 released"), "{log}");

    let c = serve(&args);
    let ids_c = first_ids(&c);
    assert_eq!(node_of(&ids_c), 0, "the released node id comes back");
    let last_a = ids_a.iter().max().copied().unwrap();
    assert!(time(*ids_c.iter().min().unwrap()) > time(last_a));
    let mut all: Vec<u64> = [ids_a, ids_b, ids_c].concat();
    assert_unique(&mut all);
}

/// A server killed with SIGKILL releases nothing: its successor, left only
/// its node id, is granted it once the claim expires and starts after the
/// horizon it left; meanwhile a member of the cluster is killed too.
#[test]
fn a_killed_holders_successor_starts_after_its_ids_through_a_member_crash() {
    let Some(mut cluster) = Cluster::start(Setup::new(3)) else {
        return;
    };
    let prefix = "/test/killed";
    let args = lease_args(&cluster, prefix);
    let mut a = serve(&args);
    let ids_a = fetch_serving(a.addr);
    let node = node_of(&ids_a);
    rival_claims(&cluster, prefix, node);
    a.kill();
    let killed = Instant::now();
    cluster.kill_and_settle(0, 2);

    let b = serve(&args);
    let ids_b = first_ids(&b);
    assert_eq!(node_of(&ids_b), node, "the killed server's node id");
    let last_a = ids_a.iter().max().copied().unwrap();
    let first_b = ids_b.iter().min().copied().unwrap();
    assert!(time(first_b) > time(last_a));
    let mut all: Vec<u64> = [ids_a, ids_b].concat();
    let checked = assert_unique(&mut all);
    println!(
        "SIGKILL of the holder of node {node} and of a member: successor served {:?} after; \
         {checked} ids, 0 duplicates",
        killed.elapsed()
    );
}

/// A server paused (SIGSTOP) past its TTL loses its node id to another
/// server; continued, it issues nothing on it.
#[test]
fn a_paused_holder_issues_nothing_on_the_node_id_it_lost() {
    let Some(cluster) = Cluster::start(Setup::new(2)) else {
        return;
    };
    let prefix = "/test/paused";
    let args = lease_args(&cluster, prefix);
    let a = serve(&args);
    let ids_a = fetch_serving(a.addr);
    let node = node_of(&ids_a);
    rival_claims(&cluster, prefix, node);
    // SAFETY: signals only the child this test started.
    unsafe { libc::kill(a.child.id() as libc::pid_t, libc::SIGSTOP) };
    let b = serve(&args);
    let ids_b = first_ids(&b);
    assert_eq!(node_of(&ids_b), node);
    // SAFETY: as above.
    unsafe { libc::kill(a.child.id() as libc::pid_t, libc::SIGCONT) };
    for _ in 0..10 {
        let reply = try_ask(a.addr, 255);
        assert!(reply.is_none(), "ids from a lost lease: {reply:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let more_b = fetch(b.addr);
    let mut all: Vec<u64> = [ids_a, ids_b, more_b].concat();
    assert_unique(&mut all);
}

/// The start fails at once, before serving, with a line naming the
/// cluster, when no member answers or the cluster name is wrong: exit 1,
/// as for any store that fails the start (2 is for flags refused as
/// given).
#[test]
fn no_member_or_a_wrong_cluster_fails_the_start() {
    let Some(cluster) = Cluster::start(Setup::new(1)) else {
        return;
    };
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = closed.local_addr().unwrap().to_string();
    drop(closed);
    let member = cluster.address(0);
    let cases = [
        (
            vec!["--hazelcast", nowhere.as_str()],
            "no Hazelcast member answers",
        ),
        (
            vec![
                "--hazelcast",
                member.as_str(),
                "--hazelcast-cluster",
                "not-this-one",
            ],
            "wrong cluster name",
        ),
    ];
    for (args, expected) in cases {
        let started = Instant::now();
        let (code, stderr) = failed_start(&args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}

/// The exit code and stderr of a server started with `args` that exits
/// (within 10 s) rather than serve.
fn failed_start(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_guid-serve"))
        .args(["-l", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, stderr) = exit_and_stderr(&mut child);
    (status.and_then(|s| s.code()), stderr)
}

/// snowcast's layout at its fewest node bits (`--layout snowcast:7`): its
/// 128 node ids are all a fleet gets. With 126 held by a rival, two
/// servers lease the last two, and a third finds none free: its start
/// fails once it has waited a TTL for one, saying the range is leased.
#[test]
fn snowcasts_node_bits_bound_the_fleet() {
    let Some(cluster) = Cluster::start(Setup::new(1)) else {
        return;
    };
    let layout = Layout::snowcast(7).unwrap();
    let prefix = "/test/snowcast";
    claim(&cluster, prefix, 0..126);
    let mut args = lease_args(&cluster, prefix);
    args.extend(["--layout".into(), "snowcast:7".into()]);
    let servers: Vec<ChildServer> = (0..2).map(|_| serve(&args)).collect();
    let mut leased: Vec<u64> = servers
        .iter()
        .map(|s| {
            let ids = first_ids(s);
            let nodes: std::collections::BTreeSet<u64> = ids
                .iter()
                .map(|&id| layout.decompose(id).expect("a snowcast id").node)
                .collect();
            assert_eq!(nodes.len(), 1, "{nodes:?}");
            nodes.first().copied().unwrap()
        })
        .collect();
    leased.sort_unstable();
    assert_eq!(leased, [126, 127]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stderr) = failed_start(&args);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("every node id in 0..=127 is leased"),
        "{stderr}"
    );
    drop(servers);
}
