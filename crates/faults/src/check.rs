//! The checker: what a history says about the ids served.
//!
//! - **duplicates**: every id served, over all servers and both
//!   protocols, counted once; each extra copy is a duplicate (must be 0);
//! - **order**: the ids of one connection strictly increase, within a
//!   reply and from one reply to the next;
//! - **lead**: how far an id's time is ahead of the client's wall clock
//!   when its reply came (servers under a skewed clock apart);
//! - **waits**: from a request's send to its reply, close or the client's
//!   timeout; the *held* time is the wait less the time the harness kept
//!   the server stopped (SIGSTOP) and the time the client's thread waited
//!   for a CPU, in which no server can answer; the server's own wait for a
//!   CPU meanwhile is given beside it (not left out: it is the server's);
//! - **counts**: requests served, refused (turned away at once, or 503),
//!   closed, timed out, and failed over to another server.
//!
//! Every number is also given for each stretch of the run from one fault
//! to the next, under the fault's kind (`none` before the first), so that
//! a duplicate or a long wait is put down to the fault that came before
//! it.

use std::collections::{BTreeSet, HashMap};

use crate::history::{FaultRecord, LayoutInfo, Outcome, Proto, Record, RequestRecord};

/// The slack over `--max-lead` that a request may be held: the server's
/// own waits (a start bound, the max lead) are at most `--max-lead`.
pub const WAIT_SLACK_NS: u64 = 50_000_000;

/// Where an id was served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The server's index.
    pub server: usize,
    /// The listener.
    pub proto: Proto,
    /// The connection.
    pub conn: u64,
    /// When the reply came, Unix ns.
    pub done_ns: u64,
}

/// Ids served twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The first id served twice of a run of them.
    pub id: u64,
    /// How many consecutive ids from `id` the two replies share.
    pub count: u64,
    /// The node id the ids carry.
    pub node: u64,
    /// The reply that had them first.
    pub first: Place,
    /// The one that had them again.
    pub second: Place,
}

/// One request's wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    /// ns.
    pub ns: u64,
    /// The server it went to.
    pub server: usize,
    /// The listener.
    pub proto: Proto,
    /// How it ended.
    pub outcome: Outcome,
    /// When it was sent, Unix ns.
    pub sent_ns: u64,
    /// How long its server's threads waited for a CPU meanwhile, summed
    /// (from the samples bracketing it), ns; `None` without samples.
    pub server_cpu_wait_ns: Option<u64>,
}

/// The numbers of one stretch of the run: from a fault's start to the
/// next fault's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// The fault kind, `none` before the first fault.
    pub kind: String,
    /// Unix ns; 0 for the first stretch.
    pub start_ns: u64,
    /// Requests sent in the stretch.
    pub requests: u64,
    /// Of them, answered with every id.
    pub served: u64,
    /// Turned away at once, or 503.
    pub refused: u64,
    /// Ids served.
    pub ids: u64,
    /// Extra copies of ids whose later copy came in the stretch.
    pub duplicates: u64,
    /// The longest wait of a request sent in the stretch, ns.
    pub longest_wait_ns: u64,
    /// The longest held time, ns.
    pub longest_held_ns: u64,
}

