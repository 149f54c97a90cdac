//! The README's example: the same program as `examples/redis_quickstart.rs`,
//! compiled into this test and run against real Redis servers.

mod support;

// The example itself, not a copy, with the test that runs it beside it
// (its `quickstart` is private there); its `main` is left unused.
#[allow(dead_code)]
mod example {
    include!("../examples/redis_quickstart.rs");

    use std::collections::BTreeSet;

    use crate::support::{self, Redis, assert_unique};

    /// Two servers: the first batch from shard 1, the next from shard 2,
    /// each 100 consecutive ids of one millisecond, none repeated.
    #[test]
    fn the_example_runs_against_two_servers() {
        let Some(servers) = (0..2)
            .map(|_| support::redis())
            .collect::<Option<Vec<Redis>>>()
        else {
            return;
        };
        let urls: Vec<String> = servers.iter().map(Redis::url).collect();
        let batches = quickstart(&urls).expect("the example");
        let layout = Layout::redis(UNIX_EPOCH);
        for (shard, batch) in (1..).zip(&batches) {
            assert_eq!(batch.len(), 100);
            let shards: BTreeSet<u64> = batch
                .iter()
                .map(|&id| layout.decompose(id).unwrap().node)
                .collect();
            assert_eq!(shards, BTreeSet::from([shard]));
            assert!(batch.windows(2).all(|w| w[1] == w[0] + 1), "consecutive");
        }
        assert_eq!(assert_unique(&mut batches.concat()), 200);
    }
}

/// README.md shows `examples/redis_quickstart.rs` whole, so the two cannot drift.
#[test]
fn the_readme_shows_the_example_verbatim() {
    let example = include_str!("../examples/redis_quickstart.rs");
    let found = include_str!("../README.md").contains(&format!("```rust,no_run\n{example}```\n"));
    assert!(found, "copy examples/redis_quickstart.rs into README.md");
}
