//! The id types' codecs and parts. Every entry point takes the type's code
//! (`Native.GUID` ... `Native.SNO`) and a value as (`hi`, `lo`), and
//! dispatches to the crate's `Id` implementation of that type.

use std::time::{Duration, UNIX_EPOCH};

use guid::sno::Sno;
use guid::{Id, v3};
use jni::JNIEnv;
use jni::objects::{JByteArray, JClass, JLongArray};
use jni::sys::{jbyteArray, jint, jlong, jstring};

use crate::{Fail, Res, part, run};

pub const GUID: jint = 0;
pub const LUID: jint = 1;
pub const V3_GUID: jint = 2;
pub const V3_LUID: jint = 3;
pub const XUID: jint = 4;
pub const SNO: jint = 5;

/// The value of (`hi`, `lo`).
pub fn join(hi: jlong, lo: jlong) -> u128 {
    u128::from(hi as u64) << 64 | u128::from(lo as u64)
}

/// (`hi`, `lo`) of a value.
pub fn split(v: u128) -> [jlong; 2] {
    [(v >> 64) as u64 as jlong, v as u64 as jlong]
}

/// Writes (`hi`, `lo`) of `v` into `out[0..2]`.
pub fn put(env: &mut JNIEnv<'_>, out: &JLongArray<'_>, v: u128) -> Res<()> {
    env.set_long_array_region(out, 0, &split(v))?;
    Ok(())
}

/// The bytes of a Java `byte[]`.
pub fn bytes(env: &mut JNIEnv<'_>, b: &JByteArray<'_>) -> Res<Vec<u8>> {
    Ok(env.convert_byte_array(b)?)
}

/// Reads an id with `read` from a Java `byte[]` and writes its (`hi`,
/// `lo`) into `out`: the shape of every reader of bytes or text.
fn read_into(
    env: &mut JNIEnv<'_>,
    b: &JByteArray<'_>,
    out: &JLongArray<'_>,
    read: impl FnOnce(&[u8]) -> Res<u128>,
) -> Res<()> {
    let b = bytes(env, b)?;
    let v = read(&b)?;
    put(env, out, v)
}

/// A cell width from Java; a negative one is refused as the crate refuses
/// a width past 8, with its two's complement.
fn cell_width(n: jint) -> Res<u32> {
    u32::try_from(n).map_err(|_| guid::ErrorKind::CellWidth(n as u32).into())
}

/// The id of type `I` of a value the Java side holds.
fn value<I: Id>(hi: jlong, lo: jlong) -> Res<I> {
    Ok(I::from_u128(join(hi, lo))?)
}

fn sno(hi: jlong, lo: jlong) -> Res<Sno> {
    Ok(Sno::from_u128(join(hi, lo))?)
}

native! {
    /// The crate's text reader of the type (what its `FromStr` reads).
    fn Java_io_kguid_Native_parse(env, t: jint, s: JByteArray<'l>, out: JLongArray<'l>) {
        read_into(env, &s, &out, |s| {
            by_type!(t, I => Ok(I::parse_bytes(s)?.to_u128()), sno => Ok(Sno::parse_bytes(s)?.to_u128()))
        })
    }
}

native! {
    /// The crate's base62 reader of the type.
    fn Java_io_kguid_Native_fromBase62(env, t: jint, s: JByteArray<'l>, out: JLongArray<'l>) {
        read_into(env, &s, &out, |s| {
            by_type!(t, I => Ok(I::from_base62(s)?.to_u128()), sno => Err(Fail::State("sno has no base62")))
        })
    }
}

native! {
    /// The id of exactly the type's length of big-endian bytes.
    fn Java_io_kguid_Native_fromBytes(env, t: jint, b: JByteArray<'l>, out: JLongArray<'l>) {
        read_into(env, &b, &out, |b| {
            by_type!(t, I => Ok(I::from_slice(b)?.to_u128()), sno => Ok(Sno::from_slice(b)?.to_u128()))
        })
    }
}

native! {
    /// Checks that (`hi`, `lo`) is an id of the type (the crate's
    /// `from_u128`), or throws its error.
    fn Java_io_kguid_Native_check(_, t: jint, hi: jlong, lo: jlong) {
        by_type!(t, I => value::<I>(hi, lo).map(drop), sno => sno(hi, lo).map(drop))
    }
}

native! {
    /// The text form written at `addr` (a thread's scratch of at least 64
    /// bytes, `Native.scratch`), its length returned: ASCII, so that Java
    /// makes the string from the bytes without a JNI string call.
    fn Java_io_kguid_Native_stringAt(_, t: jint, hi: jlong, lo: jlong, addr: jlong) -> jint {
        // SAFETY: `addr` is the start of a live direct buffer of at least
        // 64 bytes that only this thread uses.
        let buf = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, 36) };
        let n = by_type!(t, I => Ok(value::<I>(hi, lo)?.encode(buf).len()), sno => {
            let mut b16 = [0u8; 16];
            let n = sno(hi, lo)?.encode(&mut b16).len();
            buf[..n].copy_from_slice(&b16[..n]);
            Ok(n)
        })?;
        Ok(n as jint)
    }
}

