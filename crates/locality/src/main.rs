//! `locality`: the insert rate and primary-key index size of kguid ids in
//! PostgreSQL, against uuid v4, uuid v7 and bigserial — the measured reason
//! to choose k-ordered keys, and the storage recipe for a fleet of writers;
//! and the same for ids the server makes (the kguid extension's generators,
//! `gen_random_uuid()`, a uuid v7 in SQL), with what making them costs.
//!
//! ```text
//! locality --temp-server                       # a throwaway server of its own
//! locality --url postgres://me@db/bench        # your server
//! locality --host /var/run/postgresql --user me --rows 200000 --kinds guid,uuid-v4
//! ```

mod bench;
mod chart;
mod error;
mod extension;
mod kind;
mod report;
mod server;

use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;
use std::time::Duration;

use clap::Parser;
use tokio_postgres::{Config, NoTls};

use crate::bench::{Cost, Measured, Plan, Session};
use crate::error::{Context, Error, Result};
use crate::kind::{FleetSpec, Kind};
use crate::report::thousands;
use crate::server::TempServer;

/// Inserts rows keyed by each kind of id into a fresh PostgreSQL table and
/// reports the insert rate and the primary key's index size.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// The server, as a libpq URL or key=value string
    /// (postgres://user:pass@host:port/db); PGPASSWORD is used if it has no
    /// password. TLS is not supported.
    #[arg(long, conflicts_with_all = ["host", "temp_server"])]
    url: Option<String>,

    /// The server's host name, or the directory of its unix socket
    /// (default: $PGHOST).
    #[arg(long, conflicts_with = "temp_server")]
    host: Option<String>,

    /// The server's port.
    #[arg(long, default_value_t = 5432)]
    port: u16,

    /// The user (default: $PGUSER, else $USER).
    #[arg(long)]
    user: Option<String>,

    /// The database (default: the user's name).
    #[arg(long)]
    dbname: Option<String>,

    /// Start a throwaway PostgreSQL (initdb in a temporary directory, a
    /// unix socket only, shared_buffers=16MB, fsync=off), stopped and
    /// removed at the end.
    #[arg(long)]
    temp_server: bool,

    /// The directory of initdb and pg_ctl for --temp-server (default: the
    /// newest /usr/lib/postgresql/N/bin, else PATH).
    #[arg(long, value_name = "DIR")]
    pg_bin: Option<PathBuf>,

    /// Rows per kind.
    #[arg(long, default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    rows: u64,

    /// Rows per batch: one binary COPY, committed on its own.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    batch: u64,

    /// The kinds to measure, in order (default: all; sql-guid and sql-luid
    /// only if the server has the kguid extension and preloads it).
    #[arg(long, value_enum, value_delimiter = ',')]
    kinds: Vec<Kind>,

    /// Writers of the fleet kinds, each with a node of its own.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=256))]
    nodes: u16,

    /// The fleet's clocks are spread evenly over ±this many milliseconds.
    #[arg(long, default_value_t = 2.0)]
    skew_ms: f64,

    /// Where to write the SVG chart of insert rate against rows inserted.
    #[arg(long, default_value = "docs/locality.svg")]
    chart: PathBuf,

    /// Measure every kind this many times, in turn, and report each
    /// kind's median pass.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=100))]
    repeat: u16,

    /// Skip the unreported warm-up insert before the first kind (without
    /// it, the first kind also pays for the server's cold start: new WAL
    /// files, empty caches).
    #[arg(long)]
    no_warmup: bool,

    /// Keep the tables after measuring them (they are dropped by default).
    #[arg(long)]
    keep: bool,
}

/// How many times each generator in the server is timed.
const COST_ROUNDS: u16 = 5;

fn main() -> ExitCode {
    let args = Args::parse();
    match start(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("locality: {e}");
            ExitCode::FAILURE
        }
    }
}

