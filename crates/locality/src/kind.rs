//! The key kinds: each one's table, COPY statement and rows.

use std::pin::Pin;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use guid::{Clock, Drift, TimeSource};
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};
use uuid::Uuid;

/// Creates the kguid extension's types and generators, if the database
/// has not got them.
pub const CREATE_KGUID: &str = "CREATE EXTENSION IF NOT EXISTS kguid";

/// A uuid v7 (RFC 9562) in SQL, for servers without one built in (before
/// PostgreSQL 18): the unix time in milliseconds from `clock_timestamp()`,
/// the low 48 bits of its `int8send`, over the first 6 bytes of a
/// `gen_random_uuid()`, whose version bits 0100 become 0111 (bits 4 and 5
/// of byte 6, as `set_bit` numbers them); the variant stays `gen_random_uuid`'s.
/// Ids of different milliseconds are in time order; within one, random.
pub const UUIDV7_FUNCTION: &str = "\
CREATE OR REPLACE FUNCTION kguid_locality_uuidv7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    set_bit(
      set_bit(
        overlay(uuid_send(gen_random_uuid())
                PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::int8) FROM 3)
                FROM 1 FOR 6),
        52, 1),
      53, 1),
    'hex')::uuid
$$";

/// Drops [`UUIDV7_FUNCTION`]'s function once no table needs it.
pub const DROP_UUIDV7_FUNCTION: &str = "DROP FUNCTION IF EXISTS kguid_locality_uuidv7()";

/// The sequence whose `nextval` is timed as bigserial's generator.
pub const COST_SEQUENCE: &str = "kguid_locality_cost_seq";

/// A primary key to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum)]
pub enum Kind {
    /// `Guid` as 12-byte BYTEA, from one clock.
    Guid,
    /// `Guid` as BYTEA from a fleet of clocks, interleaved row by row.
    GuidFleet,
    /// The fleet recipe: `(node INT4, Luid INT8)`, node first.
    Fleet,
    /// `Luid` as order-preserving INT8 (`to_i64`), from one clock.
    Luid,
    /// Random uuid v4 in a UUID column.
    UuidV4,
    /// Time-ordered uuid v7 in a UUID column.
    UuidV7,
    /// `bigserial`: the server's sequence.
    Bigserial,
    /// A `guid` column of the kguid extension, `DEFAULT guid_generate()`:
    /// the server's one clock.
    SqlGuid,
    /// A `luid` column of the kguid extension, `DEFAULT luid_generate()`.
    SqlLuid,
    /// A UUID column, `DEFAULT gen_random_uuid()` (v4).
    SqlUuidV4,
    /// A UUID column whose default is [`UUIDV7_FUNCTION`], a uuid v7 in SQL.
    SqlUuidV7,
    /// A fleet candidate: `(Luid INT8, node INT4)`, time first.
    FleetLuidNode,
    /// A fleet candidate: a partition per node, each keyed `(Luid INT8, node INT4)`.
    FleetPartitioned,
}

impl Kind {
    /// Every kind, in the order a run measures them: the seven kinds of the
    /// report, the ids the server makes (with `bigserial`, the kinds of
    /// [`Kind::server_made`]), then the fleet candidates the recipe was
    /// chosen against.
    pub const ALL: [Kind; 13] = [
        Kind::Guid,
        Kind::GuidFleet,
        Kind::Fleet,
        Kind::Luid,
        Kind::UuidV4,
        Kind::UuidV7,
        Kind::Bigserial,
        Kind::SqlGuid,
        Kind::SqlLuid,
        Kind::SqlUuidV4,
        Kind::SqlUuidV7,
        Kind::FleetLuidNode,
        Kind::FleetPartitioned,
    ];