native! {
    /// The base62 string.
    fn Java_io_kguid_Native_base62(env, t: jint, hi: jlong, lo: jlong) -> jstring {
        let mut buf = [0u8; 22];
        let s: &str = by_type!(t, I => Ok(value::<I>(hi, lo)?.encode_base62(&mut buf)), sno => Err(Fail::State("sno has no base62")))?;
        Ok(env.new_string(s)?.into_raw())
    }
}

native! {
    /// The parts into `out`: the time in Unix nanoseconds, the node, the
    /// sequence and the drift code; for sno: the time, the partition, the
    /// sequence, the metabyte, the tick-tock bit and the time in sno's units.
    fn Java_io_kguid_Native_parts(env, t: jint, hi: jlong, lo: jlong, out: JLongArray<'l>) {
        let parts: [u64; 6] = by_type!(t, I => {
            let id = value::<I>(hi, lo)?;
            Ok([id.time(), id.node(), id.seq().into(), Into::<u8>::into(id.drift()).into(), 0, 0])
        }, sno => {
            let id = sno(hi, lo)?;
            Ok([id.unix_ns(), id.partition().into(), id.sequence().into(), id.meta().into(), id.tick().into(), id.units()])
        })?;
        env.set_long_array_region(&out, 0, &parts.map(|p| p as jlong))?;
        Ok(())
    }
}

native! {
    /// The id of its parts (the crate's `from_parts`; sno's `compose`, with
    /// `drift` its metabyte and `tick` its tick-tock bit).
    #[allow(clippy::too_many_arguments)]
    fn Java_io_kguid_Native_compose(
        env, t: jint, node: jlong, time_ns: jlong, seq: jlong, drift: jint, tick: jint,
        out: JLongArray<'l>,
    ) {
        let v = by_type!(t, I => {
            let max_node = if I::NODE_BITS == 0 { 0 } else { u64::MAX >> (64 - I::NODE_BITS) };
            let node: u64 = part("node", node, max_node)?;
            let seq: u16 = part("seq", seq, 0x3fff)?;
            let drift = <I as Id>::Drift::try_from(part::<u8>("drift code", drift.into(), 255)?)?;
            Ok(I::from_parts(node, time_ns as u64, seq, drift)?.to_u128())
        }, sno => {
            let partition: u16 = part("partition", node, u16::MAX.into())?;
            let sequence: u16 = part("sequence", seq, u16::MAX.into())?;
            let meta: u8 = part("meta", drift.into(), u8::MAX.into())?;
            Ok(Sno::compose(time_ns as u64, tick != 0, meta, partition, sequence)?.to_u128())
        })?;
        put(env, &out, v)
    }
}

native! {
    /// The local id of an id (drift, time and sequence: the node dropped).
    fn Java_io_kguid_Native_toL64(_, t: jint, hi: jlong, lo: jlong) -> jlong {
        by_type!(t, I => Ok(value::<I>(hi, lo)?.to_l64().to_u128() as u64 as jlong), sno => Err(Fail::State("sno has no local id")))
    }
}

native! {
    /// The global (or, for `XUID`, 128-bit) id of a local id and a node.
    fn Java_io_kguid_Native_fromL64(env, t: jint, local: jlong, node: jlong, out: JLongArray<'l>) {
        let local = local as u64;
        let v = match t {
            GUID => {
                let l = guid::Luid::from_u64(local)?;
                guid::Guid::from_l64(l, part("node", node, u32::MAX.into())?).to_u128()
            }
            V3_GUID => {
                let l = v3::Luid::from_u64(local);
                v3::Guid::from_l64(l, part("node", node, u32::MAX.into())?).to_u128()
            }
            XUID => {
                let l = v3::Luid::from_u64(local);
                v3::Xuid::from_l64(l, part("node", node, v3::node::MAX)?)?.to_u128()
            }
            _ => return Err(Fail::State("no global id of this type")),
        };
        put(env, &out, v)
    }
}

native! {
    /// The smallest local id at a time (v2: `Luid::from_time`), for range
    /// queries.
    fn Java_io_kguid_Native_luidFromTime(_, time_ns: jlong, drift: jint) -> jlong {
        let drift = guid::Drift::try_from(part::<u8>("drift code", drift.into(), 255)?)?;
        let t = UNIX_EPOCH + Duration::from_nanos(time_ns as u64);
        Ok(guid::Luid::from_time(t, drift).to_u64() as jlong)
    }
}

