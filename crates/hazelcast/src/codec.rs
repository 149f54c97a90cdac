//! The messages this client sends and reads: authentication, the cluster
//! view, backup acknowledgements, pings, and five map operations (the
//! four writes backup-aware). A response's type is its request's plus
//! one; type 0 is a member's error.

use crate::message::{EVENT_FIELDS, Malformed, Message, RESPONSE_FIELDS, Reader, Request};

type Result<T, E = Malformed> = std::result::Result<T, E>;

/// `Client.Authentication`.
pub const AUTHENTICATION: i32 = 0x00_0100;
/// `Client.AddClusterViewListener`.
pub const CLUSTER_VIEW: i32 = 0x00_0300;
const MEMBERS_VIEW: i32 = 0x00_0302;
const PARTITIONS_VIEW: i32 = 0x00_0303;
/// `Client.Ping`.
pub const PING: i32 = 0x00_0b00;
/// `Client.LocalBackupListener`.
pub const BACKUP_LISTENER: i32 = 0x00_0f00;
const BACKUP_ACK: i32 = 0x00_0f02;
/// `Map.Get`.
pub const MAP_GET: i32 = 0x01_0200;
/// `Map.ReplaceIfSame`.
pub const MAP_REPLACE_IF_SAME: i32 = 0x01_0500;
/// `Map.RemoveIfSame`.
pub const MAP_REMOVE_IF_SAME: i32 = 0x01_0800;
/// `Map.PutIfAbsent`.
pub const MAP_PUT_IF_ABSENT: i32 = 0x01_0e00;
/// `Map.SetTtl`.
pub const MAP_SET_TTL: i32 = 0x01_4300;
/// A member's error, in place of a response.
pub const ERROR: i32 = 0;

/// The serialization version both sides speak.
const SERIALIZATION: u8 = 1;

/// The thread id of map operations: only locks use it, and this client
/// takes none.
const THREAD: i64 = 1;

/// Authenticates the connection to `cluster` as client `uuid` named
/// `name`, with credentials if given.
pub fn authentication(
    cluster: &str,
    credentials: Option<(&str, &str)>,
    uuid: u128,
    name: &str,
) -> Request {
    let request = Request::new(AUTHENTICATION, 18)
        .uuid(0, uuid)
        .u8(17, SERIALIZATION)
        .string(cluster);
    let request = match credentials {
        Some((user, password)) => request.string(user).string(password),
        None => request.null().null(),
    };
    request
        .string("RST")
        .string(env!("CARGO_PKG_VERSION"))
        .string(name)
        .empty_list()
}

/// A member's answer to [`authentication`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authenticated {
    /// 0 when authenticated; 1 credentials (or cluster name) refused;
    /// 2 serialization version refused; 3 not allowed in the cluster.
    pub status: u8,
    /// The member's id.
    pub member: Option<u128>,
    /// The cluster's partition count.
    pub partitions: i32,
    /// The cluster's id: a new one each time the cluster forms anew.
    pub cluster: Option<u128>,
}

/// Reads an answer to [`authentication`].
pub fn authenticated(message: &Message) -> Result<Authenticated> {
    let fields = message.reader().fields()?;
    let status = fields.u8(RESPONSE_FIELDS)?;
    Ok(Authenticated {
        status,
        member: fields.uuid(RESPONSE_FIELDS + 1)?,
        partitions: fields.i32(RESPONSE_FIELDS + 19)?,
        cluster: fields.uuid(RESPONSE_FIELDS + 23)?,
    })
}

/// Asks for the member list and partition table, now and as they change.
pub fn cluster_view() -> Request {
    Request::new(CLUSTER_VIEW, 0)
}

/// A member as the cluster view lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its id.
    pub uuid: u128,
    /// Where clients reach it.
    pub host: String,
    /// Its port.
    pub port: i32,
}

