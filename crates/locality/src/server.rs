//! A throwaway PostgreSQL: initdb in a temporary directory, a server that
//! listens only on a unix socket there, stopped and removed on drop.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Context, Error, Result};

/// The settings the temporary server runs with, as printed in the report.
/// A small buffer pool makes index size matter (pages that do not fit are
/// written and read back), as it does for a table larger than memory;
/// `fsync=off` keeps the disk's flush latency out of a key comparison.
pub const SETTINGS: [(&str, &str); 2] = [("shared_buffers", "16MB"), ("fsync", "off")];

/// The settings added when the server's library directory has the kguid
/// extension's library: its generators need it preloaded.
pub const KGUID_SETTINGS: [(&str, &str); 2] =
    [("shared_preload_libraries", "kguid"), ("kguid.node", "1")];

/// A running temporary server; dropping it stops the server and removes
/// its directory.
pub struct TempServer {
    dir: PathBuf,
    bin: PathBuf,
    /// Root runs the server's tools as the `postgres` user: PostgreSQL
    /// refuses to run as root.
    as_postgres: bool,
    /// The kguid library the server preloads, if it has one.
    kguid: Option<PathBuf>,
    running: bool,
}

impl TempServer {
    /// Initialises a cluster in a new temporary directory and starts it.
    /// `bin` is the directory of initdb and pg_ctl, or `None` to look for
    /// them.
    pub fn start(bin: Option<&Path>) -> Result<TempServer> {
        let bin = match bin {
            Some(b) => b.to_path_buf(),
            None => find_bin().ok_or_else(|| {
                Error::msg(
                    "no PostgreSQL server binaries (initdb, pg_ctl) found in /usr/lib/postgresql/*/bin or on PATH; \
                     install Debian's `postgresql` package or pass --pg-bin DIR",
                )
            })?,
        };
        for tool in ["initdb", "pg_ctl"] {
            if !bin.join(tool).is_file() {
                return Err(Error::msg(format!(
                    "{} not found",
                    bin.join(tool).display()
                )));
            }
        }
        let as_postgres = is_root()?;
        let kguid = kguid_library(&bin);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("kguid-locality-{}-{nanos}", std::process::id()));
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .context(|| format!("creating {}", dir.display()))?;
        // From here on, drop removes the directory.
        let mut server = TempServer {
            dir,
            bin,
            as_postgres,
            kguid,
            running: false,
        };
        if as_postgres {
            let (uid, gid) = postgres_ids()?;
            std::os::unix::fs::chown(&server.dir, Some(uid), Some(gid))
                .context(|| format!("giving {} to the postgres user", server.dir.display()))?;
        }
        server.init()?;
        server.launch()?;
        Ok(server)
    }

    /// The socket directory: the host to connect to.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The kguid library the server preloads (with [`KGUID_SETTINGS`]), if
    /// its library directory has one.
    pub fn kguid(&self) -> Option<&Path> {
        self.kguid.as_deref()
    }

    /// Connection settings for the server's superuser and database.
    pub fn config(&self) -> tokio_postgres::Config {
        let mut config = tokio_postgres::Config::new();
        config
            .host_path(&self.dir)
            .user("postgres")
            .dbname("postgres");
        config
    }

    /// Stops the server (fast shutdown); a second call does nothing.
    pub fn stop(&mut self) -> Result<()> {
        if !self.running {
            return Ok(());
        }
        self.running = false;
        let data = self.data();
        self.tool("pg_ctl")
            .arg("-D")
            .arg(&data)
            .args(["-m", "fast", "-w", "stop"])
            .output()
            .context(|| "running pg_ctl stop")
            .and_then(|out| check(out, "pg_ctl stop"))
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn init(&self) -> Result<()> {
        let out = self
            .tool("initdb")
            .arg("-D")
            .arg(self.data())
            .args([
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ])
            .output()
            .context(|| "running initdb")?;
        check(out, "initdb")
    }

    fn launch(&mut self) -> Result<()> {
        // pg_ctl hands -o to a shell, so the empty listen_addresses is
        // quoted; the directory's name has no spaces or quotes.
        let mut options = format!(
            "-c listen_addresses='' -c unix_socket_directories={}",
            self.dir.display()
        );
        let kguid = self.kguid.is_some().then_some(KGUID_SETTINGS);
        for (name, value) in SETTINGS.into_iter().chain(kguid.into_iter().flatten()) {
            options.push_str(&format!(" -c {name}={value}"));
        }
        let data = self.data();
        let out = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(self.dir.join("server.log"))
            .args(["-w", "-t", "60", "-o", &options, "start"])
            .output()
            .context(|| "running pg_ctl start")?;
        // A failed start may still have left a server behind.
        self.running = true;
        check(out, "pg_ctl start").map_err(|e| {
            let log = fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
            Error::msg(format!("{e}\nserver log:\n{log}"))
        })
    }

    /// A command for one of the server's tools, as the postgres user when
    /// we are root, run inside the temporary directory (the tools change
    /// to their working directory, which the postgres user may not read).
    fn tool(&self, name: &str) -> Command {
        let path = self.bin.join(name);
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                "--",
            ]);
            c.arg(path);
            c
        } else {
            Command::new(path)
        };
        cmd.current_dir(&self.dir);
        cmd
    }
}

