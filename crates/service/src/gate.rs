//! Admission: seats for served connections (`--max-conns`) and, apart from
//! them, a bounded line of connections that have not authenticated yet
//! (`--max-unauthed`). Clients without the token never take a seat, and
//! when the line is full its oldest connection is closed to make room, so
//! half-open connections cannot keep out a client that has the token.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex};

use tokio::task::AbortHandle;

/// The seats and the line.
pub(crate) struct Gate {
    seats: usize,
    taken: AtomicUsize,
    /// The longest line.
    max_waiting: usize,
    line: Mutex<Line>,
}

#[derive(Default)]
struct Line {
    /// Oldest first; entries that left already are dropped lazily.
    order: VecDeque<Entry>,
    /// Connections still waiting.
    waiting: usize,
}

struct Entry {
    waiting: Arc<AtomicBool>,
    task: AbortHandle,
}

/// A served connection's seat, given back when dropped.
pub(crate) struct Seat(Arc<Gate>);

/// A connection's place in the line, left when it authenticates or closes.
pub(crate) struct Waiting {
    gate: Arc<Gate>,
    waiting: Arc<AtomicBool>,
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
    /// and returns its task), first closing the oldest waiting connection
    /// if the line is full; returns how many were closed.
    pub(crate) fn wait(self: &Arc<Self>, start: impl FnOnce(Waiting) -> AbortHandle) -> u64 {
        let mut line = self.line.lock().unwrap_or_else(|e| e.into_inner());
        let mut closed = 0;
        while line.waiting >= self.max_waiting {
            let Some(oldest) = line.order.pop_front() else {
                break;
            };
            // Whoever clears the flag first (this or the connection) counts it.
            if oldest.waiting.swap(false, AcqRel) {
                line.waiting -= 1;
                oldest.task.abort();
                closed += 1;
            }
        }
        let waiting = Arc::new(AtomicBool::new(true));
        line.waiting += 1;
        let task = start(Waiting {
            gate: Arc::clone(self),
            waiting: Arc::clone(&waiting),
        });
        line.order.push_back(Entry { waiting, task });
        // Connections that authenticated behind a slow one leave stale
        // entries: sweep them before they outnumber the live ones.
        if line.order.len() > 2 * line.waiting + 64 {
            line.order.retain(|e| e.waiting.load(Acquire));
        }
        closed
    }

    /// Connections served now.
    #[cfg(test)]
    fn taken(&self) -> usize {
        self.taken.load(Relaxed)
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.0.taken.fetch_sub(1, Relaxed);
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.waiting.swap(false, AcqRel) {
            let mut line = self.gate.line.lock().unwrap_or_else(|e| e.into_inner());
            line.waiting -= 1;
        }
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
            let closed = gate.wait(|w| {
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
}
