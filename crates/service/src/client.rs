//! A client of the id service that moves to another address when one
//! fails, as noeqd's README asks of clients ("Failure Recovery").

use std::fmt;
use std::io::{self, Read, Write};
use std::marker::PhantomData;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

use guid::{Guid, v3};

use crate::protocol::{self, MAX_IDS};

/// An id the service sends: `u64` (64-bit flake ids, 8 bytes), [`Guid`]
/// or [`v3::Guid`] (96-bit global ids, 12 bytes), or [`v3::Xuid`] (v3's
/// 128-bit X ids, 16 bytes).
pub trait WireId: Copy + Ord + sealed::Sealed {
    /// Bytes per id on the wire.
    const BYTES: usize;
    /// The id of `bytes` (exactly [`WireId::BYTES`] long), if valid.
    fn decode(bytes: &[u8]) -> Option<Self>;
    /// A placeholder value for buffers.
    fn placeholder() -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for guid::Guid {}
    impl Sealed for guid::v3::Guid {}
    impl Sealed for guid::v3::Xuid {}
}

impl WireId for u64 {
    const BYTES: usize = 8;
    fn decode(bytes: &[u8]) -> Option<u64> {
        Some(u64::from_be_bytes(bytes.try_into().ok()?))
    }
    fn placeholder() -> u64 {
        0
    }
}

/// The ids of the `guid` crate, as their bytes.
macro_rules! wire_ids {
    ($($id:ty),*) => {$(
        impl WireId for $id {
            const BYTES: usize = <$id as guid::Id>::BYTES;
            fn decode(bytes: &[u8]) -> Option<$id> {
                guid::Id::from_slice(bytes).ok()
            }
            fn placeholder() -> $id {
                <$id as guid::Id>::MIN
            }
        }
    )*};
}

wire_ids!(Guid, v3::Guid, v3::Xuid);

/// Why the client could not hand out ids.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// No address was given, or none resolved.
    #[error("no address to connect to")]
    NoAddress,
    /// The token is longer than the protocol's 255 bytes.
    #[error("token is {0} bytes, the protocol allows at most 255")]
    TokenTooLong(usize),
    /// Every attempt failed: the retry budget of one call is spent.
    #[error("every address failed ({attempts} attempts), last: {last}")]
    Failed {
        /// Connections tried or broken during the call.
        attempts: u32,
        /// The last error met.
        #[source]
        last: io::Error,
    },
    /// A [`Prefetch`](crate::Prefetch)'s thread could not start, or has
    /// stopped.
    #[error("prefetching thread: {0}")]
    Thread(#[source] io::Error),
}

/// Requests sent at once by [`Client::fill`] before reading the replies.
const PIPELINE: usize = 16;

/// The default retry budget of one call (the Redis id talk's five).
const DEFAULT_RETRIES: u32 = 5;

/// The default connect, read and write timeout.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

/// A connection to one of several id servers.
///
/// On a broken or closed connection, a timeout, or ids that do not
/// increase, it connects to another address chosen at random among those
/// that have not failed during the call, and asks again; one call gives up
/// after [`Client::retries`] failures with [`ClientError::Failed`]. Ids of one connection are checked to increase;
/// ids from different servers are unique (given distinct node ids) but not
/// ordered.
///
/// ```no_run
/// use kguid_service::Client;
/// let mut ids = Client::connect(["10.0.0.1:4444", "10.0.0.2:4444"], Some(b"secret"))?;
/// let one: u64 = ids.next()?;
/// let many: Vec<u64> = ids.next_n(1_000)?; // four requests, pipelined
/// let mut global = Client::connect_g(["10.0.0.1:4445"], None)?;
/// let g: guid::Guid = global.next()?;
/// # Ok::<(), kguid_service::ClientError>(())
/// ```
pub struct Client<T: WireId = u64> {
    addrs: Vec<SocketAddr>,
    preamble: Option<Vec<u8>>,
    retries: u32,
    timeout: Duration,
    conn: Option<Conn<T>>,
    /// Addresses that failed during the current call, avoided until every
    /// address has failed once.
    failed: Vec<bool>,
    buf: Vec<u8>,
    _id: PhantomData<T>,
}

