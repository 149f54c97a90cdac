//! One kind's measurement: a fresh table, timed batches, then its sizes.

use std::pin::pin;
use std::time::Instant;

use tokio_postgres::Client;
use tokio_postgres::binary_copy::BinaryCopyInWriter;

use crate::error::{Context, Error, Result};
use crate::kind::{COST_SEQUENCE, FleetSpec, Kind, write_rows};

/// What one kind's run measured.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The key kind.
    pub kind: Kind,
    /// Rows inserted.
    pub rows: u64,
    /// Seconds from the first batch's start to the last batch's commit.
    pub seconds: f64,
    /// After each batch: rows inserted so far and seconds since the start.
    pub marks: Vec<(u64, f64)>,
    /// `pg_relation_size` of the primary key's index (summed over
    /// partitions).
    pub index_bytes: i64,
    /// `pg_relation_size` of the table (summed over partitions).
    pub table_bytes: i64,
    /// WAL written during the inserts (the server's, so other sessions'
    /// writes count too).
    pub wal_bytes: i64,
    /// The seconds of every pass of this kind, when the run made several
    /// and this is the median one.
    pub passes: Vec<f64>,
}

impl Measured {
    /// The pass with the median time, carrying every pass's time.
    pub fn median(mut passes: Vec<Measured>) -> Option<Measured> {
        passes.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let times = passes.iter().map(|m| m.seconds).collect();
        let mut m = passes.swap_remove(passes.len().checked_sub(1)? / 2);
        m.passes = times;
        Some(m)
    }

    /// Rows per second over the whole run.
    pub fn rate(&self) -> f64 {
        self.rows as f64 / self.seconds
    }

    /// Rows per second within consecutive spans of about `span` rows,
    /// each at the row count where it ends.
    pub fn rates(&self, span: u64) -> Vec<(u64, f64)> {
        let mut out = Vec::new();
        let (mut rows0, mut t0) = (0, 0.0);
        for &(rows, t) in &self.marks {
            if rows - rows0 >= span || rows == self.rows {
                if t > t0 {
                    out.push((rows, (rows - rows0) as f64 / (t - t0)));
                }
                (rows0, t0) = (rows, t);
            }
        }
        out
    }
}

/// The run's settings shared by every kind.
pub struct Plan {
    /// Rows per kind.
    pub rows: u64,
    /// Rows per COPY.
    pub batch: u64,
    /// The fleet's writers.
    pub fleet: FleetSpec,
    /// Keep the tables after measuring them.
    pub keep: bool,
}

/// A connection and what it was found to allow.
pub struct Session {
    /// The connection.
    pub client: Client,
    /// Whether CHECKPOINT is allowed (superuser or pg_checkpoint); once
    /// refused it is not tried again.
    pub checkpoint: bool,
}

/// Creates `kind`'s table, inserts `plan.rows` rows in batches of
/// `plan.batch`, one binary COPY (and so one transaction) each, and
/// measures the table and its primary key.
pub async fn run(session: &mut Session, kind: Kind, plan: &Plan) -> Result<Measured> {
    let client = &session.client;
    let table = kind.table();
    let create = kind.create(&plan.fleet.int4_nodes());
    client
        .batch_execute(&format!("DROP TABLE IF EXISTS {table} CASCADE"))
        .await
        .context(|| format!("dropping an earlier {table}"))?;
    for sql in kind.prepare().iter().chain(&create) {
        client.batch_execute(sql).await.context(|| sql.clone())?;
    }
    // Each kind starts with no dirty pages of the one before it to write.
    if session.checkpoint
        && let Err(e) = client.batch_execute("CHECKPOINT").await
    {
        eprintln!("locality: CHECKPOINT refused, kinds will share dirty pages ({e})");
        session.checkpoint = false;
    }
    let copy = kind.copy();
    let statement = client.prepare(&copy).await.context(|| copy.clone())?;
    let types = kind.types();

    let wal = |what: &'static str| async move {
        client
            .query_one("SELECT pg_current_wal_insert_lsn()::text", &[])
            .await
            .map(|row| row.get::<_, String>(0))
            .context(|| format!("{}: reading the WAL position {what}", kind.name()))
    };
    let wal_start = wal("before").await?;
    let mut ids = kind.ids(&plan.fleet);
    let mut marks = Vec::with_capacity(plan.rows.div_ceil(plan.batch) as usize);
    let start = Instant::now();
    let mut done = 0;
    while done < plan.rows {
        let n = plan.batch.min(plan.rows - done);
        let sink = client
            .copy_in(&statement)
            .await
            .context(|| format!("{}: starting COPY", kind.name()))?;
        let mut writer = pin!(BinaryCopyInWriter::new(sink, &types));
        write_rows(&mut ids, writer.as_mut(), done, n)
            .await
            .context(|| format!("{}: writing rows", kind.name()))?;
        writer
            .finish()
            .await
            .context(|| format!("{}: finishing COPY", kind.name()))?;
        done += n;
        marks.push((done, start.elapsed().as_secs_f64()));
    }
    let seconds = start.elapsed().as_secs_f64();
    let wal_end = wal("after").await?;

    // A partitioned table's or index's own size is 0: its partitions hold
    // the pages. A plain one has no partition tree.
    let size = |rel: &str| {
        format!(
            "(SELECT coalesce((SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree(r)),
                              pg_relation_size(r))::int8 FROM {rel})"
        )
    };
    let sizes = client
        .query_one(
            &format!(
                "WITH t(r) AS (SELECT $1::text::regclass),
                      i(r) AS (SELECT conindid::regclass FROM pg_constraint, t
                                WHERE conrelid = t.r AND contype = 'p')
                 SELECT {}, {}, pg_wal_lsn_diff($2::text::pg_lsn, $3::text::pg_lsn)::int8",
                size("t"),
                size("i")
            ),
            &[&table, &wal_end, &wal_start],
        )
        .await
        .context(|| format!("{}: reading sizes", kind.name()))?;
    if !plan.keep {
        client
            .batch_execute(&format!("DROP TABLE {table} CASCADE"))
            .await
            .context(|| format!("dropping {table}"))?;
    }
    Ok(Measured {
        kind,
        rows: plan.rows,
        seconds,
        marks,
        table_bytes: sizes.get(0),
        index_bytes: sizes.get(1),
        wal_bytes: sizes.get(2),
        passes: vec![seconds],
    })
}

