//! Admission: seats for served connections (`--max-conns`) and, apart from
//! them, a bounded line of connections that have not authenticated yet
//! (`--max-unauthed`). Clients without the token never take a seat.
//!
//! When the line is full, each new connection is let in by closing one
//! that waits, chosen so that a flood from one address cannot push out
//! the clients of another:
//!
//! 1. the oldest connection in the line, if it has waited [`GRACE`] (2 s)
//!    or longer;
//! 2. else the oldest connection of the source address holding the most
//!    places in the line (IPv4 addresses one by one, IPv6 by /64; among
//!    addresses holding as many, any one).
//!
//! The guarantee: a connection is never closed to make room before it has
//! waited [`GRACE`] while another address holds more places in the line
//! than its own. So a client with the token whose whole auth frame reaches
//! the server within 2 s of accept (and within `--auth-timeout`) is served,
//! a seat being free, however fast connections that send nothing come from
//! other addresses, unless its own address holds the most places.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use tokio::task::AbortHandle;

/// A connection younger than this is closed to make room only when none
/// in the line is older, and then only as the oldest of the address
/// holding the most places: the auth deadline the line guarantees.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// The seats and the line.
pub(crate) struct Gate {
    seats: usize,
    taken: AtomicUsize,
    /// The longest line.
    max_waiting: usize,
    line: Mutex<Line>,
}

/// Connections waiting to authenticate. Every change of a place's
/// `waiting` flag, and of the counts, is made under the line's lock.
#[derive(Default)]
struct Line {
    /// Oldest first; entries that left already are dropped lazily.
    order: VecDeque<Arc<Place>>,
    /// Connections still waiting.
    waiting: usize,
    /// Those whose source is known, by source.
    sources: HashMap<IpAddr, Source>,
    /// The sources by how many places they hold, fewest first.
    by_places: BTreeSet<(usize, IpAddr)>,
}

/// The waiting connections of one source address.
#[derive(Default)]
struct Source {
    /// Oldest first; entries that left already are dropped lazily.
    order: VecDeque<Arc<Place>>,
    /// Places held.
    places: usize,
}

/// One connection's place in the line.
struct Place {
    waiting: AtomicBool,
    since: Instant,
    /// The source its place counts for, if its peer was known.
    source: Option<IpAddr>,
    task: OnceLock<AbortHandle>,
}

/// A served connection's seat, given back when dropped.
pub(crate) struct Seat(Arc<Gate>);

/// A connection's place in the line, left when it authenticates or closes.
pub(crate) struct Waiting {
    gate: Arc<Gate>,
    place: Arc<Place>,
}

impl Gate {
    pub(crate) fn new(seats: usize, max_waiting: usize) -> Gate {
        Gate {
            seats,
            taken: AtomicUsize::new(0),
            max_waiting: max_waiting.max(1),
            line: Mutex::default(),
        }
    }

    /// A seat, if one is free.
    pub(crate) fn seat(self: &Arc<Self>) -> Option<Seat> {
        self.taken
            .fetch_update(AcqRel, Acquire, |n| (n < self.seats).then_some(n + 1))
            .ok()
            .map(|_| Seat(Arc::clone(self)))
    }

    /// Puts a new connection in the line (`start` spawns it with its place
    /// and returns its task), first closing waiting connections as the
    /// module says if the line is full; returns how many were closed. The
    /// place counts for the source address of `peer` from its accept (with
    /// none, it is closed to make room only as the oldest in the line).
    pub(crate) fn wait(
        self: &Arc<Self>,
        peer: Option<IpAddr>,
        start: impl FnOnce(Waiting) -> AbortHandle,
    ) -> u64 {
        let mut line = self.lock();
        let now = Instant::now();
        let mut closed = 0;
        while line.waiting >= self.max_waiting {
            let Some(victim) = line.victim(now) else {
                break;
            };
            line.leave(&victim);
            if let Some(task) = victim.task.get() {
                task.abort();
            }
            closed += 1;
        }
        let place = Arc::new(Place {
            waiting: AtomicBool::new(true),
            since: now,
            source: peer.map(source),
            task: OnceLock::new(),
        });
        line.waiting += 1;
        let task = start(Waiting {
            gate: Arc::clone(self),
            place: Arc::clone(&place),
        });
        let _ = place.task.set(task);
        if let Some(ip) = place.source {
            line.join(&place, ip);
        }
        line.order.push_back(place);
        // Connections that authenticated behind a slow one leave stale
        // entries: sweep them before they outnumber the live ones.
        if line.order.len() > 2 * line.waiting + 64 {
            line.order.retain(|p| p.waiting.load(Relaxed));
        }
        closed
    }

