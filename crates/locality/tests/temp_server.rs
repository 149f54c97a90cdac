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

    // The kguid extension's kinds run where the temporary server preloads
    // its library; elsewhere they are left out, saying why.
    let preloaded = stdout.contains("preloading kguid (");
    assert!(
        preloaded || stdout.contains("not preloading kguid"),
        "the report does not say whether kguid is preloaded:\n{stdout}"
    );
    if !preloaded {
        assert!(
            stderr.contains("leaving out sql-guid, sql-luid: "),
            "no reason for leaving out the kguid kinds:\n{stderr}"
        );
    }
    let mut kinds = vec![
        "guid",
        "guid-fleet",
        "fleet",
        "luid",
        "uuid-v4",
        "uuid-v7",
        "bigserial",
        "sql-uuid-v4",
        "sql-uuid-v7",
        "fleet-luid-node",
        "fleet-partitioned",
    ];
    if preloaded {
        kinds.extend(["sql-guid", "sql-luid"]);
    }
    for &kind in &kinds {
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
    // What making each server kind's ids costs, in a table of its own.
    let costs = stdout
        .split("Ids made in the server")
        .nth(1)
        .unwrap_or_else(|| panic!("no table of ids made in the server:\n{stdout}"));
    let mut made = vec!["bigserial", "sql-uuid-v4", "sql-uuid-v7", "—"];
    if preloaded {
        made.extend(["sql-guid", "sql-luid"]);
    }
    for kind in made {
        assert!(
            costs
                .lines()
                .any(|l| l.starts_with(&format!("| {kind} | `"))),
            "no cost for {kind} in:\n{costs}"
        );
    }

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

/// A server that does not preload kguid (its tools linked from a directory
/// with no kguid library beside them): asking for the extension's kinds
/// fails before inserting anything, saying what to install or set.
#[test]
fn the_kguid_kinds_asked_for_without_the_preload_fail_saying_why() {
    let Some(bin) = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .find(|b| b.join("initdb").is_file())
    else {
        eprintln!("skipped: Debian's PostgreSQL server binaries are not installed");
        return;
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("locality-no-kguid/bin");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for tool in ["initdb", "pg_ctl"] {
        std::os::unix::fs::symlink(bin.join(tool), dir.join(tool)).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_locality"))
        .args([
            "--temp-server",
            "--rows",
            "1000",
            "--kinds",
            "sql-uuid-v4,sql-guid",
        ])
        .arg("--pg-bin")
        .arg(&dir)
        .output()
        .expect("running locality");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "locality succeeded:\n{stderr}");
    assert!(
        stderr.contains("locality: sql-guid needs the kguid extension, but the temporary server"),
        "{stderr}"
    );
    // What to install, and where.
    assert!(stderr.contains("crates/pg/install"), "{stderr}");
    assert!(stderr.contains("kguid.so"), "{stderr}");
    // Nothing was inserted.
    assert!(!stderr.contains("rows/s"), "{stderr}");
}
