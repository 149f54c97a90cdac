//! What `GET /metrics` says, in the exposition format of Prometheus'
//! client (OpenMetrics text), read at scrape time from the counters the
//! connections keep (plain relaxed atomics) and from the clocks, the state
//! file and the lease. Nothing here runs on the id path.
//!
//! The list with the meaning of each metric is in the crate's
//! docs/metrics.md.

use std::fmt;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::Health;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::{Registry, Unit};

use crate::issue::IdKind;
use crate::shared::{AuthFailure, Closed, LISTENERS, Listener, Shared};

/// The Content-Type of [`encode`]'s text.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The exposition: the process's metrics, and the server's once it has
/// its clocks (`shared`).
pub(crate) fn encode(shared: Option<&Arc<Shared>>) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Process));
    if let Some(shared) = shared {
        registry.register_collector(Box::new(Service(Arc::clone(shared))));
    }
    let mut text = String::with_capacity(8 * 1024);
    // Writing to a String does not fail.
    let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
    text
}

/// Notes the start time of the process now, for platforms where it cannot
/// be read: the time the metrics listener started.
pub(crate) fn note_start() {
    process_start();
}

/// The process: its start time and the build.
#[derive(Debug)]
struct Process;

impl Collector for Process {
    fn encode(&self, mut e: DescriptorEncoder) -> fmt::Result {
        gauge(
            &mut e,
            "process_start_time",
            "Start time of the process since the Unix epoch.",
            Some(&Unit::Seconds),
            process_start(),
        )?;
        let info = Info::new([("version", env!("CARGO_PKG_VERSION"))]);
        let m = e.encode_descriptor(
            "guid_build",
            "The version of kguid-service serving.",
            None,
            info.metric_type(),
        )?;
        info.encode(m)
    }
}

/// The server: ids, requests, connections, clocks, state file, lease.
struct Service(Arc<Shared>);

impl fmt::Debug for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Service")
    }
}

impl Collector for Service {
    fn encode(&self, mut e: DescriptorEncoder) -> fmt::Result {
        let shared = &*self.0;
        let c = &shared.counts;
        let per_listener = |a: &[std::sync::atomic::AtomicU64; LISTENERS]| {
            Listener::ALL.map(|l| (l.name(), a[l as usize].load(Relaxed)))
        };
        counters(
            &mut e,
            "guid_ids_issued",
            "Ids sent, by listener (flake: 64-bit ids, global: 96-bit ids, x: 128-bit ids, http: every kind over HTTP).",
            "listener",
            &per_listener(&c.ids),
        )?;
        counters(
            &mut e,
            "guid_requests",
            "Requests answered, by listener.",
            "listener",
            &per_listener(&c.requests),
        )?;
        counters(
            &mut e,
            "guid_connections_accepted",
            "Connections accepted, by listener (those closed at once at the cap too).",
            "listener",
            &per_listener(&c.accepted),
        )?;
        gauges(
            &mut e,
            "guid_connections_open",
            "Connections open now, by listener (served, or waiting to authenticate).",
            None,
            "listener",
            &per_listener(&c.open).map(|(k, v)| (k, v as f64)),
        )?;
        counters(
            &mut e,
            "guid_connections_closed",
            "Connections closed, by reason: client (it closed or sent N = 0), io (the socket failed), \
             cap (the connection cap), auth (see guid_auth_failures_total), idle (the idle timeout), \
             fault (an id could not be made or the state saved), lease (the node id's lease was not \
             confirmed), shutdown.",
            "reason",
            &Closed::ALL.map(|r| (r.name(), c.closed(r))),
        )?;
        counters(
            &mut e,
            "guid_auth_failures",
            "Connections closed for their token, by cause: token (wrong or missing), timeout \
             (no whole auth frame within the auth timeout), evicted (the oldest closed to make \
             room when too many were authenticating).",
            "cause",
            &AuthFailure::ALL.map(|a| (a.name(), c.auth_failures[a as usize].load(Relaxed))),
        )?;
        counter(
            &mut e,
            "guid_accept_errors",
            "Failed accepts (out of file descriptors, ...); the server backs off and keeps serving.",
            c.accept_errors.load(Relaxed),
        )?;
        clocks(&mut e, shared)?;
        if let Some(h) = &shared.horizon {
            let (saves, failures) = h.saves();
            counter(
                &mut e,
                "guid_state_saves",
                "Writes of the state file (each fsynced) that succeeded.",
                saves,
            )?;
            counter(
                &mut e,
                "guid_state_save_failures",
                "Writes of the state file that failed.",
                failures,
            )?;
            gauge(
                &mut e,
                "guid_state_horizon_timestamp",
                "The horizon saved in the state file: no id is later, and a restart starts after it.",
                Some(&Unit::Seconds),
                unix_seconds(h.saved()),
            )?;
        }
        #[cfg(feature = "lease")]
        lease(&mut e, shared)?;
        Ok(())
    }
}

