// Leases a node id from etcd, makes ids stamped with it, gives it back.
// `cargo run -p kguid-etcd --example etcd_quickstart -- http://127.0.0.1:2379`
use std::time::Duration;

use guid::Guid;
use guid::flake::{self, Layout};
use kguid_etcd::{Client, NodeLease};

#[tokio::main]
async fn main() -> Result<(), kguid_etcd::Error> {
    let endpoint = std::env::args().nth(1);
    let endpoint = endpoint.as_deref().unwrap_or("http://127.0.0.1:2379");
    let (flake_id, guid) = quickstart(endpoint).await?;
    println!("flake id {flake_id}, global id {guid}");
    Ok(())
}

/// One lease, a flake id and a global id from its clocks, then release.
async fn quickstart(endpoint: &str) -> Result<(u64, Guid), kguid_etcd::Error> {
    let client = Client::connect([endpoint], None).await?;
    // The lowest free node id in 0..1024: the 10 node bits of Layout::NOEQD.
    let ttl = Duration::from_secs(10);
    let lease = NodeLease::acquire(client, "/guid/quickstart", 0..1024, ttl).await?;
    // Both clocks start after the horizon the id's previous holder left.
    let flake = lease
        .flake_clock(flake::Clock::builder(Layout::NOEQD))
        .await?;
    let clock = lease.clock().await?;
    // Err(Expired) while etcd is unreachable past the margin (may recover),
    // Err(Lost) once the lease is gone: acquire again.
    let flake_id = flake.next()?;
    let guid = clock.g()?;
    println!("node {}", lease.node());
    // On shutdown: the node id is free at once, not after the TTL.
    lease.release().await?;
    Ok((flake_id, guid))
}
