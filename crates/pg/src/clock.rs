//! The server's one clock: a `guid::Clock` in shared memory, built by the
//! postmaster before it forks a backend, so that every backend (and
//! parallel worker) takes its ids from the one state word
//! (`Builder::shared_with_forks`): the ids of the whole server are distinct
//! and strictly increasing in the order they are issued.
//!
//! A restart never goes back into time already used. The file
//! `kguid.horizon` in the data directory holds a time (Unix ns, one line)
//! that no issued id is later than: an id is returned only once the saved
//! horizon covers it, moved on [`AHEAD`] past the wall clock (written,
//! fsynced and renamed over the old one) by the backend that finds it due
//! ([`Shared::cover`]). When the postmaster stops or reinitializes after a
//! crash, the horizon is brought back to the time of the last id. The next
//! start issues ids after the horizon only: after a clean stop right after
//! the last id, after a kill of the postmaster at most [`AHEAD`] ahead of
//! the wall clock at the kill.
//!
//! The file is [`guid_horizon`]'s, as the guid service's state file is:
//! read only if it is a small regular file, in its one strict format (the
//! digits of a non-zero number, no sign or leading zero, one newline), and
//! written atomically (a new temporary file beside it, created anew,
//! fsynced and renamed over it, the directory fsynced; removed if the write
//! fails). Every file this extension wrote before is in that format (it
//! always wrote the digits of a non-zero time and a newline), so each
//! reads as it did: there is nothing to migrate. Only a hand-edited file
//! that the older, laxer reading took (a `+` sign, leading zeros) now stops
//! the start, as any other damage does. Older versions named their
//! temporary file `kguid.PID.tmp` and left it after a failed write: such a
//! file is never read, and may be removed.
//!
//! Settings (`postgresql.conf`, read at server start):
//! `kguid.node` (a number, 0 to 16777215, decimal or `0x` hex) or
//! `kguid.node_name` (a name, the low 24 bits of the library's
//! `CONFIG_GUID_NODE_ID` hash) choose 24 bits of the node; with neither,
//! they are drawn at each start. The top 8 bits are the server's timeline
//! less one ([`node_on`]): one `postgresql.conf` serves a primary and its
//! standbys, and the server a promotion or a point-in-time recovery makes
//! is on a node of its own. So the clocks are built once recovery has
//! ended, by the first backend that makes an id; a standby refuses, and so
//! does a copy of the data directory started as a primary of its own on its
//! original's timeline and node, until given a node of its own
//! ([`crate::copy`]).

use std::cell::UnsafeCell;
use std::ffi::{CStr, CString};
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{Acquire, Release};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64};
use std::time::{Duration, UNIX_EPOCH};

use guid::clock::{Builder, Generation};
use guid::v3::{self, Xuid};
use guid::{Clock, Id};
use guid_horizon::{self as horizon, ReadError, Rule};
use pgrx::PgSqlErrorCode::{
    ERRCODE_IO_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, ERRCODE_READ_ONLY_SQL_TRANSACTION,
};
use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys::{self, Datum};

use crate::copy;
use crate::types::{guid_at, guid_datum, luid_datum, xuid_datum};
use crate::{fail, functions};

/// How far past the wall clock a save moves the horizon; one is due when
/// the wall clock comes within half of it.
const AHEAD: Duration = Duration::from_secs(2);

/// [`AHEAD`] as [`guid_horizon`]'s rule: a span of 0, for each id's own
/// time is covered before it is returned ([`Shared::issue`]).
const RULE: Rule = Rule::new(0, AHEAD.as_nanos() as u64);

/// How far past ids that run ahead of the wall clock a save moves the
/// horizon: ids ahead advance only as they are used (16,384 a tick).
const MARGIN: Duration = Duration::from_millis(10);

/// The horizon's file, in the data directory.
const HORIZON_FILE: &str = "kguid.horizon";

/// The bits of a server's node the settings choose: the top 8 carry its
/// timeline ([`node_on`]).
const BASE_BITS: u32 = 24;