/// What the checker found in one history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Requests made.
    pub requests: u64,
    /// Answered with every id.
    pub served: u64,
    /// Turned away at once: refused or closed before serving anything on
    /// the connection, or HTTP 503.
    pub refused: u64,
    /// The connection closed after serving earlier requests.
    pub closed: u64,
    /// The connection closed within the reply.
    pub partial: u64,
    /// No answer within the client's timeout.
    pub timeouts: u64,
    /// Other answers.
    pub errors: u64,
    /// Requests that went to another server after a failure.
    pub failovers: u64,
    /// Ids served (partial replies included).
    pub ids: u64,
    /// Extra copies of ids: 0 unless two replies shared an id.
    pub duplicates: u64,
    /// The first duplicates found, by id.
    pub duplicate_samples: Vec<Duplicate>,
    /// Requests whose ids did not strictly follow the connection's
    /// earlier ids, or did not increase within the reply.
    pub order_violations: u64,
    /// The first of them, in words.
    pub order_samples: Vec<String>,
    /// Ids that do not decode in the layout (the sign bit set).
    pub bad_ids: u64,
    /// The largest lead of an id's time over the wall clock at its reply,
    /// ns, of servers whose clock was never skewed.
    pub max_lead_ns: Option<i64>,
    /// The same over the servers with a skewed clock.
    pub max_lead_skewed_ns: Option<i64>,
    /// The longest wait from send to reply, close or timeout.
    pub longest_wait: Option<Wait>,
    /// The longest wait less the server's time stopped (SIGSTOP) and the
    /// client's time waiting for a CPU.
    pub longest_held: Option<Wait>,
    /// The longest a client's thread waited for a CPU during one request,
    /// ns.
    pub longest_cpu_wait_ns: u64,
    /// The longest held time of a request refused or closed.
    pub longest_refusal: Option<Wait>,
    /// The bound on held times: the servers' `--max-lead` plus
    /// [`WAIT_SLACK_NS`], ns.
    pub bound_ns: u64,
    /// Requests held longer than [`Report::bound_ns`].
    pub over_bound: u64,
    /// The numbers from each fault to the next.
    pub segments: Vec<Segment>,
}

/// How many duplicates and order violations a report describes.
const SAMPLES: usize = 10;