impl Drop for TempServer {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("locality: stopping the temporary server: {e}");
        }
        if let Err(e) = fs::remove_dir_all(&self.dir) {
            eprintln!("locality: removing {}: {e}", self.dir.display());
        }
    }
}

/// The newest /usr/lib/postgresql/N/bin (Debian's layout), else the
/// directory of an `initdb` on PATH.
pub fn find_bin() -> Option<PathBuf> {
    let debian = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .max();
    if let Some((_, bin)) = debian {
        return Some(bin);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
}

/// The kguid extension's library in the library directory of the server
/// whose tools are in `bin`: Debian's layout has it beside `bin`, in
/// `lib`; otherwise `pg_config --pkglibdir` of the `pg_config` in `bin`
/// says where it is.
pub fn kguid_library(bin: &Path) -> Option<PathBuf> {
    let beside = bin.parent().map(|dir| dir.join("lib"));
    let asked = || {
        let out = Command::new(bin.join("pg_config"))
            .arg("--pkglibdir")
            .output()
            .ok()
            .filter(|out| out.status.success())?;
        let dir = String::from_utf8(out.stdout).ok()?;
        Some(PathBuf::from(dir.trim()))
    };
    beside
        .filter(|dir| dir.join("kguid.so").is_file())
        .or_else(asked)
        .map(|dir| dir.join("kguid.so"))
        .filter(|lib| lib.is_file())
}

fn is_root() -> Result<bool> {
    // /proc/self is owned by the process's effective user.
    let meta = fs::metadata("/proc/self").context(|| "reading /proc/self")?;
    Ok(meta.uid() == 0)
}

/// The postgres user's uid and gid.
fn postgres_ids() -> Result<(u32, u32)> {
    let id = |flag: &str| -> Result<u32> {
        let out = Command::new("id")
            .args([flag, "postgres"])
            .output()
            .context(|| "running id")?;
        if !out.status.success() {
            return Err(Error::msg(
                "running as root, and there is no `postgres` user to run the server as \
                 (PostgreSQL refuses root); install Debian's `postgresql` package or run as another user",
            ));
        }
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .context(|| "reading the postgres user's id")
    };
    Ok((id("-u")?, id("-g")?))
}

fn check(out: Output, what: &str) -> Result<()> {
    if out.status.success() {
        return Ok(());
    }
    Err(Error::msg(format!(
        "{what} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kguid_library_is_found_beside_the_server_tools() {
        let root = std::env::temp_dir().join(format!(
            "kguid-locality-test-{}-{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos())
        ));
        let (bin, lib) = (root.join("15/bin"), root.join("15/lib"));
        fs::create_dir_all(&bin).unwrap();
        fs::create_dir_all(&lib).unwrap();
        // No library, and no pg_config to ask.
        assert_eq!(kguid_library(&bin), None);
        fs::write(lib.join("kguid.so"), b"").unwrap();
        assert_eq!(kguid_library(&bin), Some(lib.join("kguid.so")));
        fs::remove_dir_all(&root).unwrap();
    }
}
