//! The binary end to end against a temporary PostgreSQL of its own: a small
//! run exits 0, reports every kind and writes an SVG chart. Timings are
//! printed, never asserted.

use std::path::Path;
use std::process::Command;

/// Whether the PostgreSQL server binaries the binary looks for are here
/// (Debian's layout, or initdb and pg_ctl on PATH).
fn postgres_installed() -> bool {
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().join("bin/initdb").is_file());
    debian
        || std::env::var_os("PATH").is_some_and(|path| {
            std::env::split_paths(&path)
                .any(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
        })
}

#[test]
fn temp_server_run_reports_every_kind_and_writes_the_chart() {
    if !postgres_installed() {
        let why = "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: \
                   apt-get install postgresql";
        if std::env::var("KGUID_REQUIRE_SERVERS").is_ok_and(|v| v == "1") {
            panic!("KGUID_REQUIRE_SERVERS=1 and {why}");
        }
        eprintln!("skipped: {why}");
        return;
    }
    let chart = Path::new(env!("CARGO_TARGET_TMPDIR")).join("locality-test.svg");
    let _ = std::fs::remove_file(&chart);
    let out = Command::new(env!("CARGO_BIN_EXE_locality"))
        .args(["--temp-server", "--rows", "20000", "--chart"])
        .arg(&chart)
        .output()
        .expect("running locality");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "locality failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    println!("{stdout}");

    let kinds = [
        "guid",
        "guid-fleet",
        "fleet",
        "luid",
        "uuid-v4",
        "uuid-v7",
        "bigserial",
        "fleet-luid-node",
        "fleet-partitioned",
    ];
    for kind in kinds {
        let rows = stdout
            .lines()
            .filter(|l| l.starts_with('|') && l.contains(&format!("| {kind} |")))
            .count();
        // One row in the summary table, one column in the rates table.
        assert!(rows >= 1, "no row for {kind} in:\n{stdout}");
    }
    assert!(
        stdout.contains("shared_buffers=16MB, fsync=off"),
        "the temporary server's settings are not reported:\n{stdout}"
    );

    let svg = std::fs::read_to_string(&chart).expect("the chart was written");
    assert!(
        svg.trim_start().starts_with("<svg"),
        "not SVG: {}",
        &svg[..svg.len().min(200)]
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    for kind in kinds {
        // plotters puts each text on a line of its own.
        assert!(
            svg.lines().any(|l| l.trim() == kind),
            "no legend entry for {kind}"
        );
    }
}
