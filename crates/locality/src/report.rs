//! The report: markdown tables of the measurements and the targets.

use std::fmt::Write;

use crate::bench::{Cost, Measured};
use crate::kind::Kind;

const MIB: f64 = 1024.0 * 1024.0;

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The summary: one row per kind.
pub fn summary(results: &[Measured], nodes: usize) -> String {
    let passes = results.iter().any(|m| m.passes.len() > 1);
    let mut s = String::from(
        "| # | kind | primary key | seconds | rows/s | pk index MiB | table MiB | WAL MiB |",
    );
    s.push_str(if passes { " passes (s) |\n" } else { "\n" });
    s.push_str("|---|---|---|---:|---:|---:|---:|---:|");
    s.push_str(if passes { "---|\n" } else { "\n" });
    for m in results {
        let number = match Kind::ALL.iter().position(|&k| k == m.kind) {
            Some(i) if !m.kind.is_candidate() => (i + 1).to_string(),
            _ => "tried".to_string(),
        };
        let _ = write!(
            s,
            "| {number} | {} | {} | {:.2} | {} | {:.1} | {:.1} | {:.0} |",
            m.kind.name(),
            m.kind.key(nodes),
            m.seconds,
            thousands(m.rate().round() as u64),
            m.index_bytes as f64 / MIB,
            m.table_bytes as f64 / MIB,
            m.wal_bytes as f64 / MIB,
        );
        if passes {
            let times: Vec<String> = m.passes.iter().map(|t| format!("{t:.2}")).collect();
            let _ = write!(s, " {} |", times.join(", "));
        }
        s.push('\n');
    }
    s
}

/// Rows per second over time: one row per span of `span` rows, one column
/// per kind, in thousands of rows per second.
pub fn over_time(results: &[Measured], span: u64) -> String {
    let series: Vec<Vec<(u64, f64)>> = results.iter().map(|m| m.rates(span)).collect();
    let mut s = String::from("| rows |");
    for m in results {
        let _ = write!(s, " {} |", m.kind.name());
    }
    s.push_str("\n|---:|");
    s.push_str(&"---:|".repeat(results.len()));
    s.push('\n');
    let longest = series.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        let rows = series.iter().find_map(|r| r.get(i)).map_or(0, |p| p.0);
        let _ = write!(s, "| {} |", thousands(rows));
        for r in &series {
            match r.get(i) {
                Some((_, rate)) => {
                    let _ = write!(s, " {:.0} |", rate / 1000.0);
                }
                None => s.push_str(" |"),
            }
        }
        s.push('\n');
    }
    s
}

/// Ids made in the server: one row per generator, the query around them
/// (`kind: None`) last, with each generator's time less that query's.
pub fn costs(costs: &[Cost]) -> String {
    let base = costs.iter().find(|c| c.kind.is_none()).map(Cost::ns_per_id);
    let mut s = String::from("| kind | made by | ns per id |");
    if base.is_some() {
        s.push_str(" less `count(i)` |");
    }
    s.push_str(" runs (ns per id) |\n|---|---|---:|");
    if base.is_some() {
        s.push_str("---:|");
    }
    s.push_str("---|\n");
    let rows = costs
        .iter()
        .filter(|c| c.kind.is_some())
        .chain(costs.iter().filter(|c| c.kind.is_none()));
    for c in rows {
        let ns = c.ns_per_id();
        let (kind, made_by) = match c.kind {
            Some(k) => (k.name(), format!("`{}`", c.expression)),
            None => ("—", format!("`count({})` alone", c.expression)),
        };
        let _ = write!(s, "| {kind} | {made_by} | {ns:.1} |");
        if let Some(base) = base {
            match c.kind {
                Some(_) => {
                    let _ = write!(s, " {:.1} |", ns - base);
                }
                None => s.push_str(" |"),
            }
        }
        let runs: Vec<String> = c.runs.iter().map(|t| format!("{t:.1}")).collect();
        let _ = writeln!(s, " {} |", runs.join(", "));
    }
    s
}

/// One target: what it compares and whether the run met it.
pub struct Target {
    /// What was measured and against what.
    pub text: String,
    /// Whether the measurement met the target.
    pub met: bool,
}

