//! `--node-from-ordinal`: the worker id from `POD_INDEX` (the pod-index
//! label) or from the trailing number of the host name, as a StatefulSet
//! names its pods; refused with exit 2 when it does not fit or is not one.

mod common;

use std::process::Command;

use common::{ChildServer, run_held};

/// The node of a server started with `args` and `POD_INDEX=index`, read
/// from its 64-bit ids and its start line.
fn node_of(args: &[&str], index: &str) -> (u64, String) {
    let mut server = ChildServer::binary(args, |c| {
        c.env("POD_INDEX", index).env_remove("CONFIG_GUID_NODE_ID");
    });
    let mut s = common::raw(server.addr);
    let ids = common::ask(&mut s, 10);
    drop(s);
    let log = server.output_so_far();
    assert!(server.terminate().success());
    // noeqd's layout: 10 node bits above 12 sequence bits.
    let nodes: Vec<u64> = ids.iter().map(|id| (id >> 12) & 0x3ff).collect();
    assert!(nodes.windows(2).all(|w| w[0] == w[1]), "{nodes:?}");
    (nodes[0], log)
}

#[test]
fn the_pod_index_is_the_worker_id() {
    let (node, log) = node_of(&["--node-from-ordinal", "-d", "1"], "3");
    assert_eq!(node, 1 << 5 | 3);
    assert!(log.contains("(datacenter 1, worker 3)"), "{log}");
    let (node, _) = node_of(&["--node-from-ordinal"], "31");
    assert_eq!(node, 31);
}

#[test]
fn an_ordinal_that_does_not_fit_is_refused() {
    let ordinal = "--node-from-ordinal";
    for (index, args, why) in [
        (
            "32",
            &[][..],
            "--node-from-ordinal: ordinal 32 does not fit the worker bits (0..=31)",
        ),
        ("-1", &[], "is not a number"),
        ("three", &[], "is not a number"),
        ("", &[], "is not a number"),
        // A layout whose node bits cannot hold the datacenter with it.
        (
            "3",
            &["-d", "31", "--layout", "44/9/10"],
            "-d 31 with --node-from-ordinal 3",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_guid-serve"))
            .args(["-l", "127.0.0.1:0", ordinal])
            .args(args)
            .env("POD_INDEX", index)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{index:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(why),
            "{index:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // Not with another source of the node id.
    let (code, err) = run_held(&["--node-from-ordinal", "-w", "3"]);
    assert_eq!(code, Some(2), "{err}");
}

/// Without `POD_INDEX`, the host name's ordinal: the server runs in a UTS
/// namespace of its own named as a StatefulSet's third pod. Needs
/// `unshare` and the right to make the namespace (root, as in CI).
#[test]
fn the_host_names_ordinal_without_pod_index() {
    let probe = Command::new("unshare").args(["--uts", "true"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        assert!(
            std::env::var_os("KGUID_REQUIRE_SERVERS").is_none(),
            "unshare --uts is not possible here, and KGUID_REQUIRE_SERVERS is set"
        );
        eprintln!("skipped: unshare --uts is not possible here (needs root and util-linux)");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_guid-serve");
    for (host, expect) in [("guid-7", Ok(7u64)), ("guid", Err("does not end in -N"))] {
        let script = format!(
            "hostname {host} && exec timeout --preserve-status -s TERM 2 {bin} -l 127.0.0.1:0 --node-from-ordinal -d 2"
        );
        let out = Command::new("unshare")
            .args(["--uts", "sh", "-c", &script])
            .env_remove("POD_INDEX")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        match expect {
            Ok(worker) => {
                assert!(out.status.success(), "{host}: {err}");
                let node = 2 << 5 | worker;
                assert!(
                    err.contains(&format!("node {node} (datacenter 2, worker {worker})")),
                    "{host}: {err}"
                );
            }
            Err(why) => {
                assert_eq!(out.status.code(), Some(2), "{host}: {err}");
                assert!(err.contains(why), "{host}: {err}");
            }
        }
    }
}
