//! The `guid` and `luid` types: input and output in the sortable string
//! form, binary send and receive as the ids' big-endian bytes, the library's
//! order and a hash for indexes, casts, and the parts of an id.
//!
//! A `guid` datum points to its 12 bytes; a `luid` datum is its 64-bit
//! value (`Luid::to_u64`), passed by value. Every value that reaches a
//! datum went through a decoder of the library, so a datum is a valid id.

use std::cmp::Ordering;
use std::ffi::{CStr, c_int};
use std::time::{Duration, UNIX_EPOCH};

use guid::v3::Xuid;
use guid::{Drift, Guid, Id, Luid};
use pgrx::PgSqlErrorCode::{
    ERRCODE_DATETIME_FIELD_OVERFLOW, ERRCODE_INVALID_BINARY_REPRESENTATION,
    ERRCODE_INVALID_PARAMETER_VALUE, ERRCODE_INVALID_TEXT_REPRESENTATION,
};
use pgrx::pg_sys::{self, Datum, FunctionCallInfo};

use crate::{arg, bytea, bytea_bytes, fail, functions, palloc_bytes, palloc_cstring};

// The hash functions of PostgreSQL's common library (`hashfn.h`), which the
// server exports: the hashes of `hash_any`, as every built-in type uses.
unsafe extern "C" {
    fn hash_bytes(k: *const u8, keylen: c_int) -> u32;
    fn hash_bytes_extended(k: *const u8, keylen: c_int, seed: u64) -> u64;
}

/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01).
const PG_EPOCH_US: i64 = 946_684_800_000_000;

/// The `guid` argument `n`.
///
/// # Safety
/// Argument `n` of `fcinfo` is a `guid`.
pub(crate) unsafe fn guid_arg(fcinfo: FunctionCallInfo, n: usize) -> Guid {
    // SAFETY: a guid datum points to its 12 bytes.
    let bytes = unsafe { *arg(fcinfo, n).cast_mut_ptr::<[u8; 12]>() };
    Guid::from_bytes(bytes).unwrap_or_else(|e| damaged("guid", e))
}

/// The `luid` argument `n`.
///
/// # Safety
/// Argument `n` of `fcinfo` is a `luid`.
pub(crate) unsafe fn luid_arg(fcinfo: FunctionCallInfo, n: usize) -> Luid {
    let value = unsafe { arg(fcinfo, n) }.value() as u64;
    Luid::from_u64(value).unwrap_or_else(|e| damaged("luid", e))
}

/// The v3 id of the `uuid` argument `n`; a uuid that is not one is an
/// error.
///
/// # Safety
/// Argument `n` of `fcinfo` is a `uuid`.
pub(crate) unsafe fn xuid_arg(fcinfo: FunctionCallInfo, n: usize) -> Xuid {
    // SAFETY: a uuid datum points to its 16 bytes.
    let bytes = unsafe { *arg(fcinfo, n).cast_mut_ptr::<[u8; 16]>() };
    Xuid::from_bytes(bytes).unwrap_or_else(|e| {
        fail(
            ERRCODE_INVALID_PARAMETER_VALUE,
            "the uuid is not a kguid v3 id (a UUIDv8 of its layout)".into(),
            Some(e.to_string()),
        )
    })
}

/// The `uuid` datum of a v3 id.
pub(crate) fn xuid_datum(id: Xuid) -> Datum {
    palloc_bytes(id.as_bytes())
}

/// The datum of a `guid`.
pub(crate) fn guid_datum(id: Guid) -> Datum {
    palloc_bytes(id.as_bytes())
}

/// The datum of a `luid`.
pub(crate) fn luid_datum(id: Luid) -> Datum {
    Datum::from(id.to_u64())
}

/// A stored value that no decoder made: only a damaged page holds one.
#[cold]
fn damaged(kind: &str, e: guid::Error) -> ! {
    fail(
        pgrx::PgSqlErrorCode::ERRCODE_DATA_CORRUPTED,
        format!("a stored {kind} is not an id"),
        Some(e.to_string()),
    )
}

/// The string of the cstring argument `n`.
unsafe fn cstring_arg<'a>(fcinfo: FunctionCallInfo, n: usize) -> &'a [u8] {
    // SAFETY: a cstring datum points to a NUL-terminated string.
    unsafe { CStr::from_ptr(arg(fcinfo, n).cast_mut_ptr()) }.to_bytes()
}