struct Conn<T> {
    stream: TcpStream,
    addr: usize,
    last: Option<T>,
}

impl Client<u64> {
    /// Connects to one of `addrs` for 64-bit ids, authenticating with
    /// `token` if given.
    pub fn connect<A: ToSocketAddrs>(
        addrs: impl IntoIterator<Item = A>,
        token: Option<&[u8]>,
    ) -> Result<Client<u64>, ClientError> {
        Client::open(addrs, token)
    }
}

impl Client<Guid> {
    /// Connects to one of `addrs` (the service's 96-bit listeners) for
    /// global ids.
    pub fn connect_g<A: ToSocketAddrs>(
        addrs: impl IntoIterator<Item = A>,
        token: Option<&[u8]>,
    ) -> Result<Client<Guid>, ClientError> {
        Client::open(addrs, token)
    }
}

impl Client<v3::Guid> {
    /// Connects to one of `addrs` (96-bit listeners serving v3, `--v3`)
    /// for v3's global ids.
    pub fn connect_v3<A: ToSocketAddrs>(
        addrs: impl IntoIterator<Item = A>,
        token: Option<&[u8]>,
    ) -> Result<Client<v3::Guid>, ClientError> {
        Client::open(addrs, token)
    }
}

impl Client<v3::Xuid> {
    /// Connects to one of `addrs` (the service's 128-bit listeners,
    /// `--listen-x`) for v3's X ids.
    pub fn connect_x<A: ToSocketAddrs>(
        addrs: impl IntoIterator<Item = A>,
        token: Option<&[u8]>,
    ) -> Result<Client<v3::Xuid>, ClientError> {
        Client::open(addrs, token)
    }
}

impl<T: WireId> Client<T> {
    fn open<A: ToSocketAddrs>(
        addrs: impl IntoIterator<Item = A>,
        token: Option<&[u8]>,
    ) -> Result<Client<T>, ClientError> {
        let addrs: Vec<SocketAddr> = addrs
            .into_iter()
            .filter_map(|a| a.to_socket_addrs().ok())
            .flatten()
            .collect();
        if addrs.is_empty() {
            return Err(ClientError::NoAddress);
        }
        let preamble = match token.filter(|t| !t.is_empty()) {
            None => None,
            Some(t) => Some(protocol::auth_preamble(t).ok_or(ClientError::TokenTooLong(t.len()))?),
        };
        let failed = vec![false; addrs.len()];
        let mut client = Client {
            addrs,
            preamble,
            retries: DEFAULT_RETRIES,
            timeout: DEFAULT_TIMEOUT,
            conn: None,
            failed,
            buf: Vec::new(),
            _id: PhantomData,
        };
        let mut failures = 0;
        client.reconnect(&mut failures)?;
        Ok(client)
    }

