//! What a run records, one JSON object per line: the run's settings, the
//! servers' starts and exits, the faults, and every request a client made.
//!
//! ```text
//! {"type":"run","seed":7,"store":"redis","mode":"netns",...}
//! {"type":"server","server":0,"generation":0,"at_ns":...,"what":"start","skew_ms":0}
//! {"type":"request","client":2,"server":0,"proto":"bin","conn":8589934593,"n":200,
//!  "sent_ns":...,"done_ns":...,"outcome":"ok","ids":[[2126098741211062272,200]],"failover":false}
//! {"type":"fault","kind":"pause","target":"server 1","server":1,"start_ns":...,"end_ns":...,"detail":"..."}
//! {"type":"end","at_ns":...}
//! ```
//!
//! The ids of a reply are kept as runs `[first, count]` of consecutive
//! ids: a reply within one time unit is a single run, so a history holds
//! millions of ids in a few megabytes, and the checker compares runs
//! rather than ids.

use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One line of a history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The run's settings, first.
    Run(RunInfo),
    /// A server process started, exited or was signalled.
    Server(ServerEvent),
    /// A fault, written when it ends.
    Fault(FaultRecord),
    /// One request and its answer.
    Request(RequestRecord),
    /// The run-queue time of a server's threads, summed ([`crate::sched`]).
    Sched {
        /// The server's index.
        server: usize,
        /// Its process.
        pid: u32,
        /// Unix ns.
        at_ns: u64,
        /// ns its threads have waited for a CPU, summed.
        queued_ns: u64,
    },
    /// The clients stopped.
    End {
        /// Unix ns.
        at_ns: u64,
    },
}

/// The settings a history was made with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The schedule's seed: `--seed` replays it.
    pub seed: u64,
    /// `redis` or `etcd`.
    pub store: String,
    /// `netns` (each process in a network namespace) or `loopback`.
    pub mode: String,
    /// How many `guid-serve` processes.
    pub servers: usize,
    /// `--lease-ttl` of the servers, ms.
    pub lease_ttl_ms: u64,
    /// `--max-lead` of the servers, ms.
    pub max_lead_ms: u64,
    /// The 64-bit layout the servers issue ids in.
    pub layout: LayoutInfo,
    /// How long the clients ran, ms.
    pub duration_ms: u64,
    /// When the clients started, Unix ns.
    pub started_ns: u64,
    /// The fault kinds of the schedule, in order.
    pub faults: Vec<String>,
}

/// A flake layout, as the checker needs it to decode ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutInfo {
    /// Bits of time units.
    pub time_bits: u32,
    /// Bits of node id.
    pub node_bits: u32,
    /// Bits of sequence.
    pub seq_bits: u32,
    /// The epoch, Unix ms.
    pub epoch_ms: u64,
    /// The time unit, ns.
    pub unit_ns: u64,
}

impl LayoutInfo {
    /// noeqd's layout, `guid serve`'s default: 41/10/12 in ms since
    /// Twitter's epoch.
    pub const NOEQD: LayoutInfo = LayoutInfo {
        time_bits: 41,
        node_bits: 10,
        seq_bits: 12,
        epoch_ms: guid::flake::TWITTER_EPOCH_MS,
        unit_ns: 1_000_000,
    };

    /// The layout as `kguid` builds it.
    pub fn layout(&self) -> Result<guid::flake::Layout, String> {
        guid::flake::Layout::new(self.time_bits, self.node_bits, self.seq_bits)
            .and_then(|l| l.with_unit(std::time::Duration::from_nanos(self.unit_ns)))
            .map(|l| l.with_epoch_ms(self.epoch_ms))
            .map_err(|e| e.to_string())
    }
}

/// A server process event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerEvent {
    /// The server's index in the fleet.
    pub server: usize,
    /// How many times it was started before this process.
    pub generation: u32,
    /// Unix ns.
    pub at_ns: u64,
    /// `start`, `kill`, `term`, `exit`.
    pub what: String,
    /// The offset of the server's wall clock (faketime), ms; 0 when none.
    #[serde(default)]
    pub skew_ms: i64,
}

/// A fault and when it held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRecord {
    /// The fault kind (see `schedule::FaultKind`).
    pub kind: String,
    /// What it hit, in words.
    pub target: String,
    /// The server it hit, if it hit one server.
    #[serde(default)]
    pub server: Option<usize>,
    /// Unix ns.
    pub start_ns: u64,
    /// Unix ns; the same as `start_ns` for a fault of an instant.
    pub end_ns: u64,
    /// What was done.
    #[serde(default)]
    pub detail: String,
}

/// Which listener a request went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Proto {
    /// noeqd's binary protocol on `-l`.
    Bin,
    /// `GET /ids` on `--http`.
    Http,
}

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every id asked for.
    Ok,
    /// Turned away at once: the connection refused or closed before
    /// serving anything, or HTTP 503.
    Refused,
    /// The connection closed (or reset) after serving earlier requests,
    /// before this one's reply.
    Closed,
    /// The connection closed within the reply: the ids that came are kept.
    Partial,
    /// No answer within the client's timeout.
    Timeout,
    /// Anything else: another HTTP status, a reply that does not parse.
    Error,
}