fn start(args: &Args) -> Result<()> {
    if !(0.0..=60_000.0).contains(&args.skew_ms) {
        return Err(Error::msg("--skew-ms must be between 0 and 60000"));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context(|| "starting the tokio runtime")?;
    // Dropped on every way out of this function (an error, ctrl-c, a
    // panic's unwinding): the temporary server is stopped and removed.
    let mut temp = None;
    let (config, note) = if args.temp_server {
        eprintln!("locality: starting a temporary PostgreSQL");
        let server = temp.insert(TempServer::start(args.pg_bin.as_deref())?);
        let kguid = match server.kguid() {
            Some(lib) => format!(
                "preloading kguid ({}) with {}",
                lib.display(),
                server::KGUID_SETTINGS
                    .map(|(k, v)| format!("{k}={v}"))
                    .join(", ")
            ),
            None => "not preloading kguid (no kguid.so in its library directory)".to_string(),
        };
        let note = format!(
            "a temporary server started for this run, listening only on a unix socket in {}, {kguid}",
            server.socket_dir().display()
        );
        (server.config(), note)
    } else {
        (config(args)?, "the server given".to_string())
    };
    let result = runtime.block_on(async {
        tokio::select! {
            r = measure(args, config, &note) => r,
            _ = tokio::signal::ctrl_c() => Err(Error::msg("interrupted")),
        }
    });
    let stopped = temp.as_mut().map_or(Ok(()), TempServer::stop);
    if let (Err(_), Err(e)) = (&result, &stopped) {
        eprintln!("locality: stopping the temporary server: {e}");
    }
    result.and(stopped)
}

/// Connection settings from --url or the host flags and the environment.
fn config(args: &Args) -> Result<Config> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let mut config = match &args.url {
        Some(url) => Config::from_str(url).context(|| "--url")?,
        None => {
            let host = args.host.clone().or_else(|| env("PGHOST")).ok_or_else(|| {
                Error::msg("no server: give --url, --host (or PGHOST), or --temp-server")
            })?;
            let user = args
                .user
                .clone()
                .or_else(|| env("PGUSER"))
                .or_else(|| env("USER"))
                .ok_or_else(|| Error::msg("no user: give --user (or PGUSER)"))?;
            let mut c = Config::new();
            c.host(&host).port(args.port).user(&user);
            c.dbname(args.dbname.as_deref().unwrap_or(&user));
            c
        }
    };
    if config.get_password().is_none()
        && let Some(password) = env("PGPASSWORD")
    {
        config.password(password);
    }
    Ok(config)
}

