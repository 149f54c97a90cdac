//! The client threads: every id they are served, and how each request
//! ended, goes to the history.
//!
//! A binary client writes 1 to 4 requests of 1 to 255 ids at once
//! (pipelined), reads the replies in order, and moves to another server
//! when a connection fails (the next request is marked `failover`) or
//! after a few hundred requests. An HTTP client sends `GET /ids?n=1..1000`
//! with `Accept: text/plain` on a kept-alive connection, and moves on 503
//! or a broken connection. Each waits `--pace` between requests and stops
//! at the run's end: the loops are bounded.

use std::fs::File;
use std::io::{BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::ctl::read_http;
use crate::history::{self, Outcome, Proto, Record, RequestRecord, Sink, now_ns};
use crate::net::Hub;
use crate::rng::Rng;

/// One server's listeners.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// `-l`.
    pub bin: SocketAddr,
    /// `--http`.
    pub http: SocketAddr,
}

/// What the client threads share.
pub struct Plan {
    /// The servers, by index.
    pub targets: Vec<Target>,
    /// When they stop.
    pub until: Instant,
    /// How long a client waits for a connection or a reply.
    pub timeout: Duration,
    /// The pause between requests.
    pub pace: Duration,
    /// The seed of the clients' choices.
    pub seed: u64,
    /// Set to stop early (an interrupt).
    pub stop: &'static AtomicBool,
}

impl Plan {
    fn running(&self) -> bool {
        Instant::now() < self.until && !self.stop.load(Ordering::Relaxed)
    }
}

/// Starts `bin` binary and `http` HTTP client threads.
pub fn spawn(
    hub: &Hub,
    sink: &Arc<Sink>,
    plan: &Arc<Plan>,
    bin: usize,
    http: usize,
) -> Vec<JoinHandle<()>> {
    (0..bin + http)
        .map(|i| {
            let (hub, sink, plan) = (hub.clone(), Arc::clone(sink), Arc::clone(plan));
            std::thread::Builder::new()
                .name(format!("client-{i}"))
                .spawn(move || {
                    if let Err(e) = hub.enter() {
                        eprintln!("client {i}: cannot enter the hub namespace: {e}");
                        return;
                    }
                    let mut client = Client::new(i as u32, &sink, &plan);
                    match i < bin {
                        true => client.run(Proto::Bin),
                        false => client.run(Proto::Http),
                    }
                    client.flush();
                })
                .expect("client thread")
        })
        .collect()
}

/// How a connection ended.
enum End {
    /// By the client's choice: go on elsewhere.
    Rotate,
    /// A failure: fail over.
    Failed,
}

struct Client<'a> {
    id: u32,
    sink: &'a Sink,
    plan: &'a Plan,
    rng: Rng,
    conns: u64,
    lines: Vec<u8>,
    /// The thread's scheduler statistics, read again for each request.
    schedstat: Option<File>,
    /// The thread's run-queue time when its requests in flight were sent.
    queued_ns: u64,
}

