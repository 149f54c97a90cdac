//! Ids in JSON, as the Go library writes them.
//!
//! cargo run --example json --features serde

use guid::{Guid, Id, Luid};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Event {
    id: Guid,
    parent: Option<Luid>,
    name: String,
}

fn main() -> Result<(), serde_json::Error> {
    let id = guid::g(&guid::CLOCK);
    let event = Event {
        id,
        parent: Some(id.to_l64()),
        name: "created".into(),
    };
    let json = serde_json::to_string(&event)?;
    println!("{json}");
    assert_eq!(serde_json::from_str::<Event>(&json)?, event);

    let bad = serde_json::from_str::<Event>(r#"{"id":"short","parent":null,"name":"x"}"#);
    println!("rejected: {}", bad.unwrap_err());
    Ok(())
}
