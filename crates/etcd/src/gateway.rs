//! The JSON of etcd's v3 gateway: what this crate sends and reads.
//!
//! Keys and values travel base64-encoded; int64 fields come back as JSON
//! strings (protobuf's JSON mapping), and fields at their zero value are
//! left out. Everything read from the network is checked here, so that a
//! malformed or truncated reply is a [`Reply`] error, never a panic.

use data_encoding::BASE64;
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer};

/// Why a reply could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reply(pub(crate) String);

/// Parses one JSON document.
pub(crate) fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, Reply> {
    serde_json::from_slice(body).map_err(|e| Reply(format!("{e}")))
}

/// Base64 of `bytes`, as the gateway takes keys and values.
pub(crate) fn b64(bytes: impl AsRef<[u8]>) -> String {
    BASE64.encode(bytes.as_ref())
}

/// A gateway error body: `{"error": "...", "message": "...", "code": N}`
/// for unary calls (its fields vary with the version), the same nested
/// under `"error"` with `grpc_code` in a stream.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Status {
    #[serde(default)]
    pub(crate) message: Option<String>,
    #[serde(default, alias = "grpc_code")]
    pub(crate) code: Option<i32>,
}

/// An error body of a unary call, if `body` is one.
pub(crate) fn status(body: &[u8]) -> Status {
    #[derive(Deserialize)]
    struct Unary {
        #[serde(default)]
        error: serde_json::Value,
        #[serde(default)]
        message: Option<String>,
        #[serde(default)]
        code: Option<i32>,
    }
    match serde_json::from_slice::<Unary>(body) {
        Ok(u) => match u.error {
            serde_json::Value::Object(_) => serde_json::from_value(u.error).unwrap_or_default(),
            serde_json::Value::String(s) => Status {
                message: u.message.or(Some(s)),
                code: u.code,
            },
            _ => Status {
                message: u.message,
                code: u.code,
            },
        },
        Err(_) => Status::default(),
    }
}

/// One message of a streamed reply: `{"result": ...}` or `{"error": ...}`.
#[derive(Debug, Deserialize)]
pub(crate) struct Message<T> {
    pub(crate) result: Option<T>,
    pub(crate) error: Option<Status>,
}

/// The header of every reply.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub(crate) struct Header {
    #[serde(default, deserialize_with = "int")]
    pub(crate) revision: i64,
}

/// A key and its value.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct KeyValue {
    #[serde(default, deserialize_with = "bytes")]
    pub(crate) key: Vec<u8>,
    #[serde(default, deserialize_with = "bytes")]
    pub(crate) value: Vec<u8>,
    #[serde(default, deserialize_with = "int")]
    pub(crate) mod_revision: i64,
    #[serde(default, deserialize_with = "int")]
    pub(crate) lease: i64,
}

/// `/v3/kv/range`, and a range inside a transaction.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Range {
    pub(crate) header: Option<Header>,
    #[serde(default)]
    pub(crate) kvs: Vec<KeyValue>,
}

/// `/v3/kv/txn`.
#[derive(Debug, Deserialize)]
pub(crate) struct Txn {
    pub(crate) header: Option<Header>,
    #[serde(default)]
    pub(crate) succeeded: bool,
    #[serde(default)]
    pub(crate) responses: Vec<TxnOp>,
}

/// One operation's reply in a transaction.
#[derive(Debug, Deserialize)]
pub(crate) struct TxnOp {
    pub(crate) response_range: Option<Range>,
}

impl Txn {
    /// The key-values of the `index`-th operation, which must be a range.
    pub(crate) fn range(&self, index: usize) -> Result<&[KeyValue], Reply> {
        match self.responses.get(index) {
            Some(TxnOp {
                response_range: Some(range),
            }) => Ok(&range.kvs),
            _ => Err(Reply(format!("no range reply at operation {index}"))),
        }
    }

    /// The revision of the transaction (of its writes, if it made any).
    pub(crate) fn revision(&self) -> Result<i64, Reply> {
        revision(self.header)
    }
}

