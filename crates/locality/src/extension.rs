//! Whether a server can run the kinds of the kguid extension: it must have
//! the extension installed and preload its library (the generators' one
//! clock lives in shared memory the postmaster sets up).

use tokio_postgres::Client;

use crate::error::{Context, Result};
use crate::kind::Kind;

/// What the server has of the kguid extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Support {
    /// `kguid` is in `pg_available_extensions`: its control file and SQL
    /// are installed.
    pub available: bool,
    /// The server's `shared_preload_libraries`.
    pub preload: String,
    /// The server is `--temp-server`'s, which preloads kguid if it finds
    /// the library.
    pub temp_server: bool,
}

impl Support {
    /// Asks the server.
    pub async fn query(client: &Client, temp_server: bool) -> Result<Support> {
        let row = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'kguid'),
                        current_setting('shared_preload_libraries')",
                &[],
            )
            .await
            .context(|| "asking the server for the kguid extension")?;
        Ok(Support {
            available: row.get(0),
            preload: row.get(1),
            temp_server,
        })
    }

    /// Why the kinds of the extension cannot run, or `None` if they can.
    pub fn problem(&self) -> Option<String> {
        if !self.available {
            return Some(
                "the server has no kguid extension: build and install it into the server's \
                 PostgreSQL with `crates/pg/install` (kguid.so into `pg_config \
                 --pkglibdir`, kguid.control and its SQL into `pg_config --sharedir`/extension), \
                 then set shared_preload_libraries = 'kguid' and restart the server"
                    .to_string(),
            );
        }
        if !preloads_kguid(&self.preload) && self.temp_server {
            return Some(
                "the temporary server does not preload kguid: there is no kguid.so in its \
                 library directory (`pg_config --pkglibdir`), where `crates/pg/install` \
                 puts it; --temp-server preloads kguid when it finds it there"
                    .to_string(),
            );
        }
        if !preloads_kguid(&self.preload) {
            return Some(format!(
                "the server does not preload kguid (shared_preload_libraries = '{}'): add \
                 kguid to shared_preload_libraries in postgresql.conf and restart the server \
                 (guid_generate() and luid_generate() take their ids from one clock in shared \
                 memory)",
                self.preload
            ));
        }
        None
    }
}

/// Whether a `shared_preload_libraries` value names the kguid library
/// (`kguid`, `$libdir/kguid`, `kguid.so`, quoted or not).
pub fn preloads_kguid(setting: &str) -> bool {
    setting.split(',').any(|entry| {
        let name = entry.trim().trim_matches('"').trim();
        let base = name.rsplit('/').next().unwrap_or(name);
        base.strip_suffix(".so").unwrap_or(base) == "kguid"
    })
}

/// The kinds to run: those asked for (every kind if none), without the
/// extension's kinds if the server cannot run them. An explicit request for
/// them is an error saying what is missing; otherwise the note says why
/// they were left out.
pub fn select(
    asked: &[Kind],
    support: &Support,
) -> std::result::Result<(Vec<Kind>, Option<String>), String> {
    let explicit = !asked.is_empty();
    let kinds = if explicit {
        asked.to_vec()
    } else {
        Kind::ALL.to_vec()
    };
    let needing: Vec<&str> = kinds
        .iter()
        .filter(|k| k.needs_kguid())
        .map(|k| k.name())
        .collect();
    let problem = match support.problem() {
        Some(problem) if !needing.is_empty() => problem,
        _ => return Ok((kinds, None)),
    };
    let names = needing.join(", ");
    if explicit {
        let verb = if needing.len() == 1 { "needs" } else { "need" };
        return Err(format!("{names} {verb} the kguid extension, but {problem}"));
    }
    let kinds = kinds.into_iter().filter(|k| !k.needs_kguid()).collect();
    Ok((kinds, Some(format!("leaving out {names}: {problem}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preload_setting_is_read_as_postgresql_lists_it() {
        for yes in [
            "kguid",
            "pg_stat_statements, kguid",
            "\"kguid\"",
            "$libdir/kguid",
            "kguid.so",
            " auto_explain ,kguid ",
        ] {
            assert!(preloads_kguid(yes), "{yes}");
        }
        for no in [
            "",
            "pg_stat_statements",
            "kguidx",
            "notkguid",
            "kguid_other",
        ] {
            assert!(!preloads_kguid(no), "{no}");
        }
    }

    #[test]
    fn the_extension_kinds_are_left_out_or_refused_when_the_server_cannot_run_them() {
        let ready = Support {
            available: true,
            preload: "kguid".into(),
            temp_server: false,
        };
        let missing = Support {
            available: false,
            preload: String::new(),
            temp_server: false,
        };
        let unloaded = Support {
            available: true,
            preload: "pg_stat_statements".into(),
            temp_server: false,
        };
        let temp = Support {
            temp_server: true,
            ..unloaded.clone()
        };
        assert_eq!(ready.problem(), None);
        assert!(missing.problem().unwrap().contains("crates/pg/install"));
        let why = unloaded.problem().unwrap();
        assert!(
            why.contains("shared_preload_libraries = 'pg_stat_statements'"),
            "{why}"
        );
        assert!(why.contains("restart the server"), "{why}");
        let why = temp.problem().unwrap();
        assert!(
            why.contains("no kguid.so in its library directory"),
            "{why}"
        );
        let temp_missing = Support {
            temp_server: true,
            ..missing.clone()
        };
        assert_eq!(temp_missing.problem(), missing.problem());

        // Every kind by default, all of them on a server that can.
        assert_eq!(select(&[], &ready), Ok((Kind::ALL.to_vec(), None)));
        // Left out, with one note, by default.
        let (kinds, note) = select(&[], &unloaded).unwrap();
        assert_eq!(kinds.len(), Kind::ALL.len() - 2);
        assert!(kinds.iter().all(|k| !k.needs_kguid()));
        let note = note.unwrap();
        assert!(
            note.starts_with("leaving out sql-guid, sql-luid: "),
            "{note}"
        );
        assert!(!note.contains('\n'));
        // Refused when asked for.
        let err = select(&[Kind::SqlUuidV4, Kind::SqlLuid], &missing).unwrap_err();
        assert!(err.starts_with("sql-luid needs the kguid extension, but the server has no"));
        // Kinds without the extension run anywhere.
        let asked = [Kind::SqlUuidV4, Kind::Bigserial];
        assert_eq!(select(&asked, &missing), Ok((asked.to_vec(), None)));
    }
}