    /// The name on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Guid => "guid",
            Kind::GuidFleet => "guid-fleet",
            Kind::Fleet => "fleet",
            Kind::Luid => "luid",
            Kind::UuidV4 => "uuid-v4",
            Kind::UuidV7 => "uuid-v7",
            Kind::Bigserial => "bigserial",
            Kind::SqlGuid => "sql-guid",
            Kind::SqlLuid => "sql-luid",
            Kind::SqlUuidV4 => "sql-uuid-v4",
            Kind::SqlUuidV7 => "sql-uuid-v7",
            Kind::FleetLuidNode => "fleet-luid-node",
            Kind::FleetPartitioned => "fleet-partitioned",
        }
    }

    /// The primary key, for the report.
    pub fn key(self, nodes: usize) -> String {
        match self {
            Kind::Guid => "Guid BYTEA, 1 clock".into(),
            Kind::GuidFleet => format!("Guid BYTEA, {nodes} clocks"),
            Kind::Fleet => format!("(node INT4, Luid INT8), {nodes} clocks"),
            Kind::Luid => "Luid INT8, 1 clock".into(),
            Kind::UuidV4 => "UUID v4".into(),
            Kind::UuidV7 => "UUID v7".into(),
            Kind::Bigserial => "bigserial".into(),
            Kind::SqlGuid => "guid DEFAULT guid_generate()".into(),
            Kind::SqlLuid => "luid DEFAULT luid_generate()".into(),
            Kind::SqlUuidV4 => "UUID DEFAULT gen_random_uuid()".into(),
            Kind::SqlUuidV7 => "UUID DEFAULT kguid_locality_uuidv7()".into(),
            Kind::FleetLuidNode => format!("(Luid INT8, node INT4), {nodes} clocks"),
            Kind::FleetPartitioned => {
                format!("{nodes} partitions by node, (Luid INT8, node INT4)")
            }
        }
    }

    /// Whether the kind is a fleet recipe that lost to [`Kind::Fleet`],
    /// measured to show why.
    pub fn is_candidate(self) -> bool {
        matches!(self, Kind::FleetLuidNode | Kind::FleetPartitioned)
    }

    /// Whether the server makes the kind's ids, as a column default: rows
    /// are written with their payload only.
    pub fn server_made(self) -> bool {
        matches!(
            self,
            Kind::Bigserial | Kind::SqlGuid | Kind::SqlLuid | Kind::SqlUuidV4 | Kind::SqlUuidV7
        )
    }

    /// Whether the kind needs the kguid extension, preloaded.
    pub fn needs_kguid(self) -> bool {
        matches!(self, Kind::SqlGuid | Kind::SqlLuid)
    }

    /// What the server must have before the kind's table or generator: the
    /// extension, or the uuid v7 function.
    pub fn prepare(self) -> Vec<String> {
        match self {
            Kind::SqlGuid | Kind::SqlLuid => vec![CREATE_KGUID.to_string()],
            Kind::SqlUuidV7 => vec![UUIDV7_FUNCTION.to_string()],
            _ => Vec::new(),
        }
    }

    /// The SQL expression that makes one of the kind's ids in the server,
    /// for timing the generator alone; bigserial's is `nextval` of
    /// [`COST_SEQUENCE`].
    pub fn generator(self) -> Option<String> {
        match self {
            Kind::Bigserial => Some(format!("nextval('{COST_SEQUENCE}')")),
            Kind::SqlGuid => Some("guid_generate()".into()),
            Kind::SqlLuid => Some("luid_generate()".into()),
            Kind::SqlUuidV4 => Some("gen_random_uuid()".into()),
            Kind::SqlUuidV7 => Some("kguid_locality_uuidv7()".into()),
            _ => None,
        }
    }

    /// The table's name.
    pub fn table(self) -> String {
        format!("kguid_locality_{}", self.name().replace('-', "_"))
    }

    /// The statements that create the table, after [`Kind::prepare`]'s.
    /// Autovacuum is off for the benchmark's tables: it would run at a
    /// different moment for each kind and take CPU from the insert being
    /// timed.
    pub fn create(self, nodes: &[i32]) -> Vec<String> {
        let t = self.table();
        let off = "WITH (autovacuum_enabled = off)";
        let columns = match self {
            Kind::Guid | Kind::GuidFleet => "id BYTEA PRIMARY KEY, payload INT8 NOT NULL",
            Kind::Luid => "id INT8 PRIMARY KEY, payload INT8 NOT NULL",
            Kind::UuidV4 | Kind::UuidV7 => "id UUID PRIMARY KEY, payload INT8 NOT NULL",
            Kind::Bigserial => "id BIGSERIAL PRIMARY KEY, payload INT8 NOT NULL",
            Kind::SqlGuid => "id guid PRIMARY KEY DEFAULT guid_generate(), payload INT8 NOT NULL",
            Kind::SqlLuid => "id luid PRIMARY KEY DEFAULT luid_generate(), payload INT8 NOT NULL",
            Kind::SqlUuidV4 => {
                "id UUID PRIMARY KEY DEFAULT gen_random_uuid(), payload INT8 NOT NULL"
            }
            Kind::SqlUuidV7 => {
                "id UUID PRIMARY KEY DEFAULT kguid_locality_uuidv7(), payload INT8 NOT NULL"
            }
            Kind::Fleet => {
                "node INT4 NOT NULL, id INT8 NOT NULL, payload INT8 NOT NULL, PRIMARY KEY (node, id)"
            }
            Kind::FleetLuidNode | Kind::FleetPartitioned => {
                "node INT4 NOT NULL, id INT8 NOT NULL, payload INT8 NOT NULL, PRIMARY KEY (id, node)"
            }
        };
        if self != Kind::FleetPartitioned {
            return vec![format!("CREATE TABLE {t} ({columns}) {off}")];
        }
        // A partitioned table takes no storage parameters: its partitions do.
        let mut sql = vec![format!(
            "CREATE TABLE {t} ({columns}) PARTITION BY LIST (node)"
        )];
        for (i, node) in nodes.iter().enumerate() {
            sql.push(format!(
                "CREATE TABLE {t}_{i} PARTITION OF {t} FOR VALUES IN ({node}) {off}"
            ));
        }
        sql
    }

    /// The COPY statement for one batch.
    pub fn copy(self) -> String {
        let columns = match self {
            k if k.server_made() => "payload",
            Kind::Fleet | Kind::FleetLuidNode | Kind::FleetPartitioned => "node, id, payload",
            _ => "id, payload",
        };
        format!(
            "COPY {} ({columns}) FROM STDIN (FORMAT binary)",
            self.table()
        )
    }

    /// The column types of [`Kind::copy`].
    pub fn types(self) -> Vec<Type> {
        match self {
            Kind::Guid | Kind::GuidFleet => vec![Type::BYTEA, Type::INT8],
            Kind::Luid => vec![Type::INT8, Type::INT8],
            Kind::UuidV4 | Kind::UuidV7 => vec![Type::UUID, Type::INT8],
            Kind::Bigserial | Kind::SqlGuid | Kind::SqlLuid | Kind::SqlUuidV4 | Kind::SqlUuidV7 => {
                vec![Type::INT8]
            }
            Kind::Fleet | Kind::FleetLuidNode | Kind::FleetPartitioned => {
                vec![Type::INT4, Type::INT8, Type::INT8]
            }
        }
    }

    /// The source of this kind's ids for one run.
    pub fn ids(self, fleet: &FleetSpec) -> Ids {
        match self {
            Kind::Guid => Ids::Guid(fleet.clock(Origin::now(), 0, Duration::ZERO, false)),
            Kind::Luid => Ids::Luid(fleet.clock(Origin::now(), 0, Duration::ZERO, false)),
            Kind::GuidFleet => Ids::GuidFleet(Fleet::new(fleet.clocks())),
            Kind::Fleet | Kind::FleetLuidNode | Kind::FleetPartitioned => {
                Ids::NodeLuid(Fleet::new(fleet.clocks()))
            }
            Kind::UuidV4 => Ids::UuidV4,
            Kind::UuidV7 => Ids::UuidV7,
            Kind::Bigserial | Kind::SqlGuid | Kind::SqlLuid | Kind::SqlUuidV4 | Kind::SqlUuidV7 => {
                Ids::Server
            }
        }
    }
}

