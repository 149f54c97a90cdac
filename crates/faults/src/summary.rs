//! What a run prints: one line per schedule, the failures that make the
//! exit status non-zero, and the Markdown tables of all the runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::time::Duration;

use crate::check::{Report, Wait};
use crate::run::RunResult;

/// `1.234s`, `12.3ms`, `45µs`.
pub fn human(ns: u64) -> String {
    let d = Duration::from_nanos(ns);
    if ns >= 1_000_000_000 {
        format!("{:.3}s", d.as_secs_f64())
    } else if ns >= 1_000_000 {
        format!("{:.1}ms", ns as f64 / 1e6)
    } else {
        format!("{}µs", ns / 1_000)
    }
}

fn signed(ns: Option<i64>) -> String {
    match ns {
        None => "-".into(),
        Some(n) if n < 0 => format!("-{}", human(n.unsigned_abs())),
        Some(n) => human(n as u64),
    }
}

fn wait(w: &Option<Wait>) -> String {
    match w {
        None => "-".into(),
        Some(w) => format!(
            "{} (s{} {:?} {:?}{})",
            human(w.ns),
            w.server,
            w.proto,
            w.outcome,
            match w.server_cpu_wait_ns {
                Some(ns) if ns > 0 =>
                    format!(", its server's threads waited {} for a CPU", human(ns)),
                _ => String::new(),
            }
        ),
    }
}

/// Why a run fails: duplicates, ids out of order or undecodable, faults
/// that could not be done, and (with `fail_on_wait`) requests held past
/// the bound.
pub fn failures(r: &RunResult, fail_on_wait: bool) -> Vec<String> {
    let p = &r.report;
    let mut why = Vec::new();
    if p.duplicates > 0 {
        why.push(format!("{} duplicate ids", p.duplicates));
    }
    if p.order_violations > 0 {
        why.push(format!("{} replies out of order", p.order_violations));
    }
    if p.bad_ids > 0 {
        why.push(format!("{} ids that do not decode", p.bad_ids));
    }
    if p.served == 0 {
        why.push("no request served".into());
    }
    if fail_on_wait && p.over_bound > 0 {
        why.push(format!(
            "{} requests held over {}",
            p.over_bound,
            human(p.bound_ns)
        ));
    }
    why.extend(r.errors.iter().map(|e| format!("fault not done: {e}")));
    why
}

/// The line of one run.
pub fn line(r: &RunResult, fail_on_wait: bool) -> String {
    let p: &Report = &r.report;
    let why = failures(r, fail_on_wait);
    format!(
        "seed={} store={} mode={} servers={} faults={} ids={} duplicates={} order={} \
         longest_wait={} held={} refusal={} over_bound={} cpu_wait={} lead={} lead_skewed={} \
         served={} refused={} closed={} partial={} timeouts={} errors={} failovers={} \
         exits={} time={:.1}s {}",
        r.seed,
        r.store.name(),
        r.mode,
        r.servers,
        r.faults.join(","),
        p.ids,
        p.duplicates,
        p.order_violations,
        wait(&p.longest_wait),
        wait(&p.longest_held),
        wait(&p.longest_refusal),
        p.over_bound,
        human(p.longest_cpu_wait_ns),
        signed(p.max_lead_ns),
        signed(p.max_lead_skewed_ns),
        p.served,
        p.refused,
        p.closed,
        p.partial,
        p.timeouts,
        p.errors,
        p.failovers,
        r.exits.len(),
        r.elapsed.as_secs_f64(),
        match why.is_empty() {
            true => "OK".to_owned(),
            false => format!("FAIL: {}", why.join("; ")),
        }
    )
}

/// The duplicates a run found, a line each.
pub fn duplicate_lines(r: &RunResult) -> Vec<String> {
    r.report
        .duplicate_samples
        .iter()
        .map(|d| {
            format!(
                "  duplicate: {} ids from {} (node {}): s{} {:?} conn {} then s{} {:?} conn {} {} later",
                d.count,
                d.id,
                d.node,
                d.first.server,
                d.first.proto,
                d.first.conn,
                d.second.server,
                d.second.proto,
                d.second.conn,
                human(d.second.done_ns.saturating_sub(d.first.done_ns)),
            )
        })
        .collect()
}

