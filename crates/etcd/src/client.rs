//! A client of etcd's v3 JSON gateway: HTTP/1.1 POSTs to one endpoint of
//! several, moving to the next when one fails.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode, Uri, header};
use hyper_util::client::legacy::Client as Http;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::de::DeserializeOwned;
use tokio::time::Instant;

use crate::gateway::{self, Message, Reply};

/// The longest reply read: a listing of every claim in a big range is
/// well below it, and a misbehaving server cannot make this process
/// allocate without bound.
const MAX_REPLY: usize = 64 << 20;

/// Default limit on connecting to an endpoint.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Default limit on one request.
const TIMEOUT: Duration = Duration::from_secs(5);

/// gRPC's "unavailable": that member cannot serve now (no leader, stopping).
const UNAVAILABLE: i32 = 14;

/// gRPC's "not found".
pub(crate) const NOT_FOUND: i32 = 5;

/// A request to etcd failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// No endpoint was given.
    #[error("no etcd endpoint given")]
    NoEndpoint,
    /// An endpoint is not an `http://host:port` URL.
    #[error("etcd endpoint {endpoint:?}: {reason}")]
    Endpoint {
        /// The endpoint as given.
        endpoint: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The connection failed, or broke before the reply was read.
    #[error("etcd at {endpoint}: {source}")]
    Transport {
        /// The endpoint.
        endpoint: String,
        /// What the HTTP client reported.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// No whole reply within the request timeout.
    #[error("etcd at {endpoint}: no reply within {limit:?}")]
    Timeout {
        /// The endpoint.
        endpoint: String,
        /// The request timeout.
        limit: Duration,
    },
    /// etcd refused the request (an HTTP error status, or an error in a
    /// streamed reply).
    #[error("etcd at {endpoint} refused {path} (HTTP {status}): {message}")]
    Status {
        /// The endpoint.
        endpoint: String,
        /// The gateway path requested.
        path: String,
        /// The HTTP status.
        status: u16,
        /// The gRPC status code etcd gave, if any (5: not found, 14:
        /// unavailable).
        code: Option<i32>,
        /// etcd's message, or the start of the reply.
        message: String,
    },
    /// The reply is not what the gateway writes: malformed, truncated or
    /// missing a field this crate needs.
    #[error("etcd at {endpoint} answered {path} with an unreadable reply: {reason}")]
    Reply {
        /// The endpoint.
        endpoint: String,
        /// The gateway path requested.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl ClientError {
    /// etcd's gRPC status code, if it refused the request with one.
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Status { code, .. } => *code,
            _ => None,
        }
    }
}

impl From<ClientError> for kguid_lease::Error {
    fn from(e: ClientError) -> kguid_lease::Error {
        kguid_lease::Error::store(e)
    }
}

/// Time limits of a [`Client`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnectOptions {
    connect_timeout: Option<Duration>,
    timeout: Option<Duration>,
}

impl ConnectOptions {
    /// The defaults: 2 s to connect, 5 s per request.
    pub fn new() -> ConnectOptions {
        ConnectOptions::default()
    }

    /// Limit on opening a connection to an endpoint; past it the next
    /// endpoint is tried.
    pub fn with_connect_timeout(mut self, limit: Duration) -> ConnectOptions {
        self.connect_timeout = Some(limit);
        self
    }

    /// Limit on one request, from sending it to reading its whole reply
    /// (for a watch, its first reply).
    pub fn with_timeout(mut self, limit: Duration) -> ConnectOptions {
        self.timeout = Some(limit);
        self
    }
}

/// A client of etcd's v3 JSON gateway (`/v3/kv/range`, `/v3/kv/txn`,
/// `/v3/lease/grant`, ...) at one or more endpoints of a cluster. Cheap
/// to clone: clones share connections.
///
/// Requests go to one endpoint; a request that cannot connect there goes
/// to the next at once, and after any other failure the next request
/// does. Plain `http://` only: put etcd behind a local TLS proxy or a
/// private network otherwise.
///
/// It is the etcd [`Store`](kguid_lease::Store) of
/// [`NodeLease`](crate::NodeLease).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    /// `http://host:port`, without a trailing slash.
    endpoints: Vec<String>,
    /// The endpoint requests go to first.
    current: AtomicUsize,
    timeout: Duration,
    http: Http<HttpConnector, Full<Bytes>>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("endpoints", &self.inner.endpoints)
            .field("current", &self.inner.current.load(Relaxed))
            .field("timeout", &self.inner.timeout)
            .finish()
    }
}

/// A reply's head and the endpoint that gave it.
struct Answer {
    endpoint: String,
    response: Response<Incoming>,
}