/// Checks the requests of `records` against each other.
pub fn check(records: &[Record]) -> Report {
    let mut layout_info = LayoutInfo::NOEQD;
    let mut max_lead_ms = 100;
    let mut faults: Vec<&FaultRecord> = Vec::new();
    let mut sched: HashMap<usize, Vec<(u64, u32, u64)>> = HashMap::new();
    let mut skewed: BTreeSet<usize> = BTreeSet::new();
    let mut requests: Vec<&RequestRecord> = Vec::new();
    for record in records {
        match record {
            Record::Run(run) => {
                layout_info = run.layout;
                max_lead_ms = run.max_lead_ms;
            }
            Record::Fault(f) => {
                faults.push(f);
                if f.kind == "skew"
                    && let Some(s) = f.server
                {
                    skewed.insert(s);
                }
            }
            Record::Server(s) if s.skew_ms != 0 => {
                skewed.insert(s.server);
            }
            Record::Request(r) => requests.push(r),
            Record::Sched {
                server,
                pid,
                at_ns,
                queued_ns,
            } => sched
                .entry(*server)
                .or_default()
                .push((*at_ns, *pid, *queued_ns)),
            Record::Server(_) | Record::End { .. } => {}
        }
    }
    for samples in sched.values_mut() {
        samples.sort_unstable();
    }
    // The run-queue time of `server`'s threads from `from` to `to`: from
    // the last sample at or before `from` to the first at or after `to`,
    // of one process.
    let server_cpu_wait = |server: usize, from: u64, to: u64| {
        let samples = sched.get(&server)?;
        let a = samples[..samples.partition_point(|s| s.0 <= from)].last()?;
        let b = samples.get(samples.partition_point(|s| s.0 < to))?;
        (a.1 == b.1).then(|| b.2.saturating_sub(a.2))
    };
    let layout = layout_info.layout().unwrap_or(guid::flake::Layout::NOEQD);
    faults.sort_by_key(|f| f.start_ns);
    let mut report = Report {
        bound_ns: max_lead_ms * 1_000_000 + WAIT_SLACK_NS,
        ..Report::default()
    };
    report.segments.push(Segment {
        kind: "none".into(),
        ..Segment::default()
    });
    for f in &faults {
        report.segments.push(Segment {
            kind: f.kind.clone(),
            start_ns: f.start_ns,
            ..Segment::default()
        });
    }
    let starts: Vec<u64> = report.segments.iter().map(|s| s.start_ns).collect();
    let segment_of = |t: u64| starts.partition_point(|&s| s <= t).saturating_sub(1);
    // The windows each server was stopped in.
    let mut paused: HashMap<usize, Vec<(u64, u64)>> = HashMap::new();
    for f in &faults {
        if f.kind == "pause"
            && let Some(s) = f.server
        {
            paused.entry(s).or_default().push((f.start_ns, f.end_ns));
        }
    }

    let mut last_of_conn: HashMap<u64, u64> = HashMap::new();
    for r in &requests {
        let seg = segment_of(r.sent_ns);
        report.requests += 1;
        report.segments[seg].requests += 1;
        match r.outcome {
            Outcome::Ok => {
                report.served += 1;
                report.segments[seg].served += 1;
            }
            Outcome::Refused => {
                report.refused += 1;
                report.segments[seg].refused += 1;
            }
            Outcome::Closed => report.closed += 1,
            Outcome::Partial => report.partial += 1,
            Outcome::Timeout => report.timeouts += 1,
            Outcome::Error => report.errors += 1,
        }
        if r.failover {
            report.failovers += 1;
        }
        let count = r.id_count();
        report.ids += count;
        report.segments[seg].ids += count;

        // Waits.
        let wait = r.done_ns.saturating_sub(r.sent_ns);
        let stopped: u64 = paused.get(&r.server).map_or(0, |windows| {
            windows
                .iter()
                .map(|&(a, b)| b.min(r.done_ns).saturating_sub(a.max(r.sent_ns)))
                .sum()
        });
        let held = wait.saturating_sub(stopped).saturating_sub(r.cpu_wait_ns);
        report.longest_cpu_wait_ns = report.longest_cpu_wait_ns.max(r.cpu_wait_ns);
        let as_wait = |ns| Wait {
            ns,
            server: r.server,
            proto: r.proto,
            outcome: r.outcome,
            sent_ns: r.sent_ns,
            server_cpu_wait_ns: server_cpu_wait(r.server, r.sent_ns, r.done_ns),
        };
        longest(&mut report.longest_wait, as_wait(wait));
        longest(&mut report.longest_held, as_wait(held));
        if matches!(r.outcome, Outcome::Refused | Outcome::Closed) {
            longest(&mut report.longest_refusal, as_wait(held));
        }
        if held > report.bound_ns {
            report.over_bound += 1;
        }
        let s = &mut report.segments[seg];
        s.longest_wait_ns = s.longest_wait_ns.max(wait);
        s.longest_held_ns = s.longest_held_ns.max(held);

        // Order on the connection, and within the reply.
        if !r.ids.is_empty() {
            let increasing = r.ids.windows(2).all(|w| w[0].0 + w[0].1 - 1 < w[1].0);
            let prev = last_of_conn.get(&r.conn).copied();
            let follows = prev.is_none_or(|p| p < r.ids[0].0);
            if !increasing || !follows {
                report.order_violations += 1;
                if report.order_samples.len() < SAMPLES {
                    report.order_samples.push(format!(
                        "server {} {:?} conn {}: {} after {:?} (sent at {} ns)",
                        r.server, r.proto, r.conn, r.ids[0].0, prev, r.sent_ns
                    ));
                }
            }
            if let Some(last) = r.last_id() {
                last_of_conn.insert(r.conn, last.max(prev.unwrap_or(0)));
            }
        }

        // Lead of the last (latest) id over the wall clock at the reply.
        if let Some(last) = r.last_id() {
            match layout.time_of(last) {
                Ok(t) => {
                    let t_ns = t
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos() as i64);
                    let lead = t_ns - r.done_ns as i64;
                    let slot = match skewed.contains(&r.server) {
                        true => &mut report.max_lead_skewed_ns,
                        false => &mut report.max_lead_ns,
                    };
                    *slot = Some(slot.map_or(lead, |l| l.max(lead)));
                }
                Err(_) => report.bad_ids += 1,
            }
        }
    }

    // Duplicates: the runs sorted by their first id, swept once. `end` is
    // one past the highest id seen so far, in the run `owner`: a run that
    // starts below it shares its ids up to `end` with `owner`, and none
    // past it with any run before.
    let mut all: Vec<(u64, u64, usize)> = requests
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.ids.iter().map(move |&(first, n)| (first, n, i)))
        .filter(|&(_, n, _)| n > 0)
        .collect();
    all.sort_unstable();
    let mut end: Option<(u64, usize)> = None;
    for &(first, n, i) in &all {
        let stop = first.saturating_add(n);
        if let Some((e, owner)) = end
            && first < e
        {
            let shared = e.min(stop) - first;
            report.duplicates += shared;
            let (mut a, mut b) = (requests[owner], requests[i]);
            if b.done_ns < a.done_ns {
                (a, b) = (b, a);
            }
            let later = b.done_ns;
            report.segments[segment_of(later)].duplicates += shared;
            if report.duplicate_samples.len() < SAMPLES {
                let place = |r: &RequestRecord| Place {
                    server: r.server,
                    proto: r.proto,
                    conn: r.conn,
                    done_ns: r.done_ns,
                };
                report.duplicate_samples.push(Duplicate {
                    id: first,
                    count: shared,
                    node: layout.decompose(first).map_or(u64::MAX, |p| p.node),
                    first: place(a),
                    second: place(b),
                });
            }
        }
        match end {
            Some((e, _)) if e >= stop => {}
            _ => end = Some((stop, i)),
        }
    }
    report
}