static NODE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static NODE_NAME: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);

/// The server's two clocks, on one node.
struct Clocks {
    clock: Clock,
    /// v3's clock, for `xuid_generate()`, on the same node.
    x: v3::Clock,
}

/// [`Shared::state`]: no clocks yet, one backend building them, built.
const EMPTY: u8 = 0;
const BUILDING: u8 = 1;
const READY: u8 = 2;

/// What the server's backends share.
#[repr(C, align(64))]
struct Shared {
    /// Built by the first backend that makes an id once recovery has
    /// ended, when the server's timeline is known ([`Shared::clocks`]).
    clocks: UnsafeCell<MaybeUninit<Clocks>>,
    state: AtomicU8,
    /// The node's 24 bits the settings choose; `None` for a random one.
    base: Option<u32>,
    /// The horizon read at the start: ids are issued after it.
    from: u64,
    /// The horizon on disk, Unix ns.
    saved: AtomicU64,
    /// Held by the backend writing the horizon.
    writing: AtomicBool,
}

/// The shared state, set in the postmaster before any backend is forked
/// (at the same address in every backend); null without preloading.
static mut SHARED: *const Shared = std::ptr::null();

/// Registers the settings and the shared memory when the library is
/// preloaded; otherwise the clock stays absent and generating refuses.
pub(crate) fn init() {
    // SAFETY: set by PostgreSQL while it loads the preloaded libraries.
    if !unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        return;
    }
    GucRegistry::define_string_guc(
        c"kguid.node",
        c"The low 24 bits of the server's node: 0 to 16777215 (decimal or 0x hex).",
        c"The top 8 bits are the server's timeline less one. Empty: kguid.node_name, or else random bits drawn at each start.",
        &NODE,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"kguid.node_name",
        c"A name whose SHA-256 gives the node's low 24 bits, as CONFIG_GUID_NODE_ID hashes it.",
        c"Exclusive with kguid.node.",
        &NODE_NAME,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    // SAFETY: hooks are chained in `_PG_init` of a preloaded library, in
    // the postmaster, before it starts anything.
    unsafe {
        // Before 15 there is no request hook: space is asked for here.
        #[cfg(any(feature = "pg13", feature = "pg14"))]
        pg_sys::RequestAddinShmemSpace(ROOM);
        #[cfg(not(any(feature = "pg13", feature = "pg14")))]
        {
            PREV_REQUEST = pg_sys::shmem_request_hook;
            pg_sys::shmem_request_hook = Some(request);
        }
        PREV_STARTUP = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(startup);
    }
}

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
static mut PREV_REQUEST: pg_sys::shmem_request_hook_type = None;
static mut PREV_STARTUP: pg_sys::shmem_startup_hook_type = None;

/// Room for [`Shared`], and for aligning it: the server aligns to 8 bytes.
const ROOM: usize = size_of::<Shared>() + align_of::<Shared>();

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn request() {
    unsafe {
        if let Some(prev) = PREV_REQUEST {
            prev();
        }
        pg_sys::RequestAddinShmemSpace(ROOM);
    }
}

/// Builds the clock in shared memory: in the postmaster at start and after
/// each crash reinitialization, before any backend exists.
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn startup() {
    unsafe {
        if let Some(prev) = PREV_STARTUP {
            prev();
        }
        let mut found = false;
        let base = pg_sys::ShmemInitStruct(c"kguid clock".as_ptr(), ROOM, &mut found);
        let at = base.cast::<u8>();
        let shared = at
            .add(at.align_offset(align_of::<Shared>()))
            .cast::<Shared>();
        if !found {
            let (base, from) = (node(), load_horizon());
            // A horizon past either clock's range stops the start here,
            // not at the first id.
            drop(build(0, from));
            copy::mark_restored(data_dir(), base);
            shared.write(Shared {
                clocks: UnsafeCell::new(MaybeUninit::uninit()),
                state: AtomicU8::new(EMPTY),
                base,
                from,
                saved: AtomicU64::new(from),
                writing: AtomicBool::new(false),
            });
            pg_sys::on_shmem_exit(Some(finish), Datum::from(0));
        }
        SHARED = shared;
    }
}