    fn lock(&self) -> MutexGuard<'_, Line> {
        self.line.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Connections served now.
    #[cfg(test)]
    fn taken(&self) -> usize {
        self.taken.load(Relaxed)
    }
}

impl Line {
    /// The connection to close to make room, as the module says.
    fn victim(&mut self, now: Instant) -> Option<Arc<Place>> {
        while !self.order.front()?.waiting.load(Relaxed) {
            self.order.pop_front();
        }
        let oldest = self.order.front()?;
        if now.saturating_duration_since(oldest.since) >= GRACE {
            return Some(Arc::clone(oldest));
        }
        self.oldest_of_the_most()
            .or_else(|| self.order.front().cloned())
    }

    /// The oldest waiting connection of the source holding the most places.
    fn oldest_of_the_most(&mut self) -> Option<Arc<Place>> {
        let &(_, ip) = self.by_places.last()?;
        let source = self.sources.get_mut(&ip)?;
        while !source.order.front()?.waiting.load(Relaxed) {
            source.order.pop_front();
        }
        source.order.front().cloned()
    }

    /// `place`, waiting, counts for `ip` from now on.
    fn join(&mut self, place: &Arc<Place>, ip: IpAddr) {
        let source = self.sources.entry(ip).or_default();
        self.by_places.remove(&(source.places, ip));
        source.places += 1;
        source.order.push_back(Arc::clone(place));
        self.by_places.insert((source.places, ip));
    }

    /// `place` leaves the line (once: later calls do nothing).
    fn leave(&mut self, place: &Place) {
        if !place.waiting.swap(false, Relaxed) {
            return;
        }
        self.waiting -= 1;
        let Some(ip) = place.source else {
            return;
        };
        let Some(source) = self.sources.get_mut(&ip) else {
            return;
        };
        self.by_places.remove(&(source.places, ip));
        source.places -= 1;
        if source.places == 0 {
            self.sources.remove(&ip);
            return;
        }
        self.by_places.insert((source.places, ip));
        if source.order.len() > 2 * source.places + 16 {
            source.order.retain(|p| p.waiting.load(Relaxed));
        }
    }
}

