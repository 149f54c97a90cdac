//! The native library of the Java package `io.kguid`: JNI entry points of
//! the class `io.kguid.Native`, each a thin call of the crate `kguid`
//! (`guid`). Every layout, codec and clock is the crate's; this library
//! converts arguments and results, calls the crate's fallible (`try_`)
//! forms, and turns the crate's errors into `io.kguid.KguidException`s.
//!
//! Values cross as primitives: a 64-bit id as a `long`, a wider one as two
//! (`hi`, `lo`: the value's bits above and below 64), so the Java value
//! types compare, hash and copy without calling here. Nothing unwinds
//! into the JVM: every entry point runs under `catch_unwind`, and a panic
//! becomes an exception of kind `Internal`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use guid::ErrorKind;
use jni::JNIEnv;
use jni::objects::{JThrowable, JValue};

/// Emits entry points of `io.kguid.Native`: each `fn` becomes an exported
/// `extern "system"` function taking the JNI environment and class before
/// its own arguments, its body run under [`run`] with the first name (`env`
/// or `_`) bound to the environment. One place for the JNI boilerplate.
macro_rules! native {
    (
        $(#[$meta:meta])*
        fn $name:ident($env:tt $(, $arg:ident: $ty:ty)* $(,)?) $(-> $ret:ty)? $body:block
    ) => {
        $(#[$meta])*
        #[unsafe(no_mangle)]
        pub extern "system" fn $name<'l>(
            mut env: JNIEnv<'l>,
            _: JClass<'l>,
            $($arg: $ty),*
        ) $(-> $ret)? {
            run(&mut env, |$env| $body)
        }
    };
}

/// Runs `$body` with `$I` the crate's type of the code `$t`, for the five
/// types that implement `Id`; `$sno` for sno's.
macro_rules! by_type {
    ($t:expr, $I:ident => $body:expr, sno => $sno:expr) => {
        match $t {
            $crate::ids::GUID => {
                type $I = guid::Guid;
                $body
            }
            $crate::ids::LUID => {
                type $I = guid::Luid;
                $body
            }
            $crate::ids::V3_GUID => {
                type $I = guid::v3::Guid;
                $body
            }
            $crate::ids::V3_LUID => {
                type $I = guid::v3::Luid;
                $body
            }
            $crate::ids::XUID => {
                type $I = guid::v3::Xuid;
                $body
            }
            $crate::ids::SNO => $sno,
            _ => Err($crate::Fail::State("unknown id type")),
        }
    };
}

mod clocks;
mod ids;

/// Why an entry point returns without a result.
pub enum Fail {
    /// The crate refused: thrown as its `KguidException`.
    Kguid(guid::Error),
    /// A JNI call failed; a Java exception is usually pending already.
    Jni(jni::errors::Error),
    /// The Java side broke an invariant of this library (a closed or
    /// mismatched handle): `IllegalStateException`.
    State(&'static str),
}

impl From<guid::Error> for Fail {
    fn from(e: guid::Error) -> Self {
        Fail::Kguid(e)
    }
}

impl From<ErrorKind> for Fail {
    fn from(kind: ErrorKind) -> Self {
        Fail::Kguid(kind.into())
    }
}

impl From<jni::errors::Error> for Fail {
    fn from(e: jni::errors::Error) -> Self {
        Fail::Jni(e)
    }
}

pub type Res<T> = Result<T, Fail>;

/// Runs an entry point's body: its result, or `T::default()` with a Java
/// exception pending (the crate's error, a JNI failure, or a panic).
pub fn run<'l, T: Default>(env: &mut JNIEnv<'l>, f: impl FnOnce(&mut JNIEnv<'l>) -> Res<T>) -> T {
    match catch_unwind(AssertUnwindSafe(|| f(env))) {
        Ok(Ok(v)) => v,
        Ok(Err(fail)) => {
            throw(env, fail);
            T::default()
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_string());
            throw_kguid(
                env,
                KIND_INTERNAL,
                &format!("internal error: {what}"),
                "",
                [0; 4],
            );
            T::default()
        }
    }
}

/// The `kind` code of `KguidException` for a panic caught here.
const KIND_INTERNAL: i32 = 16;

#[cold]
fn throw(env: &mut JNIEnv<'_>, fail: Fail) {
    match fail {
        Fail::Kguid(e) => {
            let (code, name, f): (i32, &str, [u64; 4]) = match e.kind() {
                ErrorKind::Length { expected, found } => {
                    (1, "", [expected as u64, found as u64, 0, 0])
                }
                ErrorKind::Char { byte, index } => (2, "", [byte.into(), index as u64, 0, 0]),
                ErrorKind::LeadingZero => (3, "", [0; 4]),
                ErrorKind::Overflow { bits } => (4, "", [bits.into(), 0, 0, 0]),
                ErrorKind::Drift => (5, "", [0; 4]),
                ErrorKind::Part { name, value, max } => (6, name, [value, max, 0, 0]),
                ErrorKind::CellWidth(n) => (7, "", [n.into(), 0, 0, 0]),
                ErrorKind::Cell { value, index } => (8, "", [value.into(), index as u64, 0, 0]),
                ErrorKind::Marker { local } => (9, "", [local.into(), 0, 0, 0]),
                ErrorKind::Layout { time, node, seq } => {
                    (10, "", [time.into(), node.into(), seq.into(), 0])
                }
                ErrorKind::NotUuidV8 { version, variant } => {
                    (11, "", [version.into(), variant.into(), 0, 0])
                }
                ErrorKind::Forked => (12, "", [0; 4]),
                ErrorKind::UsedUp => (13, "", [0; 4]),
                ErrorKind::Inverse => (14, "", [0; 4]),
                ErrorKind::Range {
                    name,
                    value,
                    min,
                    max,
                } => (15, name, [value, min, max, 0]),
                _ => (0, "", [0; 4]),
            };
            throw_kguid(env, code, &e.to_string(), name, f);
        }
        Fail::Jni(e) => {
            // A failed JNI call has usually thrown already (out of memory,
            // a bad array index); keep that exception.
            if !env.exception_check().unwrap_or(true) {
                let _ = env.throw_new("java/lang/IllegalStateException", e.to_string());
            }
        }
        Fail::State(what) => {
            let _ = env.throw_new("java/lang/IllegalStateException", what);
        }
    }
}

/// Throws the `KguidException` that `KguidException.create` makes of a
/// kind code, the crate's message, a part's or setting's name and the
/// kind's numeric fields.
#[cold]
fn throw_kguid(env: &mut JNIEnv<'_>, code: i32, message: &str, name: &str, f: [u64; 4]) {
    let made = (|| -> jni::errors::Result<JThrowable<'_>> {
        let message = env.new_string(message)?;
        let name = env.new_string(name)?;
        let e = env.call_static_method(
            "io/kguid/KguidException",
            "create",
            "(ILjava/lang/String;Ljava/lang/String;JJJJ)Lio/kguid/KguidException;",
            &[
                JValue::Int(code),
                JValue::Object(&message),
                JValue::Object(&name),
                JValue::Long(f[0] as i64),
                JValue::Long(f[1] as i64),
                JValue::Long(f[2] as i64),
                JValue::Long(f[3] as i64),
            ],
        )?;
        Ok(JThrowable::from(e.l()?))
    })();
    match made {
        Ok(e) => {
            let _ = env.throw(e);
        }
        Err(_) => {
            if !env.exception_check().unwrap_or(true) {
                let _ = env.throw_new("java/lang/IllegalArgumentException", message);
            }
        }
    }
}

/// A `long` argument that must fit `T` (a node, a sequence, a setting):
/// past it, the crate's error for the part, with the value as given
/// (a negative one as its two's complement).
pub fn part<T: TryFrom<u64>>(name: &'static str, value: i64, max: u64) -> Res<T> {
    let v = value as u64;
    match T::try_from(v) {
        Ok(t) if v <= max => Ok(t),
        _ => Err(ErrorKind::Part {
            name,
            value: v,
            max,
        }
        .into()),
    }
}
