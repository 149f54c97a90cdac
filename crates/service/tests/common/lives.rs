//! Lives of a server under pipelined load: clients that count what they
//! get, and the checks of what the docs promise across restarts.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use guid::flake::Layout;

use super::ChildServer;

/// The default max lead of `guid serve`.
pub const MAX_LEAD: Duration = Duration::from_millis(100);

/// Pipelined requests of 255 per round trip.
pub const DEPTH: usize = 8;

/// What clients saw.
#[derive(Debug, Default)]
pub struct Seen {
    pub ids: Vec<u64>,
    /// The largest lead of an id over the wall clock read once its reply
    /// had arrived (so never more than its lead when it was issued).
    pub lead: Duration,
    /// The longest round trip of `DEPTH` pipelined requests.
    pub longest: Duration,
}

impl Seen {
    pub fn add(&mut self, other: Seen) {
        self.ids.extend(other.ids);
        self.lead = self.lead.max(other.lead);
        self.longest = self.longest.max(other.longest);
    }
}

pub fn unix_ms_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The Unix ms of a noeqd id.
pub fn ms_of(id: u64) -> u64 {
    let t = Layout::NOEQD.time_of(id).expect("a noeqd id");
    t.duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

/// One client for `span` (bounded): `DEPTH` requests of 255 per write,
/// their replies read whole. It connects again when the server turns it
/// away, and stops at the first broken connection once it was served.
pub fn client(addr: SocketAddr, span: Duration) -> Seen {
    let mut seen = Seen::default();
    let end = Instant::now() + span;
    let mut reply = vec![0u8; DEPTH * 255 * 8];
    while Instant::now() < end {
        let Ok(mut s) = TcpStream::connect(addr) else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let _ = s.set_nodelay(true);
        while Instant::now() < end {
            let asked = Instant::now();
            if s.write_all(&[255; DEPTH]).is_err() || s.read_exact(&mut reply).is_err() {
                break;
            }
            let took = asked.elapsed();
            let now = unix_ms_now();
            seen.longest = seen.longest.max(took);
            for c in reply.chunks_exact(8) {
                let id = u64::from_be_bytes(c.try_into().unwrap());
                let ahead = ms_of(id).saturating_sub(now);
                seen.lead = seen.lead.max(Duration::from_millis(ahead));
                seen.ids.push(id);
            }
        }
        if !seen.ids.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    seen
}

/// One HTTP client for `span` (bounded): `GET /ids?n=2000` on a kept-alive
/// connection, its JSON read whole; like [`client`], it stops at the first
/// broken connection once it was served, and waits out 503s before.
pub fn http_client(addr: SocketAddr, span: Duration) -> Seen {
    let mut seen = Seen::default();
    let end = Instant::now() + span;
    while Instant::now() < end {
        let Ok(mut s) = TcpStream::connect(addr) else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        while Instant::now() < end {
            let asked = Instant::now();
            let Some((status, body)) = http_exchange(&mut s, "/ids?kind=flake&n=2000") else {
                break;
            };
            if status != 200 {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            let took = asked.elapsed();
            let now = unix_ms_now();
            seen.longest = seen.longest.max(took);
            let ids: Vec<String> = serde_json::from_slice(&body).expect("a JSON array");
            for id in ids {
                let id: u64 = id.parse().expect("a decimal id");
                let ahead = ms_of(id).saturating_sub(now);
                seen.lead = seen.lead.max(Duration::from_millis(ahead));
                seen.ids.push(id);
            }
        }
        if !seen.ids.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    seen
}

/// One GET on a kept-alive connection: the status and the body, or `None`
/// if the connection broke.
fn http_exchange(s: &mut TcpStream, path: &str) -> Option<(u16, Vec<u8>)> {
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: guid\r\n\r\n").as_bytes())
        .ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte).ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).ok()?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let length: usize = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse().ok())?
    })?;
    let mut body = vec![0u8; length];
    s.read_exact(&mut body).ok()?;
    Some((status, body))
}

/// `clients` clients at once on `addr` for `span`.
pub fn load(addr: SocketAddr, clients: usize, span: Duration) -> Seen {
    let threads: Vec<_> = (0..clients)
        .map(|_| std::thread::spawn(move || client(addr, span)))
        .collect();
    let mut seen = Seen::default();
    for t in threads {
        seen.add(t.join().unwrap());
    }
    seen
}

/// How a server stops.
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    Term,
    Kill,
}

/// A free port on 127.0.0.1, so that every life of a server listens on
/// the same address.
pub fn free_port() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// Starts the binary with `args` on `addr`.
pub fn start(addr: &str, args: &[&str]) -> ChildServer {
    ChildServer::binary_at(addr.parse().unwrap(), args, |_| {})
}

/// Stops `server` as `how` says while `during` runs, then returns what
/// `during` saw.
pub fn stop_under_load<T>(
    mut server: ChildServer,
    how: Stop,
    during: std::thread::JoinHandle<T>,
) -> T {
    match how {
        Stop::Term => {
            let status = server.terminate();
            assert!(status.success(), "{status:?}: {}", server.rest_of_stderr());
        }
        Stop::Kill => server.kill(),
    }
    during.join().unwrap()
}

/// The duplicates among `ids`.
pub fn duplicates(ids: &[u64]) -> usize {
    let mut set = HashSet::with_capacity(ids.len());
    ids.iter().filter(|id| !set.insert(**id)).count()
}

/// Lives of one server on one address, each under two pipelined clients
/// for a while and stopped under that load as `stops` says.
pub fn lives(args: &[&str], stops: &[Stop], busy: Duration) -> Seen {
    lives_over(args, stops, busy, None)
}

/// As [`lives`], with an HTTP client too on `http` (`--http` in `args`).
pub fn lives_over(args: &[&str], stops: &[Stop], busy: Duration, http: Option<&str>) -> Seen {
    let addr = free_port();
    let http: Option<SocketAddr> = http.map(|a| a.parse().unwrap());
    let mut seen = Seen::default();
    let mut over_http = 0;
    for &how in stops {
        let server = start(&addr, args);
        let target: SocketAddr = addr.parse().unwrap();
        let span = busy + Duration::from_secs(2);
        let during = std::thread::spawn(move || {
            let http = http.map(|a| std::thread::spawn(move || http_client(a, span)));
            let mut seen = load(target, 2, span);
            let http = http.map(|h| h.join().unwrap()).unwrap_or_default();
            let n = http.ids.len();
            seen.add(http);
            (seen, n)
        });
        std::thread::sleep(busy);
        let (life, n) = stop_under_load(server, how, during);
        seen.add(life);
        over_http += n;
    }
    if http.is_some() {
        eprintln!("{over_http} of the ids over HTTP");
        assert!(over_http > 0, "no id over HTTP");
    }
    seen
}

pub fn report(what: &str, seen: &Seen) {
    eprintln!(
        "{what}: {} ids, {} duplicates, largest lead {:?}, longest round trip of {DEPTH} requests {:?}",
        seen.ids.len(),
        duplicates(&seen.ids),
        seen.lead,
        seen.longest
    );
}

/// Checks what the docs promise: no id twice, none more than the max lead
/// (and the unit of the id) ahead of the wall clock.
pub fn check(what: &str, seen: &Seen) {
    report(what, seen);
    assert!(!seen.ids.is_empty(), "{what}: no id served");
    assert_eq!(duplicates(&seen.ids), 0, "{what}: ids repeated");
    assert!(
        seen.lead <= MAX_LEAD + Duration::from_millis(1),
        "{what}: ids ran {:?} ahead of the wall clock",
        seen.lead
    );
}