/// Parses a type's input string, or raises PostgreSQL's error for it.
fn parse<I: Id>(kind: &str, text: &[u8]) -> I {
    I::parse_bytes(text).unwrap_or_else(|e| {
        fail(
            ERRCODE_INVALID_TEXT_REPRESENTATION,
            format!(
                "invalid input syntax for type {kind}: \"{}\"",
                String::from_utf8_lossy(text)
            ),
            Some(e.to_string()),
        )
    })
}

/// Reads an id's bytes from a binary message (`StringInfo`) or a `bytea`,
/// or raises the error for bytes that are not one.
fn from_bytes<I: Id>(kind: &str, bytes: &[u8]) -> I {
    I::from_slice(bytes).unwrap_or_else(|e| {
        fail(
            ERRCODE_INVALID_BINARY_REPRESENTATION,
            format!("invalid {kind} bytes ({} bytes)", bytes.len()),
            Some(e.to_string()),
        )
    })
}

/// The bytes left in the receive buffer argument 0, all taken.
unsafe fn message_bytes<'a>(fcinfo: FunctionCallInfo) -> &'a [u8] {
    unsafe {
        let buf = arg(fcinfo, 0).cast_mut_ptr::<pg_sys::StringInfoData>();
        let len = (*buf).len - (*buf).cursor;
        let p = pg_sys::pq_getmsgbytes(buf, len);
        std::slice::from_raw_parts(p.cast::<u8>(), len as usize)
    }
}

/// An `int4` datum of an ordering (-1, 0, 1), for btree support.
fn ordering(o: Ordering) -> Datum {
    Datum::from(o as i32)
}

/// A `timestamptz` of Unix nanoseconds (kept to microseconds).
pub(crate) fn timestamptz(ns: u64) -> Datum {
    Datum::from((ns / 1_000) as i64 - PG_EPOCH_US)
}

/// The time of the `timestamptz` argument `n`, Unix ns; refused before
/// 1970, past the ids' range (the year 2554) and at infinity.
pub(crate) unsafe fn time_arg(fcinfo: FunctionCallInfo, n: usize) -> u64 {
    let us = unsafe { arg(fcinfo, n) }.value() as i64;
    let ns = (us != i64::MAX)
        .then(|| us.checked_add(PG_EPOCH_US))
        .flatten()
        .and_then(|unix_us| u64::try_from(unix_us).ok())
        .and_then(|unix_us| unix_us.checked_mul(1_000));
    ns.unwrap_or_else(|| {
        fail(
            ERRCODE_DATETIME_FIELD_OVERFLOW,
            "ids have times from 1970-01-01 to the year 2554, not infinity".into(),
            None,
        )
    })
}

/// The drift of the `int4` argument `n`.
unsafe fn drift_arg(fcinfo: FunctionCallInfo, n: usize) -> Drift {
    let code = unsafe { arg(fcinfo, n) }.value() as i32;
    u8::try_from(code)
        .map_err(|_| guid::ErrorKind::Drift.into())
        .and_then(Drift::new)
        .unwrap_or_else(|e: guid::Error| {
            fail(
                ERRCODE_INVALID_PARAMETER_VALUE,
                format!("drift must be a code in 1..=7, not {code}"),
                Some(e.to_string()),
            )
        })
}

/// The `guid` of the node and drift at the start of the tick of `ns`.
pub(crate) fn guid_at(ns: u64, node: u32, drift: Drift) -> Guid {
    Guid::compose(node, ns, 0, drift).expect("every u64 of ns is in the tick range")
}

/// A hash of an id's bytes, as `hash_any` makes it.
fn hash(bytes: &[u8]) -> Datum {
    // SAFETY: `bytes` is valid for its length.
    Datum::from(unsafe { hash_bytes(bytes.as_ptr(), bytes.len() as c_int) })
}

/// A seeded 64-bit hash of an id's bytes, as `hash_any_extended` makes it.
fn hash_extended(bytes: &[u8], seed: Datum) -> Datum {
    // SAFETY: `bytes` is valid for its length.
    Datum::from(unsafe {
        hash_bytes_extended(bytes.as_ptr(), bytes.len() as c_int, seed.value() as u64)
    })
}