/// What making ids in the server costs, without inserting them.
#[derive(Clone, Debug)]
pub struct Cost {
    /// The kind whose generator this is, or `None` for the query around
    /// the generators alone.
    pub kind: Option<Kind>,
    /// The SQL expression timed.
    pub expression: String,
    /// Nanoseconds per id of every run, in the order they ran.
    pub runs: Vec<f64>,
}

impl Cost {
    /// The median run's nanoseconds per id.
    pub fn ns_per_id(&self) -> f64 {
        let mut runs = self.runs.clone();
        runs.sort_by(f64::total_cmp);
        runs.get(runs.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(f64::NAN)
    }
}

/// The query that makes `rows` values of `expression`: `count` keeps
/// every one (a volatile function runs once a row) and returns one row.
pub fn cost_query(expression: &str, rows: u64) -> String {
    format!("SELECT count({expression}) FROM generate_series(1, {rows}) AS i")
}

/// The `work_mem` for [`cost_query`]: enough for the series of `rows`
/// values to stay in memory (about 48 bytes each in its tuplestore), and
/// never less than PostgreSQL's default 4 MB. Spilled to a temporary file,
/// the series costs more than the cheaper generators, and varies more.
pub fn cost_work_mem(rows: u64) -> String {
    format!("{}kB", (rows * 64).div_ceil(1024).max(4096))
}

/// Times the generators of `kinds` (each [`Kind::generator`]) and then
/// `count(i)`, the series and count alone, each making `rows` ids in one
/// query, in `rounds` rounds that take them in turn (so a slow spell of
/// the machine falls on one run of each rather than on every run of one).
pub async fn costs(
    session: &Session,
    kinds: &[Kind],
    rows: u64,
    rounds: u16,
    keep: bool,
) -> Result<Vec<Cost>> {
    let client = &session.client;
    let mut costs = Vec::with_capacity(kinds.len() + 1);
    for &kind in kinds {
        let expression = kind
            .generator()
            .ok_or_else(|| Error::msg(format!("{}: no generator in the server", kind.name())))?;
        let mut setup = kind.prepare();
        if kind == Kind::Bigserial {
            setup.push(format!(
                "DROP SEQUENCE IF EXISTS {COST_SEQUENCE}; CREATE SEQUENCE {COST_SEQUENCE}"
            ));
        }
        for sql in &setup {
            client.batch_execute(sql).await.context(|| sql.clone())?;
        }
        costs.push(Cost {
            kind: Some(kind),
            expression,
            runs: Vec::new(),
        });
    }
    costs.push(Cost {
        kind: None,
        expression: "i".to_string(),
        runs: Vec::new(),
    });
    let work_mem = format!("SET work_mem = '{}'", cost_work_mem(rows));
    client
        .batch_execute(&work_mem)
        .await
        .context(|| work_mem.clone())?;
    for _ in 0..rounds {
        for cost in &mut costs {
            let what = cost.kind.map_or("count(i)", Kind::name);
            let query = cost_query(&cost.expression, rows);
            let start = Instant::now();
            let row = client
                .query_one(&query, &[])
                .await
                .context(|| format!("{what}: {query}"))?;
            let seconds = start.elapsed().as_secs_f64();
            let made: i64 = row.get(0);
            if made as u64 != rows {
                return Err(Error::msg(format!("{what}: {query} counted {made}")));
            }
            cost.runs.push(seconds * 1e9 / rows as f64);
        }
    }
    client
        .batch_execute("RESET work_mem")
        .await
        .context(|| "RESET work_mem")?;
    if kinds.contains(&Kind::Bigserial) && !keep {
        client
            .batch_execute(&format!("DROP SEQUENCE {COST_SEQUENCE}"))
            .await
            .context(|| format!("dropping {COST_SEQUENCE}"))?;
    }
    Ok(costs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_query_makes_one_value_a_row_in_memory() {
        assert_eq!(
            cost_query("guid_generate()", 2_000_000),
            "SELECT count(guid_generate()) FROM generate_series(1, 2000000) AS i"
        );
        assert_eq!(cost_work_mem(2_000_000), "125000kB");
        assert_eq!(cost_work_mem(1000), "4096kB");
        let c = Cost {
            kind: Some(Kind::SqlLuid),
            expression: "luid_generate()".into(),
            runs: vec![3.0, 1.0, 2.0, 5.0],
        };
        // The lower middle of an even count, as a pass's median is.
        assert_eq!(c.ns_per_id(), 2.0);
        assert!(Cost { runs: vec![], ..c }.ns_per_id().is_nan());
    }
}
