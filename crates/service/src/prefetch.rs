//! Ids fetched ahead: a thread keeps a bounded buffer of ids filled from
//! the service, as Meituan Leaf's double buffer and Baidu's uid-generator's
//! ring do, so that a caller takes its ids from memory.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::client::{Client, ClientError, WireId};
use crate::protocol::MAX_IDS;

/// Ids per fetch: the 16 pipelined requests of 255 that one
/// [`Client::fill`] sends at once.
const BATCH: usize = 16 * MAX_IDS;

/// The default capacity of the buffer: four batches.
const DEFAULT_CAPACITY: usize = 4 * BATCH;

/// The first wait before fetching again after a failure; it doubles up to
/// [`RETRY_MAX`].
const RETRY_MIN: Duration = Duration::from_millis(50);
const RETRY_MAX: Duration = Duration::from_secs(1);

/// Batches kept for reuse, at most.
const SPARES: usize = 8;

/// Ids fetched ahead from the service by a thread of its own, handed out
/// from memory.
///
/// The thread fetches 4,080 ids at a time (16 pipelined requests of
/// 255 on the [`Client`]'s connection) into a buffer of at most
/// `capacity` ids. It starts fetching when the buffer falls below its
/// low-water mark (half the capacity) and goes on until it is full. A
/// caller takes a whole batch from the buffer at once, under one lock, and
/// hands out its ids one by one from there: [`Prefetch::next`] is an index
/// into a vector.
///
/// Every id still comes from the service: the buffer holds ids the
/// service issued, never ids made here. On one connection they increase;
/// so does the sequence each handle hands out (its batches are taken in
/// the order they were fetched). After the client moves to another server,
/// ids are unique but not ordered against those before, as with
/// [`Client`].
///
/// To share the buffer between threads, [`Clone`] the handle: every clone
/// takes batches from the same buffer and hands them out on its own. The
/// thread stops when the last handle is dropped; the drop waits for a
/// fetch in flight, which a server that stopped answering bounds by the
/// client's timeout for each of its retries.
///
/// When fetching fails (the client's retry budget spent), the ids already
/// buffered are still handed out; then calls return the error
/// ([`ClientError::Failed`]) at once, while the thread keeps trying (after
/// 50 ms, doubling up to 1 s) and the ids come again once it succeeds.
///
/// ```no_run
/// use kguid_service::{Client, Prefetch};
///
/// let client = Client::connect_g(["10.0.0.1:4445", "10.0.0.2:4445"], None)?;
/// let mut ids = Prefetch::new(client)?;
/// let id: guid::Guid = ids.next()?; // from memory, once the first batch is in
/// let mut other = ids.clone(); // for another thread, the same buffer
/// let more = other.next_n(10_000)?;
/// # Ok::<(), kguid_service::ClientError>(())
/// ```
pub struct Prefetch<T: WireId> {
    /// The ids this handle is handing out, and the next one's index.
    local: Vec<T>,
    at: usize,
    owner: Arc<Owner<T>>,
}

/// Stops and joins the thread when the last handle goes.
struct Owner<T> {
    shared: Arc<Shared<T>>,
    thread: Option<JoinHandle<()>>,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// A batch or an error for callers waiting.
    ready: Condvar,
    /// Room in the buffer, or stop, for the thread.
    wanted: Condvar,
    capacity: usize,
    low_water: usize,
}

struct State<T> {
    batches: VecDeque<Vec<T>>,
    /// Ids in `batches`.
    buffered: usize,
    /// Emptied batches, for the thread to fill again.
    spare: Vec<Vec<T>>,
    /// The last failure, until a fetch succeeds.
    failure: Option<Failure>,
    stop: bool,
    /// The thread has ended (only by `stop`, unless it panicked).
    gone: bool,
}

/// A fetch's error, kept to be handed to every caller.
#[derive(Clone, Debug)]
struct Failure {
    attempts: u32,
    kind: io::ErrorKind,
    message: String,
}

impl Failure {
    fn of(e: &ClientError) -> Failure {
        match e {
            ClientError::Failed { attempts, last } => Failure {
                attempts: *attempts,
                kind: last.kind(),
                message: last.to_string(),
            },
            other => Failure {
                attempts: 0,
                kind: io::ErrorKind::Other,
                message: other.to_string(),
            },
        }
    }

    fn error(&self) -> ClientError {
        ClientError::Failed {
            attempts: self.attempts,
            last: io::Error::new(self.kind, self.message.clone()),
        }
    }
}

impl<T: WireId + Send + 'static> Prefetch<T> {
    /// Starts fetching from `client` into a buffer of 16,320 ids (four
    /// batches); fails only if the thread cannot start.
    pub fn new(client: Client<T>) -> Result<Prefetch<T>, ClientError> {
        Prefetch::with_capacity(client, DEFAULT_CAPACITY)
    }

    /// Starts fetching from `client` into a buffer of `capacity` ids
    /// (rounded up to whole batches of 4,080, at least one), refilled
    /// from when it holds less than half of that.
    pub fn with_capacity(client: Client<T>, capacity: usize) -> Result<Prefetch<T>, ClientError> {
        let capacity = capacity.div_ceil(BATCH).max(1) * BATCH;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                batches: VecDeque::new(),
                buffered: 0,
                spare: Vec::new(),
                failure: None,
                stop: false,
                gone: false,
            }),
            ready: Condvar::new(),
            wanted: Condvar::new(),
            capacity,
            low_water: capacity / 2,
        });
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("guid-prefetch".into())
                .spawn(move || fetch(client, &shared))
                .map_err(ClientError::Thread)?
        };
        Ok(Prefetch {
            local: Vec::new(),
            at: 0,
            owner: Arc::new(Owner {
                shared,
                thread: Some(thread),
            }),
        })
    }
}

