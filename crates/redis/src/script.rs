//! The Lua script that makes ids inside Redis, and its replies.

use std::sync::LazyLock;

use guid::flake::Layout;
use redis::ConnectionLike;

use crate::error::{Error, Result};

/// The script, loaded once per server with `SCRIPT LOAD` and run with
/// `EVALSHA` (loaded again when a server answers `NOSCRIPT`).
static SCRIPT: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(SOURCE));

/// The script's Lua source.
pub const SOURCE: &str = include_str!("flake.lua");

/// The keys of one id namespace on a server.
///
/// | key | holds |
/// |---|---|
/// | `<ns>:shard` | the server's shard id, set once by an operator ([`Keys::set_shard`]) |
/// | `<ns>:last` | the latest millisecond used |
/// | `<ns>:seq:<ms>` | the sequence of millisecond `ms`, expiring after 1 s |
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keys {
    shard: String,
    last: String,
    seq: String,
}

impl Keys {
    /// The keys under namespace `ns` (e.g. `"guid"`).
    pub fn new(ns: &str) -> Keys {
        Keys {
            shard: format!("{ns}:shard"),
            last: format!("{ns}:last"),
            seq: format!("{ns}:seq:"),
        }
    }

    /// The key that holds the shard id.
    pub fn shard(&self) -> &str {
        &self.shard
    }

    /// Stores `shard` as the server's shard id, if it fits `layout`.
    pub fn set_shard(
        &self,
        con: &mut dyn ConnectionLike,
        layout: &Layout,
        shard: u64,
    ) -> Result<()> {
        let max = layout.max_node();
        if shard > max {
            return Err(Error::Shard { shard, max });
        }
        redis::cmd("SET").arg(&self.shard).arg(shard).exec(con)?;
        Ok(())
    }
}

/// A batch of consecutive ids one server made: `count` sequence numbers
/// from `first` in one millisecond.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    /// The server's shard id.
    pub shard: u64,
    /// Milliseconds since the layout's epoch, by the server's clock.
    pub time: u64,
    /// The first sequence number.
    pub first: u64,
    /// How many ids (at least 1).
    pub count: u64,
}

impl Batch {
    /// Writes the batch's ids into the start of `out`; returns how many.
    pub fn write(&self, layout: &Layout, out: &mut [u64]) -> Result<usize> {
        let n = out
            .len()
            .min(usize::try_from(self.count).unwrap_or(usize::MAX));
        for (seq, id) in (self.first..).zip(&mut out[..n]) {
            *id = layout.compose(self.time, self.shard, seq)?;
        }
        Ok(n)
    }
}

/// What one run of the script gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Ids.
    Ids(Batch),
    /// The millisecond's sequence is used up.
    Exhausted,
    /// The server's clock is behind a millisecond already used.
    Behind,
}

/// Runs the script once on `con` for up to `n` ids (1 ..= `max_seq + 1`).
pub fn run(con: &mut dyn ConnectionLike, keys: &Keys, layout: &Layout, n: u64) -> Result<Reply> {
    if n == 0 || n > layout.max_seq() + 1 {
        return Err(Error::Config("batch size must be 1 ..= max seq + 1"));
    }
    if layout.unit() != std::time::Duration::from_millis(1) {
        return Err(Error::Config("the Redis script counts milliseconds"));
    }
    let epoch_ms = layout
        .epoch()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let reply: Vec<i64> = SCRIPT
        .key(&keys.shard)
        .key(&keys.last)
        .arg(&keys.seq)
        .arg(n)
        .arg(u64::try_from(epoch_ms).unwrap_or(u64::MAX))
        .arg(layout.max_seq())
        .arg(layout.max_node())
        .arg(layout.max_time())
        .invoke(con)
        .map_err(|e| match e.kind() {
            redis::ErrorKind::UnexpectedReturnType | redis::ErrorKind::Parse => {
                Error::Reply(e.to_string())
            }
            _ => Error::Redis(e),
        })?;
    parse(&reply, layout, n)
}

/// Checks a reply against what the script can send.
fn parse(reply: &[i64], layout: &Layout, n: u64) -> Result<Reply> {
    let bad = || Error::Reply(format!("{reply:?}"));
    let fields: Vec<u64> = reply
        .iter()
        .skip(1)
        .map(|&v| u64::try_from(v).map_err(|_| bad()))
        .collect::<Result<_>>()?;
    match (reply.first(), fields.as_slice()) {
        (Some(1), &[shard, time, first, count]) => {
            let fits = shard <= layout.max_node()
                && time <= layout.max_time()
                && (1..=n).contains(&count)
                && first
                    .checked_add(count - 1)
                    .is_some_and(|last| last <= layout.max_seq());
            if !fits {
                return Err(bad());
            }
            Ok(Reply::Ids(Batch {
                shard,
                time,
                first,
                count,
            }))
        }
        (Some(0), &[_time]) => Ok(Reply::Exhausted),
        (Some(-1), &[_time, _last]) => Ok(Reply::Behind),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_checked_against_the_layout() {
        let layout = Layout::redis(std::time::UNIX_EPOCH);
        let ok = parse(&[1, 3, 1_000, 4_090, 6], &layout, 100).unwrap();
        assert_eq!(
            ok,
            Reply::Ids(Batch {
                shard: 3,
                time: 1_000,
                first: 4_090,
                count: 6
            })
        );
        assert_eq!(parse(&[0, 5], &layout, 1).unwrap(), Reply::Exhausted);
        assert_eq!(parse(&[-1, 5, 9], &layout, 1).unwrap(), Reply::Behind);
        for bad in [
            &[][..],
            &[2, 0],
            &[1, 3, 1_000, 4_090, 7], // past the sequence
            &[1, 1_024, 1_000, 0, 1], // shard too wide
            &[1, 3, 1 << 41, 0, 1],   // time too wide
            &[1, 3, 1_000, 0, 0],     // no ids
            &[1, 3, 1_000, 0, 101],   // more than asked
            &[1, -3, 1_000, 0, 1],    // negative
            &[0],
            &[-1, 5],
        ] {
            assert!(
                matches!(parse(bad, &layout, 100), Err(Error::Reply(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn batches_compose_through_the_layout() {
        let layout = Layout::redis(std::time::UNIX_EPOCH);
        let batch = Batch {
            shard: 2,
            time: 77,
            first: 10,
            count: 3,
        };
        let mut out = [0u64; 5];
        assert_eq!(batch.write(&layout, &mut out).unwrap(), 3);
        for (i, id) in out[..3].iter().enumerate() {
            let parts = layout.decompose(*id).unwrap();
            assert_eq!((parts.time, parts.node, parts.seq), (77, 2, 10 + i as u64));
        }
        assert_eq!(out[3..], [0, 0]);
    }
}