/// A fleet of writers: their nodes and how far their clocks disagree.
#[derive(Clone, Debug)]
pub struct FleetSpec {
    /// The node ids, distinct and spread over the 32-bit range.
    pub nodes: Vec<u32>,
    /// The clocks run from `-skew` to `+skew` around the true time.
    pub skew: Duration,
}

impl FleetSpec {
    /// `n` writers with clocks within `±skew` of each other's mean.
    pub fn new(n: usize, skew: Duration) -> FleetSpec {
        // Multiples of the golden ratio's 32-bit fraction: distinct, and
        // spread like random nodes rather than adjacent ones.
        let nodes = (1..=n as u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9))
            .collect();
        FleetSpec { nodes, skew }
    }

    /// The nodes as INT4 values (the bits of the u32, as `Luid::to_g`
    /// takes them back with `as u32`).
    pub fn int4_nodes(&self) -> Vec<i32> {
        self.nodes.iter().map(|&n| n as i32).collect()
    }

    /// Writer `i`'s clock, ahead (or behind) of the true time by `offset`.
    fn clock(&self, origin: Origin, node: u32, offset: Duration, behind: bool) -> Clock {
        Clock::builder()
            .node(node)
            .drift(Drift::DEFAULT)
            .time(RunTime::new(origin, offset, behind))
            .build()
    }

    fn clocks(&self) -> Vec<(i32, Clock)> {
        let n = self.nodes.len();
        let step = if n > 1 {
            self.skew * 2 / (n as u32 - 1)
        } else {
            Duration::ZERO
        };
        // One origin for the fleet: the clocks differ by their skew only,
        // however long building them takes.
        let origin = Origin::now();
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, &node)| {
                // Evenly from -skew to +skew.
                let at = step * i as u32;
                let (offset, behind) = if at >= self.skew {
                    (at - self.skew, false)
                } else {
                    (self.skew - at, true)
                };
                (node as i32, self.clock(origin, node, offset, behind))
            })
            .collect()
    }
}

