//! A client of a Hazelcast cluster, for the few map operations a lease
//! needs: it connects and authenticates to a listed member, learns the
//! members and the partition table from that member's cluster view, sends
//! each key's request to its partition's owner (over a connection of its
//! own, made when first needed; through any member while it cannot be),
//! pings every connection, and connects anew to any member it knows when
//! connections fail. It never retries a request that was sent: the store
//! above decides, since a request may have been applied before its
//! connection failed.
//!
//! A write counts only once every backup of its partition has
//! acknowledged it: the client is connected to every member, each of
//! which sends it the acknowledgements of the backups it keeps, and a
//! write the owner applied but some backup did not acknowledge in time is
//! [`Error::Backups`]. So no write is confirmed that the loss of its owner
//! (a crash, or a split brain that leaves the owner on the other side)
//! could take back.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{oneshot, watch};
use tokio::task::AbortHandle;

use crate::codec::{self, View};
use crate::error::{Error, Result};
use crate::message::{self, Frame, HEADER, Message, Request};

/// What the client connects with.
#[derive(Clone, Debug)]
pub struct Config {
    /// Members to try first, `host:port`.
    pub addresses: Vec<String>,
    /// The cluster's name (Hazelcast's default is `dev`).
    pub cluster: String,
    /// A user name and password, for members that check them.
    pub credentials: Option<(String, String)>,
    /// The limit on connecting and on each answer.
    pub timeout: Duration,
    /// How often each connection is pinged; one unanswered within
    /// `timeout` closes it.
    pub heartbeat: Duration,
    /// The client's name, shown by the members.
    pub name: String,
    /// The local address connections leave from (a host with several),
    /// if not the system's choice.
    pub bind: Option<std::net::IpAddr>,
}

impl Config {
    /// Members at `addresses`, cluster `dev`, no credentials, a timeout of
    /// a second and a ping every two.
    pub fn new(addresses: impl IntoIterator<Item = impl Into<String>>) -> Config {
        Config {
            addresses: addresses.into_iter().map(Into::into).collect(),
            cluster: "dev".into(),
            credentials: None,
            timeout: Duration::from_secs(1),
            heartbeat: Duration::from_secs(2),
            name: format!("kguid-{}", std::process::id()),
            bind: None,
        }
    }
}

/// A client of one cluster; cheap to clone.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("addresses", &self.inner.config.addresses)
            .field("cluster", &self.inner.config.cluster)
            .finish()
    }
}

struct Inner {
    config: Config,
    /// This client's id, the same on every connection.
    uuid: u128,
    correlation: AtomicI64,
    state: Mutex<State>,
    /// Held while a connection to the cluster is being made, so that
    /// concurrent requests make one.
    connecting: tokio::sync::Mutex<()>,
    heartbeat: Mutex<Option<AbortHandle>>,
    /// The backup acknowledgements received for each backup-aware
    /// request under way, by correlation id.
    acks: Mutex<HashMap<i64, watch::Sender<u8>>>,
}

#[derive(Default)]
struct State {
    /// The connection whose member sends the cluster view.
    primary: Option<Arc<Connection>>,
    /// Connections by member id.
    members: HashMap<u128, Arc<Connection>>,
    /// Where each member is, by id.
    addresses: HashMap<u128, String>,
    /// Each partition's owner.
    owners: Vec<Option<u128>>,
    /// The cluster's partition count, from the first authentication.
    partitions: i32,
    /// The id of the cluster, from the latest authentication.
    cluster: Option<u128>,
    /// Versions of the member list and partition table applied.
    versions: (i32, i32),
}

/// One authenticated connection to a member.
struct Connection {
    member: String,
    uuid: u128,
    writer: tokio::sync::Mutex<OwnedWriteHalf>,
    shared: Arc<Shared>,
    reader: AbortHandle,
}

