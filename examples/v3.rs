//! Ids of fogfish/guid v3: the three kinds, their forms, and a v2 id
//! carried over.
//!
//! cargo run --example v3

use guid::Id;
use guid::v3::{self, Drift, Xuid};

fn main() -> Result<(), guid::Error> {
    // One clock makes all three kinds, strictly increasing.
    let clock = v3::Clock::new();
    let (g, l, x) = (clock.g(), clock.l(), clock.x());
    println!("global:   {g}  base62 {}", g.to_base62());
    println!("local:    {l}  base62 {}", l.to_base62());
    println!("128-bit:  {x}  base62 {}", x.to_base62());
    println!(
        "node {:#x} (58 bits), global ids carry {:#010x}",
        x.node(),
        g.node()
    );
    assert!(g.to_l64() < l && l < x.to_l64());

    // The 128-bit id's string is the canonical UUID (version 8), and it
    // parses back; its base62 has a fixed width of 22.
    assert_eq!(x.to_string().parse::<Xuid>()?, x);
    assert_eq!(Xuid::from_base62(x.to_base62())?, x);

    // A v2 id from an older service: the same node, time and sequence, in
    // the v3 window that holds v2's.
    let old = guid::Guid::now();
    let new = v3::Guid::from_v2(old);
    println!(
        "v2 {old} ({:?}) is v3 {new} ({:?})",
        old.drift(),
        new.drift()
    );
    assert_eq!(
        (new.node(), new.time(), new.seq()),
        (old.node(), old.time(), old.seq())
    );
    assert_eq!(new.drift(), Drift::DEFAULT);

    // Read as v3 without converting, the same string means another time.
    let misread: v3::Guid = old.to_string().parse()?;
    println!(
        "misread:  {:?} instead of {:?}",
        misread.epoch(),
        new.epoch()
    );
    Ok(())
}