/// The order, equality and hashing of one id type, in the library's order:
/// the functions of its btree and hash operator classes and of `min`/`max`.
macro_rules! ordered {
    ($arg:ident, $datum:ident;
     cmp: $cmp_finfo:ident => $cmp:ident,
     ops: [$($op_finfo:ident => $op_name:ident($op:tt)),* $(,)?],
     smaller: $min_finfo:ident => $min:ident,
     larger: $max_finfo:ident => $max:ident,
     hash: $hash_finfo:ident => $hash:ident,
     hash_extended: $hashx_finfo:ident => $hashx:ident $(,)?) => {
        functions! {
            $cmp_finfo => fn $cmp(fcinfo) {
                ordering($arg(fcinfo, 0).cmp(&$arg(fcinfo, 1)))
            }
            $($op_finfo => fn $op_name(fcinfo) {
                Datum::from($arg(fcinfo, 0) $op $arg(fcinfo, 1))
            })*
            $min_finfo => fn $min(fcinfo) {
                $datum($arg(fcinfo, 0).min($arg(fcinfo, 1)))
            }
            $max_finfo => fn $max(fcinfo) {
                $datum($arg(fcinfo, 0).max($arg(fcinfo, 1)))
            }
            $hash_finfo => fn $hash(fcinfo) {
                hash($arg(fcinfo, 0).as_bytes())
            }
            $hashx_finfo => fn $hashx(fcinfo) {
                hash_extended($arg(fcinfo, 0).as_bytes(), arg(fcinfo, 1))
            }
        }
    };
}

ordered! {
    guid_arg, guid_datum;
    cmp: pg_finfo_kguid_guid_cmp => kguid_guid_cmp,
    ops: [
        pg_finfo_kguid_guid_lt => kguid_guid_lt(<),
        pg_finfo_kguid_guid_le => kguid_guid_le(<=),
        pg_finfo_kguid_guid_eq => kguid_guid_eq(==),
        pg_finfo_kguid_guid_ne => kguid_guid_ne(!=),
        pg_finfo_kguid_guid_ge => kguid_guid_ge(>=),
        pg_finfo_kguid_guid_gt => kguid_guid_gt(>),
    ],
    smaller: pg_finfo_kguid_guid_smaller => kguid_guid_smaller,
    larger: pg_finfo_kguid_guid_larger => kguid_guid_larger,
    hash: pg_finfo_kguid_guid_hash => kguid_guid_hash,
    hash_extended: pg_finfo_kguid_guid_hash_extended => kguid_guid_hash_extended,
}

ordered! {
    luid_arg, luid_datum;
    cmp: pg_finfo_kguid_luid_cmp => kguid_luid_cmp,
    ops: [
        pg_finfo_kguid_luid_lt => kguid_luid_lt(<),
        pg_finfo_kguid_luid_le => kguid_luid_le(<=),
        pg_finfo_kguid_luid_eq => kguid_luid_eq(==),
        pg_finfo_kguid_luid_ne => kguid_luid_ne(!=),
        pg_finfo_kguid_luid_ge => kguid_luid_ge(>=),
        pg_finfo_kguid_luid_gt => kguid_luid_gt(>),
    ],
    smaller: pg_finfo_kguid_luid_smaller => kguid_luid_smaller,
    larger: pg_finfo_kguid_luid_larger => kguid_luid_larger,
    hash: pg_finfo_kguid_luid_hash => kguid_luid_hash,
    hash_extended: pg_finfo_kguid_luid_hash_extended => kguid_luid_hash_extended,
}

