//! The WebAssembly side of the JavaScript package `kguid`: thin exports
//! over the `kguid` crate (imported as `guid`), called by the package's
//! JavaScript classes (`js/api.js`).
//!
//! Every layout, codec, comparison and clock is the crate's; this crate
//! only moves values across the boundary:
//!
//! - an id crosses as its big-endian bytes, zero-padded to 16 and cut into
//!   four `u32` words (`w0` first); the JavaScript objects hold the words;
//! - results are written to fixed buffers in linear memory ([`out_ptr`],
//!   [`io_ptr`]) that JavaScript reads through typed-array views, so that
//!   the hot calls take and return numbers only;
//! - ids are told apart by a tag ([`GUID`], [`LUID`], [`V3_GUID`],
//!   [`V3_LUID`], [`XUID`], [`SNO`]); a tag of no type the call takes
//!   (sno's for base62, which it lacks) and words that are no id of the
//!   tag's type are the call's error, never read as another id;
//! - a failed call returns a status (or `undefined`, or a null address)
//!   and keeps its [`guid::Error`], which [`take_error`] hands over as
//!   `{message, kind, …fields}`; no call panics (a panic is a trap of the
//!   module): every clock's ids come from its `try_` form (the 96-bit
//!   clocks' `try_g`, `try_fill`…, the sno generator's `try_next`), whose
//!   error is the call's;
//! - every integer parameter has the Rust type of the crate's parameter
//!   (`u8`, `u16`, `u32`, `u64`, `i64`, `u128`): the JavaScript side checks
//!   each argument's kind and range before the call, as wasm-bindgen's
//!   conversions would wrap or truncate it;
//! - the clocks read the time that JavaScript passes to each call (Unix
//!   milliseconds as a float, from `Date.now()` and `performance.now()`),
//!   through a custom [`guid::TimeSource`]: `SystemTime::now()` panics on
//!   `wasm32-unknown-unknown`. Their random nodes come from getrandom's JS
//!   backend, `crypto.getRandomValues`.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::sno::{Generator, Sno};
use guid::{Error, ErrorKind, Id, flake, v3};
use wasm_bindgen::prelude::*;

/// Tag of the v2 96-bit id, [`guid::Guid`].
pub const GUID: u32 = 0;
/// Tag of the v2 64-bit id, [`guid::Luid`].
pub const LUID: u32 = 1;
/// Tag of [`v3::Guid`].
pub const V3_GUID: u32 = 2;
/// Tag of [`v3::Luid`].
pub const V3_LUID: u32 = 3;
/// Tag of [`v3::Xuid`].
pub const XUID: u32 = 4;
/// Tag of [`Sno`].
pub const SNO: u32 = 5;

/// Bytes of [`io_ptr`]'s buffer: strings and byte arrays in and out.
pub const IO_CAP: usize = 1024;

/// The id words of the last call (four), then a spare word.
static OUT: [AtomicU32; 8] = [const { AtomicU32::new(0) }; 8];
/// Strings and bytes in and out.
static IO: [AtomicU8; IO_CAP] = [const { AtomicU8::new(0) }; IO_CAP];
/// The time the clocks read: Unix ns, set by each call that makes ids.
static NOW_NS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static LAST_ERROR: RefCell<Option<Error>> = const { RefCell::new(None) };
    /// The words of the last batch.
    static BATCH: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// The bytes of the last batch of ids.
    static BATCH_BYTES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The last batch of flake ids.
    static BATCH_U64: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    static V2_CLOCK: guid::Clock = guid::Clock::builder().time(js_time).build();
    static V3_CLOCK: v3::Clock = v3::Clock::builder().time(js_time).build();
    static SNO_GEN: Generator = Generator::builder()
        .time(js_time)
        .build()
        .expect("the default sno generator's bounds are valid");
}

/// The time source of every clock of the package: the time JavaScript
/// passed last.
fn js_time() -> u64 {
    NOW_NS.load(Relaxed)
}

/// Sets the clocks' time from JavaScript's Unix milliseconds; NaN keeps the
/// time given by [`set_time_ns`].
#[inline]
fn set_time(t_ms: f64) {
    if !t_ms.is_nan() {
        NOW_NS.store((t_ms * 1e6) as u64, Relaxed);
    }
}

/// Sets the clocks' time to `ns` (Unix ns), for a custom time source; the
/// next call given NaN as its time reads it.
#[wasm_bindgen]
pub fn set_time_ns(ns: u64) {
    NOW_NS.store(ns, Relaxed);
}

/// Where the id words of the last call are (`u32` index = address / 4).
#[wasm_bindgen]
pub fn out_ptr() -> *const u32 {
    OUT.as_ptr().cast()
}

/// Where strings and bytes go in and come out.
#[wasm_bindgen]
pub fn io_ptr() -> *const u8 {
    IO.as_ptr().cast()
}

/// The size of [`io_ptr`]'s buffer.
#[wasm_bindgen]
pub fn io_cap() -> usize {
    IO_CAP
}

/// Keeps `e` for [`take_error`]; the failure status.
#[cold]
fn fail(e: Error) -> i32 {
    LAST_ERROR.with(|l| *l.borrow_mut() = Some(e));
    -1
}

/// The value of `r`, or `None` with its error kept for [`take_error`].
fn ok<T>(r: Result<T, Error>) -> Option<T> {
    r.map_err(fail).ok()
}

/// The error of the last failed call, as `{message, kind, …}` with the
/// fields of its [`ErrorKind`] (the `name` of [`ErrorKind::Part`] and
/// [`ErrorKind::Range`] as `part`: a JavaScript error's `name` is its
/// class's).
#[wasm_bindgen]
pub fn take_error() -> JsValue {
    let Some(e) = LAST_ERROR.with(|l| l.borrow_mut().take()) else {
        return JsValue::UNDEFINED;
    };
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&o, &k.into(), &v);
    };
    set("message", e.to_string().into());
    let (kind, fields) = describe(e.kind());
    set("kind", kind.into());
    for (k, v) in fields {
        set(k, v.into());
    }
    o.into()
}