fn longest(slot: &mut Option<Wait>, wait: Wait) {
    if slot.is_none_or(|w| wait.ns > w.ns) {
        *slot = Some(wait);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{RunInfo, ServerEvent};

    const MS: u64 = 1_000_000;
    /// A time in the run: 2026-11-28, Unix ns.
    const T0: u64 = 1_795_874_000_000 * MS;

    /// The noeqd id of Unix ns `t`, node and seq.
    fn id(t: u64, node: u64, seq: u64) -> u64 {
        let ms = t / MS - guid::flake::TWITTER_EPOCH_MS;
        guid::flake::Layout::NOEQD.compose(ms, node, seq).unwrap()
    }

    fn run() -> Record {
        Record::Run(RunInfo {
            seed: 1,
            store: "redis".into(),
            mode: "loopback".into(),
            servers: 2,
            lease_ttl_ms: 2000,
            max_lead_ms: 100,
            layout: LayoutInfo::NOEQD,
            duration_ms: 1000,
            started_ns: T0,
            faults: vec![],
        })
    }

    struct Req {
        server: usize,
        conn: u64,
        sent: u64,
        done: u64,
        outcome: Outcome,
        ids: Vec<u64>,
        cpu_wait: u64,
    }

    fn req(server: usize, conn: u64, sent: u64, ids: Vec<u64>) -> Req {
        Req {
            server,
            conn,
            sent,
            done: sent + MS,
            outcome: Outcome::Ok,
            ids,
            cpu_wait: 0,
        }
    }

    impl Req {
        fn record(self) -> Record {
            Record::Request(RequestRecord {
                client: 0,
                server: self.server,
                proto: Proto::Bin,
                conn: self.conn,
                n: self.ids.len().max(1) as u32,
                sent_ns: self.sent,
                done_ns: self.done,
                outcome: self.outcome,
                ids: crate::history::runs(&self.ids),
                failover: false,
                cpu_wait_ns: self.cpu_wait,
            })
        }
    }

    fn fault(kind: &str, server: Option<usize>, start: u64, end: u64) -> Record {
        Record::Fault(FaultRecord {
            kind: kind.into(),
            target: String::new(),
            server,
            start_ns: start,
            end_ns: end,
            detail: String::new(),
        })
    }

    #[test]
    fn a_clean_history() {
        let t = T0 + 10 * MS;
        let records = vec![
            run(),
            req(0, 1, t, (0..100).map(|s| id(t, 0, s)).collect()).record(),
            req(0, 1, t, (100..200).map(|s| id(t, 0, s)).collect()).record(),
            req(1, 2, t, (0..100).map(|s| id(t, 1, s)).collect()).record(),
            req(1, 2, t + MS, vec![id(t + MS, 1, 0)]).record(),
        ];
        let r = check(&records);
        assert_eq!(r.requests, 4);
        assert_eq!(r.served, 4);
        assert_eq!(r.ids, 301);
        assert_eq!(r.duplicates, 0);
        assert_eq!(r.order_violations, 0);
        assert_eq!(r.bad_ids, 0);
        // Ids of the ms the request was sent in, the reply 1 ms later.
        assert_eq!(r.max_lead_ns, Some(-(MS as i64)));
        assert_eq!(r.longest_wait.unwrap().ns, MS);
        assert_eq!(r.over_bound, 0);
        assert_eq!(r.bound_ns, 150 * MS);
    }

    #[test]
    fn finds_a_duplicate_across_servers_and_protocols() {
        let t = T0 + 10 * MS;
        // Two servers on node 3 (a lease lost and taken again): the same
        // ms, the same node, sequences 0.. on both.
        let mut http = req(1, 9, t + 2 * MS, (0..5).map(|s| id(t, 3, s)).collect()).record();
        if let Record::Request(r) = &mut http {
            r.proto = Proto::Http;
        }
        let records = vec![
            run(),
            fault("flushall", None, t, t),
            req(0, 1, t, (0..10).map(|s| id(t, 3, s)).collect()).record(),
            http,
            req(0, 1, t + 3 * MS, vec![id(t + 3 * MS, 3, 0)]).record(),
        ];
        let r = check(&records);
        assert_eq!(r.duplicates, 5);
        assert_eq!(r.ids, 16);
        let d = r.duplicate_samples[0];
        assert_eq!((d.id, d.count, d.node), (id(t, 3, 0), 5, 3));
        assert_eq!(
            [d.first.proto, d.second.proto],
            [Proto::Bin, Proto::Http],
            "{d:?}"
        );
        // Put down to the fault before the later copy.
        assert_eq!(r.segments.len(), 2);
        assert_eq!(r.segments[1].kind, "flushall");
        assert_eq!(r.segments[1].duplicates, 5);
        assert_eq!(r.segments[0].duplicates, 0);
    }

    #[test]
    fn counts_every_extra_copy() {
        let t = T0;
        let a: Vec<u64> = (0..10).map(|s| id(t, 0, s)).collect();
        let records = vec![
            run(),
            req(0, 1, t, a.clone()).record(),
            req(1, 2, t, a.clone()).record(),
            req(1, 3, t, a[5..6].to_vec()).record(),
            req(0, 4, t, vec![a[8], a[9], id(t, 0, 10), id(t, 0, 11)]).record(),
        ];
        let r = check(&records);
        // 10 ids twice, one a third time, two a third time.
        assert_eq!(r.duplicates, 10 + 1 + 2);
    }

    #[test]
    fn order_on_a_connection() {
        let t = T0;
        let records = vec![
            run(),
            req(0, 1, t, vec![id(t, 0, 5), id(t, 0, 6)]).record(),
            // Behind the connection's last id.
            req(0, 1, t + MS, vec![id(t, 0, 4)]).record(),
            // Another connection may start anywhere.
            req(0, 2, t + MS, vec![id(t, 0, 1)]).record(),
            // Not increasing within the reply.
            req(0, 3, t + MS, vec![id(t, 0, 9), id(t, 0, 8)]).record(),
        ];
        let r = check(&records);
        assert_eq!(r.order_violations, 2, "{:?}", r.order_samples);
        assert_eq!(r.duplicates, 0);
    }

    #[test]
    fn waits_less_the_time_stopped() {
        let t = T0;
        let mut held = req(1, 1, t, vec![]);
        held.done = t + 3000 * MS;
        held.outcome = Outcome::Refused;
        let mut stopped = req(0, 2, t, vec![id(t, 0, 0)]);
        stopped.done = t + 2500 * MS;
        let records = vec![
            run(),
            fault("pause", Some(0), t + 100 * MS, t + 2500 * MS),
            held.record(),
            stopped.record(),
        ];
        let r = check(&records);
        assert_eq!(r.longest_wait.unwrap().ns, 3000 * MS);
        // Server 1 was not stopped: all of its 3 s count.
        let h = r.longest_held.unwrap();
        assert_eq!((h.ns, h.server), (3000 * MS, 1));
        assert_eq!(r.longest_refusal.unwrap().ns, 3000 * MS);
        assert_eq!(r.over_bound, 1);
        assert_eq!(r.refused, 1);
        assert_eq!(r.served, 1);
        // Sent before the pause: the first stretch's.
        assert_eq!(r.segments[0].longest_held_ns, 3000 * MS);
    }

    #[test]
    fn waits_less_the_clients_wait_for_a_cpu() {
        let t = T0;
        let mut slow = req(0, 1, t, vec![id(t, 0, 0)]);
        slow.done = t + 300 * MS;
        slow.cpu_wait = 280 * MS;
        let mut fast = req(1, 2, t, vec![id(t, 1, 0)]);
        fast.done = t + 40 * MS;
        let r = check(&[run(), slow.record(), fast.record()]);
        assert_eq!(r.longest_wait.unwrap().ns, 300 * MS);
        let h = r.longest_held.unwrap();
        assert_eq!((h.ns, h.server), (40 * MS, 1));
        assert_eq!(r.longest_cpu_wait_ns, 280 * MS);
        assert_eq!(r.over_bound, 0);
    }

    #[test]
    fn a_servers_wait_for_a_cpu_is_given_beside_its_hold() {
        let t = T0;
        let sample = |pid, at, queued_ns| Record::Sched {
            server: 0,
            pid,
            at_ns: at,
            queued_ns,
        };
        let mut held = req(0, 1, t + 10 * MS, vec![id(t, 0, 0)]);
        held.done = t + 210 * MS;
        let mut after_a_restart = req(0, 2, t + 310 * MS, vec![id(t, 0, 1)]);
        after_a_restart.done = t + 320 * MS;
        let records = vec![
            run(),
            sample(7, t, 5 * MS),
            sample(7, t + 100 * MS, 90 * MS),
            sample(7, t + 220 * MS, 185 * MS),
            sample(8, t + 330 * MS, 0),
            held.record(),
            after_a_restart.record(),
        ];
        let r = check(&records);
        let h = r.longest_held.unwrap();
        assert_eq!(h.ns, 200 * MS);
        // Held 200 ms, 180 of them with its threads waiting for a CPU:
        // still a hold, but the machine's.
        assert_eq!(h.server_cpu_wait_ns, Some(180 * MS));
        assert_eq!(r.over_bound, 1);
        let mut alone = req(0, 3, t + 310 * MS, vec![id(t, 0, 2)]);
        alone.done = t + 320 * MS;
        let r = check(&[
            run(),
            sample(7, t, 0),
            sample(8, t + 330 * MS, 0),
            alone.record(),
        ]);
        // Samples of two processes say nothing.
        assert_eq!(r.longest_held.unwrap().server_cpu_wait_ns, None);
    }

    #[test]
    fn lead_of_skewed_servers_apart() {
        let t = T0;
        let ahead = t + 1500 * MS;
        let records = vec![
            run(),
            Record::Server(ServerEvent {
                server: 1,
                generation: 0,
                at_ns: t,
                what: "start".into(),
                skew_ms: 1500,
            }),
            req(0, 1, t, vec![id(t + 20 * MS, 0, 0)]).record(),
            req(1, 2, t, vec![id(ahead, 1, 0)]).record(),
        ];
        let r = check(&records);
        assert_eq!(r.max_lead_ns, Some(19 * MS as i64));
        assert_eq!(r.max_lead_skewed_ns, Some(1499 * MS as i64));
    }

    #[test]
    fn undecodable_ids() {
        let r = check(&[run(), req(0, 1, T0, vec![1 << 63]).record()]);
        assert_eq!(r.bad_ids, 1);
    }
}