/// The time of a run's clocks: the real time elapsed since the run began,
/// counted from just after the start of the current drift window, plus the
/// clock's skew. Every id of a run (shorter than the 4.6-minute window)
/// then falls in one window, as the ids of a fleet's writers made at the
/// same moment do: the case where a `Guid` key has one append point per
/// node.
struct RunTime {
    origin: Origin,
    offset: u64,
    behind: bool,
}

/// When a run began: the instant, and the time it counts from.
#[derive(Clone, Copy)]
struct Origin {
    start: Instant,
    base: u64,
}

impl Origin {
    fn now() -> Origin {
        let now = guid::WallClock.now();
        let window = guid::nanos(Drift::DEFAULT.window());
        Origin {
            start: Instant::now(),
            // 10 ms into the window, so a clock running behind stays in it.
            base: now / window * window + 10_000_000,
        }
    }
}

impl RunTime {
    fn new(origin: Origin, offset: Duration, behind: bool) -> RunTime {
        RunTime {
            origin,
            offset: guid::nanos(offset),
            behind,
        }
    }
}

impl TimeSource for RunTime {
    fn now(&self) -> u64 {
        let t = self.origin.base + guid::nanos(self.origin.start.elapsed());
        if self.behind {
            t - self.offset
        } else {
            t + self.offset
        }
    }
}

/// Where a kind's ids come from during a run, and how a row is written.
pub enum Ids {
    /// `Guid` bytes from one clock.
    Guid(Clock),
    /// `Luid::to_i64` from one clock.
    Luid(Clock),
    /// `Guid` bytes from a fleet.
    GuidFleet(Fleet),
    /// The node and `Luid::to_i64` from a fleet.
    NodeLuid(Fleet),
    /// Random uuid v4.
    UuidV4,
    /// uuid v7 (the crate's are ordered within a process).
    UuidV7,
    /// No id: the column's default fills it in.
    Server,
}

/// A fleet's clocks (with their nodes as INT4), written round-robin.
pub struct Fleet {
    clocks: Vec<(i32, Clock)>,
    next: usize,
}

impl Fleet {
    fn new(clocks: Vec<(i32, Clock)>) -> Fleet {
        Fleet { clocks, next: 0 }
    }

    /// The next writer, round-robin, as concurrent writers' rows arrive.
    fn next(&mut self) -> (i32, &Clock) {
        let (node, clock) = &self.clocks[self.next];
        self.next = (self.next + 1) % self.clocks.len();
        (*node, clock)
    }
}