/// A value of an error's field.
enum Field {
    Num(f64),
    Big(u64),
    Str(&'static str),
    Bool(bool),
}

impl From<Field> for JsValue {
    fn from(f: Field) -> JsValue {
        match f {
            Field::Num(n) => n.into(),
            Field::Big(n) => n.into(),
            Field::Str(s) => s.into(),
            Field::Bool(b) => b.into(),
        }
    }
}

/// The name of an error kind and its fields.
fn describe(kind: ErrorKind) -> (&'static str, Vec<(&'static str, Field)>) {
    use Field::{Big, Bool, Num, Str};
    match kind {
        ErrorKind::Length { expected, found } => (
            "Length",
            vec![
                ("expected", Num(expected as f64)),
                ("found", Num(found as f64)),
            ],
        ),
        ErrorKind::Char { byte, index } => (
            "Char",
            vec![("byte", Num(byte.into())), ("index", Num(index as f64))],
        ),
        ErrorKind::LeadingZero => ("LeadingZero", vec![]),
        ErrorKind::Overflow { bits } => ("Overflow", vec![("bits", Num(bits.into()))]),
        ErrorKind::Drift => ("Drift", vec![]),
        ErrorKind::Part { name, value, max } => (
            "Part",
            vec![
                ("part", Str(name)),
                ("value", Big(value)),
                ("max", Big(max)),
            ],
        ),
        ErrorKind::CellWidth(n) => ("CellWidth", vec![("width", Num(n.into()))]),
        ErrorKind::Cell { value, index } => (
            "Cell",
            vec![("value", Num(value.into())), ("index", Num(index as f64))],
        ),
        ErrorKind::Marker { local } => ("Marker", vec![("local", Bool(local))]),
        ErrorKind::Layout { time, node, seq } => (
            "Layout",
            vec![
                ("time", Num(time.into())),
                ("node", Num(node.into())),
                ("seq", Num(seq.into())),
            ],
        ),
        ErrorKind::NotUuidV8 { version, variant } => (
            "NotUuidV8",
            vec![
                ("version", Num(version.into())),
                ("variant", Num(variant.into())),
            ],
        ),
        ErrorKind::Forked => ("Forked", vec![]),
        ErrorKind::UsedUp => ("UsedUp", vec![]),
        ErrorKind::Inverse => ("Inverse", vec![]),
        ErrorKind::Range {
            name,
            value,
            min,
            max,
        } => (
            "Range",
            vec![
                ("part", Str(name)),
                ("value", Big(value)),
                ("min", Big(min)),
                ("max", Big(max)),
            ],
        ),
        _ => ("Other", vec![]),
    }
}

/// The error of a `tag` that names no id type a call takes (`min..=max`).
#[cold]
fn bad_tag(tag: u32, min: u32, max: u32) -> Error {
    Error::from(ErrorKind::Range {
        name: "tag",
        value: tag.into(),
        min: min.into(),
        max: max.into(),
    })
}

/// The `Result` of `$body` with `$T` the id type of `$tag` (a v2 or v3
/// id), or of `$sno` for [`SNO`]; without `sno =>` the call takes v2 and
/// v3 ids only. The bodies may use `?`. A tag of no type the call takes is
/// its error: it never falls through to another type.
macro_rules! with_id {
    ($tag:expr, $T:ident => $body:expr, sno => $sno:expr) => {
        (|| -> Result<_, Error> {
            Ok(match $tag {
                SNO => $sno,
                tag => with_id!(@v2v3 tag, SNO, $T => $body),
            })
        })()
    };
    ($tag:expr, $T:ident => $body:expr) => {
        (|| -> Result<_, Error> { Ok(with_id!(@v2v3 $tag, XUID, $T => $body)) })()
    };
    (@v2v3 $tag:expr, $max:expr, $T:ident => $body:expr) => {
        match $tag {
            GUID => {
                type $T = guid::Guid;
                $body
            }
            LUID => {
                type $T = guid::Luid;
                $body
            }
            V3_GUID => {
                type $T = v3::Guid;
                $body
            }
            V3_LUID => {
                type $T = v3::Luid;
                $body
            }
            XUID => {
                type $T = v3::Xuid;
                $body
            }
            tag => return Err(bad_tag(tag, GUID, $max)),
        }
    };
}

/// The bytes of four words, big-endian.
#[inline]
fn bytes_of(w: [u32; 4]) -> [u8; 16] {
    let mut b = [0u8; 16];
    for (chunk, w) in b.chunks_exact_mut(4).zip(w) {
        chunk.copy_from_slice(&w.to_be_bytes());
    }
    b
}

/// Writes an id's bytes to the out words ([`out_ptr`]) as words.
#[inline]
fn put(bytes: &[u8]) {
    let mut b = [0u8; 16];
    b[..bytes.len()].copy_from_slice(bytes);
    for (slot, chunk) in OUT.iter().zip(b.chunks_exact(4)) {
        slot.store(
            u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]),
            Relaxed,
        );
    }
}

/// The first `n` bytes of words, the rest zero (an id's padding); else
/// the error of a value wider than the id.
#[inline]
fn bytes_in(w: [u32; 4], n: usize) -> Result<[u8; 16], Error> {
    let b = bytes_of(w);
    match b[n..].iter().all(|&x| x == 0) {
        true => Ok(b),
        false => Err(Error::from(ErrorKind::Overflow { bits: 8 * n as u32 })),
    }
}

/// The id of words: the words of an id of the same type, else the error
/// that its bytes are none (words made by hand may be anything).
#[inline]
fn id<I: Id>(w: [u32; 4]) -> Result<I, Error> {
    I::from_slice(&bytes_in(w, I::BYTES)?[..I::BYTES])
}

/// The sno id of words (any 10 bytes are one), else the error of the
/// padding.
#[inline]
fn sno(w: [u32; 4]) -> Result<Sno, Error> {
    Sno::from_slice(&bytes_in(w, 10)?[..10])
}

/// The value a call of a number returns on failure, its error kept: the
/// type's largest (`i64` and `i32`: smallest, `f64`: NaN). The JavaScript
/// side takes the error when it sees that value, and reads it as the value
/// if none was kept: a plain number crosses faster than an `Option`.
trait Failed {
    const FAILED: Self;
}

macro_rules! failed {
    ($($t:ty = $v:expr),*) => {$(impl Failed for $t { const FAILED: $t = $v; })*};
}
failed!(
    u32 = u32::MAX,
    u64 = u64::MAX,
    u128 = u128::MAX,
    i64 = i64::MIN,
    i32 = i32::MIN,
    f64 = f64::NAN
);

/// The value of `r`, or the failure value (`Failed::FAILED`) with its error kept.
fn value<T: Failed>(r: Result<T, Error>) -> T {
    r.unwrap_or_else(|e| {
        fail(e);
        T::FAILED
    })
}

/// A status from `r`: its value, or -1 with its error kept.
fn status(r: Result<i32, Error>) -> i32 {
    r.unwrap_or_else(fail)
}

/// The first `len` bytes of the io buffer ([`io_ptr`]).
fn io_in(len: usize) -> Vec<u8> {
    IO[..len.min(IO_CAP)]
        .iter()
        .map(|b| b.load(Relaxed))
        .collect()
}

/// Writes `bytes` to the io buffer ([`io_ptr`]); their length.
fn io_out(bytes: &[u8]) -> i32 {
    for (slot, b) in IO.iter().zip(bytes) {
        slot.store(*b, Relaxed);
    }
    bytes.len().min(IO_CAP) as i32
}

