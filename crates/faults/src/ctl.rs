//! The harness's own clients of the stores, for faults and checks: Redis
//! commands over RESP, and etcd's JSON gateway over HTTP/1.1.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use crate::net::Net;

/// How long a control request may take.
const TIMEOUT: Duration = Duration::from_secs(2);

/// A RESP reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resp {
    /// `+OK`.
    Simple(String),
    /// `-ERR ...`.
    Error(String),
    /// `:1`.
    Int(i64),
    /// `$3\r\nabc`, or `$-1` (none).
    Bulk(Option<Vec<u8>>),
    /// `*2 ...`, or `*-1`.
    Array(Option<Vec<Resp>>),
}

impl Resp {
    /// The text of a simple or bulk string.
    pub fn text(&self) -> Option<String> {
        match self {
            Resp::Simple(s) => Some(s.clone()),
            Resp::Bulk(Some(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    }
}

/// Sends one command to the Redis server at `addr`, reached from the hub.
pub fn redis(net: &Net, addr: SocketAddr, args: &[&str]) -> Result<Resp, String> {
    let fail = |e: std::io::Error| format!("redis {addr} {}: {e}", args.join(" "));
    let stream = net.connect(addr, TIMEOUT).map_err(fail)?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(fail)?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(fail)?;
    let mut req = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        req.extend_from_slice(format!("${}\r\n{a}\r\n", a.len()).as_bytes());
    }
    (&stream).write_all(&req).map_err(fail)?;
    let mut reader = BufReader::new(&stream);
    match read_resp(&mut reader).map_err(fail)? {
        Resp::Error(e) => Err(format!("redis {addr} {}: {e}", args.join(" "))),
        reply => Ok(reply),
    }
}

/// Reads one RESP value.
pub fn read_resp(r: &mut impl BufRead) -> std::io::Result<Resp> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    let line = line.trim_end_matches(['\r', '\n']);
    let (tag, rest) = line.split_at_checked(1).ok_or_else(|| bad("empty line"))?;
    let number = || rest.parse::<i64>().map_err(|_| bad(line));
    Ok(match tag {
        "+" => Resp::Simple(rest.to_owned()),
        "-" => Resp::Error(rest.to_owned()),
        ":" => Resp::Int(number()?),
        "$" => match number()? {
            n if n < 0 => Resp::Bulk(None),
            n => {
                let mut buf = vec![0; n as usize + 2];
                r.read_exact(&mut buf)?;
                buf.truncate(n as usize);
                Resp::Bulk(Some(buf))
            }
        },
        "*" => match number()? {
            n if n < 0 => Resp::Array(None),
            n => Resp::Array(Some(
                (0..n).map(|_| read_resp(r)).collect::<Result<_, _>>()?,
            )),
        },
        _ => return Err(bad(line)),
    })
}

/// POSTs `body` to etcd's gateway at `addr` (`/v3/...`); the JSON reply.
pub fn etcd(
    net: &Net,
    addr: SocketAddr,
    path: &str,
    body: &serde_json::Value,
) -> Result<serde_json::Value, String> {
    let fail = |e: std::io::Error| format!("etcd {addr}{path}: {e}");
    let stream = net.connect(addr, TIMEOUT).map_err(fail)?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(fail)?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(fail)?;
    let body = body.to_string();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    (&stream).write_all(req.as_bytes()).map_err(fail)?;
    let mut reader = BufReader::new(&stream);
    let reply = read_http(&mut reader, true).map_err(fail)?;
    let text = String::from_utf8_lossy(&reply.body);
    if reply.status != 200 {
        return Err(format!(
            "etcd {addr}{path}: {} {}",
            reply.status,
            text.trim()
        ));
    }
    serde_json::from_str(&text).map_err(|e| format!("etcd {addr}{path}: {e}: {text}"))
}

/// An HTTP response.
#[derive(Debug)]
pub struct HttpReply {
    /// The status code.
    pub status: u16,
    /// The body.
    pub body: Vec<u8>,
    /// Whether the server keeps the connection.
    pub keep_alive: bool,
}

/// Reads one HTTP/1.1 response: a body of `Content-Length`, chunked, or
/// (when `to_close`) up to the close.
pub fn read_http(r: &mut impl BufRead, to_close: bool) -> std::io::Result<HttpReply> {
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(format!("status line {line:?}")))?;
    let mut length = None;
    let mut chunked = false;
    let mut keep_alive = true;
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "connection" => keep_alive = !value.eq_ignore_ascii_case("close"),
                _ => {}
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| bad(format!("chunk size {line:?}")))?;
            let mut chunk = vec![0; size + 2];
            r.read_exact(&mut chunk)?;
            chunk.truncate(size);
            body.extend_from_slice(&chunk);
            if size == 0 {
                break;
            }
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        r.read_exact(&mut body)?;
    } else if to_close {
        r.read_to_end(&mut body)?;
        keep_alive = false;
    }
    Ok(HttpReply {
        status,
        body,
        keep_alive,
    })
}

/// A plain GET with `Connection: close` (a readiness probe); the status.
pub fn http_get(net: &Net, addr: SocketAddr, path: &str) -> Result<u16, String> {
    let fail = |e: std::io::Error| format!("GET {addr}{path}: {e}");
    let stream: TcpStream = net.connect(addr, TIMEOUT).map_err(fail)?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(fail)?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    (&stream).write_all(req.as_bytes()).map_err(fail)?;
    let mut reader = BufReader::new(&stream);
    Ok(read_http(&mut reader, true).map_err(fail)?.status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resp_values() {
        let text = b"*3\r\n+OK\r\n$3\r\nab\n\r\n:-7\r\n$-1\r\n-ERR no\r\n";
        let mut r = &text[..];
        assert_eq!(
            read_resp(&mut r).unwrap(),
            Resp::Array(Some(vec![
                Resp::Simple("OK".into()),
                Resp::Bulk(Some(b"ab\n".to_vec())),
                Resp::Int(-7)
            ]))
        );
        assert_eq!(read_resp(&mut r).unwrap(), Resp::Bulk(None));
        assert_eq!(read_resp(&mut r).unwrap(), Resp::Error("ERR no".into()));
        assert!(read_resp(&mut r).is_err());
    }

    #[test]
    fn http_replies() {
        let text = b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabcHTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nxy\r\n1\r\nz\r\n0\r\n\r\n";
        let mut r = &text[..];
        let a = read_http(&mut r, false).unwrap();
        assert_eq!(
            (a.status, &a.body[..], a.keep_alive),
            (200, &b"abc"[..], true)
        );
        let b = read_http(&mut r, false).unwrap();
        assert_eq!(
            (b.status, &b.body[..], b.keep_alive),
            (503, &b"xyz"[..], false)
        );
        assert!(read_http(&mut r, false).is_err());
    }
}
