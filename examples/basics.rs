//! Generate, print, parse and cast ids.
//!
//! cargo run --example basics

use guid::Id;
use guid::{Guid, Luid};

fn main() -> Result<(), guid::Error> {
    // From the process-wide clock: strictly increasing, never repeated.
    let a = guid::g(&guid::CLOCK);
    let b = guid::g(&guid::CLOCK);
    assert!(a.before(&b));
    println!("global ids:     {a} < {b}");
    println!(
        "made at:        {:?} on node {:#010x}, seq {}",
        a.epoch(),
        a.node(),
        a.seq()
    );

    // Encodings: the sortable string, base62, bytes.
    let parsed: Guid = a.to_string().parse()?;
    assert_eq!(parsed, a);
    println!("base62:         {}", a.to_base62());
    println!("bytes:          {:02x?}", a.to_bytes());
    assert_eq!(Guid::from_base62(a.to_base62())?, a);
    assert_eq!(Guid::try_from(a.to_bytes())?, a);

    // The 64-bit cast drops the node; the clock puts its node back.
    let local: Luid = a.to_l64();
    println!("local id:       {local} ({})", local.to_base62());
    assert_eq!(guid::CLOCK.from_l64(local), a);

    // Bad input is an error, never a guess.
    match "not-an-id-at-all".parse::<Guid>() {
        Err(e) => println!("rejected:       {e}"),
        Ok(id) => unreachable!("{id} parsed"),
    }
    Ok(())
}
