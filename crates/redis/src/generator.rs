//! The client: round-robin over several Redis servers, each with its own
//! shard id, moving on to the next server when one fails.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use guid::flake::Layout;

use crate::error::{Error, Result};
use crate::script::{self, Keys, Reply};

/// Idle connections kept per server.
const MAX_IDLE: usize = 64;

/// Settings of a [`Generator`].
#[derive(Clone, Debug)]
pub struct Config {
    layout: Layout,
    keys: Keys,
    retries: u32,
    timeout: Duration,
    down_for: Duration,
}

impl Config {
    /// Ids in `layout` (which must count milliseconds; the talk's is
    /// [`Layout::redis`]), keys under namespace `guid`, 5 retries, 1 s
    /// request timeout, a failed server skipped for 1 s.
    pub fn new(layout: Layout) -> Config {
        Config {
            layout,
            keys: Keys::new("guid"),
            retries: 5,
            timeout: Duration::from_secs(1),
            down_for: Duration::from_secs(1),
        }
    }

    /// Keys under namespace `ns`.
    pub fn namespace(mut self, ns: &str) -> Config {
        self.keys = Keys::new(ns);
        self
    }

    /// How many more servers to try after a failed attempt (default 5).
    pub fn retries(mut self, retries: u32) -> Config {
        self.retries = retries;
        self
    }

    /// Limit on connecting and on each request.
    pub fn timeout(mut self, timeout: Duration) -> Config {
        self.timeout = timeout;
        self
    }

    /// How long a server that failed is passed over while others work.
    pub fn down_for(mut self, down_for: Duration) -> Config {
        self.down_for = down_for;
        self
    }

    /// Stores `shard` as the shard id of the server at `url` (an operator's
    /// one-time setup; each server needs a different one).
    pub fn set_shard(&self, url: &str, shard: u64) -> Result<()> {
        let client = redis::Client::open(url)?;
        let mut con = client.get_connection_with_timeout(self.timeout)?;
        self.keys.set_shard(&mut con, &self.layout, shard)
    }

    /// A generator over the servers at `urls` (`redis://host:port`);
    /// connections are made when first needed.
    pub fn connect<S: AsRef<str>>(self, urls: &[S]) -> Result<Generator> {
        if urls.is_empty() {
            return Err(Error::Config("no servers"));
        }
        if self.timeout.is_zero() {
            return Err(Error::Config("timeout must be positive"));
        }
        let servers = urls
            .iter()
            .map(|url| {
                Ok(Server {
                    client: redis::Client::open(url.as_ref())?,
                    idle: Mutex::new(Vec::new()),
                    down_until: AtomicU64::new(0),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Generator {
            servers,
            next: AtomicUsize::new(0),
            base: Instant::now(),
            config: self,
            stats: Counters::default(),
        })
    }
}

/// Makes flake ids in Redis servers, in batches, round-robin.
///
/// Each request goes to the next server in turn; if it fails (connection,
/// timeout, used-up sequence, clock behind), the next server is tried, up
/// to [`Config::retries`] more times, then [`Error::Failed`]. A server that
/// failed to answer is passed over for [`Config::down_for`] while others
/// are up. `Generator` is `Sync`: threads share it, each request taking a
/// pooled connection.
#[derive(Debug)]
pub struct Generator {
    servers: Vec<Server>,
    next: AtomicUsize,
    base: Instant,
    config: Config,
    stats: Counters,
}

struct Server {
    client: redis::Client,
    idle: Mutex<Vec<redis::Connection>>,
    /// Nanoseconds after the generator's base until which it is passed over.
    down_until: AtomicU64,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("client", &self.client)
            .field("down_until", &self.down_until)
            .finish_non_exhaustive()
    }
}

/// What a [`Generator`] met, counted since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Script runs that gave ids.
    pub batches: u64,
    /// Attempts answered "sequence used up".
    pub exhausted: u64,
    /// Attempts answered "clock behind".
    pub behind: u64,
    /// Attempts that failed in Redis (connection, timeout, server error).
    pub errors: u64,
}

#[derive(Debug, Default)]
struct Counters {
    batches: AtomicU64,
    exhausted: AtomicU64,
    behind: AtomicU64,
    errors: AtomicU64,
}

impl Generator {
    /// One id.
    pub fn next(&self) -> Result<u64> {
        let mut id = [0];
        self.fill(&mut id)?;
        Ok(id[0])
    }

