//! The exposition, the scrape config and the alert rules of docs/metrics.md
//! against Prometheus itself: `promtool` checks the config and the rules
//! and runs the rules on made-up series, and a real Prometheus scrapes a
//! server with the documented config and reads the ids it counted.
//!
//! Needs `promtool` and `prometheus` (Debian package `prometheus`): without
//! them each test is skipped with the reason printed, or fails if
//! `KGUID_REQUIRE_SERVERS` is set.

mod common;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use common::{Server, ask, eventually, http_get, raw, temp_dir};
use kguid_service::Config;
use serde_json::Value;

/// Whether `tool` runs; if not, the test is skipped (`false`), or fails
/// when `KGUID_REQUIRE_SERVERS` is set.
fn have(tool: &str) -> bool {
    let runs = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        let why = format!("{tool} is not installed (Debian package prometheus)");
        assert!(
            std::env::var_os("KGUID_REQUIRE_SERVERS").is_none(),
            "{why}, and KGUID_REQUIRE_SERVERS is set"
        );
        eprintln!("skipped: {why}");
    }
    runs
}

/// The YAML block of docs/metrics.md that starts with `first_line`.
fn documented(first_line: &str) -> String {
    let doc = include_str!("../docs/metrics.md");
    doc.split("```yaml\n")
        .skip(1)
        .filter_map(|block| block.split_once("```").map(|(yaml, _)| yaml))
        .find(|yaml| yaml.starts_with(first_line))
        .unwrap_or_else(|| panic!("no yaml block starting {first_line:?} in docs/metrics.md"))
        .to_owned()
}

/// The documented config and rules, written to `dir`; returns the config.
fn write_documented(dir: &Path, config: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("guid-alerts.yml"), documented("groups:")).unwrap();
    let path = dir.join("prometheus.yml");
    std::fs::write(&path, config).unwrap();
    path
}