/// The revision of a header, which must be there.
pub(crate) fn revision(header: Option<Header>) -> Result<i64, Reply> {
    match header {
        Some(h) if h.revision > 0 => Ok(h.revision),
        _ => Err(Reply("no revision in the reply's header".into())),
    }
}

/// `/v3/lease/grant`.
#[derive(Debug, Deserialize)]
pub(crate) struct Grant {
    #[serde(rename = "ID", default, deserialize_with = "int")]
    pub(crate) id: i64,
    #[serde(rename = "TTL", default, deserialize_with = "int")]
    pub(crate) ttl: i64,
    #[serde(default)]
    pub(crate) error: Option<String>,
}

/// One message of `/v3/lease/keepalive`; a TTL of 0 (left out) means
/// etcd no longer knows the lease.
#[derive(Debug, Deserialize)]
pub(crate) struct KeepAlive {
    #[serde(rename = "ID", default, deserialize_with = "int")]
    pub(crate) id: i64,
    #[serde(rename = "TTL", default, deserialize_with = "int")]
    pub(crate) ttl: i64,
}

/// One message of `/v3/watch`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Watch {
    #[serde(default)]
    pub(crate) canceled: bool,
    #[serde(default, deserialize_with = "int")]
    pub(crate) compact_revision: i64,
    #[serde(default)]
    pub(crate) events: Vec<serde_json::Value>,
}

/// An int64 as protobuf's JSON writes it: a string of digits, or a number.
fn int<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Int {
        Number(i64),
        Text(String),
    }
    match Int::deserialize(d)? {
        Int::Number(n) => Ok(n),
        Int::Text(s) => s
            .parse()
            .map_err(|_| de::Error::custom(format!("not an int64: {s:?}"))),
    }
}

/// Bytes as base64 in a JSON string.
fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    let s = String::deserialize(d)?;
    BASE64
        .decode(s.as_bytes())
        .map_err(|e| de::Error::custom(format!("not base64: {e}")))
}