    /// Sets the retry budget of one call (default 5).
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// Sets the connect, read and write timeout (default 1 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        if let Some(c) = &self.conn {
            let _ = set_timeouts(&c.stream, timeout);
        }
        self
    }

    /// The address of the current connection.
    pub fn addr(&self) -> Option<SocketAddr> {
        self.conn.as_ref().map(|c| self.addrs[c.addr])
    }

    /// One id.
    // Not an `Iterator`: every id can fail, and failing is not the end.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<T, ClientError> {
        let mut one = [T::placeholder()];
        self.fill(&mut one)?;
        Ok(one[0])
    }

    /// `n` ids, asked for in requests of at most 255.
    pub fn next_n(&mut self, n: usize) -> Result<Vec<T>, ClientError> {
        let mut ids = vec![T::placeholder(); n];
        self.fill(&mut ids)?;
        Ok(ids)
    }

    /// Fills `ids`, asking for at most 16 requests of 255 ids at a time.
    pub fn fill(&mut self, ids: &mut [T]) -> Result<(), ClientError> {
        let mut done = 0;
        let mut failures = 0;
        self.failed.fill(false);
        while done < ids.len() {
            if self.conn.is_none() {
                self.reconnect(&mut failures)?;
            }
            match self.exchange(&mut ids[done..]) {
                Ok(n) => done += n,
                Err(e) => {
                    if let Some(c) = self.conn.take() {
                        self.failed[c.addr] = true;
                    }
                    failures += 1;
                    if failures > self.retries {
                        return Err(ClientError::Failed {
                            attempts: failures,
                            last: e,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Sends pipelined requests for the start of `ids` and reads the
    /// replies; returns how many ids it filled.
    fn exchange(&mut self, ids: &mut [T]) -> io::Result<usize> {
        let Some(conn) = &mut self.conn else {
            return Err(io::ErrorKind::NotConnected.into());
        };
        let n = ids.len().min(PIPELINE * MAX_IDS);
        let mut requests = [0u8; PIPELINE];
        let mut count = 0;
        let mut left = n;
        while left > 0 {
            let k = left.min(MAX_IDS);
            requests[count] = k as u8;
            count += 1;
            left -= k;
        }
        conn.stream.write_all(&requests[..count])?;
        self.buf.resize(n * T::BYTES, 0);
        conn.stream.read_exact(&mut self.buf)?;
        for (slot, bytes) in ids[..n].iter_mut().zip(self.buf.chunks_exact(T::BYTES)) {
            let id = T::decode(bytes).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidData, "the server sent an invalid id")
            })?;
            if conn.last.is_some_and(|last| id <= last) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the server sent an id not after the one before",
                ));
            }
            conn.last = Some(id);
            *slot = id;
        }
        Ok(n)
    }

    /// Connects to an address chosen at random among those that have not
    /// failed during this call (all of them again once each has failed),
    /// counting failures against the retry budget.
    fn reconnect(&mut self, failures: &mut u32) -> Result<(), ClientError> {
        if let Some(c) = self.conn.take() {
            self.failed[c.addr] = true;
        }
        loop {
            let addr = self.pick();
            match self.dial(addr) {
                Ok(stream) => {
                    self.conn = Some(Conn {
                        stream,
                        addr,
                        last: None,
                    });
                    return Ok(());
                }
                Err(e) => {
                    self.failed[addr] = true;
                    *failures += 1;
                    if *failures > self.retries {
                        return Err(ClientError::Failed {
                            attempts: *failures,
                            last: e,
                        });
                    }
                }
            }
        }
    }

    fn pick(&mut self) -> usize {
        if self.failed.iter().all(|&f| f) {
            self.failed.fill(false);
        }
        let left: Vec<usize> = (0..self.addrs.len()).filter(|&i| !self.failed[i]).collect();
        left[guid::node::random() as usize % left.len()]
    }

    fn dial(&self, addr: usize) -> io::Result<TcpStream> {
        let mut stream = TcpStream::connect_timeout(&self.addrs[addr], self.timeout)?;
        set_timeouts(&stream, self.timeout)?;
        stream.set_nodelay(true)?;
        if let Some(p) = &self.preamble {
            stream.write_all(p)?;
        }
        Ok(stream)
    }
}

fn set_timeouts(stream: &TcpStream, timeout: Duration) -> io::Result<()> {
    let t = Some(timeout).filter(|t| !t.is_zero());
    stream.set_read_timeout(t)?;
    stream.set_write_timeout(t)
}

impl<T: WireId> fmt::Debug for Client<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("addrs", &self.addrs)
            .field("current", &self.addr())
            .field("retries", &self.retries)
            .field("timeout", &self.timeout)
            .field("auth", &self.preamble.is_some())
            .finish()
    }
}
