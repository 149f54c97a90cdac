//! The report: markdown tables of the measurements and the targets.

use std::fmt::Write;

use crate::bench::Measured;
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

/// One target: what it compares and whether the run met it.
pub struct Target {
    /// What was measured and against what.
    pub text: String,
    /// Whether the measurement met the target.
    pub met: bool,
}

/// The targets whose kinds this run measured.
pub fn targets(results: &[Measured]) -> Vec<Target> {
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
}