/// Splits the complete lines off the front of `buffer`, leaving a partial
/// last one there.
pub(crate) fn lines(buffer: &mut Vec<u8>) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
        let line: Vec<u8> = buffer.drain(..=end).collect();
        let line = line.trim_ascii();
        if !line.is_empty() {
            out.push(line.to_vec());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first message of a streamed reply, as `Stream` reads it.
    fn first_message<T: DeserializeOwned>(body: &[u8]) -> Result<Message<T>, Reply> {
        let mut buffer = body.to_vec();
        buffer.push(b'\n');
        match lines(&mut buffer).first() {
            Some(line) => parse(line),
            None => Err(Reply("an empty stream".into())),
        }
    }

    #[test]
    fn replies_as_etcd_3_4_writes_them() {
        let range: Range = parse(br#"{"header":{"cluster_id":"15118495548433857066","revision":"2"},"kvs":[{"key":"YQ==","create_revision":"2","mod_revision":"2","version":"1","value":"Yg==","lease":"7"}],"count":"1"}"#).unwrap();
        assert_eq!(range.header.unwrap().revision, 2);
        assert_eq!(range.kvs[0].key, b"a");
        assert_eq!(range.kvs[0].value, b"b");
        assert_eq!((range.kvs[0].mod_revision, range.kvs[0].lease), (2, 7));
        // Keys only: no value; zero fields left out.
        let range: Range = parse(br#"{"header":{"revision":"3"},"kvs":[{"key":"YQ=="}]}"#).unwrap();
        assert!(range.kvs[0].value.is_empty());
        let empty: Range = parse(br#"{"header":{"revision":"3"}}"#).unwrap();
        assert!(empty.kvs.is_empty());

        let txn: Txn = parse(br#"{"header":{"revision":"4"},"responses":[{"response_range":{"header":{"revision":"4"},"kvs":[{"key":"YQ==","mod_revision":"2"}]}}]}"#).unwrap();
        assert!(!txn.succeeded);
        assert_eq!(txn.range(0).unwrap().len(), 1);
        assert!(txn.range(1).is_err());
        let txn: Txn = parse(br#"{"header":{"revision":"5"},"succeeded":true,"responses":[{"response_put":{"header":{"revision":"5"}}}]}"#).unwrap();
        assert!(txn.succeeded && txn.range(0).is_err());
        assert_eq!(txn.revision().unwrap(), 5);

        let grant: Grant = parse(br#"{"header":{},"ID":"4111120268204743685","TTL":"2"}"#).unwrap();
        assert_eq!((grant.id, grant.ttl), (4_111_120_268_204_743_685, 2));
        let alive: Message<KeepAlive> = first_message(
            b"{\"result\":{\"header\":{\"revision\":\"2\"},\"ID\":\"9\",\"TTL\":\"30\"}}\n",
        )
        .unwrap();
        let alive = alive.result.unwrap();
        assert_eq!((alive.id, alive.ttl), (9, 30));
        let gone: Message<KeepAlive> =
            first_message(br#"{"result":{"header":{"revision":"2"},"ID":"9"}}"#).unwrap();
        assert_eq!(gone.result.unwrap().ttl, 0);
        let failed: Message<KeepAlive> = first_message(
            br#"{"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader"}}"#,
        )
        .unwrap();
        let failed = failed.error.unwrap();
        assert_eq!(failed.code, Some(14));
        assert_eq!(failed.message.as_deref(), Some("etcdserver: no leader"));
    }

    #[test]
    fn error_bodies_of_either_shape() {
        let s = status(br#"{"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5}"#);
        assert_eq!(s.code, Some(5));
        assert_eq!(
            s.message.as_deref(),
            Some("etcdserver: requested lease not found")
        );
        let s = status(br#"{"error":{"grpc_code":5,"message":"gone"}}"#);
        assert_eq!((s.code, s.message.as_deref()), (Some(5), Some("gone")));
        for junk in [&b""[..], b"<html>", b"{\"code\":\"x\"}", b"[1,2]", b"\xff"] {
            let s = status(junk);
            assert_eq!((s.code, s.message), (None, None));
        }
    }

    #[test]
    fn malformed_and_truncated_replies_are_errors() {
        let full = br#"{"header":{"revision":"3"},"kvs":[{"key":"YQ==","mod_revision":"2","value":"Yg=="}]}"#;
        for cut in 0..full.len() {
            assert!(parse::<Range>(&full[..cut]).is_err(), "{cut}");
        }
        for bad in [
            &br#"{"kvs":[{"key":"not base64!"}]}"#[..],
            br#"{"kvs":[{"key":"YQ==","mod_revision":"2x"}]}"#,
            br#"{"kvs":[{"key":"YQ==","mod_revision":"99999999999999999999"}]}"#,
            br#"{"kvs":[{"key":"YQ==","lease":1.5}]}"#,
            br#"{"kvs":[{"key":7}]}"#,
            br#"{"kvs":{"key":"YQ=="}}"#,
            br#"{"header":{"revision":true}}"#,
            br#"[]"#,
            b"\xff\xfe",
            b"null",
        ] {
            assert!(
                parse::<Range>(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(revision(None).is_err());
        assert!(revision(Some(Header { revision: 0 })).is_err());
        assert!(first_message::<KeepAlive>(b"").is_err());
        assert!(first_message::<KeepAlive>(b"\n\n").is_err());
        assert!(first_message::<KeepAlive>(br#"{"result":{"ID":"9","TT"#).is_err());
        assert!(parse::<Watch>(br#"{"events":"x"}"#).is_err());
    }

    #[test]
    fn lines_split_only_complete_messages() {
        let mut buffer = b"{\"a\":1}\n\n{\"b\":2}\r\n{\"c\"".to_vec();
        assert_eq!(
            lines(&mut buffer),
            vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]
        );
        assert_eq!(buffer, b"{\"c\"");
        buffer.extend_from_slice(b":3}\n");
        assert_eq!(lines(&mut buffer), vec![b"{\"c\":3}".to_vec()]);
        assert!(buffer.is_empty());
    }
}