fn promtool(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new("promtool")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run promtool");
    assert!(
        out.status.success(),
        "promtool {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Series for `promtool test rules`: server a's clock steps back at 3m
/// and its lease is lost at 4m; server b stays well.
const RULE_TESTS: &str = r#"
rule_files:
  - guid-alerts.yml
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'guid_clock_steps_back_total{job="guid", instance="a:9464", clock="flake"}'
        values: '0 0 0 1 1 1'
      - series: 'guid_clock_steps_back_total{job="guid", instance="b:9464", clock="flake"}'
        values: '0 0 0 0 0 0'
      - series: 'guid_lease_held{job="guid", instance="a:9464"}'
        values: '1 1 1 1 0 0'
      - series: 'guid_lease_held{job="guid", instance="b:9464"}'
        values: '1 1 1 1 1 1'
      - series: 'guid_lease_ttl_seconds{job="guid", instance="a:9464"}'
        values: '10 10 10 10 10 10'
      - series: 'guid_lease_ttl_seconds{job="guid", instance="b:9464"}'
        values: '10 10 10 10 10 10'
      - series: 'guid_lease_remaining_seconds{job="guid", instance="a:9464"}'
        values: '7 6 7 6 0 0'
      - series: 'guid_lease_remaining_seconds{job="guid", instance="b:9464"}'
        values: '7 6 7 6 7 6'
      - series: 'guid_lease_refusals_total{job="guid", instance="a:9464"}'
        values: '0 0 0 0 3 9'
      - series: 'guid_lease_refusals_total{job="guid", instance="b:9464"}'
        values: '0 0 0 0 0 0'
    alert_rule_test:
      - eval_time: 2m
        alertname: GuidClockSteppedBack
        exp_alerts: []
      - eval_time: 4m
        alertname: GuidClockSteppedBack
        exp_alerts:
          - exp_labels: {severity: warning, job: guid, instance: "a:9464", clock: flake}
            exp_annotations:
              summary: "guid serve a:9464: the flake clock's source stepped back"
              description: "The system clock was set back (guid_clock_steps_back_total; the largest step: guid_clock_max_step_back_seconds). Ids still increase, ahead of the clock; check NTP."
      - eval_time: 3m
        alertname: GuidLeaseExpiringOrLost
        exp_alerts: []
      - eval_time: 5m
        alertname: GuidLeaseExpiringOrLost
        exp_alerts:
          - exp_labels: {severity: critical, job: guid, instance: "a:9464"}
            exp_annotations:
              summary: "guid serve a:9464: the etcd lease of its node id is expiring or lost"
              description: "etcd has not confirmed the lease in time: 64-bit ids are refused while it is not held. Check the server's connection to etcd."
"#;

/// `promtool check config` (the config and the rule file it names) and
/// `promtool check rules` pass on the documented files, and `promtool test
/// rules` sees each alert fire on the server in trouble and no other.
#[test]
fn the_documented_config_and_alert_rules_pass_promtool() {
    if !have("promtool") {
        return;
    }
    let dir = temp_dir("promtool");
    write_documented(&dir, &documented("scrape_configs:"));
    promtool(&dir, &["check", "config", "prometheus.yml"]);
    let rules = promtool(&dir, &["check", "rules", "guid-alerts.yml"]);
    let said = String::from_utf8_lossy(&rules.stdout);
    assert!(said.contains("SUCCESS: 2 rules found"), "{said}");
    std::fs::write(dir.join("tests.yml"), RULE_TESTS).unwrap();
    promtool(&dir, &["test", "rules", "tests.yml"]);
}

/// A Prometheus process, killed when dropped.
struct Prometheus(Child);

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The JSON `data` of a Prometheus API answer.
fn api(addr: std::net::SocketAddr, path: &str) -> Value {
    let (status, body) = http_get(addr, path);
    assert_eq!(status, 200, "{path}: {body}");
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
    assert_eq!(v["status"], "success", "{body}");
    v["data"].clone()
}

/// A real Prometheus scrapes a server with the documented config (the
/// targets and interval changed): the target is up with no error, so the
/// whole exposition parsed, and the ids it counts are those the client got.
#[test]
fn prometheus_scrapes_the_server_with_the_documented_config() {
    if !have("prometheus") {
        return;
    }
    let mut config = Config::default();
    config.time.state = Some(temp_dir("prometheus-state").join("state"));
    let server = Server::start_full(config, true, true);
    let metrics = server.metrics.unwrap();
    let mut s = raw(server.addr);
    let ids: usize = (0..40).map(|_| ask(&mut s, 255).len()).sum();
    drop(s);

    let dir = temp_dir("prometheus");
    let scrape = documented("scrape_configs:")
        .replace(
            r#"["10.0.0.5:9464", "10.0.0.6:9464"]"#,
            &format!(r#"["{metrics}"]"#),
        )
        .replace("scrape_interval: 15s", "scrape_interval: 1s");
    assert!(scrape.contains(&metrics.to_string()), "{scrape}");
    let config = write_documented(&dir, &scrape);
    let web = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap();
    let child = Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address={web}"))
        .arg("--log.level=warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start prometheus");
    let _prometheus = Prometheus(child);
    let limit = Duration::from_secs(60);
    eventually(limit, "prometheus ready", || {
        std::net::TcpStream::connect(web).ok()?;
        (http_get(web, "/-/ready").0 == 200).then_some(())
    });

    let target = eventually(limit, "the target scraped", || {
        let targets = api(web, "/api/v1/targets");
        let t = targets["activeTargets"].get(0)?.clone();
        (t["health"] != "unknown").then_some(t)
    });
    assert_eq!(target["health"], "up", "{target:#}");
    assert_eq!(target["lastError"], "", "{target:#}");
    assert_eq!(target["labels"]["job"], "guid");

    let counted = eventually(limit, "the ids counted", || {
        let r = api(web, "/api/v1/query?query=guid_ids_issued_total");
        let flake = r["result"]
            .as_array()?
            .iter()
            .find(|s| s["metric"]["listener"] == "flake")?
            .clone();
        flake["value"][1].as_str()?.parse::<u64>().ok()
    });
    assert_eq!(counted, ids as u64);
    let metadata = api(web, "/api/v1/metadata");
    let kind = |name: &str| metadata[name][0]["type"].as_str().map(str::to_owned);
    assert_eq!(
        kind("guid_ids_issued").as_deref(),
        Some("counter"),
        "{metadata:#}"
    );
    assert_eq!(kind("guid_clock_lead_seconds").as_deref(), Some("gauge"));
    assert_eq!(metadata["guid_clock_lead_seconds"][0]["unit"], "seconds");
    let rules = api(web, "/api/v1/rules");
    let loaded = rules["groups"][0]["rules"].as_array().map_or(0, Vec::len);
    assert_eq!(loaded, 2, "{rules:#}");
    server.stop();
    println!("prometheus scraped {metrics}: up, {counted} 64-bit ids, 2 alert rules loaded");
}