/// The health of the clocks, labelled `clock`; of the sno generator
/// (`sno`), whose time never steps back, the lead alone.
fn clocks(e: &mut DescriptorEncoder, shared: &Shared) -> fmt::Result {
    let health = IdKind::BY_CLOCK.map(|k| (k.clock_name(), shared.health(k)));
    let of = |f: fn(&Health) -> u64| health.map(|(k, h)| (k, f(&h)));
    let secs = |f: fn(&Health) -> Duration| health.map(|(k, h)| (k, f(&h).as_secs_f64()));
    counters(
        e,
        "guid_clock_steps_back",
        "Times the clock's time source stepped back (the system clock was set back); ids still increase.",
        "clock",
        &of(|h| h.steps_back),
    )?;
    gauges(
        e,
        "guid_clock_max_step_back",
        "The largest step back of the clock's time source.",
        Some(&Unit::Seconds),
        "clock",
        &secs(|h| h.max_step_back),
    )?;
    counters(
        e,
        "guid_clock_borrowed_units",
        "Time units the clock borrowed ahead of its source when a unit's sequence ran out.",
        "clock",
        &of(|h| h.borrowed),
    )?;
    gauges(
        e,
        "guid_clock_lead",
        "How far the last id's time is ahead of the time source now.",
        Some(&Unit::Seconds),
        "clock",
        &IdKind::BY_CLOCK
            .into_iter()
            .chain([IdKind::Sno { meta: 0 }])
            .map(|k| (k.clock_name(), shared.lead(k).as_secs_f64()))
            .collect::<Vec<_>>(),
    )?;
    gauges(
        e,
        "guid_clock_max_lead",
        "The largest lead of an id's time over the time source.",
        Some(&Unit::Seconds),
        "clock",
        &secs(|h| h.max_lead),
    )?;
    counters(
        e,
        "guid_clock_waits",
        "Replies that waited for the time source because the lead reached --max-lead \
         (the 64-bit clock only).",
        "clock",
        &of(|h| h.waits),
    )
}

/// The node id leased from etcd or Redis, when there is one.
#[cfg(feature = "lease")]
fn lease(e: &mut DescriptorEncoder, shared: &Shared) -> fmt::Result {
    let flake = shared.flake();
    let Some(lease) = flake.lease() else {
        return Ok(());
    };
    gauge(
        e,
        "guid_lease_node",
        "The 64-bit node id leased from its store (etcd or Redis).",
        None,
        f64::from(lease.node()),
    )?;
    let held = lease.check().is_ok();
    gauge(
        e,
        "guid_lease_held",
        "1 while the store confirms the lease (64-bit ids are handed out), else 0.",
        None,
        if held { 1.0 } else { 0.0 },
    )?;
    gauge(
        e,
        "guid_lease_ttl",
        "The TTL of the lease: how long after a crash the node id stays taken.",
        Some(&Unit::Seconds),
        lease.ttl().as_secs_f64(),
    )?;
    let remaining = match held {
        true => lease
            .valid_until()
            .saturating_duration_since(std::time::Instant::now()),
        false => Duration::ZERO,
    };
    gauge(
        e,
        "guid_lease_remaining",
        "Time left before 64-bit ids stop unless the store confirms the lease again (0: stopped).",
        Some(&Unit::Seconds),
        remaining.as_secs_f64(),
    )?;
    gauge(
        e,
        "guid_lease_horizon_timestamp",
        "The horizon stored in the store for the node id: no id of the lease is later.",
        Some(&Unit::Seconds),
        unix_seconds(guid::unix_nanos(lease.horizon())),
    )?;
    counter(
        e,
        "guid_lease_refusals",
        "Requests refused because the store had not confirmed the lease; each closes its connection \
         (also in guid_connections_closed_total{reason=\"lease\"}).",
        shared.counts.closed(Closed::Lease),
    )
}

fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, value: u64) -> fmt::Result {
    let m = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    ConstCounter::new(value).encode(m)
}

fn counters(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    label: &str,
    values: &[(&str, u64)],
) -> fmt::Result {
    let mut m = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    for &(value_of_label, value) in values {
        let labels = [(label, value_of_label)];
        ConstCounter::new(value).encode(m.encode_family(&labels)?)?;
    }
    Ok(())
}

fn gauge(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<&Unit>,
    value: f64,
) -> fmt::Result {
    let m = e.encode_descriptor(name, help, unit, MetricType::Gauge)?;
    ConstGauge::new(value).encode(m)
}

fn gauges(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<&Unit>,
    label: &str,
    values: &[(&str, f64)],
) -> fmt::Result {
    let mut m = e.encode_descriptor(name, help, unit, MetricType::Gauge)?;
    for &(value_of_label, value) in values {
        let labels = [(label, value_of_label)];
        ConstGauge::new(value).encode(m.encode_family(&labels)?)?;
    }
    Ok(())
}

fn unix_seconds(ns: u64) -> f64 {
    Duration::from_nanos(ns).as_secs_f64()
}

/// The start of the process, Unix seconds: from /proc on Linux, else the
/// first time this is asked.
fn process_start() -> f64 {
    static START: OnceLock<f64> = OnceLock::new();
    *START.get_or_init(|| {
        proc_start().unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64())
        })
    })
}

/// The boot time plus the process's start in clock ticks after it.
#[cfg(target_os = "linux")]
fn proc_start() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which may hold spaces), from the
    // third on: the start time is the 22nd.
    let after = &stat[stat.rfind(')')? + 2..];
    let ticks: f64 = after.split(' ').nth(22 - 3)?.parse().ok()?;
    let boot: f64 = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    // SAFETY: sysconf only reads a system setting.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| boot + ticks / hz as f64)
}

#[cfg(not(target_os = "linux"))]
fn proc_start() -> Option<f64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_started_in_the_past() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let start = process_start();
        assert!(start > 1.6e9 && start <= now + 1.0, "{start} vs {now}");
    }

    #[test]
    fn without_a_server_only_the_process() {
        let text = encode(None);
        assert!(
            text.contains("# TYPE process_start_time_seconds gauge\n"),
            "{text}"
        );
        assert!(text.contains("guid_build_info{version=\""), "{text}");
        assert!(!text.contains("guid_ids_issued"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
