//! The README's example: the same program as `examples/etcd_quickstart.rs`,
//! compiled into this test and run against a real etcd.

mod support;

// The example itself, not a copy, with the test that runs it beside it
// (its `quickstart` is private there); its `main` is left unused.
#[allow(dead_code)]
mod example {
    include!("../examples/etcd_quickstart.rs");
    use guid::Id;

    /// Run twice: each run leases node 0 (the first released it) and the
    /// second run's ids are later than the first's, the fence at work.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_example_runs_against_etcd() {
        let Some(etcd) = crate::support::etcd().await else {
            return;
        };
        let (flake_a, guid_a) = quickstart(&etcd.endpoint()).await.expect("first run");
        let (flake_b, guid_b) = quickstart(&etcd.endpoint()).await.expect("second run");
        for flake in [flake_a, flake_b] {
            assert_eq!(Layout::NOEQD.decompose(flake).unwrap().node, 0);
        }
        assert_eq!((guid_a.node(), guid_b.node()), (0, 0));
        assert!(flake_b > flake_a, "{flake_b} after {flake_a}");
        assert!(guid_b > guid_a, "{guid_b} after {guid_a}");
    }
}

/// README.md shows `examples/etcd_quickstart.rs` whole, so the two cannot drift.
#[test]
fn the_readme_shows_the_example_verbatim() {
    let example = include_str!("../examples/etcd_quickstart.rs");
    let found = include_str!("../README.md").contains(&format!("```rust,no_run\n{example}```\n"));
    assert!(found, "copy examples/etcd_quickstart.rs into README.md");
}