impl Client {
    /// A client of `endpoints` (`http://host:port`, or `host:port`),
    /// without connecting yet.
    pub fn new<E: AsRef<str>>(
        endpoints: impl IntoIterator<Item = E>,
        options: Option<ConnectOptions>,
    ) -> Result<Client, ClientError> {
        let endpoints = endpoints
            .into_iter()
            .map(|e| endpoint(e.as_ref()))
            .collect::<Result<Vec<String>, ClientError>>()?;
        if endpoints.is_empty() {
            return Err(ClientError::NoEndpoint);
        }
        let options = options.unwrap_or_default();
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(options.connect_timeout.unwrap_or(CONNECT_TIMEOUT)));
        connector.set_nodelay(true);
        let http = Http::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(connector);
        Ok(Client {
            inner: Arc::new(Inner {
                endpoints,
                current: AtomicUsize::new(0),
                timeout: options.timeout.unwrap_or(TIMEOUT),
                http,
            }),
        })
    }

    /// A client of `endpoints`, once one of them answers (etcd's status
    /// request).
    pub async fn connect<E: AsRef<str>>(
        endpoints: impl IntoIterator<Item = E>,
        options: Option<ConnectOptions>,
    ) -> Result<Client, ClientError> {
        let client = Client::new(endpoints, options)?;
        let mut last = None;
        for _ in 0..client.inner.endpoints.len() {
            match client.call("/v3/maintenance/status", "{}").await {
                Ok(_) => return Ok(client),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or(ClientError::NoEndpoint))
    }

    /// The endpoints, as normalized.
    pub fn endpoints(&self) -> &[String] {
        &self.inner.endpoints
    }

    /// Sends `body`, JSON, to the gateway's `path` (such as
    /// `/v3/kv/range`) and returns the reply's JSON: for what this crate
    /// does not wrap (administration, tests). An HTTP error status is
    /// [`ClientError::Status`].
    pub async fn call(&self, path: &str, body: &str) -> Result<String, ClientError> {
        let until = Instant::now() + self.inner.timeout;
        let answer = self
            .send(path, Bytes::copy_from_slice(body.as_bytes()), until)
            .await?;
        let endpoint = answer.endpoint.clone();
        let body = self.read(answer, path, until).await?;
        String::from_utf8(body).map_err(|_| ClientError::Reply {
            endpoint,
            path: path.to_owned(),
            reason: "not UTF-8".into(),
        })
    }

    /// A unary request: the reply's JSON read into `T`.
    pub(crate) async fn post<T: DeserializeOwned>(
        &self,
        path: &'static str,
        body: &serde_json::Value,
    ) -> Result<T, ClientError> {
        let until = Instant::now() + self.inner.timeout;
        let answer = self.send(path, json(body), until).await?;
        let endpoint = answer.endpoint.clone();
        let body = self.read(answer, path, until).await?;
        gateway::parse(&body).map_err(|e| reply(&endpoint, path, e))
    }

    /// A streamed request of one message (a keep-alive sent with the
    /// request body closed): the first message of the reply, without
    /// waiting for etcd to end the stream.
    pub(crate) async fn post_once<T: DeserializeOwned>(
        &self,
        path: &'static str,
        body: &serde_json::Value,
    ) -> Result<T, ClientError> {
        let until = Instant::now() + self.inner.timeout;
        let first = async {
            let mut stream = self.open(path, body).await?;
            let endpoint = stream.endpoint.clone();
            match stream.next().await? {
                Some(message) => Ok(message),
                None => Err(reply(&endpoint, path, Reply("an empty stream".into()))),
            }
        };
        match tokio::time::timeout_at(until, first).await {
            Ok(result) => result,
            Err(_) => {
                let endpoint = self.current();
                self.move_on(self.index_of(&endpoint));
                Err(ClientError::Timeout {
                    endpoint,
                    limit: self.inner.timeout,
                })
            }
        }
    }

    /// A streamed request whose messages the caller reads with
    /// [`Stream::next`].
    pub(crate) async fn open(
        &self,
        path: &'static str,
        body: &serde_json::Value,
    ) -> Result<Stream, ClientError> {
        let until = Instant::now() + self.inner.timeout;
        let answer = self.send(path, json(body), until).await?;
        let status = answer.response.status();
        if status != StatusCode::OK {
            let body = self.body(&answer.endpoint, answer.response, until).await?;
            return Err(self.refused(answer.endpoint, path, status, &body));
        }
        Ok(Stream {
            endpoint: answer.endpoint,
            path,
            body: answer.response.into_body(),
            buffer: Vec::new(),
            pending: Vec::new(),
        })
    }

    /// The endpoint requests go to first: the one that answered last.
    pub(crate) fn current(&self) -> String {
        let inner = &self.inner;
        inner.endpoints[inner.current.load(Relaxed) % inner.endpoints.len()].clone()
    }

    /// Sends a POST to the current endpoint, or on to the next ones while
    /// they cannot be connected to (the request never left, so sending it
    /// again is safe).
    async fn send(&self, path: &str, body: Bytes, until: Instant) -> Result<Answer, ClientError> {
        let inner = &self.inner;
        let count = inner.endpoints.len();
        let start = inner.current.load(Relaxed) % count;
        let mut failure = None;
        for step in 0..count {
            let index = (start + step) % count;
            let endpoint = &inner.endpoints[index];
            let uri: Uri = match format!("{endpoint}{path}").parse() {
                Ok(uri) => uri,
                Err(_) => {
                    return Err(ClientError::Endpoint {
                        endpoint: format!("{endpoint}{path}"),
                        reason: "not a URL with this path",
                    });
                }
            };
            let request = Request::post(uri)
                .header(header::CONTENT_TYPE, "application/json")
                .body(Full::new(body.clone()));
            let request = match request {
                Ok(r) => r,
                Err(e) => {
                    return Err(ClientError::Transport {
                        endpoint: endpoint.clone(),
                        source: Box::new(e),
                    });
                }
            };
            match tokio::time::timeout_at(until, inner.http.request(request)).await {
                Ok(Ok(response)) => {
                    inner.current.store(index, Relaxed);
                    return Ok(Answer {
                        endpoint: endpoint.clone(),
                        response,
                    });
                }
                Ok(Err(e)) if e.is_connect() => {
                    failure = Some(ClientError::Transport {
                        endpoint: endpoint.clone(),
                        source: Box::new(e),
                    });
                }
                Ok(Err(e)) => {
                    self.move_on(index);
                    return Err(ClientError::Transport {
                        endpoint: endpoint.clone(),
                        source: Box::new(e),
                    });
                }
                Err(_) => {
                    self.move_on(index);
                    return Err(ClientError::Timeout {
                        endpoint: endpoint.clone(),
                        limit: inner.timeout,
                    });
                }
            }
        }
        if let Some(ClientError::Transport { .. }) = failure {
            self.move_on(start);
        }
        Err(failure.unwrap_or(ClientError::NoEndpoint))
    }

    /// After a failure at `index`: the next request goes to the next
    /// endpoint, unless another request has moved on already.
    fn move_on(&self, index: usize) {
        let next = (index + 1) % self.inner.endpoints.len();
        let _ = self
            .inner
            .current
            .compare_exchange(index, next, Relaxed, Relaxed);
    }

    /// The whole body of a reply; an error status as
    /// [`ClientError::Status`].
    async fn read(
        &self,
        answer: Answer,
        path: &str,
        until: Instant,
    ) -> Result<Vec<u8>, ClientError> {
        let status = answer.response.status();
        let body = self.body(&answer.endpoint, answer.response, until).await?;
        match status {
            StatusCode::OK => Ok(body),
            _ => Err(self.refused(answer.endpoint, path, status, &body)),
        }
    }

    /// The whole body of a reply, whatever its status.
    async fn body(
        &self,
        endpoint: &str,
        response: Response<Incoming>,
        until: Instant,
    ) -> Result<Vec<u8>, ClientError> {
        let body = Limited::new(response.into_body(), MAX_REPLY);
        match tokio::time::timeout_at(until, body.collect()).await {
            Ok(Ok(body)) => Ok(body.to_bytes().to_vec()),
            Ok(Err(e)) => Err(ClientError::Transport {
                endpoint: endpoint.to_owned(),
                source: e,
            }),
            Err(_) => {
                self.move_on(self.index_of(endpoint));
                Err(ClientError::Timeout {
                    endpoint: endpoint.to_owned(),
                    limit: self.inner.timeout,
                })
            }
        }
    }

    /// The error of a reply with an error status.
    fn refused(
        &self,
        endpoint: String,
        path: &str,
        status: StatusCode,
        body: &[u8],
    ) -> ClientError {
        let found = gateway::status(body);
        if found.code == Some(UNAVAILABLE) {
            self.move_on(self.index_of(&endpoint));
        }
        ClientError::Status {
            endpoint,
            path: path.to_owned(),
            status: status.as_u16(),
            code: found.code,
            message: found.message.unwrap_or_else(|| excerpt(body)),
        }
    }

    fn index_of(&self, endpoint: &str) -> usize {
        let endpoints = &self.inner.endpoints;
        endpoints.iter().position(|e| e == endpoint).unwrap_or(0)
    }
}