/// One request and its answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestRecord {
    /// The client thread.
    pub client: u32,
    /// The server's index.
    pub server: usize,
    /// The listener.
    pub proto: Proto,
    /// The connection, unique in the run.
    pub conn: u64,
    /// Ids asked for.
    pub n: u32,
    /// When the request was written, Unix ns.
    pub sent_ns: u64,
    /// When the reply was read whole, or the connection found closed, or
    /// the client gave up; Unix ns.
    pub done_ns: u64,
    /// How it ended.
    pub outcome: Outcome,
    /// The ids received, as runs `[first, count]` of consecutive ids.
    #[serde(default)]
    pub ids: Vec<(u64, u64)>,
    /// The first request on another server after a failure.
    #[serde(default)]
    pub failover: bool,
    /// How long the client's thread waited for a CPU between send and
    /// done (Linux's run queue, `/proc/thread-self/schedstat`), ns: time
    /// in which no server could have answered it. 0 where not known.
    #[serde(default)]
    pub cpu_wait_ns: u64,
}

impl RequestRecord {
    /// How many ids came.
    pub fn id_count(&self) -> u64 {
        self.ids.iter().map(|&(_, n)| n).sum()
    }

    /// The last id received.
    pub fn last_id(&self) -> Option<u64> {
        self.ids.last().map(|&(first, n)| first + n - 1)
    }
}

/// `ids` as runs of consecutive ids, in their order.
pub fn runs(ids: &[u64]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &id in ids {
        match out.last_mut() {
            Some((first, n)) if first.checked_add(*n) == Some(id) => *n += 1,
            _ => out.push((id, 1)),
        }
    }
    out
}

/// Writes `record` as one line.
pub fn write(out: &mut impl Write, record: &Record) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, record)?;
    out.write_all(b"\n")
}

/// Reads a history file; a line that does not parse is an error naming it.
pub fn read(path: &Path) -> Result<Vec<Record>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut records = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line)
            .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        records.push(record);
    }
    Ok(records)
}

/// A history file that threads append lines to.
pub struct Sink {
    out: std::sync::Mutex<std::io::BufWriter<std::fs::File>>,
    failed: std::sync::atomic::AtomicBool,
}

impl Sink {
    /// Creates (or truncates) the file at `path`.
    pub fn create(path: &Path) -> Result<Sink, String> {
        let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Sink {
            out: std::sync::Mutex::new(std::io::BufWriter::with_capacity(1 << 20, file)),
            failed: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Appends `record`.
    pub fn record(&self, record: &Record) {
        let mut line = Vec::new();
        write(&mut line, record).expect("to memory");
        self.write_lines(&line);
    }

    /// Appends whole lines.
    pub fn write_lines(&self, lines: &[u8]) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = out.write_all(lines) {
            self.fail(&e);
        }
    }

    /// Writes what is buffered; whether every write succeeded.
    pub fn flush(&self) -> bool {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = out.flush() {
            self.fail(&e);
        }
        !self.failed.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn fail(&self, e: &std::io::Error) {
        if !self.failed.swap(true, std::sync::atomic::Ordering::Relaxed) {
            eprintln!("history: {e}");
        }
    }
}

/// Now, Unix ns.
pub fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_ids() {
        assert_eq!(runs(&[]), vec![]);
        assert_eq!(runs(&[5, 6, 7, 9, 10, 20]), vec![(5, 3), (9, 2), (20, 1)]);
        assert_eq!(runs(&[u64::MAX, 0]), vec![(u64::MAX, 1), (0, 1)]);
    }

    #[test]
    fn lines_round_trip() {
        let records = vec![
            Record::Request(RequestRecord {
                client: 1,
                server: 2,
                proto: Proto::Bin,
                conn: 3,
                n: 4,
                sent_ns: 5,
                done_ns: 6,
                outcome: Outcome::Ok,
                ids: vec![(u64::MAX >> 1, 1), (7, 3)],
                failover: true,
                cpu_wait_ns: 8,
            }),
            Record::Sched {
                server: 1,
                pid: 2,
                at_ns: 3,
                queued_ns: 4,
            },
            Record::End { at_ns: 9 },
        ];
        let mut text = Vec::new();
        for r in &records {
            write(&mut text, r).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        std::fs::write(&path, &text).unwrap();
        assert_eq!(read(&path).unwrap(), records);
        let line = String::from_utf8(text).unwrap();
        assert!(
            line.contains(r#""ids":[[9223372036854775807,1],[7,3]]"#),
            "{line}"
        );
    }

    #[test]
    fn noeqd_layout() {
        assert_eq!(
            LayoutInfo::NOEQD.layout().unwrap(),
            guid::flake::Layout::NOEQD
        );
    }
}