/// Writes `n` rows whose payloads count up from `first`, making each id as
/// it is written, as a service makes one per request.
pub async fn write_rows(
    ids: &mut Ids,
    mut w: Pin<&mut BinaryCopyInWriter>,
    first: u64,
    n: u64,
) -> Result<(), tokio_postgres::Error> {
    for payload in first as i64..(first + n) as i64 {
        let payload = &payload;
        match ids {
            Ids::Guid(clock) => {
                let id = clock.g().to_bytes();
                w.as_mut().write(&[&&id[..], payload]).await?;
            }
            Ids::Luid(clock) => {
                w.as_mut().write(&[&clock.l().to_i64(), payload]).await?;
            }
            Ids::GuidFleet(fleet) => {
                let id = fleet.next().1.g().to_bytes();
                w.as_mut().write(&[&&id[..], payload]).await?;
            }
            Ids::NodeLuid(fleet) => {
                let (node, clock) = fleet.next();
                let id = clock.l().to_i64();
                w.as_mut().write(&[&node, &id, payload]).await?;
            }
            Ids::UuidV4 => w.as_mut().write(&[&Uuid::new_v4(), payload]).await?,
            Ids::UuidV7 => w.as_mut().write(&[&Uuid::now_v7(), payload]).await?,
            Ids::Server => {
                let row: [&(dyn ToSql + Sync); 1] = [payload];
                w.as_mut().write(&row).await?
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use guid::Id;

    #[test]
    fn the_fleet_recipe_keeps_the_whole_guid() {
        let fleet = FleetSpec::new(16, Duration::from_millis(2));
        for (node, clock) in fleet.clocks() {
            let g = clock.g();
            // As README's recipe writes a row and reads it back.
            let (n, id) = (g.node() as i32, g.to_l64().to_i64());
            assert_eq!(n, node);
            assert_eq!(guid::Luid::from_i64(id).map(|l| l.to_g(n as u32)), Ok(g));
        }
    }

    #[test]
    fn the_server_makes_the_ids_of_the_sql_kinds() {
        let server = [
            Kind::Bigserial,
            Kind::SqlGuid,
            Kind::SqlLuid,
            Kind::SqlUuidV4,
            Kind::SqlUuidV7,
        ];
        // After the seven kinds, before the fleet candidates.
        assert_eq!(&Kind::ALL[6..11], &server);
        assert!(Kind::ALL[11..].iter().all(|k| k.is_candidate()));
        for kind in Kind::ALL {
            let made = server.contains(&kind);
            assert_eq!(kind.server_made(), made, "{kind:?}");
            assert_eq!(kind.generator().is_some(), made, "{kind:?}");
            assert_eq!(kind.types().len() == 1, made, "{kind:?}");
            assert_eq!(kind.copy().contains("(payload)"), made, "{kind:?}");
            assert!(matches!(kind.ids(&FleetSpec::new(2, Duration::ZERO)), Ids::Server) == made);
            // Names are their own and make table names.
            assert_eq!(Kind::from_str(kind.name(), false), Ok(kind));
        }
        let create = |k: Kind| {
            let mut sql = k.prepare();
            sql.extend(k.create(&[]));
            sql
        };
        assert_eq!(
            create(Kind::SqlGuid),
            [
                "CREATE EXTENSION IF NOT EXISTS kguid",
                "CREATE TABLE kguid_locality_sql_guid (id guid PRIMARY KEY DEFAULT guid_generate(), \
                 payload INT8 NOT NULL) WITH (autovacuum_enabled = off)"
            ]
        );
        assert_eq!(create(Kind::SqlLuid)[0], CREATE_KGUID);
        assert!(create(Kind::SqlLuid)[1].contains("(id luid PRIMARY KEY DEFAULT luid_generate(),"));
        assert_eq!(
            create(Kind::SqlUuidV4),
            [
                "CREATE TABLE kguid_locality_sql_uuid_v4 (id UUID PRIMARY KEY DEFAULT \
              gen_random_uuid(), payload INT8 NOT NULL) WITH (autovacuum_enabled = off)"
            ]
        );
        let v7 = create(Kind::SqlUuidV7);
        assert_eq!(v7[0], UUIDV7_FUNCTION);
        assert!(v7[1].contains("DEFAULT kguid_locality_uuidv7()"));
        assert!(UUIDV7_FUNCTION.starts_with("CREATE OR REPLACE FUNCTION kguid_locality_uuidv7()"));
        assert!(UUIDV7_FUNCTION.contains("LANGUAGE sql VOLATILE"));
        assert_eq!(
            Kind::Bigserial.generator().unwrap(),
            "nextval('kguid_locality_cost_seq')"
        );
        assert!(Kind::Bigserial.prepare().is_empty());
        assert!(
            Kind::ALL
                .iter()
                .filter(|k| k.needs_kguid())
                .eq(&[Kind::SqlGuid, Kind::SqlLuid])
        );
    }

    /// The SQL uuid v7 against a temporary server: version 7, RFC 9562's
    /// variant, the time of its making in its first 48 bits, so ids made a
    /// millisecond or more apart sort by time.
    #[test]
    fn the_sql_uuid_v7_is_a_uuid_v7_ordered_by_time() {
        let Some(bin) = crate::server::find_bin() else {
            if std::env::var("KGUID_REQUIRE_SERVERS").is_ok_and(|v| v == "1") {
                panic!(
                    "KGUID_REQUIRE_SERVERS=1 and PostgreSQL's server binaries are not installed"
                );
            }
            eprintln!("skipped: PostgreSQL's server binaries (initdb, pg_ctl) are not installed");
            return;
        };
        let server = crate::server::TempServer::start(Some(&bin)).expect("a temporary server");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (client, connection) = server
                .config()
                .connect(tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            for sql in Kind::SqlUuidV7.prepare() {
                client.batch_execute(&sql).await.unwrap();
            }
            // Twice: CREATE OR REPLACE.
            client.batch_execute(UUIDV7_FUNCTION).await.unwrap();
            let unix_ms = || {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_millis() as u64
            };
            let ms = |u: &Uuid| {
                let b = u.as_bytes();
                b[..6].iter().fold(0u64, |t, &x| t << 8 | u64::from(x))
            };
            let mut ids = Vec::new();
            for _ in 0..20 {
                let before = unix_ms();
                let row = client
                    .query_one("SELECT kguid_locality_uuidv7()", &[])
                    .await
                    .unwrap();
                let after = unix_ms();
                let id: Uuid = row.get(0);
                assert_eq!(id.get_version_num(), 7, "{id}");
                assert_eq!(id.get_variant(), uuid::Variant::RFC4122, "{id}");
                assert!(
                    (before..=after).contains(&ms(&id)),
                    "{id}: {before}..={after}"
                );
                // The uuid crate reads the same time.
                let (secs, nanos) = id.get_timestamp().unwrap().to_unix();
                assert_eq!(secs * 1000 + u64::from(nanos) / 1_000_000, ms(&id));
                ids.push(id);
                std::thread::sleep(Duration::from_millis(2));
            }
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
            // Many in one query: every one a v7, none repeated, their times
            // never going back in the order they were made.
            let rows = client
                .query(
                    "SELECT kguid_locality_uuidv7() FROM generate_series(1, 20000)",
                    &[],
                )
                .await
                .unwrap();
            let ids: Vec<Uuid> = rows.iter().map(|r| r.get(0)).collect();
            assert!(ids.iter().all(|u| u.get_version_num() == 7));
            assert!(ids.windows(2).all(|w| ms(&w[0]) <= ms(&w[1])));
            let distinct: std::collections::HashSet<&Uuid> = ids.iter().collect();
            assert_eq!(distinct.len(), ids.len());
        });
    }

    #[test]
    fn the_fleet_clocks_span_the_skew_in_one_window() {
        let fleet = FleetSpec::new(16, Duration::from_millis(2));
        let ids: Vec<guid::Guid> = fleet.clocks().iter().map(|(_, c)| c.g()).collect();
        let times: Vec<u64> = ids.iter().map(|g| g.time()).collect();
        let spread = times.iter().max().unwrap() - times.iter().min().unwrap();
        // ±2 ms from one origin, to the 131 µs tick, plus however long
        // making them took (no bound: a busy machine may pause between).
        assert!(spread >= 3_700_000, "{spread} ns");
        let window = guid::nanos(Drift::DEFAULT.window());
        assert!(times.iter().all(|t| t / window == times[0] / window));
        let nodes: std::collections::HashSet<u64> = ids.iter().map(|g| g.node()).collect();
        assert_eq!(nodes.len(), 16);
    }
}