functions! {
    pg_finfo_kguid_guid_in => fn kguid_guid_in(fcinfo) {
        guid_datum(parse::<Guid>("guid", cstring_arg(fcinfo, 0)))
    }
    pg_finfo_kguid_guid_out => fn kguid_guid_out(fcinfo) {
        palloc_cstring(guid_arg(fcinfo, 0).encode(&mut [0; Guid::STRING_LEN]))
    }
    pg_finfo_kguid_guid_recv => fn kguid_guid_recv(fcinfo) {
        guid_datum(from_bytes::<Guid>("guid", message_bytes(fcinfo)))
    }
    pg_finfo_kguid_guid_send => fn kguid_guid_send(fcinfo) {
        bytea(guid_arg(fcinfo, 0).as_bytes())
    }
    pg_finfo_kguid_luid_in => fn kguid_luid_in(fcinfo) {
        luid_datum(parse::<Luid>("luid", cstring_arg(fcinfo, 0)))
    }
    pg_finfo_kguid_luid_out => fn kguid_luid_out(fcinfo) {
        palloc_cstring(luid_arg(fcinfo, 0).encode(&mut [0; Luid::STRING_LEN]))
    }
    pg_finfo_kguid_luid_recv => fn kguid_luid_recv(fcinfo) {
        luid_datum(from_bytes::<Luid>("luid", message_bytes(fcinfo)))
    }
    pg_finfo_kguid_luid_send => fn kguid_luid_send(fcinfo) {
        bytea(luid_arg(fcinfo, 0).as_bytes())
    }

    pg_finfo_kguid_guid_from_bytea => fn kguid_guid_from_bytea(fcinfo) {
        guid_datum(from_bytes::<Guid>("guid", bytea_bytes(arg(fcinfo, 0))))
    }
    pg_finfo_kguid_luid_from_bytea => fn kguid_luid_from_bytea(fcinfo) {
        luid_datum(from_bytes::<Luid>("luid", bytea_bytes(arg(fcinfo, 0))))
    }
    pg_finfo_kguid_guid_to_luid => fn kguid_guid_to_luid(fcinfo) {
        luid_datum(guid_arg(fcinfo, 0).to_l64())
    }
    pg_finfo_kguid_luid_from_int8 => fn kguid_luid_from_int8(fcinfo) {
        let v = arg(fcinfo, 0).value() as i64;
        luid_datum(Luid::from_i64(v).unwrap_or_else(|e| {
            fail(
                ERRCODE_INVALID_PARAMETER_VALUE,
                format!("{v} is not the int8 of a luid"),
                Some(e.to_string()),
            )
        }))
    }
    pg_finfo_kguid_luid_to_int8 => fn kguid_luid_to_int8(fcinfo) {
        Datum::from(luid_arg(fcinfo, 0).to_i64())
    }

    pg_finfo_kguid_guid_time => fn kguid_guid_time(fcinfo) {
        timestamptz(guid_arg(fcinfo, 0).time())
    }
    pg_finfo_kguid_guid_node => fn kguid_guid_node(fcinfo) {
        Datum::from(guid_arg(fcinfo, 0).node() as i64)
    }
    pg_finfo_kguid_guid_seq => fn kguid_guid_seq(fcinfo) {
        Datum::from(i32::from(guid_arg(fcinfo, 0).seq()))
    }
    pg_finfo_kguid_guid_drift => fn kguid_guid_drift(fcinfo) {
        Datum::from(i32::from(guid_arg(fcinfo, 0).drift().code()))
    }
    pg_finfo_kguid_luid_time => fn kguid_luid_time(fcinfo) {
        timestamptz(luid_arg(fcinfo, 0).time())
    }
    pg_finfo_kguid_luid_seq => fn kguid_luid_seq(fcinfo) {
        Datum::from(i32::from(luid_arg(fcinfo, 0).seq()))
    }
    pg_finfo_kguid_luid_drift => fn kguid_luid_drift(fcinfo) {
        Datum::from(i32::from(luid_arg(fcinfo, 0).drift().code()))
    }
    pg_finfo_kguid_guid_from_time => fn kguid_guid_from_time(fcinfo) {
        let node = arg(fcinfo, 1).value() as i64;
        let Ok(node) = u32::try_from(node) else {
            fail(
                ERRCODE_INVALID_PARAMETER_VALUE,
                format!("node must be in 0..=4294967295, not {node}"),
                None,
            )
        };
        guid_datum(guid_at(time_arg(fcinfo, 0), node, drift_arg(fcinfo, 2)))
    }
    pg_finfo_kguid_xuid_time => fn kguid_xuid_time(fcinfo) {
        timestamptz(xuid_arg(fcinfo, 0).time())
    }
    pg_finfo_kguid_xuid_node => fn kguid_xuid_node(fcinfo) {
        Datum::from(xuid_arg(fcinfo, 0).node() as i64)
    }
    pg_finfo_kguid_xuid_seq => fn kguid_xuid_seq(fcinfo) {
        Datum::from(i32::from(xuid_arg(fcinfo, 0).seq()))
    }
    pg_finfo_kguid_luid_from_time => fn kguid_luid_from_time(fcinfo) {
        let t = UNIX_EPOCH + Duration::from_nanos(time_arg(fcinfo, 0));
        luid_datum(Luid::from_time(t, drift_arg(fcinfo, 1)))
    }
}