/// An event of the cluster view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum View {
    /// The members, with the list's version.
    Members(i32, Vec<Member>),
    /// Each member's partitions, with the table's version.
    Partitions(i32, Vec<(u128, Vec<i32>)>),
}

/// Reads a cluster view event; `None` for events of other kinds.
pub fn view(message: &Message) -> Result<Option<View>> {
    let mut r = message.reader();
    let version = |r: &mut Reader| r.fields()?.i32(EVENT_FIELDS);
    match message.kind()? {
        MEMBERS_VIEW => {
            let version = version(&mut r)?;
            Ok(Some(View::Members(version, r.list(member)?)))
        }
        PARTITIONS_VIEW => {
            let version = version(&mut r)?;
            let lists = r.list(|r| ints(r.bytes()?))?;
            let uuids = r.bytes()?;
            if uuids.len() != lists.len() * 17 {
                return Err(Malformed::Field("a partition table of unequal lists"));
            }
            let owners = uuids
                .chunks_exact(17)
                .map(|u| crate::message::Fields(u).uuid(0))
                .collect::<Result<Vec<_>>>()?;
            let table = owners
                .into_iter()
                .zip(lists)
                .filter_map(|(owner, list)| Some((owner?, list)))
                .collect();
            Ok(Some(View::Partitions(version, table)))
        }
        _ => Ok(None),
    }
}

fn ints(bytes: &[u8]) -> Result<Vec<i32>> {
    match bytes.len() % 4 {
        0 => Ok(bytes
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().expect("four bytes")))
            .collect()),
        _ => Err(Malformed::Field("a list of ints of a ragged length")),
    }
}

/// A member's info: its id, then its address; the rest skipped.
fn member(r: &mut Reader) -> Result<Member> {
    r.begin()?;
    let uuid = r
        .fields()?
        .uuid(0)?
        .ok_or(Malformed::Field("a member without an id"))?;
    r.begin()?;
    let port = r.fields()?.i32(0)?;
    let host = r.string()?;
    r.end()?;
    r.end()?;
    Ok(Member { uuid, host, port })
}

/// Asks the member to send this client the acknowledgements of the backups
/// it keeps of backup-aware requests.
pub fn backup_listener() -> Request {
    Request::new(BACKUP_LISTENER, 0)
}

/// The correlation id of the request a backup acknowledgement is for;
/// `None` for events of other kinds.
pub fn backup_ack(message: &Message) -> Result<Option<i64>> {
    match message.kind()? {
        BACKUP_ACK => message.reader().fields()?.i64(EVENT_FIELDS).map(Some),
        _ => Ok(None),
    }
}

/// A ping, which keeps the connection alive.
pub fn ping() -> Request {
    Request::new(PING, 0)
}

/// `Map.Get`: the value of `key`.
pub fn get(map: &str, key: &[u8]) -> Request {
    Request::new(MAP_GET, 8)
        .i64(0, THREAD)
        .string(map)
        .bytes(key)
}

/// `Map.PutIfAbsent`: `value` under `key` for `ttl_ms`, if `key` has none.
pub fn put_if_absent(map: &str, key: &[u8], value: &[u8], ttl_ms: i64) -> Request {
    Request::new(MAP_PUT_IF_ABSENT, 16)
        .backup_aware()
        .i64(0, THREAD)
        .i64(8, ttl_ms)
        .string(map)
        .bytes(key)
        .bytes(value)
}

/// `Map.ReplaceIfSame`: `value` under `key`, if it holds `old`.
pub fn replace_if_same(map: &str, key: &[u8], old: &[u8], value: &[u8]) -> Request {
    Request::new(MAP_REPLACE_IF_SAME, 8)
        .backup_aware()
        .i64(0, THREAD)
        .string(map)
        .bytes(key)
        .bytes(old)
        .bytes(value)
}

