//! The 64-bit flake (snowflake) layout, `| time | node | seq |`, and a
//! lock-free clock that makes such ids.
//!
//! ```text
//!  1      T bits              N bits      S bits
//! |0|------------------|------------|----------|    T + N + S = 63
//!          time             node        seq
//! ```
//!
//! `time` counts units (1 ms unless set) since a custom epoch, `node` names
//! the generator, `seq` counts ids within a unit. The sign bit stays 0, so
//! ids are positive in every language's signed 64-bit integer. Unlike local
//! ids ([`crate::Luid`]), flake ids are unique across a fleet as long as
//! node ids are.
//!
//! | preset | split | epoch | node |
//! |---|---|---|---|
//! | [`Layout::NOEQD`] (noeqd, Twitter snowflake) | 41/10/12 | 1288834974657 ms | `datacenter << 5 \| worker` ([`noeqd_node`]) |
//! | [`Layout::snowcast`]`(n)` | 41/n/22-n, n in 7..=13 | set with [`Layout::with_epoch`] | 128 to 8,192 nodes |
//! | [`Layout::redis`]`(epoch)` | 41/10/12 | custom | a shard id |
//! | [`Layout::new`]`(t, n, s)` | any t + n + s = 63, each ≥ 1 | set with [`Layout::with_epoch`] | |
//!
//! ```
//! use guid::flake::{self, Layout};
//!
//! let layout = Layout::NOEQD;
//! let node = flake::noeqd_node(3, 7)?; // datacenter 3, worker 7
//! let id = layout.compose(1_000, node, 5)?;
//! assert_eq!(id, (1_000 << 22) | (3 << 17) | (7 << 12) | 5);
//! let parts = layout.decompose(id)?;
//! assert_eq!((parts.time, parts.node, parts.seq), (1_000, node, 5));
//!
//! let clock = flake::Clock::builder(layout).node(node).build()?;
//! let (a, b) = (clock.next()?, clock.next()?);
//! assert!(a < b);
//! assert_eq!(layout.decompose(b)?.node, node);
//! # Ok::<(), guid::Error>(())
//! ```
//!
//! # The clock's policy
//!
//! The [`Clock`] runs the state machine of the 96-bit
//! [`guid::Clock`](crate::Clock) (the one machine of every clock in this
//! crate: one word, one atomic read-modify-write, the same steps back, stalls, borrowing, forks,
//! end of the range and start in the future) on the layout's units, with
//! two differences: its lead is bounded, and it has only the form that
//! returns errors, where the 96-bit clocks, whose Go API returns an id,
//! add panicking forms to their `try_` forms (every form of every clock
//! on fork and at the end of the range: [the clock module's
//! table](crate::clock#failing)).
//!
//! The sequence is small (4,096 ids per millisecond for noeqd), so the clock
//! can run out of it; it then borrows the next time unit, up to a bounded
//! lead, and only past that lead waits. The lead is measured from the
//! reference: the latest time the source has shown, or the
//! [`Builder::not_before`] bound if that is later.
//!
//! | the time source… | the [`Clock`]… |
//! |---|---|
//! | is read by many threads at once | takes every id with one atomic read-modify-write on one word: no two alike, each later than the one before |
//! | stalls (same unit) | counts the sequence up |
//! | stalls for more than 2^S ids | borrows the next unit: ids run ahead of the source, up to [`Builder::max_lead`] (default [`DEFAULT_MAX_LEAD`], 100 ms) |
//! | stalls past that lead | waits (naps of at most 1 ms) until the source catches up ([`Health::waits`](crate::Health::waits)); [`Clock::pace`] tells a caller that would rather wait elsewhere how long |
//! | steps back | keeps counting from the last id without waiting, up to the max lead past the latest time it had shown; if more ids are asked for before the source is back, waits for it as above ([`Health::steps_back`](crate::Health::steps_back)). The lead over the source is at most the step plus the max lead |
//! | is behind [`Builder::not_before`] | as for a step back: ids run at most the max lead past the bound, then wait for the source |
//! | jumps forward | follows it, sequence 0 |
//! | passes the layout's last unit | returns an error ([`ErrorKind::Part`](crate::ErrorKind::Part) named `"time"`): the layout is used up |
//! | restarts | [`Builder::not_before`] with a saved [`Clock::last_time`] starts after every id issued before |
//! | is used in a forked child | returns an error ([`ErrorKind::Forked`](crate::ErrorKind::Forked)): the node is the parent's, and the child would repeat its ids (which children are noticed: [`ForkGuard`](crate::ForkGuard)) |
//!
//! Twitter's snowflake and noeqd wait whenever the sequence runs out and
//! refuse to serve while the clock is behind; the Go guid library repeats
//! ids in both cases.

mod clock;
mod layout;

pub use clock::{Builder, Clock, DEFAULT_MAX_LEAD};
pub use layout::{Layout, Parts, TWITTER_EPOCH_MS, noeqd_node};
