//! Copies of a data directory started beside the server they were copied
//! from, which would make that server's ids: they refuse until given a
//! node of their own, or told that the original makes no more ids.
//!
//! Two signs, neither of which a copy carries unchanged:
//! - a base backup started as a primary of its own keeps `backup_label`
//!   until its start ends recovery ([`mark_restored`], in the postmaster);
//! - a copy of any other kind (a file-system snapshot, a copy of a stopped
//!   server) finds in [`PLACE_FILE`] that the ids of its node were last
//!   made elsewhere: on another machine (`/etc/machine-id`), or in another
//!   directory (its path or inode) ([`check`], at the first id).
//!
//! Either leaves [`MARK_FILE`], naming the node's configured 24 bits; while
//! it is there and the settings choose the same bits, generating refuses.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use guid_horizon as horizon;
use pgrx::PgSqlErrorCode::{ERRCODE_IO_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE};

use crate::fail;

/// The mark of a copy: the configured 24 bits of the node it would share
/// with its original, in decimal, and a newline.
pub(crate) const MARK_FILE: &str = "kguid.copy";

/// Where this data directory last made ids, and on which node: the node,
/// the machine's id, the directory's inode and path, one line each.
const PLACE_FILE: &str = "kguid.place";

/// At the postmaster's start: a base backup (`backup_label`) started as a
/// primary of its own, without the recovery that starts a new timeline
/// (`recovery.signal`, or `standby.signal` and a promotion), keeps its
/// original's timeline, and so its node: it is marked. With a random node
/// (`base` none) a copy draws a node of its own, and nothing is marked.
pub(crate) fn mark_restored(dir: &Path, base: Option<u32>) {
    let Some(base) = base else { return };
    let found = |name| dir.join(name).exists();
    if found("backup_label") && !found("recovery.signal") && !found("standby.signal") {
        mark(dir, base);
    }
}

/// Before the first id on `node`, whose configured 24 bits are `base`:
/// `Err` with those bits if this data directory is a copy that would make
/// its original's ids. A mark whose bits the settings no longer choose is
/// removed (the copy was given a node of its own). The place is recorded
/// as a copy refuses, so a mark someone removes is not made again.
pub(crate) fn check(dir: &Path, base: u32, node: u32) -> Result<(), u32> {
    let marked = marked(dir);
    if marked.is_some_and(|marked| marked != base) {
        let _ = std::fs::remove_file(dir.join(MARK_FILE));
    }
    let here = place(dir, node);
    let path = dir.join(PLACE_FILE);
    let recorded = match horizon::read_small(&path, 8192) {
        Ok(bytes) => bytes,
        Err(e) => damaged(&path, e.to_string()),
    };
    let moved = recorded.as_ref().filter(|bytes| **bytes != here);
    // Elsewhere, on this very node: a copy.
    let copied =
        marked == Some(base) || moved.is_some_and(|bytes| recorded_node(&path, bytes) == node);
    if copied && marked != Some(base) {
        mark(dir, base);
    }
    if recorded.is_none() || moved.is_some() {
        if let Err(e) = horizon::write_bytes(&path, &here) {
            fail(
                ERRCODE_IO_ERROR,
                format!("cannot record where ids are made: {}", path.display()),
                Some(e.to_string()),
            );
        }
    }
    if copied { Err(base) } else { Ok(()) }
}

/// Writes the mark naming `base`.
fn mark(dir: &Path, base: u32) {
    let path = dir.join(MARK_FILE);
    if let Err(e) = horizon::write_bytes(&path, format!("{base}\n").as_bytes()) {
        fail(
            ERRCODE_IO_ERROR,
            format!("cannot mark the copied data directory: {}", path.display()),
            Some(e.to_string()),
        );
    }
}

/// The configured bits the mark names, if there is one.
fn marked(dir: &Path) -> Option<u32> {
    let path = dir.join(MARK_FILE);
    let bytes = match horizon::read_small(&path, 16) {
        Ok(bytes) => bytes?,
        Err(e) => damaged(&path, e.to_string()),
    };
    Some(number(&bytes, "").unwrap_or_else(|e| damaged(&path, e)))
}

/// The node a place file names on its first line (`node N`).
fn recorded_node(path: &Path, bytes: &[u8]) -> u32 {
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    number(line, "node ").unwrap_or_else(|e| damaged(path, e))
}

/// The decimal number after `prefix` in `bytes` (a newline may end it).
fn number(bytes: &[u8], prefix: &str) -> Result<u32, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    let text = text.strip_suffix('\n').unwrap_or(text);
    let digits = text
        .strip_prefix(prefix)
        .ok_or_else(|| format!("{text:?} does not start with {prefix:?}"))?;
    digits.parse().map_err(|e| format!("{digits:?}: {e}"))
}

/// Stops generating: a file of this module's is not in its format.
fn damaged(path: &Path, detail: String) -> ! {
    fail(
        ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!(
            "{} is not as this extension writes it: {detail}",
            path.display()
        ),
        Some("Remove it only if no other server makes ids on this server's node.".into()),
    )
}

/// This data directory's place, as [`PLACE_FILE`] holds it. The machine's
/// id is left empty where there is none (some containers): then the path
/// and inode tell copies apart.
fn place(dir: &Path, node: u32) -> Vec<u8> {
    let machine = ["/etc/machine-id", "/var/lib/dbus/machine-id"]
        .iter()
        .find_map(|file| std::fs::read_to_string(file).ok())
        .map(|id| id.trim().to_owned())
        .unwrap_or_default();
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let inode = std::fs::metadata(&dir).map(|m| m.ino()).unwrap_or(0);
    let mut bytes = format!("node {node}\nmachine {machine}\ninode {inode}\ndir ").into_bytes();
    bytes.extend_from_slice(OsStr::as_bytes(dir.as_os_str()));
    bytes.push(b'\n');
    bytes
}