/// `Map.RemoveIfSame`: removes `key` if it holds `value`.
pub fn remove_if_same(map: &str, key: &[u8], value: &[u8]) -> Request {
    Request::new(MAP_REMOVE_IF_SAME, 8)
        .backup_aware()
        .i64(0, THREAD)
        .string(map)
        .bytes(key)
        .bytes(value)
}

/// `Map.SetTtl`: `key` lives `ttl_ms` from now.
pub fn set_ttl(map: &str, key: &[u8], ttl_ms: i64) -> Request {
    Request::new(MAP_SET_TTL, 8)
        .backup_aware()
        .i64(0, ttl_ms)
        .string(map)
        .bytes(key)
}

/// A response's serialized value, or none.
pub fn value(message: &Message) -> Result<Option<Vec<u8>>> {
    let mut r = message.reader();
    r.fields()?;
    r.nullable(|r| r.bytes().map(<[u8]>::to_vec))
}

/// A response's boolean.
pub fn boolean(message: &Message) -> Result<bool> {
    message.reader().fields()?.bool(RESPONSE_FIELDS)
}

/// A member's error: its code, Java class and message (the first of the
/// chain of causes).
pub fn error(message: &Message) -> Result<(i32, String, String)> {
    let mut r = message.reader();
    r.fields()?;
    r.begin()?;
    r.begin()?;
    let code = r.fields()?.i32(0)?;
    let class = r.string()?;
    let text = r.nullable(Reader::string)?.unwrap_or_default();
    Ok((code, class, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{BEGIN, END, FINAL, Frame, UNFRAGMENTED};

    fn message(frames: Vec<(u16, Vec<u8>)>) -> Message {
        let mut m = Message::default();
        let n = frames.len();
        for (i, (flags, content)) in frames.into_iter().enumerate() {
            let last = if i + 1 == n { FINAL } else { 0 };
            m.push(Frame {
                flags: flags | last,
                content,
            })
            .unwrap();
        }
        m
    }

    fn header(kind: i32, extra: &[u8]) -> Vec<u8> {
        let mut c = kind.to_le_bytes().to_vec();
        c.extend_from_slice(&[0; 12]);
        c.extend_from_slice(extra);
        c
    }

    /// A partition table whose lists and owners differ in number is
    /// refused, not zipped short.
    #[test]
    fn a_ragged_partition_table_is_refused() {
        let uuid = [0_u8; 17];
        let m = message(vec![
            (UNFRAGMENTED, header(PARTITIONS_VIEW, &1_i32.to_le_bytes())),
            (BEGIN, vec![]),
            (0, 5_i32.to_le_bytes().to_vec()),
            (0, 6_i32.to_le_bytes().to_vec()),
            (END, vec![]),
            (0, uuid.to_vec()),
        ]);
        assert!(view(&m).is_err());
    }

    /// Every truncation of a members view is an error, never a panic.
    #[test]
    fn cut_members_views_are_errors() {
        let mut member_fields = vec![0_u8];
        member_fields.extend_from_slice(&7_i64.to_le_bytes());
        member_fields.extend_from_slice(&9_i64.to_le_bytes());
        member_fields.push(0);
        let frames = vec![
            (UNFRAGMENTED, header(MEMBERS_VIEW, &3_i32.to_le_bytes())),
            (BEGIN, vec![]),
            (BEGIN, vec![]),
            (0, member_fields),
            (BEGIN, vec![]),
            (0, 5701_i32.to_le_bytes().to_vec()),
            (0, b"127.0.0.1".to_vec()),
            (END, vec![]),
            (END, vec![]),
            (END, vec![]),
        ];
        let whole = view(&message(frames.clone())).unwrap();
        assert_eq!(
            whole,
            Some(View::Members(
                3,
                vec![Member {
                    uuid: 7 << 64 | 9,
                    host: "127.0.0.1".into(),
                    port: 5701
                }]
            ))
        );
        for n in 1..frames.len() {
            assert!(view(&message(frames[..n].to_vec())).is_err(), "{n} frames");
        }
    }
}