    /// `n` ids.
    pub fn ids(&self, n: usize) -> Result<Vec<u64>> {
        let mut ids = vec![0; n];
        self.fill(&mut ids)?;
        Ok(ids)
    }

    /// Fills `ids` batch by batch, each batch (at most a millisecond's
    /// sequence) from the next server in turn. On an error the ids written
    /// so far are valid, the rest untouched.
    pub fn fill(&self, ids: &mut [u64]) -> Result<()> {
        let mut done = 0;
        while done < ids.len() {
            done += self.batch(&mut ids[done..])?;
        }
        Ok(())
    }

    /// Fills the start of `out` with one batch of ids from one server;
    /// returns how many (at least 1 for a non-empty `out`).
    pub fn batch(&self, out: &mut [u64]) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let layout = &self.config.layout;
        let n = (out.len() as u64).min(layout.max_seq() + 1);
        let attempts = self.config.retries.saturating_add(1);
        let mut attempt = 0;
        loop {
            if attempt as usize >= self.servers.len() {
                // Every server has had a turn: a used-up millisecond or a
                // clock behind passes with time.
                std::thread::sleep(Duration::from_millis(1));
            }
            let server = &self.servers[self.pick()];
            let failure = match self.run(server, n) {
                Ok(Reply::Ids(batch)) => {
                    self.stats.batches.fetch_add(1, Relaxed);
                    return batch.write(layout, out);
                }
                Ok(Reply::Exhausted) => {
                    self.stats.exhausted.fetch_add(1, Relaxed);
                    Error::Exhausted
                }
                Ok(Reply::Behind) => {
                    self.stats.behind.fetch_add(1, Relaxed);
                    Error::Behind
                }
                // Settings fail the same on every server.
                Err(e @ Error::Config(_)) => return Err(e),
                Err(e) => {
                    self.stats.errors.fetch_add(1, Relaxed);
                    let until = self
                        .elapsed()
                        .saturating_add(guid::nanos(self.config.down_for));
                    server.down_until.store(until, Relaxed);
                    e
                }
            };
            attempt += 1;
            if attempt == attempts {
                return Err(Error::Failed {
                    attempts,
                    last: Box::new(failure),
                });
            }
        }
    }

    /// What this generator met so far.
    pub fn stats(&self) -> Stats {
        let c = &self.stats;
        Stats {
            batches: c.batches.load(Relaxed),
            exhausted: c.exhausted.load(Relaxed),
            behind: c.behind.load(Relaxed),
            errors: c.errors.load(Relaxed),
        }
    }

    /// The layout of the ids.
    pub fn layout(&self) -> Layout {
        self.config.layout
    }

    /// The next server in turn that is not passed over (or simply the next
    /// one, when all are).
    fn pick(&self) -> usize {
        let count = self.servers.len();
        let start = self.next.fetch_add(1, Relaxed);
        let now = self.elapsed();
        (0..count)
            .map(|i| (start + i) % count)
            .find(|&i| self.servers[i].down_until.load(Relaxed) <= now)
            .unwrap_or(start % count)
    }

    /// One script run on `server` with a pooled connection.
    fn run(&self, server: &Server, n: u64) -> Result<Reply> {
        let pooled = server.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut con = match pooled {
            Some(con) => con,
            None => {
                let con = server
                    .client
                    .get_connection_with_timeout(self.config.timeout)?;
                con.set_read_timeout(Some(self.config.timeout))?;
                con.set_write_timeout(Some(self.config.timeout))?;
                con
            }
        };
        let reply = script::run(&mut con, &self.config.keys, &self.config.layout, n);
        // A connection that failed may hold half a reply: drop it.
        if !matches!(reply, Err(Error::Redis(_))) {
            if let Ok(mut idle) = server.idle.lock() {
                if idle.len() < MAX_IDLE {
                    idle.push(con);
                }
            }
        }
        reply
    }

    /// Nanoseconds since the generator was made.
    fn elapsed(&self) -> u64 {
        guid::nanos(self.base.elapsed())
    }
}