/// Writes an id to the out words ([`out_ptr`]), or keeps its error: 0 or -1.
fn done<I: AsRef<[u8]>>(r: guid::Result<I>) -> i32 {
    match r {
        Ok(id) => {
            put(id.as_ref());
            0
        }
        Err(e) => fail(e),
    }
}

/// A new id of the default clock of its generation (sno's: metabyte
/// `meta`), written to the out words ([`out_ptr`]); `t_ms` is the time (Unix
/// ms). 0, or -1 with the error kept.
#[wasm_bindgen]
pub fn now(tag: u32, t_ms: f64, meta: u8) -> i32 {
    set_time(t_ms);
    match tag {
        GUID => V2_CLOCK.with(|c| issue(c, guid::Clock::try_g)),
        LUID => V2_CLOCK.with(|c| issue(c, guid::Clock::try_l)),
        V3_GUID => V3_CLOCK.with(|c| issue(c, v3::Clock::try_g)),
        V3_LUID => V3_CLOCK.with(|c| issue(c, v3::Clock::try_l)),
        XUID => V3_CLOCK.with(|c| issue(c, v3::Clock::try_x)),
        SNO => SNO_GEN.with(|g| done(g.try_next(meta))),
        tag => fail(bad_tag(tag, GUID, SNO)),
    }
}

/// A new v2 [`guid::Guid`] of the default clock, written to the out words
/// ([`out_ptr`]): the hot path of `Guid.now()`. 0, or -1 with the error kept.
#[wasm_bindgen]
pub fn now_g(t_ms: f64) -> i32 {
    set_time(t_ms);
    V2_CLOCK.with(|c| issue(c, guid::Clock::try_g))
}

/// Fills the batch buffer with `n` consecutive ids of `tag`'s default
/// clock from one read of the time (`ids` of the generation's clock);
/// the address of their bytes (`BYTES` each, ids in order), or null with
/// the error kept.
#[wasm_bindgen]
pub fn fill(tag: u32, n: usize, t_ms: f64, meta: u8) -> *const u8 {
    set_time(t_ms);
    match tag {
        GUID => V2_CLOCK.with(|c| batch(c, n, guid::Clock::try_fill)),
        LUID => V2_CLOCK.with(|c| batch(c, n, guid::Clock::try_fill_l)),
        V3_GUID => V3_CLOCK.with(|c| batch(c, n, v3::Clock::try_fill)),
        V3_LUID => V3_CLOCK.with(|c| batch(c, n, v3::Clock::try_fill_l)),
        XUID => V3_CLOCK.with(|c| batch(c, n, v3::Clock::try_fill_x)),
        SNO => SNO_GEN.with(|g| sno_batch(g, n, meta)),
        tag => {
            fail(bad_tag(tag, GUID, SNO));
            std::ptr::null()
        }
    }
}

/// An id `make` takes from a 96-bit clock (a `try_` form), to the out
/// words ([`out_ptr`]): 0, or -1 with the error kept.
#[inline]
fn issue<C, I: AsRef<[u8]>>(clock: &C, make: impl FnOnce(&C) -> Result<I, Error>) -> i32 {
    done(make(clock))
}

/// `n` ids that `fill` (a `try_` fill) takes from a 96-bit clock, into the
/// batch buffer: its address, or null with the error kept.
fn batch<C, I: AsRef<[u8]> + Copy + Default>(
    clock: &C,
    n: usize,
    fill: impl FnOnce(&C, &mut [I]) -> Result<(), Error>,
) -> *const u8 {
    batch_of(n, |ids| fill(clock, ids))
}

/// `n` ids of sno's generator `g` with metabyte `meta` into the batch
/// buffer: its address, or null with the error kept.
fn sno_batch(g: &Generator, n: usize, meta: u8) -> *const u8 {
    batch_of(n, |ids| {
        for id in ids {
            *id = g.try_next(meta)?;
        }
        Ok(())
    })
}

/// `n` ids made by `make` into the batch buffer: its address, or null with
/// the error kept.
fn batch_of<I: AsRef<[u8]> + Copy + Default>(
    n: usize,
    make: impl FnOnce(&mut [I]) -> Result<(), Error>,
) -> *const u8 {
    let mut ids = vec![I::default(); n];
    if let Err(e) = make(&mut ids) {
        fail(e);
        return std::ptr::null();
    }
    BATCH_BYTES.with(|b| {
        let mut b = b.borrow_mut();
        b.clear();
        for id in &ids {
            b.extend_from_slice(id.as_ref());
        }
        b.as_ptr()
    })
}

/// Reads the text form (`Display`) of `tag` from the first `len` bytes
/// of the io buffer ([`io_ptr`]): 0 and the id in the out words ([`out_ptr`]), or -1.
#[wasm_bindgen]
pub fn parse(tag: u32, len: usize) -> i32 {
    parse_slice(tag, &io_in(len))
}

/// Reads a base62 string from the io buffer ([`io_ptr`]) (v3's: zero-padded).
#[wasm_bindgen]
pub fn from_base62(tag: u32, len: usize) -> i32 {
    from_base62_slice(tag, &io_in(len))
}

/// Reads the big-endian bytes from the io buffer ([`io_ptr`]).
#[wasm_bindgen]
pub fn from_bytes(tag: u32, len: usize) -> i32 {
    from_bytes_slice(tag, &io_in(len))
}

/// Reads the bytes given by slice (inputs longer than [`IO_CAP`]).
#[wasm_bindgen]
pub fn from_bytes_slice(tag: u32, bytes: &[u8]) -> i32 {
    status(with_id!(tag, T => done(T::from_slice(bytes)), sno => done(Sno::from_slice(bytes))))
}

/// Reads the text form given by slice (inputs longer than [`IO_CAP`]).
#[wasm_bindgen]
pub fn parse_slice(tag: u32, s: &[u8]) -> i32 {
    status(with_id!(tag, T => done(T::parse_bytes(s)), sno => done(Sno::parse_bytes(s))))
}

/// Reads a base62 string given by slice (inputs longer than [`IO_CAP`]);
/// sno has no base62 form: its tag is refused.
#[wasm_bindgen]
pub fn from_base62_slice(tag: u32, s: &[u8]) -> i32 {
    status(with_id!(tag, T => done(T::from_base62(s))))
}

/// The id of an integer value (`to_u128`'s inverse).
#[wasm_bindgen]
pub fn from_u128(tag: u32, v: u128) -> i32 {
    status(with_id!(tag, T => done(T::from_u128(v)), sno => done(Sno::from_u128(v))))
}