/// What a connection's reader shares with its senders.
#[derive(Default)]
struct Shared {
    pending: Mutex<HashMap<i64, oneshot::Sender<Result<Message>>>>,
    closed: AtomicBool,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(heartbeat) = self.heartbeat.lock().expect("heartbeat").take() {
            heartbeat.abort();
        }
    }
}

impl Client {
    /// A client of the cluster `config` names; it connects at the first
    /// request ([`Client::connect`] connects now).
    pub fn new(config: Config) -> Result<Client> {
        if config.addresses.is_empty() {
            return Err(Error::Config("no member address given".into()));
        }
        if config.timeout.is_zero() || config.heartbeat.is_zero() {
            return Err(Error::Config("a timeout or heartbeat of zero".into()));
        }
        let uuid = random_u128();
        Ok(Client {
            inner: Arc::new(Inner {
                config,
                uuid,
                correlation: AtomicI64::new(1),
                state: Mutex::new(State::default()),
                connecting: tokio::sync::Mutex::new(()),
                heartbeat: Mutex::new(None),
                acks: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// Connects and authenticates now, so that a wrong address, cluster
    /// name or credentials show at once.
    pub async fn connect(&self) -> Result<()> {
        self.primary().await.map(drop)
    }

    /// The cluster's id, once connected: a new one each time the cluster
    /// forms anew (every member restarted).
    pub fn cluster_id(&self) -> Option<u128> {
        self.inner.state().cluster
    }

    /// Sends `request` about serialized `key` to its partition's owner and
    /// waits for the answer; a member's error is [`Error::Server`].
    pub async fn invoke(&self, request: Request, key: &[u8]) -> Result<Message> {
        let primary = self.primary().await?;
        if request.is_backup_aware() {
            self.connect_all().await;
        }
        let partitions = self.inner.state().partitions;
        let partition = crate::data::partition(key, partitions);
        let connection = self.owner(partition).await.unwrap_or(primary);
        self.send(&connection, request.partition(partition)).await
    }

    /// The connection of the member that owns `partition`, made if need be.
    async fn owner(&self, partition: i32) -> Option<Arc<Connection>> {
        let (uuid, address) = {
            let state = self.inner.state();
            let uuid = (*state.owners.get(partition as usize)?)?;
            if let Some(c) = state.members.get(&uuid).filter(|c| c.is_open()) {
                return Some(c.clone());
            }
            (uuid, state.addresses.get(&uuid)?.clone())
        };
        let _one = self.inner.connecting.lock().await;
        if let Some(c) = self
            .inner
            .state()
            .members
            .get(&uuid)
            .filter(|c| c.is_open())
        {
            return Some(c.clone());
        }
        let connection = self.open(&address).await.ok()?;
        self.inner
            .state()
            .members
            .insert(connection.uuid, connection.clone());
        (connection.uuid == uuid).then_some(connection)
    }

    /// Connects to every member the view lists that has no connection:
    /// backups acknowledge through their own member's connection. One that
    /// fails is left; its acknowledgements will be missing.
    async fn connect_all(&self) {
        let missing: Vec<String> = {
            let state = self.inner.state();
            state
                .addresses
                .iter()
                .filter(|(uuid, _)| !state.members.get(uuid).is_some_and(|c| c.is_open()))
                .map(|(_, address)| address.clone())
                .collect()
        };
        if missing.is_empty() {
            return;
        }
        let _one = self.inner.connecting.lock().await;
        for address in missing {
            if let Ok(connection) = self.open(&address).await {
                let mut state = self.inner.state();
                let open = state
                    .members
                    .get(&connection.uuid)
                    .is_some_and(|c| c.is_open());
                if !open {
                    state.members.insert(connection.uuid, connection);
                }
            }
        }
    }

    /// The connection that gets the cluster view: made, to the first
    /// listed or known member that answers, when there is none open.
    async fn primary(&self) -> Result<Arc<Connection>> {
        if let Some(c) = self.inner.state().primary.clone().filter(|c| c.is_open()) {
            return Ok(c);
        }
        let _one = self.inner.connecting.lock().await;
        if let Some(c) = self.inner.state().primary.clone().filter(|c| c.is_open()) {
            return Ok(c);
        }
        let mut addresses = self.inner.config.addresses.clone();
        addresses.extend(self.inner.state().addresses.values().cloned());
        let mut last = None;
        for address in dedup(addresses) {
            match self.open(&address).await {
                Ok(connection) => {
                    {
                        let mut state = self.inner.state();
                        state.primary = Some(connection.clone());
                        state.members.insert(connection.uuid, connection.clone());
                    }
                    // The view comes as events on this connection.
                    self.send(&connection, codec::cluster_view()).await?;
                    self.start_heartbeat();
                    return Ok(connection);
                }
                Err(e @ (Error::Refused { .. } | Error::Server { .. })) => return Err(e),
                Err(e) => last = Some(e),
            }
        }
        Err(match last {
            Some(Error::Unreachable { last, .. }) => Error::Unreachable {
                addresses: self.inner.config.addresses.join(","),
                last,
            },
            Some(e) => e,
            None => Error::Config("no member address given".into()),
        })
    }

    /// A new authenticated connection to `address`.
    async fn open(&self, address: &str) -> Result<Arc<Connection>> {
        let config = &self.inner.config;
        let unreachable = |last| Error::Unreachable {
            addresses: address.to_owned(),
            last,
        };
        let stream = tokio::time::timeout(config.timeout, connect(address, config.bind))
            .await
            .map_err(|_| unreachable(std::io::ErrorKind::TimedOut.into()))?
            .map_err(unreachable)?;
        stream.set_nodelay(true).map_err(unreachable)?;
        let (read, mut write) = stream.into_split();
        write.write_all(b"CP2").await.map_err(unreachable)?;
        let shared = Arc::new(Shared::default());
        let reader = tokio::spawn(read_messages(
            read,
            shared.clone(),
            Arc::downgrade(&self.inner),
            address.to_owned(),
        ))
        .abort_handle();
        let mut connection = Connection {
            member: address.to_owned(),
            uuid: 0,
            writer: tokio::sync::Mutex::new(write),
            shared,
            reader,
        };
        let credentials = config
            .credentials
            .as_ref()
            .map(|(u, p)| (u.as_str(), p.as_str()));
        let request =
            codec::authentication(&config.cluster, credentials, self.inner.uuid, &config.name);
        let answer = codec::authenticated(&self.send(&connection, request).await?)?;
        let reason = match answer.status {
            0 => None,
            1 => Some("wrong cluster name or credentials"),
            2 => Some("serialization version not supported"),
            3 => Some("the client is not allowed in the cluster"),
            _ => Some("an unknown status"),
        };
        if let Some(reason) = reason {
            return Err(Error::Refused {
                member: address.to_owned(),
                reason,
            });
        }
        let (Some(uuid), true) = (answer.member, answer.partitions > 0) else {
            return Err(Error::Protocol(message::Malformed::Field(
                "an authentication without a member id or partitions",
            )));
        };
        connection.uuid = uuid;
        self.send(&connection, codec::backup_listener()).await?;
        let mut state = self.inner.state();
        state.partitions = answer.partitions;
        state.cluster = answer.cluster;
        state.addresses.insert(uuid, address.to_owned());
        Ok(Arc::new(connection))
    }

    /// Sends `request` on `connection` and waits for its answer, and for
    /// the acknowledgements of its backups if it is backup-aware.
    async fn send(&self, connection: &Connection, request: Request) -> Result<Message> {
        let correlation = self.inner.correlation.fetch_add(1, Relaxed);
        let (tx, rx) = oneshot::channel();
        connection
            .shared
            .pending
            .lock()
            .expect("pending")
            .insert(correlation, tx);
        let mut acks = request.is_backup_aware().then(|| {
            let (tx, rx) = watch::channel(0);
            self.inner
                .acks
                .lock()
                .expect("acks")
                .insert(correlation, tx);
            rx
        });
        // Removed whatever happens: answered, failed or timed out.
        let _forget = Forget(&connection.shared, &self.inner, correlation);
        let closed = |reason: String| Error::Closed {
            member: connection.member.clone(),
            reason,
        };
        if connection.shared.closed.load(Relaxed) {
            return Err(closed("closed before the request".into()));
        }
        let timeout = self.inner.config.timeout;
        let bytes = request.finish(correlation);
        // The backups the answer said to wait for, once it came.
        let expected = std::sync::atomic::AtomicU16::new(u16::MAX);
        let exchange = async {
            let mut writer = connection.writer.lock().await;
            if let Err(e) = writer.write_all(&bytes).await {
                connection.close();
                return Err(closed(e.to_string()));
            }
            drop(writer);
            let answer = rx
                .await
                .unwrap_or_else(|_| Err(closed("closed before the answer".into())))?;
            if let Some(acks) = &mut acks {
                let backups = answer.backups()?;
                expected.store(backups.into(), Relaxed);
                if acks.wait_for(|&n| n >= backups).await.is_err() {
                    return Err(closed("closed before the backups acknowledged".into()));
                }
            }
            Ok(answer)
        };
        let answer = match tokio::time::timeout(timeout, exchange).await {
            Ok(answer) => answer?,
            Err(_) => {
                // An answer without all its acknowledgements says so.
                return Err(match (u8::try_from(expected.load(Relaxed)), &acks) {
                    (Ok(expected), Some(acks)) => Error::Backups {
                        acked: *acks.borrow(),
                        expected,
                    },
                    _ => Error::Timeout(timeout),
                });
            }
        };
        if answer.kind()? == codec::ERROR {
            let (code, class, message) = codec::error(&answer)?;
            return Err(Error::Server {
                code,
                class,
                message,
            });
        }
        Ok(answer)
    }

    /// Pings every connection each heartbeat; closes one whose ping fails.
    fn start_heartbeat(&self) {
        let mut heartbeat = self.inner.heartbeat.lock().expect("heartbeat");
        if heartbeat.is_some() {
            return;
        }
        let weak = Arc::downgrade(&self.inner);
        let every = self.inner.config.heartbeat;
        *heartbeat = Some(
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let Some(inner) = weak.upgrade() else { return };
                    let client = Client { inner };
                    let connections: Vec<_> =
                        client.inner.state().members.values().cloned().collect();
                    for connection in connections {
                        if client.send(&connection, codec::ping()).await.is_err() {
                            connection.close();
                        }
                    }
                    client.inner.state().members.retain(|_, c| c.is_open());
                }
            })
            .abort_handle(),
        );
    }
}

impl Inner {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("client state")
    }

    /// Applies a cluster view event.
    fn apply(&self, view: View) {
        let mut state = self.state();
        match view {
            View::Members(version, members) if version >= state.versions.0 => {
                state.versions.0 = version;
                state.addresses = members
                    .into_iter()
                    .map(|m| (m.uuid, format!("{}:{}", m.host, m.port)))
                    .collect();
                let known = state.addresses.clone();
                state.members.retain(|uuid, _| known.contains_key(uuid));
            }
            View::Partitions(version, table) if version >= state.versions.1 => {
                state.versions.1 = version;
                let mut owners = vec![None; state.partitions.max(0) as usize];
                for (owner, partitions) in table {
                    for p in partitions {
                        if let Some(slot) = usize::try_from(p).ok().and_then(|p| owners.get_mut(p))
                        {
                            *slot = Some(owner);
                        }
                    }
                }
                state.owners = owners;
            }
            _ => {}
        }
    }
}

impl Connection {
    fn is_open(&self) -> bool {
        !self.shared.closed.load(Relaxed)
    }