impl<T: WireId> Prefetch<T> {
    /// One id: from this handle's batch, or the next batch of the buffer
    /// (waiting for one if the buffer is empty and fetching works).
    // Not an `Iterator`: every id can fail, and failing is not the end.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn next(&mut self) -> Result<T, ClientError> {
        if let Some(&id) = self.local.get(self.at) {
            self.at += 1;
            return Ok(id);
        }
        self.take_batch()?;
        let id = self.local[0];
        self.at = 1;
        Ok(id)
    }

    /// Fills `ids` from the buffer, in order.
    pub fn fill(&mut self, ids: &mut [T]) -> Result<(), ClientError> {
        let mut done = 0;
        while done < ids.len() {
            if self.at == self.local.len() {
                self.take_batch()?;
                self.at = 0;
            }
            let n = (self.local.len() - self.at).min(ids.len() - done);
            ids[done..done + n].copy_from_slice(&self.local[self.at..self.at + n]);
            self.at += n;
            done += n;
        }
        Ok(())
    }

    /// `n` ids from the buffer, in order.
    pub fn next_n(&mut self, n: usize) -> Result<Vec<T>, ClientError> {
        let mut ids = vec![T::placeholder(); n];
        self.fill(&mut ids)?;
        Ok(ids)
    }

    /// Ids ready to hand out: this handle's, and those in the shared
    /// buffer.
    pub fn buffered(&self) -> usize {
        let shared = &self.owner.shared;
        self.local.len() - self.at + lock(&shared.state).buffered
    }

    /// The buffer's capacity in ids (a whole number of batches).
    pub fn capacity(&self) -> usize {
        self.owner.shared.capacity
    }

    /// Replaces this handle's emptied batch with the buffer's next one.
    #[cold]
    fn take_batch(&mut self) -> Result<(), ClientError> {
        let shared = &self.owner.shared;
        let mut state = lock(&shared.state);
        loop {
            if let Some(batch) = state.batches.pop_front() {
                state.buffered -= batch.len();
                let mut used = std::mem::replace(&mut self.local, batch);
                if used.capacity() > 0 && state.spare.len() < SPARES {
                    used.clear();
                    state.spare.push(used);
                }
                if state.buffered < shared.low_water {
                    shared.wanted.notify_one();
                }
                return Ok(());
            }
            if let Some(failure) = &state.failure {
                return Err(failure.error());
            }
            if state.gone {
                return Err(ClientError::Thread(io::Error::other(
                    "the prefetching thread has stopped",
                )));
            }
            state = shared.ready.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Another handle on the same buffer, with none of this one's ids.
impl<T: WireId> Clone for Prefetch<T> {
    fn clone(&self) -> Self {
        Prefetch {
            local: Vec::new(),
            at: 0,
            owner: Arc::clone(&self.owner),
        }
    }
}

impl<T: WireId> fmt::Debug for Prefetch<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prefetch")
            .field("local", &(self.local.len() - self.at))
            .field("capacity", &self.owner.shared.capacity)
            .finish_non_exhaustive()
    }
}

impl<T> Drop for Owner<T> {
    fn drop(&mut self) {
        lock(&self.shared.state).stop = true;
        self.shared.wanted.notify_all();
        if let Some(thread) = self.thread.take() {
            // A fetch in flight ends first: within the client's timeout
            // for each of its retries.
            let _ = thread.join();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marks the thread gone when it ends, however it ends.
struct Gone<'a, T>(&'a Shared<T>);

impl<T> Drop for Gone<'_, T> {
    fn drop(&mut self) {
        lock(&self.0.state).gone = true;
        self.0.ready.notify_all();
    }
}

/// The thread: waits for the buffer to fall below the low-water mark, then
/// fetches batches until it is full, until told to stop.
fn fetch<T: WireId>(mut client: Client<T>, shared: &Shared<T>) {
    let _gone = Gone(shared);
    let mut refilling = false;
    let mut retry = RETRY_MIN;
    loop {
        let mut batch = {
            let mut state = lock(&shared.state);
            loop {
                if state.stop {
                    return;
                }
                if state.buffered < shared.low_water
                    || (refilling && state.buffered < shared.capacity)
                {
                    break;
                }
                refilling = false;
                state = shared.wanted.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            refilling = true;
            state.spare.pop().unwrap_or_default()
        };
        batch.resize(BATCH, T::placeholder());
        let fetched = client.fill(&mut batch);
        let mut state = lock(&shared.state);
        match fetched {
            Ok(()) => {
                retry = RETRY_MIN;
                state.failure = None;
                state.buffered += batch.len();
                state.batches.push_back(batch);
                shared.ready.notify_one();
            }
            Err(e) => {
                state.failure = Some(Failure::of(&e));
                shared.ready.notify_all();
                // Waits before trying again, unless told to stop.
                if !state.stop {
                    let (state, _) = shared
                        .wanted
                        .wait_timeout_while(state, retry, |s| !s.stop)
                        .unwrap_or_else(|e| e.into_inner());
                    drop(state);
                }
                retry = (retry * 2).min(RETRY_MAX);
            }
        }
    }
}