/// The id's value as an integer; the failure value (`Failed::FAILED`) on error ([`take_error`]).
#[wasm_bindgen]
pub fn to_u128(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> u128 {
    let w = [w0, w1, w2, w3];
    value(with_id!(tag, T => id::<T>(w)?.to_u128(), sno => sno(w)?.to_u128()))
}

/// Writes the text form to the io buffer ([`io_ptr`]); its length, or -1.
#[wasm_bindgen]
pub fn to_string(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> i32 {
    let w = [w0, w1, w2, w3];
    let mut buf = [0u8; 36];
    status(
        with_id!(tag, T => io_out(id::<T>(w)?.encode(&mut buf).as_bytes()),
            sno => io_out(sno(w)?.encode(buf.first_chunk_mut().expect("36 > 16")).as_bytes())),
    )
}

/// Writes the base62 string to the io buffer ([`io_ptr`]); its length, or
/// -1 (sno has none: its tag is refused).
#[wasm_bindgen]
pub fn to_base62(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> i32 {
    let w = [w0, w1, w2, w3];
    let mut buf = [0u8; 22];
    status(with_id!(tag, T => io_out(id::<T>(w)?.encode_base62(&mut buf).as_bytes())))
}

/// Writes the bytes in lowercase hex to the io buffer ([`io_ptr`]); its
/// length, or -1.
#[wasm_bindgen]
pub fn to_hex(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> i32 {
    let w = [w0, w1, w2, w3];
    let s = with_id!(tag, T => format!("{:x}", id::<T>(w)?), sno => format!("{:x}", sno(w)?));
    status(s.map(|s| io_out(s.as_bytes())))
}

/// `a` against `b` (both of `tag`): -1, 0 or 1 (the ids' `Ord`);
/// the failure value (`Failed::FAILED`) on error.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn compare(
    tag: u32,
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    b2: u32,
    b3: u32,
) -> i32 {
    let (a, b) = ([a0, a1, a2, a3], [b0, b1, b2, b3]);
    let o = with_id!(tag, T => id::<T>(a)?.cmp(&id::<T>(b)?), sno => sno(a)?.cmp(&sno(b)?));
    value(o.map(|o| o as i32))
}

/// The node (0 for a local id; sno: the partition); the failure value (`Failed::FAILED`) on error.
#[wasm_bindgen]
pub fn node(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> u64 {
    let w = [w0, w1, w2, w3];
    value(with_id!(tag, T => id::<T>(w)?.node(), sno => sno(w)?.partition().into()))
}

/// The sequence (sno: its sequence); the failure value (`Failed::FAILED`) on error.
#[wasm_bindgen]
pub fn seq(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> u32 {
    let w = [w0, w1, w2, w3];
    value(with_id!(tag, T => id::<T>(w)?.seq().into(), sno => sno(w)?.sequence().into()))
}

/// The time in Unix ns (sno: `unix_ns`); the failure value (`Failed::FAILED`) on error.
#[wasm_bindgen]
pub fn time_ns(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> u64 {
    let w = [w0, w1, w2, w3];
    value(with_id!(tag, T => id::<T>(w)?.time(), sno => sno(w)?.unix_ns()))
}

/// The time as Unix ms, for a `Date` (v3 reads the direction as
/// `epoch` does); the failure value (`Failed::FAILED`) on error.
#[wasm_bindgen]
pub fn time_ms(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> f64 {
    let w = [w0, w1, w2, w3];
    value(with_id!(tag, T => id::<T>(w)?.epoch(), sno => sno(w)?.time()).map(ms_of))
}

/// The epoch time in signed Unix ns: `epoch`'s (exact), or with
/// `inverse` v2's `EpochI`, the inverse time `u64::MAX - time` read as
/// signed ns; the failure value (`Failed::FAILED`) on error. The crate's `epoch_i` gives that as a
/// `SystemTime`, which on `wasm32-unknown-unknown` cannot hold a time
/// before 1970 (it panics): its value is computed here in ns, as
/// `epoch_i` computes it.
#[wasm_bindgen]
pub fn epoch_ns(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32, inverse: bool) -> i64 {
    let w = [w0, w1, w2, w3];
    if inverse {
        let t = with_id!(tag, T => id::<T>(w)?.time(), sno => sno(w)?.unix_ns());
        return value(t.map(|t| (u64::MAX - t) as i64));
    }
    let t = with_id!(tag, T => id::<T>(w)?.epoch(), sno => sno(w)?.time());
    value(t.map(|t| match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        Err(e) => -(e.duration().as_nanos() as i64),
    }))
}

/// Whole Unix ms of a time (a `Date`'s), rounded down.
fn ms_of(t: SystemTime) -> f64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_millis() as f64,
        Err(e) => -(e.duration().as_nanos().div_ceil(1_000_000) as f64),
    }
}

/// The drift code (sno: the metabyte); the failure value (`Failed::FAILED`) on error.
#[wasm_bindgen]
pub fn drift(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> u32 {
    let w = [w0, w1, w2, w3];
    value(with_id!(tag, T => u8::from(id::<T>(w)?.drift()).into(), sno => sno(w)?.meta().into()))
}

/// The local id (`to_l64`) to the out words ([`out_ptr`]): 0 or -1.
#[wasm_bindgen]
pub fn to_local(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32) -> i32 {
    let w = [w0, w1, w2, w3];
    status(with_id!(tag, T => done(Ok(id::<T>(w)?.to_l64()))))
}

/// The id of parts (`from_parts`) to the out words ([`out_ptr`]); the
/// drift is a code. 0 or -1.
#[wasm_bindgen]
pub fn compose(tag: u32, node: u64, time_ns: u64, seq: u16, drift: u8) -> i32 {
    status(with_id!(tag, T => {
        let d = <T as Id>::Drift::try_from(drift)?;
        done(T::from_parts(node, time_ns, seq, d))
    }))
}

/// The zero id of a drift code (`Default` of the type at that drift; sno's
/// zero id): 0 or -1.
#[wasm_bindgen]
pub fn zero(tag: u32, code: u8) -> i32 {
    status(
        with_id!(tag, T => done(Ok(T::zero(<T as Id>::Drift::try_from(code)?))),
        sno => done(Ok(Sno::ZERO))),
    )
}

/// [`Id::MIN`] (`max` false) or [`Id::MAX`] to the out words
/// ([`out_ptr`]): 0 or -1.
#[wasm_bindgen]
pub fn bound(tag: u32, max: bool) -> i32 {
    status(
        with_id!(tag, T => done(Ok(if max { T::MAX } else { T::MIN })),
            sno => done(Ok(if max { Sno::MAX } else { Sno::MIN }))),
    )
}

/// Writes [`Id::split`]'s cells to the io buffer ([`io_ptr`]); their count, or -1.
#[wasm_bindgen]
pub fn split(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32, n: u32) -> i32 {
    let w = [w0, w1, w2, w3];
    status(with_id!(tag, T => io_out(&id::<T>(w)?.split(n)?)))
}

/// [`Id::fold`] of the first `len` cells in the io buffer ([`io_ptr`]).
#[wasm_bindgen]
pub fn fold(tag: u32, n: u32, len: usize) -> i32 {
    fold_slice(tag, n, &io_in(len))
}

/// [`Id::fold`] of cells given by slice (inputs longer than [`IO_CAP`]).
#[wasm_bindgen]
pub fn fold_slice(tag: u32, n: u32, cells: &[u8]) -> i32 {
    status(with_id!(tag, T => done(T::fold(n, cells))))
}

/// Go's `Diff` of `a` and `b` to the out words ([`out_ptr`]): 0 or -1.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn diff(
    tag: u32,
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    b2: u32,
    b3: u32,
) -> i32 {
    let (a, b) = ([a0, a1, a2, a3], [b0, b1, b2, b3]);
    status(with_id!(tag, T => done(Ok(id::<T>(a)?.diff(&id(b)?)))))
}

/// v3's `cmp_ring` of `a` and `b` against a node reference: -1, 0 or 1;
/// the failure value (`Failed::FAILED`) on error. Of [`XUID`]s if `xuid`, else of [`V3_GUID`]s,
/// whose reference is taken modulo 2^32, as Go's `OrdRingG` takes its
/// 64-bit one.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn cmp_ring(
    xuid: bool,
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    b2: u32,
    b3: u32,
    reference: u64,
) -> i32 {
    let (a, b) = ([a0, a1, a2, a3], [b0, b1, b2, b3]);
    let o = match xuid {
        true => id::<v3::Xuid>(a).and_then(|a| Ok(a.cmp_ring(&id(b)?, reference))),
        false => id::<v3::Guid>(a).and_then(|a| Ok(a.cmp_ring(&id(b)?, reference as u32))),
    };
    value(o.map(|o| o as i32))
}

/// The casts between the types, to the out words ([`out_ptr`]): `to` is the target tag, `node`
/// the node a local id is stamped with.
///
/// | from | to | what |
/// |---|---|---|
/// | [`LUID`] | [`GUID`] | `Luid::to_g(node)` |
/// | [`GUID`] | [`V3_GUID`] | `v3::Guid::from_v2` |
/// | [`LUID`] | [`V3_LUID`] | `v3::Luid::from_v2` |
/// | [`V3_LUID`] | [`V3_GUID`] | `v3::Luid::to_g(node)` |
/// | [`V3_LUID`] | [`XUID`] | `v3::Luid::to_x(node)` |
/// | [`V3_GUID`] | [`XUID`] | `Xuid::from` |
/// | [`XUID`] | [`V3_GUID`] | `v3::Guid::try_from` |
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn cast(tag: u32, w0: u32, w1: u32, w2: u32, w3: u32, to: u32, node: u64) -> i32 {
    let w = [w0, w1, w2, w3];
    let node32 = || {
        u32::try_from(node).map_err(|_| {
            Error::from(ErrorKind::Part {
                name: "node",
                value: node,
                max: u32::MAX.into(),
            })
        })
    };
    status((|| {
        Ok(match (tag, to) {
            (LUID, GUID) => done(Ok(id::<guid::Luid>(w)?.to_g(node32()?))),
            (GUID, V3_GUID) => done(Ok(v3::Guid::from_v2(id(w)?))),
            (LUID, V3_LUID) => done(Ok(v3::Luid::from_v2(id(w)?))),
            (V3_LUID, V3_GUID) => done(Ok(id::<v3::Luid>(w)?.to_g(node32()?))),
            (V3_LUID, XUID) => done(id::<v3::Luid>(w)?.to_x(node)),
            (V3_GUID, XUID) => done(Ok(v3::Xuid::from(id::<v3::Guid>(w)?))),
            (XUID, V3_GUID) => done(v3::Guid::try_from(id::<v3::Xuid>(w)?)),
            _ => fail(Error::from(ErrorKind::Part {
                name: "cast",
                value: u64::from(tag) << 8 | u64::from(to),
                max: 0,
            })),
        })
    })())
}

/// `v3::Guid::from_v2_str` (`base62` false) or `from_v2_base62` of the
/// first `len` bytes of the io buffer ([`io_ptr`]).
#[wasm_bindgen]
pub fn v3_from_v2_text(len: usize, base62: bool) -> i32 {
    v3_from_v2_slice(&io_in(len), base62)
}

/// [`v3_from_v2_text`] of text given by slice (inputs longer than
/// [`IO_CAP`]).
#[wasm_bindgen]
pub fn v3_from_v2_slice(s: &[u8], base62: bool) -> i32 {
    if base62 {
        done(v3::Guid::from_v2_base62(s))
    } else {
        done(v3::Guid::from_v2_str(s))
    }
}

/// The signed form (`to_i64`) of a local id, v3's if `v3`, else v2's;
/// the failure value (`Failed::FAILED`) on error.
#[wasm_bindgen]
pub fn local_to_i64(v3: bool, w0: u32, w1: u32) -> i64 {
    let w = [w0, w1, 0, 0];
    value(match v3 {
        true => id::<v3::Luid>(w).map(v3::Luid::to_i64),
        false => id::<guid::Luid>(w).map(guid::Luid::to_i64),
    })
}

/// The local id (v3's if `v3`, else v2's) of a signed form (`from_i64`)
/// to the out words ([`out_ptr`]): 0 or -1.
#[wasm_bindgen]
pub fn local_from_i64(v3: bool, v: i64) -> i32 {
    match v3 {
        true => done(Ok(v3::Luid::from_i64(v))),
        false => done(guid::Luid::from_i64(v)),
    }
}

/// The smallest v2 local id at a time (`Luid::from_time`).
#[wasm_bindgen]
pub fn luid_from_time(time_ns: u64, drift: u8) -> i32 {
    let at = UNIX_EPOCH + Duration::from_nanos(time_ns);
    done(guid::Drift::new(drift).map(|d| guid::Luid::from_time(at, d)))
}

/// A v2 drift: its code for a skew in ns (`Drift::from_nanos`).
#[wasm_bindgen]
pub fn drift_of(v3: bool, skew_ns: i64) -> u32 {
    if v3 {
        v3::Drift::from_nanos(skew_ns).code().into()
    } else {
        guid::Drift::from_nanos(skew_ns).code().into()
    }
}

/// A drift's window in ns (0 for a code the generation lacks).
#[wasm_bindgen]
pub fn drift_window_ns(v3: bool, code: u8) -> u64 {
    let w = if v3 {
        v3::Drift::new(code).map(v3::Drift::window)
    } else {
        guid::Drift::new(code).map(guid::Drift::window)
    };
    w.map_or(0, |w| w.as_nanos() as u64)
}

/// A v3 drift's bits (0 for a code past 7).
#[wasm_bindgen]
pub fn v3_drift_bits(code: u8) -> u32 {
    v3::Drift::new(code).map_or(0, v3::Drift::bits)
}

/// Writes a drift's `Display` to the io buffer ([`io_ptr`]); its length.
#[wasm_bindgen]
pub fn drift_string(v3: bool, code: u8) -> i32 {
    let s = if v3 {
        v3::Drift::new(code).map(|d| d.to_string())
    } else {
        guid::Drift::new(code).map(|d| d.to_string())
    };
    match s {
        Ok(s) => io_out(s.as_bytes()),
        Err(e) => fail(e),
    }
}

/// The node of a name, as `CONFIG_GUID_NODE_ID` names it (v2: 32 bits,
/// v3: 58).
#[wasm_bindgen]
pub fn node_from_name(v3: bool, name: &str) -> u64 {
    if v3 {
        v3::node::from_name(name)
    } else {
        guid::node::from_name(name).into()
    }
}

/// Sno's parts by `which`: 0 its `units`, 1 its tick-tock, 2 whether it
/// is the zero id (0 or 1); the failure value (`Failed::FAILED`) on error.
#[wasm_bindgen]
pub fn sno_part(which: u32, w0: u32, w1: u32, w2: u32) -> u64 {
    value(sno([w0, w1, w2, 0]).and_then(|s| match which {
        0 => Ok(s.units()),
        1 => Ok(s.tick().into()),
        2 => Ok(s.is_zero().into()),
        _ => Err(Error::from(ErrorKind::Range {
            name: "which",
            value: which.into(),
            min: 0,
            max: 2,
        })),
    }))
}

/// The sno id of parts (`Sno::compose`) to the out words ([`out_ptr`]).
#[wasm_bindgen]
pub fn sno_compose(unix_ns: u64, tick: bool, meta: u8, partition: u16, sequence: u16) -> i32 {
    done(Sno::compose(unix_ns, tick, meta, partition, sequence))
}

/// A 96-bit clock class reading the time the calls pass: `make`, `next`
/// and `fill` of the ids of its tags (`$tag => try_ form, try_ fill`),
/// `node`, `drift` and `snapshot`. `$set_node` puts a chosen node on the
/// builder `b` (v3's refuses a node past 58 bits).
macro_rules! clock_class {
    (
        $(#[$meta:meta])*
        $js:ident($inner:ty), drift: $drift:ty, node: $node:ty,
        set_node: |$b:ident, $n:ident| $set_node:expr,
        ids: [$($tag:ident => $next:ident, $fill:ident),+], tags: $min:ident..=$max:ident
    ) => {
        $(#[$meta])*
        #[wasm_bindgen]
        pub struct $js($inner);

        #[wasm_bindgen]
        impl $js {
            /// A clock of `node` (a random one if none), drift code
            /// `drift`, counting down if `inverse`; `restore` continues
            /// after a snapshot. `undefined` on error ([`take_error`]).
            pub fn make(
                node: Option<$node>,
                drift: u8,
                inverse: bool,
                restore: Option<u64>,
                t_ms: f64,
            ) -> Option<$js> {
                set_time(t_ms);
                ok((|| {
                    let d = <$drift>::new(drift)?;
                    let mut $b = <$inner>::builder().time(js_time).drift(d);
                    if let Some($n) = node {
                        $b = $set_node;
                    }
                    if inverse {
                        $b = $b.inverse();
                    }
                    if let Some(s) = restore {
                        $b = $b.restore(guid::Snapshot::try_from(s)?);
                    }
                    Ok($js($b.build()))
                })())
            }

            /// A new id of `tag` to the out words ([`out_ptr`]): 0, or -1
            /// with the error kept.
            pub fn next(&self, tag: u32, t_ms: f64) -> i32 {
                set_time(t_ms);
                match tag {
                    $($tag => issue(&self.0, <$inner>::$next),)+
                    tag => fail(bad_tag(tag, $min, $max)),
                }
            }

            /// `n` ids of `tag` into the batch buffer; its address, or
            /// null with the error kept.
            pub fn fill(&self, tag: u32, n: usize, t_ms: f64) -> *const u8 {
                set_time(t_ms);
                match tag {
                    $($tag => batch(&self.0, n, <$inner>::$fill),)+
                    tag => {
                        fail(bad_tag(tag, $min, $max));
                        std::ptr::null()
                    }
                }
            }

            /// The node.
            pub fn node(&self) -> $node {
                self.0.node()
            }

            /// The drift code.
            pub fn drift(&self) -> u32 {
                self.0.drift().code().into()
            }

            /// The state after the last id ([`guid::Snapshot`]).
            pub fn snapshot(&self) -> u64 {
                self.0.snapshot().into()
            }
        }
    };
}

clock_class!(
    /// A v2 clock ([`guid::Clock`]).
    ClockV2(guid::Clock), drift: guid::Drift, node: u32,
    set_node: |b, n| b.node(n),
    ids: [GUID => try_g, try_fill, LUID => try_l, try_fill_l], tags: GUID..=LUID
);

clock_class!(
    /// A v3 clock ([`v3::Clock`]), of a 58-bit node.
    ClockV3(v3::Clock), drift: v3::Drift, node: u64,
    set_node: |b, n| b.node(n)?,
    ids: [V3_GUID => try_g, try_fill, V3_LUID => try_l, try_fill_l, XUID => try_x, try_fill_x],
    tags: V3_GUID..=XUID
);

#[wasm_bindgen]
impl ClockV2 {
    /// The global id of one of this clock's local ids (`from_l64`) to
    /// the out words ([`out_ptr`]): 0 or -1.
    pub fn from_local(&self, w0: u32, w1: u32) -> i32 {
        done(id([w0, w1, 0, 0]).map(|l| self.0.from_l64(l)))
    }
}

#[wasm_bindgen]
impl ClockV3 {
    /// The id (an [`XUID`] if `xuid`, else a [`V3_GUID`]) of one of this
    /// clock's local ids to the out words ([`out_ptr`]): 0 or -1.
    pub fn from_local(&self, xuid: bool, w0: u32, w1: u32) -> i32 {
        let l = match id::<v3::Luid>([w0, w1, 0, 0]) {
            Ok(l) => l,
            Err(e) => return fail(e),
        };
        match xuid {
            true => done(Ok(self.0.x_from_l64(l))),
            false => done(Ok(self.0.from_l64(l))),
        }
    }

    /// The first id of `tag` at Unix ns `time_ns` (`from_time`) to the out
    /// words ([`out_ptr`]): 0 or -1.
    pub fn from_time(&self, tag: u32, time_ns: u64) -> i32 {
        let at = UNIX_EPOCH + Duration::from_nanos(time_ns);
        match tag {
            V3_GUID => done(Ok(v3::Guid::from_time(&self.0, at))),
            V3_LUID => done(Ok(v3::Luid::from_time(&self.0, at))),
            XUID => done(Ok(v3::Xuid::from_time(&self.0, at))),
            tag => fail(bad_tag(tag, V3_GUID, XUID)),
        }
    }
}

/// A sno generator ([`Generator`]) reading the time the calls pass.
#[wasm_bindgen]
pub struct SnoGenerator(Generator);

#[wasm_bindgen]
impl SnoGenerator {
    /// A generator of `partition` (a drawn one if none) and sequence
    /// bounds, or restored from a snapshot's fields (`snapshot`: partition,
    /// sequence_min, sequence_max, sequence, now, wall_hi, wall_safe,
    /// drifts, each within its field's type). `undefined` on error
    /// ([`take_error`]).
    pub fn make(
        partition: Option<u16>,
        sequence_min: Option<u16>,
        sequence_max: Option<u16>,
        snapshot: Option<Vec<i64>>,
        t_ms: f64,
    ) -> Option<SnoGenerator> {
        set_time(t_ms);
        let mut b = Generator::builder().time(js_time);
        if let Some(p) = partition {
            b = b.partition(p);
        }
        if let Some(s) = sequence_min {
            b = b.sequence_min(s);
        }
        if let Some(s) = sequence_max {
            b = b.sequence_max(s);
        }
        if let Some(&[p, s_min, s_max, seq, now, wall_hi, wall_safe, drifts]) = snapshot.as_deref()
        {
            b = b.restore(guid::sno::Snapshot {
                partition: p as u16,
                sequence_min: s_min as u16,
                sequence_max: s_max as u16,
                sequence: seq as u32,
                now,
                wall_hi,
                wall_safe,
                drifts: drifts as u32,
            });
        }
        ok(b.build()).map(SnoGenerator)
    }

    /// A new id with metabyte `meta` to the out words ([`out_ptr`])
    /// (`try_next`): 0, or -1 with the error kept.
    pub fn next(&self, meta: u8, t_ms: f64) -> i32 {
        set_time(t_ms);
        done(self.0.try_next(meta))
    }

    /// An id of the time `unix_ns` (sno's `NewWithTime`) to the out words
    /// ([`out_ptr`]): 0 or -1.
    pub fn next_with_time(&self, meta: u8, unix_ns: u64) -> i32 {
        let at = UNIX_EPOCH + Duration::from_nanos(unix_ns);
        done(self.0.next_with_time(meta, at))
    }

    /// The snapshot's fields, in [`SnoGenerator::make`]'s order.
    pub fn snapshot(&self) -> Vec<i64> {
        let s = self.0.snapshot();
        vec![
            s.partition.into(),
            s.sequence_min.into(),
            s.sequence_max.into(),
            s.sequence.into(),
            s.now,
            s.wall_hi,
            s.wall_safe,
            s.drifts.into(),
        ]
    }

    /// The partition.
    pub fn partition(&self) -> u32 {
        self.0.partition().into()
    }
}

/// A flake layout ([`flake::Layout`]).
#[wasm_bindgen]
#[derive(Clone, Copy)]
pub struct FlakeLayout(flake::Layout);

#[wasm_bindgen]
impl FlakeLayout {
    /// A layout of `time + node + seq = 63` bits; a unit of `unit_ns`
    /// (`None`: 1 ms) since Unix ms `epoch_ms` (`None`: Twitter's epoch).
    /// `undefined` on error ([`take_error`]).
    pub fn make(
        time: u32,
        node: u32,
        seq: u32,
        unit_ns: Option<u64>,
        epoch_ms: Option<u64>,
    ) -> Option<FlakeLayout> {
        let made = (|| {
            let mut l = flake::Layout::new(time, node, seq)?;
            if let Some(ns) = unit_ns {
                l = l.with_unit(Duration::from_nanos(ns))?;
            }
            if let Some(ms) = epoch_ms {
                l = l.with_epoch_ms(ms);
            }
            Ok::<_, Error>(l)
        })();
        ok(made).map(FlakeLayout)
    }

    /// Bits of time, node and sequence.
    pub fn bits(&self) -> Vec<u32> {
        vec![self.0.time_bits(), self.0.node_bits(), self.0.seq_bits()]
    }

    /// The unit in ns.
    pub fn unit_ns(&self) -> u64 {
        self.0.unit().as_nanos() as u64
    }

    /// The epoch in Unix ms.
    pub fn epoch_ms(&self) -> f64 {
        ms_of(self.0.epoch())
    }

    /// The id of parts; `undefined` on error ([`take_error`]).
    pub fn compose(&self, time: u64, node: u64, seq: u64) -> Option<u64> {
        self.0.compose(time, node, seq).map_err(fail).ok()
    }

    /// The parts of an id: time units, node, sequence; `undefined` on
    /// error ([`take_error`]).
    pub fn decompose(&self, id: u64) -> Option<Vec<u64>> {
        let p = self.0.decompose(id).map_err(fail).ok()?;
        Some(vec![p.time, p.node, p.seq])
    }

    /// The time of an id in Unix ms; `undefined` on error.
    pub fn time_ms(&self, id: u64) -> Option<f64> {
        self.0.time_of(id).map(ms_of).map_err(fail).ok()
    }
}

/// A flake clock ([`flake::Clock`]) reading the time the calls pass. It
/// never waits (JavaScript cannot block): its ids borrow units ahead
/// without bound when a unit's sequence runs out, as the 96-bit clocks do.
#[wasm_bindgen]
pub struct FlakeClock(flake::Clock);

#[wasm_bindgen]
impl FlakeClock {
    /// A clock of `layout` and `node`; `undefined` on error.
    pub fn make(layout: &FlakeLayout, node: u64, t_ms: f64) -> Option<FlakeClock> {
        set_time(t_ms);
        flake::Clock::builder(layout.0)
            .node(node)
            .time(js_time)
            .max_lead(Duration::MAX)
            .build()
            .map(FlakeClock)
            .map_err(fail)
            .ok()
    }

    /// A new id; `undefined` on error.
    pub fn next(&self, t_ms: f64) -> Option<u64> {
        set_time(t_ms);
        self.0.next().map_err(fail).ok()
    }

    /// `n` ids into the batch buffer; its address (`u64`s), null on error.
    pub fn fill(&self, n: usize, t_ms: f64) -> *const u64 {
        set_time(t_ms);
        BATCH_U64.with(|b| {
            let mut b = b.borrow_mut();
            b.clear();
            b.resize(n, 0);
            match self.0.fill(&mut b) {
                Ok(()) => b.as_ptr(),
                Err(e) => {
                    fail(e);
                    std::ptr::null()
                }
            }
        })
    }

    /// The node.
    pub fn node(&self) -> u64 {
        self.0.node()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out() -> [u32; 4] {
        [0, 1, 2, 3].map(|i| OUT[i].load(Relaxed))
    }

    fn text(len: i32) -> String {
        String::from_utf8(io_in(len as usize)).unwrap()
    }

    #[test]
    fn ids_cross_as_words() {
        set_time_ns(1_700_000_000_000_000_000);
        assert_eq!(
            compose(GUID, 0x53051caf, 1_700_000_000_000_000_000, 7, 3),
            0
        );
        let w = out();
        let g = guid::Guid::compose(
            0x53051caf,
            1_700_000_000_000_000_000,
            7,
            guid::Drift::DEFAULT,
        )
        .unwrap();
        assert_eq!(to_u128(GUID, w[0], w[1], w[2], w[3]), g.to_u128());
        let s = g.to_string();
        assert_eq!(text(to_string(GUID, w[0], w[1], w[2], w[3])), s);
        for (i, b) in s.bytes().enumerate() {
            IO[i].store(b, Relaxed);
        }
        assert_eq!(parse(GUID, s.len()), 0);
        assert_eq!(out(), w);
        assert_eq!(node(GUID, w[0], w[1], w[2], w[3]), 0x53051caf);
        assert_eq!(seq(GUID, w[0], w[1], w[2], w[3]), 7);
    }

    #[test]
    fn clocks_read_the_time_passed() {
        now_g(1_700_000_000_000.0);
        let a = out();
        now_g(1_700_000_000_000.0);
        let b = out();
        assert_eq!(
            compare(GUID, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]),
            -1
        );
        let t = time_ns(GUID, b[0], b[1], b[2], b[3]);
        assert_eq!(t, 1_700_000_000_000_000_000 >> 17 << 17);
    }

    /// Every id call of both 96-bit clocks, its failure kept: the kinds of
    /// the errors (empty where a call made its id).
    fn refusals(v2: &ClockV2, v3c: &ClockV3) -> Vec<&'static str> {
        let calls: [&dyn Fn() -> bool; 10] = [
            &|| v2.next(GUID, f64::NAN) == -1,
            &|| v2.next(LUID, f64::NAN) == -1,
            &|| v2.fill(GUID, 2, f64::NAN).is_null(),
            &|| v2.fill(LUID, 2, f64::NAN).is_null(),
            &|| v3c.next(V3_GUID, f64::NAN) == -1,
            &|| v3c.next(V3_LUID, f64::NAN) == -1,
            &|| v3c.next(XUID, f64::NAN) == -1,
            &|| v3c.fill(V3_GUID, 2, f64::NAN).is_null(),
            &|| v3c.fill(V3_LUID, 2, f64::NAN).is_null(),
            &|| v3c.fill(XUID, 2, f64::NAN).is_null(),
        ];
        calls
            .iter()
            .map(|call| match call() {
                true => {
                    LAST_ERROR.with(|l| l.borrow_mut().take().map_or("", |e| describe(e.kind()).0))
                }
                false => "",
            })
            .collect()
    }

    /// A clock with no id left refuses every call with the crate's typed
    /// error (kind `UsedUp`), from the crate's `try_` forms: no trap.
    #[test]
    fn a_used_up_clock_keeps_the_crates_typed_error() {
        const MAX_STATE: u64 = ((1 << 47) - 1) << 14 | ((1 << 14) - 1);
        let v2 = ClockV2::make(Some(1), 3, false, Some(MAX_STATE), 1.7e12).unwrap();
        let v3c = ClockV3::make(Some(1), 3, false, Some(MAX_STATE), 1.7e12).unwrap();
        assert_eq!(refusals(&v2, &v3c), ["UsedUp"; 10]);
        assert_eq!((v2.snapshot(), v3c.snapshot()), (MAX_STATE, MAX_STATE));
    }

    /// In a forked child a clock with a chosen node refuses every call
    /// with the crate's typed error (kind `Forked`). WebAssembly has no
    /// fork: this is the native build of the same calls.
    #[cfg(unix)]
    #[test]
    fn a_forked_child_keeps_the_crates_typed_error() {
        unsafe extern "C" {
            fn fork() -> i32;
            fn _exit(code: i32) -> !;
            fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
        }
        let v2 = ClockV2::make(Some(7), 3, false, None, 1.7e12).unwrap();
        let v3c = ClockV3::make(Some(7), 3, false, None, 1.7e12).unwrap();
        assert_eq!(refusals(&v2, &v3c), [""; 10], "the parent makes ids");
        // SAFETY: the child only calls the clocks and leaves with `_exit`.
        let pid = unsafe { fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let forked = refusals(&v2, &v3c) == ["Forked"; 10];
            // SAFETY: leaving the child without the parent's destructors.
            unsafe { _exit(if forked { 0 } else { 1 }) };
        }
        let mut status = -1;
        // SAFETY: `status` is a valid place for the child's status.
        assert_eq!(unsafe { waitpid(pid, &mut status, 0) }, pid);
        assert_eq!(status, 0, "every call refused with Forked in the child");
        assert_eq!(refusals(&v2, &v3c), [""; 10], "the parent goes on");
    }

    /// A clock's calls take the tags of its own generation's ids only: any
    /// other is the call's error, never an id of another type.
    #[test]
    fn a_clock_refuses_the_tags_of_other_ids() {
        let v2 = ClockV2::make(Some(1), 3, false, None, 1.7e12).unwrap();
        let v3c = ClockV3::make(Some(1), 3, false, None, 1.7e12).unwrap();
        let kept = || LAST_ERROR.with(|l| l.borrow_mut().take()).map(|e| e.kind());
        let tag_error = |value: u32, min: u64, max: u64| {
            Some(ErrorKind::Range {
                name: "tag",
                value: value.into(),
                min,
                max,
            })
        };
        for tag in [V3_GUID, XUID, SNO, 99] {
            assert_eq!(v2.next(tag, f64::NAN), -1);
            assert_eq!(kept(), tag_error(tag, 0, 1));
            assert!(v2.fill(tag, 2, f64::NAN).is_null());
            assert_eq!(kept(), tag_error(tag, 0, 1));
        }
        for tag in [GUID, LUID, SNO, 99] {
            assert_eq!(v3c.next(tag, f64::NAN), -1);
            assert_eq!(kept(), tag_error(tag, 2, 4));
            assert!(v3c.fill(tag, 2, f64::NAN).is_null());
            assert_eq!(kept(), tag_error(tag, 2, 4));
            assert_eq!(v3c.from_time(tag, 1_700_000_000_000_000_000), -1);
            assert_eq!(kept(), tag_error(tag, 2, 4));
        }
    }

    #[test]
    fn a_bad_string_keeps_its_error() {
        assert_eq!(parse(GUID, 3), -1);
        let e = LAST_ERROR.with(|l| l.borrow_mut().take()).unwrap();
        assert!(matches!(
            e.kind(),
            ErrorKind::Length {
                expected: 16,
                found: 3
            }
        ));
        assert_eq!(describe(e.kind()).0, "Length");
    }
}
