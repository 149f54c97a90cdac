// Makes flake ids in Redis servers, in batches, round-robin.
// `cargo run -p kguid-redis --example redis_quickstart -- redis://127.0.0.1:6379`
use std::time::{Duration, UNIX_EPOCH};

use guid::flake::Layout;
use kguid_redis::Config;

fn main() -> Result<(), kguid_redis::Error> {
    let mut urls: Vec<String> = std::env::args().skip(1).collect();
    if urls.is_empty() {
        urls.push("redis://127.0.0.1:6379".into());
    }
    let batches = quickstart(&urls)?;
    println!("{} ids", batches.concat().len());
    Ok(())
}

/// Gives each server its shard id, then takes two batches of 100 ids.
fn quickstart(urls: &[String]) -> Result<Vec<Vec<u64>>, kguid_redis::Error> {
    // 41 bits of ms since 2024-01-01, a 10-bit shard, a 12-bit sequence.
    let layout = Layout::redis(UNIX_EPOCH + Duration::from_secs(1_704_067_200));
    let config = Config::new(layout);
    // An operator's one-time setup: each server a different shard id.
    for (shard, url) in (1..).zip(urls) {
        config.set_shard(url, shard)?;
    }
    let ids = config.connect(urls)?;
    // One round trip a batch, each batch from the next server in turn.
    let batches = vec![ids.ids(100)?, ids.ids(100)?];
    for batch in &batches {
        let first = layout.decompose(batch[0])?;
        println!(
            "shard {}, ms {}, seq {}..",
            first.node, first.time, first.seq
        );
    }
    Ok(batches)
}
