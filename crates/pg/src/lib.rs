//! The `kguid` PostgreSQL extension: the `guid` (12 bytes) and `luid`
//! (8 bytes) types of the kguid library, with its strings, byte forms and
//! order, and ids made inside the server by one clock in shared memory.
//!
//! ```sql
//! CREATE EXTENSION kguid;
//! CREATE TABLE events (id guid PRIMARY KEY DEFAULT guid_generate(), body text);
//! SELECT id, guid_time(id) FROM events WHERE id >= guid_from_time(now() - interval '1 hour');
//! ```
//!
//! The SQL surface is `sql/kguid.sql`; the functions it names are here, as
//! version-1 C functions that take and return the types' datums and call
//! the library for every parse, encoding, part and comparison. The clock
//! (`clock`) needs `shared_preload_libraries = 'kguid'`.

use pgrx::pg_sys;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

mod clock;
mod copy;
mod types;

::pgrx::pg_module_magic!(name, version);

::pgrx::extension_sql_file!("../sql/kguid.sql", name = "kguid", bootstrap);

/// Loads the library: with `shared_preload_libraries`, registers the
/// settings and asks for the clock's shared memory.
#[pgrx::pg_guard]
pub extern "C-unwind" fn _PG_init() {
    clock::init();
}

/// Declares version-1 C functions: each `finfo => fn name(fcinfo) body`
/// becomes the symbol `name` PostgreSQL calls (errors and panics reported
/// as PostgreSQL errors) and its info record `finfo`.
macro_rules! functions {
    ($($finfo:ident => fn $name:ident($fcinfo:ident) $body:block)*) => {$(
        #[unsafe(no_mangle)]
        #[doc(hidden)]
        pub extern "C" fn $finfo() -> &'static ::pgrx::pg_sys::Pg_finfo_record {
            const V1: ::pgrx::pg_sys::Pg_finfo_record =
                ::pgrx::pg_sys::Pg_finfo_record { api_version: 1 };
            &V1
        }

        #[unsafe(no_mangle)]
        #[doc(hidden)]
        pub unsafe extern "C-unwind" fn $name(
            fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
        ) -> ::pgrx::pg_sys::Datum {
            fn body($fcinfo: ::pgrx::pg_sys::FunctionCallInfo) -> ::pgrx::pg_sys::Datum {
                #[allow(unused_unsafe)]
                unsafe { $body }
            }
            // SAFETY: the top of a function PostgreSQL calls, with nothing
            // to drop above it: a panic or an error becomes an ERROR here.
            unsafe { ::pgrx::pg_sys::submodules::panic::pgrx_extern_c_guard(move || body(fcinfo)) }
        }
    )*};
}

pub(crate) use functions;

/// Argument `n` of a strict function (never null).
///
/// # Safety
/// `fcinfo` is the call's, with at least `n + 1` arguments.
pub(crate) unsafe fn arg(fcinfo: pg_sys::FunctionCallInfo, n: usize) -> pg_sys::Datum {
    unsafe { pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, n) }
}

/// Raises a PostgreSQL error: `message`, with the library's reason as the
/// detail if there is one.
pub(crate) fn fail(code: PgSqlErrorCode, message: String, detail: Option<String>) -> ! {
    let mut report = ErrorReport::new(code, message, "kguid");
    if let Some(detail) = detail {
        report = report.set_detail(detail);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("an ERROR does not return")
}

/// `bytes` copied into memory of the current memory context: the datum of
/// a fixed-length type passed by reference.
pub(crate) fn palloc_bytes(bytes: &[u8]) -> pg_sys::Datum {
    // SAFETY: palloc returns `len` writable bytes (or raises an error).
    unsafe {
        let p = pg_sys::palloc(bytes.len()).cast::<u8>();
        p.copy_from_nonoverlapping(bytes.as_ptr(), bytes.len());
        pg_sys::Datum::from(p)
    }
}

/// `s` as a NUL-terminated C string of the current memory context.
pub(crate) fn palloc_cstring(s: &str) -> pg_sys::Datum {
    // SAFETY: palloc returns `len + 1` writable bytes (or raises an error).
    unsafe {
        let p = pg_sys::palloc(s.len() + 1).cast::<u8>();
        p.copy_from_nonoverlapping(s.as_ptr(), s.len());
        *p.add(s.len()) = 0;
        pg_sys::Datum::from(p)
    }
}

/// A `bytea` of `bytes`, in the current memory context.
pub(crate) fn bytea(bytes: &[u8]) -> pg_sys::Datum {
    pg_sys::Datum::from(pgrx::rust_byte_slice_to_bytea(bytes).into_pg())
}

/// The bytes of the `bytea` datum `d` (detoasted if it must be).
///
/// # Safety
/// `d` is a `bytea` datum that lives as long as the call.
pub(crate) unsafe fn bytea_bytes<'a>(d: pg_sys::Datum) -> &'a [u8] {
    unsafe { pgrx::varlena_to_byte_slice(pg_sys::pg_detoast_datum_packed(d.cast_mut_ptr())) }
}