impl<'a> Client<'a> {
    fn new(id: u32, sink: &'a Sink, plan: &'a Plan) -> Client<'a> {
        Client {
            id,
            sink,
            plan,
            rng: Rng::new(plan.seed.rotate_left(17) ^ u64::from(id).wrapping_mul(0x9E37)),
            conns: 0,
            lines: Vec::new(),
            // Opened by the thread itself: the file is of the thread that
            // opens it.
            schedstat: File::open("/proc/thread-self/schedstat").ok(),
            queued_ns: 0,
        }
    }

    /// How long this thread has waited for a CPU, ns; 0 where the kernel
    /// does not tell.
    fn run_queue_ns(&self) -> u64 {
        let mut buf = [0u8; 96];
        let Some(n) = self
            .schedstat
            .as_ref()
            .and_then(|f| f.read_at(&mut buf, 0).ok())
        else {
            return 0;
        };
        crate::sched::run_queue_ns(std::str::from_utf8(&buf[..n]).unwrap_or_default())
    }

    /// Marks `req` done now, with the time this thread waited for a CPU
    /// since it was sent.
    fn finish(&self, req: &mut RequestRecord) {
        req.done_ns = now_ns();
        req.cpu_wait_ns = self.run_queue_ns().saturating_sub(self.queued_ns);
    }

    fn record(&mut self, r: RequestRecord) {
        history::write(&mut self.lines, &Record::Request(r)).expect("to memory");
        if self.lines.len() > 1 << 16 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.sink.write_lines(&self.lines);
        self.lines.clear();
    }

    fn run(&mut self, proto: Proto) {
        let count = self.plan.targets.len();
        let mut server = self.id as usize % count;
        let mut failover = false;
        while self.plan.running() {
            self.conns += 1;
            let conn = u64::from(self.id) << 32 | self.conns;
            let end = match proto {
                Proto::Bin => self.bin_conn(server, conn, failover),
                Proto::Http => self.http_conn(server, conn, failover),
            };
            match end {
                End::Rotate => {
                    failover = false;
                    server = self.rng.below(count as u64) as usize;
                }
                End::Failed => {
                    failover = true;
                    server = (server + 1 + self.rng.below(count as u64 - 1) as usize) % count;
                    std::thread::sleep(self.plan.pace);
                }
            }
        }
    }

    /// A request sent now (the last one of a pipeline sets when they
    /// were sent).
    fn request(&mut self, server: usize, proto: Proto, conn: u64, n: u32) -> RequestRecord {
        self.queued_ns = self.run_queue_ns();
        RequestRecord {
            client: self.id,
            server,
            proto,
            conn,
            n,
            sent_ns: now_ns(),
            done_ns: 0,
            outcome: Outcome::Ok,
            ids: Vec::new(),
            failover: false,
            cpu_wait_ns: 0,
        }
    }

    /// Connects, or records the refusal.
    fn connect(
        &mut self,
        mut req: RequestRecord,
        addr: SocketAddr,
        failover: bool,
    ) -> Option<TcpStream> {
        match TcpStream::connect_timeout(&addr, self.plan.timeout) {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                let _ = stream.set_read_timeout(Some(self.plan.timeout));
                let _ = stream.set_write_timeout(Some(self.plan.timeout));
                Some(stream)
            }
            Err(e) => {
                self.finish(&mut req);
                req.failover = failover;
                req.outcome = match e.kind() {
                    ErrorKind::TimedOut | ErrorKind::WouldBlock => Outcome::Timeout,
                    _ => Outcome::Refused,
                };
                self.record(req);
                None
            }
        }
    }

    /// One connection to the binary listener of `server`.
    fn bin_conn(&mut self, server: usize, conn: u64, mut failover: bool) -> End {
        let addr = self.plan.targets[server].bin;
        let first_n = 1 + self.rng.below(255) as u32;
        let probe = self.request(server, Proto::Bin, conn, first_n);
        let Some(mut stream) = self.connect(probe, addr, failover) else {
            return End::Failed;
        };
        let mut served = 0u64;
        let mut left = self.rng.range(50, 400);
        let mut first = Some(first_n);
        while self.plan.running() && left > 0 {
            let depth = 1 + self.rng.below(4) as usize;
            let ns: Vec<u32> = (0..depth)
                .map(|i| match (i, first.take()) {
                    (0, Some(n)) => n,
                    _ => 1 + self.rng.below(255) as u32,
                })
                .collect();
            let bytes: Vec<u8> = ns.iter().map(|&n| n as u8).collect();
            let mut reqs: Vec<RequestRecord> = ns
                .iter()
                .map(|&n| self.request(server, Proto::Bin, conn, n))
                .collect();
            reqs[0].failover = std::mem::take(&mut failover);
            let written = stream.write_all(&bytes);
            let mut failed = None;
            for (i, mut req) in reqs.into_iter().enumerate() {
                if let Some(outcome) = failed {
                    self.finish(&mut req);
                    req.outcome = outcome;
                    self.record(req);
                    continue;
                }
                let got = match &written {
                    Ok(()) => read_ids(&mut stream, req.n as usize),
                    Err(e) => Got {
                        ids: Vec::new(),
                        error: Some(e.kind()),
                    },
                };
                self.finish(&mut req);
                req.ids = history::runs(&got.ids);
                req.outcome = match got.error {
                    None => Outcome::Ok,
                    Some(ErrorKind::TimedOut | ErrorKind::WouldBlock) => Outcome::Timeout,
                    Some(_) if !got.ids.is_empty() => Outcome::Partial,
                    Some(_) if served == 0 && i == 0 => Outcome::Refused,
                    Some(_) => Outcome::Closed,
                };
                if req.outcome != Outcome::Ok {
                    // The rest of the pipeline is lost with the connection.
                    failed = Some(match req.outcome {
                        Outcome::Timeout => Outcome::Timeout,
                        _ => Outcome::Closed,
                    });
                } else {
                    served += 1;
                }
                self.record(req);
            }
            if failed.is_some() {
                return End::Failed;
            }
            left = left.saturating_sub(depth as u64);
            std::thread::sleep(self.plan.pace);
        }
        End::Rotate
    }

    /// One kept-alive connection to the HTTP listener of `server`.
    fn http_conn(&mut self, server: usize, conn: u64, mut failover: bool) -> End {
        let addr = self.plan.targets[server].http;
        let first_n = 1 + self.rng.below(1000) as u32;
        let probe = self.request(server, Proto::Http, conn, first_n);
        let Some(stream) = self.connect(probe, addr, failover) else {
            return End::Failed;
        };
        let mut reader = BufReader::new(&stream);
        let mut served = 0u64;
        let mut left = self.rng.range(20, 200);
        let mut first = Some(first_n);
        while self.plan.running() && left > 0 {
            let n = first
                .take()
                .unwrap_or_else(|| 1 + self.rng.below(1000) as u32);
            let mut req = self.request(server, Proto::Http, conn, n);
            req.failover = std::mem::take(&mut failover);
            let head =
                format!("GET /ids?n={n} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/plain\r\n\r\n");
            let reply = (&stream)
                .write_all(head.as_bytes())
                .and_then(|()| read_http(&mut reader, false));
            self.finish(&mut req);
            let mut keep = true;
            req.outcome = match reply {
                Ok(r) => {
                    keep = r.keep_alive;
                    match r.status {
                        200 => {
                            let ids: Option<Vec<u64>> = String::from_utf8_lossy(&r.body)
                                .lines()
                                .filter(|l| !l.is_empty())
                                .map(|l| l.trim().parse().ok())
                                .collect();
                            let ids = ids.unwrap_or_default();
                            let complete = ids.len() == n as usize;
                            req.ids = history::runs(&ids);
                            match complete {
                                true => Outcome::Ok,
                                false => Outcome::Error,
                            }
                        }
                        503 => Outcome::Refused,
                        _ => Outcome::Error,
                    }
                }
                Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
                    Outcome::Timeout
                }
                Err(_) if served == 0 => Outcome::Refused,
                Err(_) => Outcome::Closed,
            };
            let ok = req.outcome == Outcome::Ok;
            self.record(req);
            if !ok {
                return End::Failed;
            }
            served += 1;
            if !keep {
                return End::Rotate;
            }
            left -= 1;
            std::thread::sleep(self.plan.pace);
        }
        End::Rotate
    }
}

/// What one binary reply brought.
struct Got {
    ids: Vec<u64>,
    /// Why it stopped short.
    error: Option<ErrorKind>,
}

/// Reads the `n` ids of one reply, or as many whole ids as came before
/// the connection closed or the timeout.
fn read_ids(stream: &mut TcpStream, n: usize) -> Got {
    let mut buf = vec![0u8; 8 * n];
    let mut got = 0;
    let mut error = None;
    while got < buf.len() {
        match stream.read(&mut buf[got..]) {
            Ok(0) => {
                error = Some(ErrorKind::UnexpectedEof);
                break;
            }
            Ok(k) => got += k,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => {
                error = Some(e.kind());
                break;
            }
        }
    }
    let ids = buf[..got / 8 * 8]
        .chunks_exact(8)
        .map(|c| u64::from_be_bytes(c.try_into().expect("8 bytes")))
        .collect();
    Got { ids, error }
}