/// The node of a server on `timeline` whose settings choose `base`: the
/// timeline (less one, modulo 256) in the top 8 bits. A promotion or a
/// point-in-time recovery starts a new timeline, so the server that comes
/// out of it never makes its old primary's ids, whatever the clocks; on
/// the first timeline the node is the base.
fn node_on(base: u32, timeline: u32) -> u32 {
    (timeline.wrapping_sub(1) & 0xff) << BASE_BITS | base
}

/// The server's timeline, once recovery has ended.
fn timeline() -> u32 {
    // SAFETY: called in a backend, after `RecoveryInProgress()` said no
    // (which, before 15, set this backend's timeline).
    #[cfg(any(feature = "pg13", feature = "pg14"))]
    unsafe {
        pg_sys::ThisTimeLineID
    }
    // SAFETY: as above: outside recovery, the timeline WAL is written on.
    #[cfg(not(any(feature = "pg13", feature = "pg14")))]
    unsafe {
        pg_sys::GetWALInsertionTimeLine()
    }
}

/// `builder` for a clock in shared memory, bounded to ids after `from`
/// (Unix ns, 0 for none).
fn after<G: Generation>(builder: Builder<G>, from: u64) -> Builder<G> {
    let builder = builder.shared_with_forks();
    if from == 0 {
        return builder;
    }
    builder
        .not_before(UNIX_EPOCH + Duration::from_nanos(from))
        .unwrap_or_else(|e| {
            fail(
                ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!("the time in {HORIZON_FILE} is past the ids' range"),
                Some(e.to_string()),
            )
        })
}

/// The clocks on `node`, issuing only ids after `from`.
fn build(node: u32, from: u64) -> Clocks {
    let x = v3::Clock::builder()
        .node(u64::from(node))
        .expect("32 bits fit v3's 58");
    Clocks {
        clock: after(Clock::builder().node(node), from).build(),
        x: after(x, from).build(),
    }
}

/// The 24 bits of the node the settings choose, if they choose them:
/// `kguid.node` (0 to 16777215, decimal or `0x` hex), or the low 24 bits
/// of `kguid.node_name`'s hash (the library's `CONFIG_GUID_NODE_ID` hash).
fn node() -> Option<u32> {
    let text = |s: &GucSetting<Option<CString>>| {
        s.get()
            .map(|c| c.to_string_lossy().trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    let max = (1 << BASE_BITS) - 1;
    match (text(&NODE), text(&NODE_NAME)) {
        (Some(_), Some(_)) => fail(
            ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            "kguid.node and kguid.node_name are both set; set one".into(),
            None,
        ),
        (Some(n), None) => {
            let parsed = match n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
                Some(hex) => u32::from_str_radix(hex, 16),
                None => n.parse(),
            };
            let node = parsed
                .map_err(|e| e.to_string())
                .and_then(|node| match node > max {
                    true => Err(format!(
                        "{node} is past {max}: the top 8 bits of a server's node carry its timeline"
                    )),
                    false => Ok(node),
                });
            Some(node.unwrap_or_else(|detail| {
                fail(
                    ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                    format!("kguid.node = '{n}' is not a node id: 0 to {max}, decimal or 0x hex"),
                    Some(detail),
                )
            }))
        }
        (None, Some(name)) => Some(guid::node::from_name(&name) & max),
        (None, None) => None,
    }
}

/// The data directory.
fn data_dir() -> &'static Path {
    // SAFETY: the data directory is set before libraries load, and stays.
    let dir = unsafe { CStr::from_ptr(pg_sys::DataDir) };
    Path::new(dir.to_str().unwrap_or("."))
}

/// The horizon file's path.
fn horizon_path() -> PathBuf {
    data_dir().join(HORIZON_FILE)
}