/// A request body.
fn json(body: &serde_json::Value) -> Bytes {
    Bytes::from(body.to_string())
}

/// The result of a streamed message, or its error.
fn message_result<T>(message: Message<T>, endpoint: &str, path: &str) -> Result<T, ClientError> {
    match message {
        Message {
            result: Some(result),
            ..
        } => Ok(result),
        Message {
            error: Some(error), ..
        } => Err(ClientError::Status {
            endpoint: endpoint.to_owned(),
            path: path.to_owned(),
            status: 200,
            code: error.code,
            message: error.message.unwrap_or_default(),
        }),
        _ => Err(reply(
            endpoint,
            path,
            Reply("a message with neither result nor error".into()),
        )),
    }
}

/// A streamed reply, read message by message.
pub(crate) struct Stream {
    endpoint: String,
    path: &'static str,
    body: Incoming,
    buffer: Vec<u8>,
    /// Complete messages not yet returned, in order.
    pending: Vec<Vec<u8>>,
}

impl Stream {
    /// The next message; `None` when etcd ended the stream.
    pub(crate) async fn next<T: DeserializeOwned>(&mut self) -> Result<Option<T>, ClientError> {
        loop {
            if !self.pending.is_empty() {
                let line = self.pending.remove(0);
                let message =
                    gateway::parse(&line).map_err(|e| reply(&self.endpoint, self.path, e))?;
                return message_result(message, &self.endpoint, self.path).map(Some);
            }
            let frame = match self.body.frame().await {
                // A last message without its newline is still one.
                None if !self.buffer.trim_ascii().is_empty() => {
                    self.buffer.push(b'\n');
                    self.pending = gateway::lines(&mut self.buffer);
                    continue;
                }
                None => return Ok(None),
                Some(Ok(frame)) => frame,
                Some(Err(e)) => {
                    return Err(ClientError::Transport {
                        endpoint: self.endpoint.clone(),
                        source: Box::new(e),
                    });
                }
            };
            if let Ok(data) = frame.into_data() {
                self.buffer.extend_from_slice(&data);
                if self.buffer.len() > MAX_REPLY {
                    return Err(reply(
                        &self.endpoint,
                        self.path,
                        Reply("a message longer than the limit".into()),
                    ));
                }
                self.pending = gateway::lines(&mut self.buffer);
            }
        }
    }
}