native! {
    /// Conversions between types: `op` 0 v2 global to v3 global, 1 v2 local
    /// to v3 local, 2 v3 global to 128-bit, 3 128-bit to v3 global.
    fn Java_io_kguid_Native_convert(env, op: jint, hi: jlong, lo: jlong, out: JLongArray<'l>) {
        let v = match op {
            0 => v3::Guid::from_v2(value(hi, lo)?).to_u128(),
            1 => v3::Luid::from_v2(value(hi, lo)?).to_u128(),
            2 => v3::Xuid::from(value::<v3::Guid>(hi, lo)?).to_u128(),
            3 => v3::Guid::try_from(value::<v3::Xuid>(hi, lo)?)?.to_u128(),
            _ => return Err(Fail::State("unknown conversion")),
        };
        put(env, &out, v)
    }
}

native! {
    /// v3's global id of a v2 id's text (`form` 0) or base62 (`form` 1).
    fn Java_io_kguid_Native_v3FromV2Text(env, form: jint, s: JByteArray<'l>, out: JLongArray<'l>) {
        read_into(env, &s, &out, |s| {
            Ok(match form {
                0 => v3::Guid::from_v2_str(s)?,
                _ => v3::Guid::from_v2_base62(s)?,
            }
            .to_u128())
        })
    }
}

native! {
    /// The value cut into `n`-bit cells from the top (Go's `Split`).
    fn Java_io_kguid_Native_split(env, t: jint, hi: jlong, lo: jlong, n: jint) -> jbyteArray {
        let n = cell_width(n)?;
        let cells = by_type!(t, I => Ok(value::<I>(hi, lo)?.split(n)?), sno => Err(Fail::State("sno has no cells")))?;
        Ok(env.byte_array_from_slice(&cells)?.into_raw())
    }
}

native! {
    /// Cells of `split` put back together (Go's `Fold`).
    fn Java_io_kguid_Native_fold(
        env, t: jint, n: jint, cells: JByteArray<'l>, out: JLongArray<'l>,
    ) {
        let n = cell_width(n)?;
        read_into(env, &cells, &out, |cells| {
            by_type!(t, I => Ok(I::fold(n, cells)?.to_u128()), sno => Err(Fail::State("sno has no cells")))
        })
    }
}

native! {
    /// Go's `Diff` of two ids of one type.
    fn Java_io_kguid_Native_diff(env, t: jint, a: JLongArray<'l>, out: JLongArray<'l>) {
        let mut v = [0; 4];
        env.get_long_array_region(&a, 0, &mut v)?;
        let d = by_type!(t, I => Ok(value::<I>(v[0], v[1])?.diff(&value(v[2], v[3])?).to_u128()),
            sno => Err(Fail::State("no diff of this type")))?;
        put(env, &out, d)
    }
}

native! {
    /// Go v3's ring order of two ids (`ab = {a.hi, a.lo, b.hi, b.lo}`) seen
    /// from the node `reference`: -1, 0 or 1.
    fn Java_io_kguid_Native_cmpRing(env, t: jint, ab: JLongArray<'l>, reference: jlong) -> jint {
        let mut v = [0; 4];
        env.get_long_array_region(&ab, 0, &mut v)?;
        let o = match t {
            V3_GUID => {
                let r: u32 = part("reference", reference, u32::MAX.into())?;
                value::<v3::Guid>(v[0], v[1])?.cmp_ring(&value(v[2], v[3])?, r)
            }
            XUID => value::<v3::Xuid>(v[0], v[1])?.cmp_ring(&value(v[2], v[3])?, reference as u64),
            _ => return Err(Fail::State("no ring order of this type")),
        };
        Ok(o as jint)
    }
}

native! {
    /// A drift's code of a generation (2 or 3) for a signed skew in
    /// nanoseconds (Go's `time.Duration`).
    fn Java_io_kguid_Native_driftFromNanos(_, generation: jint, ns: jlong) -> jint {
        Ok(match generation {
            2 => guid::Drift::from_nanos(ns).code(),
            _ => v3::Drift::from_nanos(ns).code(),
        }
        .into())
    }
}

native! {
    /// A drift's window in nanoseconds; throws for a code the generation
    /// does not have.
    fn Java_io_kguid_Native_driftWindow(_, generation: jint, code: jint) -> jlong {
        let code: u8 = part("drift code", code.into(), 255)?;
        let window = match generation {
            2 => guid::Drift::new(code)?.window(),
            _ => v3::Drift::new(code)?.window(),
        };
        Ok(guid::nanos(window) as jlong)
    }
}

native! {
    /// The node id a name gives (what `CONFIG_GUID_NODE_ID` does).
    fn Java_io_kguid_Native_nodeFromName(env, generation: jint, name: JByteArray<'l>) -> jlong {
        let name = bytes(env, &name)?;
        let name = String::from_utf8_lossy(&name);
        Ok(match generation {
            2 => guid::node::from_name(&name).into(),
            _ => v3::node::from_name(&name) as jlong,
        })
    }
}