/// The saved horizon, 0 if there is no file; a damaged file stops the
/// start rather than risk repeating ids.
fn load_horizon() -> u64 {
    let path = horizon_path();
    match horizon::read(&path) {
        Ok(ns) => ns.unwrap_or(0),
        Err(ReadError::Io(e)) => fail(
            ERRCODE_IO_ERROR,
            format!("cannot read {}", path.display()),
            Some(e.to_string()),
        ),
        Err(e) => fail(
            ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!(
                "{} does not hold a time (Unix nanoseconds and a newline): {e}",
                path.display()
            ),
            Some("Remove it only if no id this server made could be later than now.".into()),
        ),
    }
}

/// Writes `ns` as the horizon, atomically ([`horizon::write`]): the file is
/// always the old one or the new one.
fn save_horizon(ns: u64) -> std::io::Result<()> {
    horizon::write(&horizon_path(), ns)
}

/// At the postmaster's exit or crash reinitialization: the horizon moves
/// back to the time of the last id (or of the start bound).
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn finish(_code: std::ffi::c_int, _arg: Datum) {
    let Some(clocks) = shared().and_then(Shared::built) else {
        return; // no id made: the saved horizon stands
    };
    let last = guid::unix_nanos(clocks.clock.last_time().max(clocks.x.last_time()));
    if last > 0 {
        // Nothing to report to at exit: a failed write leaves the saved
        // horizon, which is later still.
        let _ = save_horizon(last);
    }
}

/// The shared state, if the library was preloaded.
fn shared() -> Option<&'static Shared> {
    // SAFETY: set once in the postmaster before backends exist, and
    // pointing into shared memory that lives as long as the process.
    unsafe { SHARED.as_ref() }
}

/// The clocks, or the error that says why this server makes no ids.
fn clock() -> &'static Clocks {
    ready().1
}

/// An id `make` takes from the server's clocks, once the horizon covers it.
fn issue<I: Id>(make: impl FnOnce(&Clocks) -> I) -> I {
    let (shared, clocks) = ready();
    let id = make(clocks);
    shared.cover(id.time());
    id
}

/// The shared state and its clocks, or the error that says why this
/// server makes no ids.
fn ready() -> (&'static Shared, &'static Clocks) {
    let shared = shared().unwrap_or_else(|| {
        fail(
            ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            "kguid makes ids only when the server preloads it".into(),
            Some("Set shared_preload_libraries = 'kguid' in postgresql.conf and restart the server: all backends then share one clock.".into()),
        )
    });
    if let Some(clocks) = shared.built() {
        return (shared, clocks);
    }
    // SAFETY: a backend's question to the server.
    if unsafe { pg_sys::RecoveryInProgress() } {
        fail(
            ERRCODE_READ_ONLY_SQL_TRANSACTION,
            "kguid makes ids only on a primary: this server is in recovery".into(),
            Some("A standby shares its primary's settings, and so its node: ids made here could be the primary's. Make ids on the primary; once promoted, this server makes them on a node of its own (its new timeline's).".into()),
        )
    }
    let base = shared.base.unwrap_or_else(|| guid::node::random() >> 8);
    let node = node_on(base, timeline());
    if shared.base.is_some()
        && let Err(node) = copy::check(data_dir(), base, node)
    {
        fail(
            ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!(
                "kguid makes no ids here: this data directory was copied from a server that makes ids on node {node}, and so would this one"
            ),
            Some(format!(
                "Give this server a node of its own (kguid.node) and restart it; or, if the server it was copied from will never make ids again, remove {} from the data directory and restart.",
                copy::MARK_FILE
            )),
        )
    }
    (shared, shared.build(node))
}

impl Shared {
    /// The clocks, if built.
    fn built(&self) -> Option<&Clocks> {
        // SAFETY: written once, before the state turns READY (Release).
        (self.state.load(Acquire) == READY)
            .then(|| unsafe { (*self.clocks.get()).assume_init_ref() })
    }