    fn close(&self) {
        self.shared.close();
        self.reader.abort();
    }
}

impl Shared {
    /// Marks the connection closed and fails every request under way.
    fn close(&self) {
        self.closed.store(true, Relaxed);
        self.pending.lock().expect("pending").clear();
    }
}

/// Removes a request from the pending ones, and its acknowledgements,
/// when its sender is done.
struct Forget<'a>(&'a Shared, &'a Inner, i64);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.0.pending.lock().expect("pending").remove(&self.2);
        self.1.acks.lock().expect("acks").remove(&self.2);
    }
}

/// Reads a connection's messages until it fails: answers go to their
/// requests, cluster view events to the client.
async fn read_messages(
    read: OwnedReadHalf,
    shared: Arc<Shared>,
    inner: Weak<Inner>,
    member: String,
) {
    let mut read = BufReader::new(read);
    let failure = loop {
        let message = match read_message(&mut read).await {
            Ok(message) => message,
            Err(e) => break e,
        };
        if message.is_event() {
            if let Some(inner) = inner.upgrade() {
                if let Ok(Some(correlation)) = codec::backup_ack(&message) {
                    if let Some(acks) = inner.acks.lock().expect("acks").get(&correlation) {
                        acks.send_modify(|n| *n = n.saturating_add(1));
                    }
                } else if let Ok(Some(view)) = codec::view(&message) {
                    inner.apply(view);
                }
            }
            continue;
        }
        let Ok(correlation) = message.correlation() else {
            break Error::Protocol(message::Malformed::Field(
                "an answer without a correlation id",
            ));
        };
        let waiting = shared.pending.lock().expect("pending").remove(&correlation);
        if let Some(waiting) = waiting {
            let _ = waiting.send(Ok(message));
        }
    };
    let reason = failure.to_string();
    let pending: Vec<_> = shared
        .pending
        .lock()
        .expect("pending")
        .drain()
        .map(|(_, tx)| tx)
        .collect();
    for tx in pending {
        let _ = tx.send(Err(Error::Closed {
            member: member.clone(),
            reason: reason.clone(),
        }));
    }
    shared.close();
}