fn reply(endpoint: &str, path: &str, e: Reply) -> ClientError {
    ClientError::Reply {
        endpoint: endpoint.to_owned(),
        path: path.to_owned(),
        reason: e.0,
    }
}

/// The start of a body that is not an error body, for a message.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    text.trim().to_owned()
}

/// `endpoint` as `http://host:port`.
fn endpoint(given: &str) -> Result<String, ClientError> {
    let bad = |reason| ClientError::Endpoint {
        endpoint: given.to_owned(),
        reason,
    };
    let given_trimmed = given.trim();
    let rest = match given_trimmed.split_once("://") {
        Some(("http", rest)) => rest,
        Some(_) => return Err(bad("only http:// is supported")),
        None => given_trimmed,
    };
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() {
        return Err(bad("no host"));
    }
    let url = format!("http://{rest}");
    let uri: Uri = url.parse().map_err(|_| bad("not a URL"))?;
    match (uri.host(), uri.path_and_query().map(|p| p.as_str())) {
        (Some(host), None | Some("" | "/")) if !host.is_empty() => Ok(url),
        (Some(_), Some(_)) => Err(bad("a path or query after host:port")),
        _ => Err(bad("no host")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_normalized_or_refused() {
        assert_eq!(
            endpoint("http://127.0.0.1:2379").unwrap(),
            "http://127.0.0.1:2379"
        );
        assert_eq!(
            endpoint("127.0.0.1:2379/").unwrap(),
            "http://127.0.0.1:2379"
        );
        assert_eq!(endpoint(" etcd-0:2379 ").unwrap(), "http://etcd-0:2379");
        assert_eq!(endpoint("http://[::1]:2379").unwrap(), "http://[::1]:2379");
        for bad in [
            "https://a:2379",
            "unix:///tmp/etcd",
            "",
            "http://",
            "http://a:2379/v3",
            "a b",
        ] {
            assert!(
                matches!(endpoint(bad), Err(ClientError::Endpoint { .. })),
                "{bad:?}"
            );
        }
        assert!(matches!(
            Client::new(Vec::<String>::new(), None),
            Err(ClientError::NoEndpoint)
        ));
    }
}