#[derive(Default)]
struct Row {
    runs: BTreeSet<u64>,
    faults: u64,
    requests: u64,
    ids: u64,
    duplicates: u64,
    refused: u64,
    wait: u64,
    held: u64,
}

/// Markdown: a row for each fault kind and store, over every run (a
/// stretch from one fault to the next counts for the fault; `none` is
/// each run's start, before its first fault), and a row for each run.
pub fn table(results: &[RunResult]) -> String {
    let mut rows: BTreeMap<(String, &'static str), Row> = BTreeMap::new();
    for r in results {
        for s in &r.report.segments {
            let row = rows.entry((s.kind.clone(), r.store.name())).or_default();
            row.runs.insert(r.seed);
            if s.kind != "none" {
                row.faults += 1;
            }
            row.requests += s.requests;
            row.ids += s.ids;
            row.duplicates += s.duplicates;
            row.refused += s.refused;
            row.wait = row.wait.max(s.longest_wait_ns);
            row.held = row.held.max(s.longest_held_ns);
        }
    }
    let mut out = String::new();
    out.push_str(
        "| fault | store | runs | faults | requests | ids | duplicates | refused | longest wait | longest held |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for ((kind, store), row) in &rows {
        let _ = writeln!(
            out,
            "| {kind} | {store} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.runs.len(),
            row.faults,
            row.requests,
            row.ids,
            row.duplicates,
            row.refused,
            human(row.wait),
            human(row.held),
        );
    }
    out.push_str(
        "\n| seed | store | mode | faults | ids | duplicates | order | longest wait | longest held | over bound | served | refused | closed | timeouts | failovers |\n\
         |---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in results {
        let p = &r.report;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.seed,
            r.store.name(),
            r.mode,
            r.faults.join(", "),
            p.ids,
            p.duplicates,
            p.order_violations,
            p.longest_wait.map_or("-".into(), |w| human(w.ns)),
            p.longest_held.map_or("-".into(), |w| human(w.ns)),
            p.over_bound,
            p.served,
            p.refused,
            p.closed,
            p.timeouts,
            p.failovers,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Segment;
    use crate::schedule::Store;

    #[test]
    fn durations() {
        assert_eq!(human(1_234_567_890), "1.235s");
        assert_eq!(human(12_345_678), "12.3ms");
        assert_eq!(human(45_000), "45µs");
        assert_eq!(signed(Some(-2_000_000)), "-2.0ms");
    }

    #[test]
    fn a_duplicate_fails_and_is_tabled() {
        let mut report = Report {
            served: 10,
            ids: 100,
            duplicates: 3,
            ..Report::default()
        };
        report.segments = vec![
            Segment {
                kind: "none".into(),
                ids: 60,
                ..Segment::default()
            },
            Segment {
                kind: "flushall".into(),
                ids: 40,
                duplicates: 3,
                longest_wait_ns: 5_000_000,
                ..Segment::default()
            },
        ];
        let r = RunResult {
            seed: 9,
            store: Store::Redis,
            mode: "netns".into(),
            servers: 3,
            faults: vec!["flushall".into()],
            report,
            history: "h".into(),
            elapsed: Duration::from_secs(1),
            errors: vec![],
            exits: vec![],
        };
        assert_eq!(failures(&r, false), vec!["3 duplicate ids".to_owned()]);
        assert!(line(&r, false).ends_with("FAIL: 3 duplicate ids"));
        let t = table(&[r]);
        assert!(
            t.contains("| flushall | redis | 1 | 1 | 0 | 40 | 3 | 0 | 5.0ms | 0µs |"),
            "{t}"
        );
        assert!(t.contains("| none | redis | 1 | 0 | 0 | 60 | 0 |"), "{t}");
    }
}