/// The targets whose kinds this run measured, of inserts and of the
/// server's generators.
pub fn targets(results: &[Measured], costs: &[Cost]) -> Vec<Target> {
    let get = |k: Kind| results.iter().find(|m| m.kind == k);
    let idx = |m: &Measured| m.index_bytes as f64;
    let mut out = Vec::new();
    let mut check = |met: bool, text: String| out.push(Target { text, met });
    if let (Some(g), Some(v4)) = (get(Kind::Guid), get(Kind::UuidV4)) {
        let r = g.rate() / v4.rate();
        check(
            r >= 2.5,
            format!("guid rows/s {r:.2}× uuid-v4's (target ≥ 2.5×)"),
        );
        let r = idx(g) / idx(v4);
        check(
            r <= 0.85,
            format!("guid pk index {r:.2}× uuid-v4's (target ≤ 0.85×)"),
        );
    }
    if let (Some(g), Some(v7)) = (get(Kind::Guid), get(Kind::UuidV7)) {
        let r = g.rate() / v7.rate();
        check(
            r >= 1.0,
            format!("guid rows/s {r:.2}× uuid-v7's (target ≥ 1×)"),
        );
    }
    if let (Some(f), Some(g)) = (get(Kind::Fleet), get(Kind::Guid)) {
        let r = f.rate() / g.rate();
        check(
            r >= 0.9,
            format!("fleet rows/s {r:.2}× guid's (target ≥ 0.9×)"),
        );
        let r = idx(f) / idx(g) - 1.0;
        check(
            r.abs() <= 0.10,
            format!(
                "fleet pk index {:+.1} % of guid's (target within ±10 %)",
                r * 100.0
            ),
        );
    }
    if let (Some(l), Some(b)) = (get(Kind::Luid), get(Kind::Bigserial)) {
        let r = idx(l) / idx(b) - 1.0;
        check(
            r.abs() <= 0.05,
            format!(
                "luid pk index {:+.1} % of bigserial's (target within ±5 %)",
                r * 100.0
            ),
        );
    }
    if let (Some(g), Some(v4)) = (get(Kind::SqlGuid), get(Kind::SqlUuidV4)) {
        let r = idx(g) / idx(v4);
        check(
            r <= 1.0,
            format!("sql-guid pk index {r:.2}× sql-uuid-v4's (target ≤ 1×)"),
        );
    }
    if let (Some(l), Some(b)) = (get(Kind::SqlLuid), get(Kind::Bigserial)) {
        let r = idx(l) / idx(b) - 1.0;
        check(
            r.abs() <= 0.05,
            format!(
                "sql-luid pk index {:+.1} % of bigserial's (target within ±5 %)",
                r * 100.0
            ),
        );
    }
    let cost = |k: Kind| {
        costs
            .iter()
            .find(|c| c.kind == Some(k))
            .map(Cost::ns_per_id)
    };
    if let (Some(g), Some(v4)) = (cost(Kind::SqlGuid), cost(Kind::SqlUuidV4)) {
        let r = g / v4;
        check(
            r <= 1.1,
            format!(
                "guid_generate() {g:.1} ns per id, {r:.2}× gen_random_uuid()'s {v4:.1} (target ≤ 1.1×)"
            ),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(2_000_000), "2,000,000");
    }

    #[test]
    fn rates_are_per_span_and_keep_a_short_last_span() {
        let m = Measured {
            kind: Kind::Guid,
            rows: 25,
            seconds: 2.5,
            marks: vec![(5, 0.5), (10, 1.0), (15, 1.5), (20, 2.0), (25, 2.5)],
            index_bytes: 0,
            table_bytes: 0,
            wal_bytes: 0,
            passes: vec![2.5],
        };
        let rates = m.rates(10);
        assert_eq!(rates.iter().map(|r| r.0).collect::<Vec<_>>(), [10, 20, 25]);
        assert!(rates.iter().all(|r| (r.1 - 10.0).abs() < 1e-9));

        let pass = |seconds| Measured {
            seconds,
            ..m.clone()
        };
        let median = Measured::median(vec![pass(3.0), pass(1.0), pass(2.0)]).unwrap();
        assert_eq!((median.seconds, median.passes), (2.0, vec![1.0, 2.0, 3.0]));
        assert!(Measured::median(Vec::new()).is_none());
    }

    fn measured(kind: Kind, seconds: f64, index_mib: f64) -> Measured {
        Measured {
            kind,
            rows: 1000,
            seconds,
            marks: vec![(1000, seconds)],
            index_bytes: (index_mib * MIB) as i64,
            table_bytes: (2.0 * MIB) as i64,
            wal_bytes: (3.0 * MIB) as i64,
            passes: vec![seconds],
        }
    }

    fn cost(kind: Option<Kind>, expression: &str, runs: &[f64]) -> Cost {
        Cost {
            kind,
            expression: expression.into(),
            runs: runs.to_vec(),
        }
    }

    #[test]
    fn the_summary_numbers_kinds_as_they_are_listed() {
        let results = [
            measured(Kind::SqlGuid, 1.0, 1.0),
            measured(Kind::Bigserial, 1.0, 1.0),
            measured(Kind::SqlUuidV7, 1.0, 1.0),
            measured(Kind::FleetPartitioned, 1.0, 1.0),
        ];
        let s = summary(&results, 16);
        let lines: Vec<&str> = s.lines().skip(2).collect();
        assert_eq!(
            lines[0],
            "| 8 | sql-guid | guid DEFAULT guid_generate() | 1.00 | 1,000 | 1.0 | 2.0 | 3 |"
        );
        assert!(lines[1].starts_with("| 7 | bigserial | bigserial |"));
        assert!(
            lines[2].starts_with("| 11 | sql-uuid-v7 | UUID DEFAULT kguid_locality_uuidv7() |")
        );
        assert!(lines[3].starts_with("| tried | fleet-partitioned |"));
    }

    #[test]
    fn the_costs_table_has_each_generator_then_the_query_alone() {
        let costs = [
            cost(
                Some(Kind::SqlGuid),
                "guid_generate()",
                &[130.0, 120.04, 125.0],
            ),
            cost(None, "i", &[50.0, 40.0, 60.0]),
            cost(Some(Kind::Bigserial), "nextval('s')", &[200.0]),
        ];
        assert_eq!(costs[0].ns_per_id(), 125.0);
        assert_eq!(
            super::costs(&costs),
            "| kind | made by | ns per id | less `count(i)` | runs (ns per id) |\n\
             |---|---|---:|---:|---|\n\
             | sql-guid | `guid_generate()` | 125.0 | 75.0 | 130.0, 120.0, 125.0 |\n\
             | bigserial | `nextval('s')` | 200.0 | 150.0 | 200.0 |\n\
             | — | `count(i)` alone | 50.0 | | 50.0, 40.0, 60.0 |\n"
        );
        // Without the query alone, no column for it.
        let s = super::costs(&costs[..1]);
        assert!(s.starts_with(
            "| kind | made by | ns per id | runs (ns per id) |\n|---|---|---:|---|\n"
        ));
        assert!(s.ends_with("| sql-guid | `guid_generate()` | 125.0 | 130.0, 120.0, 125.0 |\n"));
    }

    #[test]
    fn the_server_targets_compare_indexes_and_generators() {
        let results = [
            measured(Kind::SqlGuid, 1.0, 60.2),
            measured(Kind::SqlLuid, 1.0, 43.0),
            measured(Kind::SqlUuidV4, 4.0, 76.9),
            measured(Kind::Bigserial, 1.0, 42.9),
        ];
        let costs = [
            cost(Some(Kind::SqlGuid), "guid_generate()", &[105.0]),
            cost(Some(Kind::SqlUuidV4), "gen_random_uuid()", &[100.0]),
        ];
        let t = targets(&results, &costs);
        let lines: Vec<(bool, &str)> = t.iter().map(|t| (t.met, t.text.as_str())).collect();
        assert_eq!(
            lines,
            [
                (true, "sql-guid pk index 0.78× sql-uuid-v4's (target ≤ 1×)"),
                (
                    true,
                    "sql-luid pk index +0.2 % of bigserial's (target within ±5 %)"
                ),
                (
                    true,
                    "guid_generate() 105.0 ns per id, 1.05× gen_random_uuid()'s 100.0 (target ≤ 1.1×)"
                ),
            ]
        );
        // Missed: a larger index, a luid index 10 % off, a slower generator.
        let results = [
            measured(Kind::SqlGuid, 1.0, 80.0),
            measured(Kind::SqlLuid, 1.0, 47.2),
            measured(Kind::SqlUuidV4, 4.0, 76.9),
            measured(Kind::Bigserial, 1.0, 42.9),
        ];
        let costs = [
            cost(Some(Kind::SqlGuid), "guid_generate()", &[120.0]),
            cost(Some(Kind::SqlUuidV4), "gen_random_uuid()", &[100.0]),
        ];
        let t = targets(&results, &costs);
        assert!(t.iter().all(|t| !t.met));
        assert_eq!(t.len(), 3);
        // Only the targets whose kinds were measured.
        assert!(targets(&results[..1], &costs[..1]).is_empty());
        assert!(targets(&results[2..], &costs[1..]).is_empty());
    }
}