/// The source a connection from `ip` counts for: an IPv4 address (mapped
/// or not), or the /64 of an IPv6 address.
fn source(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !0u128 << 64)),
        v4 => v4,
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.0.taken.fetch_sub(1, Relaxed);
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.gate.lock().leave(&self.place);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_are_given_back() {
        let gate = Arc::new(Gate::new(2, 1));
        let a = gate.seat().unwrap();
        let b = gate.seat().unwrap();
        assert!(gate.seat().is_none());
        drop(a);
        let c = gate.seat().unwrap();
        assert_eq!(gate.taken(), 2);
        drop((b, c));
        assert_eq!(gate.taken(), 0);
    }

    #[tokio::test]
    async fn a_full_line_closes_its_oldest() {
        let gate = Arc::new(Gate::new(1, 2));
        let mut tasks = tokio::task::JoinSet::new();
        let spawn = |tasks: &mut tokio::task::JoinSet<()>| {
            let mut place = None;
            let closed = gate.wait(None, |w| {
                let (tx, rx) = tokio::sync::oneshot::channel::<()>();
                place = Some(tx);
                tasks.spawn(async move {
                    let _w = w;
                    let _ = rx.await;
                })
            });
            (place.unwrap(), closed)
        };
        let (first, c1) = spawn(&mut tasks);
        let (second, c2) = spawn(&mut tasks);
        assert_eq!((c1, c2), (0, 0));
        // The second authenticates (leaves the line): room for one more.
        drop(second);
        tasks.join_next().await.unwrap().unwrap();
        let (_third, c3) = spawn(&mut tasks);
        assert_eq!(c3, 0);
        // The line is full again: the oldest (the first) is closed.
        let (_fourth, c4) = spawn(&mut tasks);
        assert_eq!(c4, 1);
        let aborted = tasks.join_next().await.unwrap();
        assert!(aborted.unwrap_err().is_cancelled());
        drop(first);
    }

    /// Spawns a connection from `ip` waiting in `gate`'s line; its task
    /// ends when the sender is dropped.
    async fn from(
        gate: &Arc<Gate>,
        tasks: &mut tokio::task::JoinSet<()>,
        ip: &str,
    ) -> (tokio::sync::oneshot::Sender<()>, AbortHandle, u64) {
        let ip: IpAddr = ip.parse().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let mut task = None;
        let closed = gate.wait(Some(ip), |w| {
            let handle = tasks.spawn(async move {
                let _ = rx.await;
                drop(w);
            });
            task = Some(handle.clone());
            handle
        });
        tokio::task::yield_now().await;
        (tx, task.unwrap(), closed)
    }

    #[tokio::test]
    async fn a_flood_from_one_address_closes_its_own() {
        let gate = Arc::new(Gate::new(1, 4));
        let mut tasks = tokio::task::JoinSet::new();
        let (_a, a, _) = from(&gate, &mut tasks, "127.0.0.2").await;
        let mut flood = Vec::new();
        let mut closed = 0;
        for _ in 0..20 {
            let (tx, task, c) = from(&gate, &mut tasks, "127.0.0.1").await;
            flood.push((tx, task));
            closed += c;
        }
        tokio::task::yield_now().await;
        assert_eq!(closed, 17);
        assert!(
            !a.is_finished(),
            "the other address's connection was closed"
        );
        // The flooder's oldest went first: its last three wait.
        let waiting: Vec<bool> = flood.iter().map(|(_, t)| !t.is_finished()).collect();
        assert_eq!(waiting.iter().filter(|w| **w).count(), 3);
        assert!(waiting[17..].iter().all(|w| *w));
        let line = gate.lock();
        assert_eq!(line.waiting, 4);
        assert_eq!(line.by_places.iter().collect::<Vec<_>>().len(), 2);
    }

    #[tokio::test]
    async fn past_the_grace_the_oldest_goes_first() {
        let gate = Arc::new(Gate::new(1, 3));
        let mut tasks = tokio::task::JoinSet::new();
        let (_a, a, _) = from(&gate, &mut tasks, "127.0.0.2").await;
        let (_b, b, _) = from(&gate, &mut tasks, "127.0.0.1").await;
        let (_c, _, _) = from(&gate, &mut tasks, "127.0.0.1").await;
        let now = Instant::now();
        {
            let mut line = gate.lock();
            let is = |p: Option<Arc<Place>>, t: &AbortHandle| {
                p.unwrap().task.get().unwrap().id() == t.id()
            };
            assert!(is(line.victim(now), &b));
            assert!(is(line.victim(now + GRACE), &a));
        }
        // A connection that leaves (authenticates) gives its place back.
        drop(_b);
        tokio::task::yield_now().await;
        assert_eq!(gate.lock().waiting, 2);
        assert_eq!(gate.lock().sources.len(), 2);
    }

    #[test]
    fn sources_are_addresses_and_ipv6_prefixes() {
        let s = |ip: &str| source(ip.parse().unwrap()).to_string();
        assert_eq!(s("10.1.2.3"), "10.1.2.3");
        assert_eq!(s("::ffff:10.1.2.3"), "10.1.2.3");
        assert_eq!(s("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::");
        assert_eq!(s("2001:db8:1:2:ffff:1:2:3"), "2001:db8:1:2::");
        assert_ne!(s("2001:db8:1:3::1"), s("2001:db8:1:2::1"));
    }
}