/// Reads one whole message.
async fn read_message(read: &mut BufReader<OwnedReadHalf>) -> Result<Message> {
    let closed = |e: std::io::Error| Error::Closed {
        member: String::new(),
        reason: e.to_string(),
    };
    let mut message = Message::default();
    loop {
        let mut header = [0; HEADER];
        read.read_exact(&mut header).await.map_err(closed)?;
        let (length, flags) = message::frame_header(header)?;
        if length > message::MAX_MESSAGE {
            return Err(message::Malformed::TooLong.into());
        }
        let mut content = vec![0; length];
        read.read_exact(&mut content).await.map_err(closed)?;
        if message.push(Frame { flags, content })? {
            return Ok(message);
        }
    }
}

/// A connection to `address` (`host:port`), from `bind` if given.
async fn connect(address: &str, bind: Option<std::net::IpAddr>) -> std::io::Result<TcpStream> {
    let Some(local) = bind else {
        return TcpStream::connect(address).await;
    };
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    for remote in tokio::net::lookup_host(address).await? {
        let socket = match remote {
            std::net::SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
            std::net::SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
        };
        socket.bind((local, 0).into())?;
        match socket.connect(remote).await {
            Ok(stream) => return Ok(stream),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Each address once, in order.
fn dedup(addresses: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    addresses
        .into_iter()
        .filter(|a| seen.insert(a.clone()))
        .collect()
}

/// A random 128-bit id, from the library's node randomness.
pub(crate) fn random_u128() -> u128 {
    let words = [
        guid::node::random(),
        guid::node::random(),
        guid::node::random(),
        guid::node::random(),
    ];
    words.iter().fold(0, |id, &w| id << 32 | u128::from(w))
}