    /// Builds the clocks on `node`, or takes those
    /// another backend built. Everything that can fail is done before the
    /// state leaves EMPTY, so a backend that fails leaves no half-built
    /// clocks; one that builds them holds BUILDING for a few stores only.
    fn build(&self, node: u32) -> &Clocks {
        let clocks = build(node, self.from);
        if self
            .state
            .compare_exchange(EMPTY, BUILDING, Acquire, Acquire)
            .is_ok()
        {
            // SAFETY: only the backend that moved the state to BUILDING
            // writes, and no one reads before READY.
            unsafe { (*self.clocks.get()).write(clocks) };
            self.state.store(READY, Release);
        }
        loop {
            if let Some(clocks) = self.built() {
                return clocks;
            }
            std::hint::spin_loop();
        }
    }
}

impl Shared {
    /// Returns once the saved horizon covers ids of Unix time `t`, having
    /// moved it on if it is due: when it is within [`AHEAD`]`/2` of the
    /// wall clock or within [`MARGIN`] of `t`, the backend that takes the
    /// writer's flag saves [`AHEAD`] past the wall clock, or [`MARGIN`] past
    /// ids that run ahead of it (after a restart into a horizon in the
    /// future): so a kill leaves ids at most [`AHEAD`] ahead of the wall
    /// clock at that moment, however often it happens. Another backend's
    /// save is waited for only when `t` is past the horizon.
    fn cover(&self, t: u64) {
        let margin = MARGIN.as_nanos() as u64;
        // The common case: ids are at the wall clock, well below the horizon.
        if !RULE.due(self.saved.load(Acquire), t) {
            return;
        }
        loop {
            let now = guid::unix_nanos(std::time::SystemTime::now());
            let due = |saved: u64| saved < t.saturating_add(margin) || RULE.due(saved, now);
            let saved = self.saved.load(Acquire);
            if !due(saved) {
                return;
            }
            if self
                .writing
                .compare_exchange(false, true, Acquire, Acquire)
                .is_ok()
            {
                let target = RULE.target(now).max(t.saturating_add(margin));
                let result = match due(self.saved.load(Acquire)) {
                    true => save_horizon(target).map(|()| self.saved.store(target, Release)),
                    false => Ok(()),
                };
                self.writing.store(false, Release);
                if let Err(e) = result {
                    fail(
                        ERRCODE_IO_ERROR,
                        format!(
                            "cannot save the horizon of ids to {}",
                            horizon_path().display()
                        ),
                        Some(e.to_string()),
                    );
                }
                return;
            }
            if t <= saved {
                return; // covered; another backend moves it on
            }
            std::thread::sleep(Duration::from_micros(50));
        }
    }
}

functions! {
    pg_finfo_kguid_guid_generate => fn kguid_guid_generate(_fcinfo) {
        guid_datum(issue(|s| s.clock.g()))
    }
    pg_finfo_kguid_luid_generate => fn kguid_luid_generate(_fcinfo) {
        luid_datum(issue(|s| s.clock.l()))
    }
    pg_finfo_kguid_xuid_generate => fn kguid_xuid_generate(_fcinfo) {
        xuid_datum(issue(|s| s.x.x()))
    }
    pg_finfo_kguid_xuid_from_time => fn kguid_xuid_from_time(fcinfo) {
        let t = UNIX_EPOCH + Duration::from_nanos(crate::types::time_arg(fcinfo, 0));
        xuid_datum(Xuid::from_time(&clock().x, t))
    }
    pg_finfo_kguid_node => fn kguid_node(_fcinfo) {
        Datum::from(i64::from(clock().clock.node()))
    }
    pg_finfo_kguid_guid_from_time_here => fn kguid_guid_from_time_here(fcinfo) {
        let clocks = clock();
        let t = crate::types::time_arg(fcinfo, 0);
        guid_datum(guid_at(t, clocks.clock.node(), clocks.clock.drift()))
    }
}