async fn measure(args: &Args, config: Config, server_note: &str) -> Result<()> {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .context(|| "connecting to PostgreSQL")?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("locality: connection: {e}");
        }
    });
    let settings = client
        .query_one(
            "SELECT current_setting('server_version'), current_setting('shared_buffers'),
                    current_setting('fsync'), current_setting('shared_preload_libraries')",
            &[],
        )
        .await
        .context(|| "reading the server's settings")?;
    let (version, buffers, fsync, preload): (String, String, String, String) = (
        settings.get(0),
        settings.get(1),
        settings.get(2),
        settings.get(3),
    );

    let support = extension::Support::query(&client, args.temp_server).await?;
    let (kinds, left_out) = extension::select(&args.kinds, &support).map_err(Error::msg)?;
    if let Some(note) = left_out {
        eprintln!("locality: {note}");
    }
    let plan = Plan {
        rows: args.rows,
        batch: args.batch,
        fleet: FleetSpec::new(
            usize::from(args.nodes),
            Duration::from_secs_f64(args.skew_ms / 1000.0),
        ),
        keep: args.keep,
    };
    let mut session = Session {
        client,
        checkpoint: true,
    };
    if !args.no_warmup {
        eprintln!(
            "locality: warm-up: {} rows of bigserial, unreported",
            thousands(plan.rows)
        );
        bench::run(&mut session, Kind::Bigserial, &plan).await?;
    }
    let mut passes: Vec<Vec<Measured>> = vec![Vec::new(); kinds.len()];
    for pass in 1..=args.repeat {
        // Passes take turns, so a slow spell of the machine falls on one
        // pass of several kinds rather than on every pass of one.
        for (i, &kind) in kinds.iter().enumerate() {
            let m = bench::run(&mut session, kind, &plan).await?;
            eprintln!(
                "locality: {}{:<17} {:>7.2} s {:>10} rows/s, pk index {:.1} MiB",
                if args.repeat > 1 {
                    format!("pass {pass}: ")
                } else {
                    String::new()
                },
                kind.name(),
                m.seconds,
                thousands(m.rate().round() as u64),
                m.index_bytes as f64 / (1024.0 * 1024.0)
            );
            passes[i].push(m);
        }
    }
    let results: Vec<Measured> = passes.into_iter().filter_map(Measured::median).collect();

    // The server's generators alone, as many ids as each kind inserted,
    // and the query around them with no generator.
    let made_in_server: Vec<Kind> = kinds.iter().copied().filter(|k| k.server_made()).collect();
    let mut costs: Vec<Cost> = Vec::new();
    if !made_in_server.is_empty() {
        eprintln!(
            "locality: timing the server's generators, {COST_ROUNDS} rounds of {} ids each",
            thousands(args.rows)
        );
        costs = bench::costs(&session, &made_in_server, args.rows, COST_ROUNDS, args.keep).await?;
        for c in &costs {
            eprintln!(
                "locality: made in the server: {:<17} {:>8.1} ns per id",
                c.kind.map_or("count(i) alone", Kind::name),
                c.ns_per_id()
            );
        }
    }
    if kinds.contains(&Kind::SqlUuidV7) && !args.keep {
        session
            .client
            .batch_execute(kind::DROP_UUIDV7_FUNCTION)
            .await
            .context(|| kind::DROP_UUIDV7_FUNCTION)?;
    }

    // About 20 points a line: spans of whole batches, 100,000 rows for a
    // full run.
    let span = (args.rows / 20).div_ceil(args.batch).max(1) * args.batch;
    let nodes = plan.fleet.nodes.len();
    println!("# kguid locality benchmark\n");
    println!(
        "{} rows per kind in batches of {}, each batch one binary COPY (its own transaction) \
         through tokio-postgres, ids made as rows are written. Fleet kinds: {nodes} writers \
         with nodes of their own, clocks spread over ±{} ms, rows interleaved round-robin. \
         {}Tables fresh per kind, autovacuum off for them, CHECKPOINT before each{}{}.\n",
        thousands(args.rows),
        thousands(args.batch),
        args.skew_ms,
        if results.iter().any(|m| m.kind.server_made()) {
            "The server makes the ids of bigserial and the sql-* kinds, as the column's \
             DEFAULT: their rows carry the payload only. "
        } else {
            ""
        },
        if args.no_warmup {
            ""
        } else {
            "; an unreported warm-up insert first"
        },
        if args.repeat > 1 {
            format!(
                "; each kind's median of {} passes, taken in turn",
                args.repeat
            )
        } else {
            String::new()
        },
    );
    println!(
        "Server: PostgreSQL {version}, shared_buffers={buffers}, fsync={fsync}, \
         shared_preload_libraries='{preload}'; {server_note}.\n"
    );
    println!("{}", report::summary(&results, nodes));
    if !costs.is_empty() {
        println!(
            "Ids made in the server, without inserting them: `{}` with each generator \
             (work_mem={}, so the series stays in memory), median of {COST_ROUNDS} runs \
             taken in turn (and every run), nanoseconds per id:\n\n{}",
            bench::cost_query("…", args.rows),
            bench::cost_work_mem(args.rows),
            report::costs(&costs)
        );
    }
    println!(
        "Thousands of rows/s per {} rows inserted:\n\n{}",
        thousands(span),
        report::over_time(&results, span)
    );
    let targets = report::targets(&results, &costs);
    if !targets.is_empty() {
        println!("Targets:\n");
        for t in &targets {
            println!("- {}: {}", if t.met { "met" } else { "MISSED" }, t.text);
        }
        println!();
    }
    let title = format!(
        "Insert rate by primary key: {} rows, batches of {}, PostgreSQL {}",
        thousands(args.rows),
        thousands(args.batch),
        version.split_whitespace().next().unwrap_or_default()
    );
    chart::write(&args.chart, &results, span, &title)?;
    println!("Chart: {}", args.chart.display());
    Ok(())
}
