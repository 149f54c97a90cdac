//! Clocks, sno generators, flake clocks and layouts, and mock time sources.
//!
//! A Java object that owns one holds a handle: a pointer to a boxed
//! [`Handle`], freed by `free` once the Java object is unreachable (so
//! no thread can be inside a call on it). Handle 0 names the crate's
//! process-wide clock of the generation (`guid::CLOCK`, `v3::CLOCK`) or
//! this library's sno generator. Every entry point that takes a handle
//! also takes its Java owner, unused here: a JNI argument keeps the owner
//! reachable, so its cleaner cannot free the handle during the call.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::clock::{Clock, Generation};
use guid::flake::{self, Layout};
use guid::sno::{self, Sno};
use guid::{Id, MockTime, Snapshot, unix_nanos, v3};
use jni::JNIEnv;
use jni::objects::{JByteBuffer, JClass, JLongArray, JObject, ReleaseMode};
use jni::sys::{jboolean, jint, jlong};

use crate::ids::{put, split};
use crate::{Fail, Res, part, run};

/// What a handle holds.
pub enum Handle {
    V2(guid::Clock),
    V3(v3::Clock),
    Flake(flake::Clock),
    Sno(sno::Generator),
    Mock(MockTime),
}

/// The handle's object. The Java side passes only handles this library
/// made and has not freed: its objects free them when unreachable.
fn handle(h: jlong) -> Res<&'static Handle> {
    match h {
        0 => Err(Fail::State("no handle")),
        // SAFETY: `h` came from `boxed` and is not freed yet (see above).
        _ => Ok(unsafe { &*(h as *const Handle) }),
    }
}

fn boxed(h: Handle) -> jlong {
    Box::into_raw(Box::new(h)) as jlong
}

fn v2(h: jlong) -> Res<&'static guid::Clock> {
    match h {
        0 => Ok(&guid::CLOCK),
        _ => match handle(h)? {
            Handle::V2(c) => Ok(c),
            _ => Err(Fail::State("not a v2 clock")),
        },
    }
}

fn v3c(h: jlong) -> Res<&'static v3::Clock> {
    match h {
        0 => Ok(&v3::CLOCK),
        _ => match handle(h)? {
            Handle::V3(c) => Ok(c),
            _ => Err(Fail::State("not a v3 clock")),
        },
    }
}

fn mock(h: jlong) -> Res<Option<MockTime>> {
    match h {
        0 => Ok(None),
        _ => match handle(h)? {
            Handle::Mock(m) => Ok(Some(m.clone())),
            _ => Err(Fail::State("not a mock time")),
        },
    }
}

/// The process's sno generator, made at its first use.
fn sno_default() -> Res<&'static sno::Generator> {
    static GENERATOR: OnceLock<sno::Generator> = OnceLock::new();
    if let Some(g) = GENERATOR.get() {
        return Ok(g);
    }
    let made = sno::Generator::builder().build()?;
    Ok(GENERATOR.get_or_init(|| made))
}

fn sno_gen(h: jlong) -> Res<&'static sno::Generator> {
    match h {
        0 => sno_default(),
        _ => match handle(h)? {
            Handle::Sno(g) => Ok(g),
            _ => Err(Fail::State("not a sno generator")),
        },
    }
}

fn time_at(ns: jlong) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(ns as u64)
}

native! {
    /// Frees a handle.
    fn Java_io_kguid_Native_free(_, h: jlong) {
        if h != 0 {
            // SAFETY: the Java side frees each handle once, when no call
            // can use it any more.
            drop(unsafe { Box::from_raw(h as *mut Handle) });
        }
        Ok(())
    }
}

native! {
    /// A clock of generation 2 or 3. `node` < 0: random (or named by
    /// `CONFIG_GUID_NODE_ID` when `env` is set); `drift` < 0: the default;
    /// `source` 0 the wall clock, 1 the ticker, 2 the coarse clock, or a mock
    /// time's handle in `mock`; `not_before` < 0: none; `restore`, if
    /// `has_restore`, a snapshot to start past.
    #[allow(clippy::too_many_arguments)]
    fn Java_io_kguid_Native_clockNew(
        _, _owner: JObject<'l>, generation: jint, node: jlong, from_env: jboolean, drift: jint,
        source: jint, mock_time: jlong, inverse: jboolean, not_before: jlong, restore: jlong,
        has_restore: jboolean,
    ) -> jlong {
        let mock_time = mock(mock_time)?;
        let restore = match has_restore {
            0 => None,
            _ => Some(Snapshot::try_from(restore as u64)?),
        };
        let drift_code = match drift {
            ..0 => None,
            d => Some(part::<u8>("drift code", d.into(), 255)?),
        };
        macro_rules! build {
            ($b:expr, $node:expr, $Drift:ty) => {{
                let mut b = $b;
                if node >= 0 {
                    b = $node(b)?;
                } else if from_env != 0 {
                    b = b.node_from_env();
                }
                if let Some(code) = drift_code {
                    b = b.drift(<$Drift>::new(code)?);
                }
                b = match (mock_time, source) {
                    (Some(m), _) => b.time(m),
                    (None, 1) => b.ticker(),
                    (None, 2) => b.coarse(),
                    _ => b.wall(),
                };
                if inverse != 0 {
                    b = b.inverse();
                }
                if not_before >= 0 {
                    b = b.not_before(time_at(not_before))?;
                }
                if let Some(snapshot) = restore {
                    b = b.restore(snapshot);
                }
                b.build()
            }};
        }
        let h = match generation {
            2 => Handle::V2(build!(
                guid::Clock::builder(),
                |b: guid::Builder| -> Res<guid::Builder> {
                    Ok(b.node(part("node", node, u32::MAX.into())?))
                },
                guid::Drift
            )),
            _ => Handle::V3(build!(
                v3::Clock::builder(),
                |b: v3::Builder| -> Res<v3::Builder> { Ok(b.node(part("node", node, u64::MAX)?)?) },
                v3::Drift
            )),
        };
        Ok(boxed(h))
    }
}

/// A clock's node, drift code, inverse (0 or 1), the time of its last id
/// in Unix nanoseconds and its snapshot; the node and the drift code are
/// the generation's own.
fn info<G: Generation>(c: &Clock<G>, node: u64, drift: u8) -> [u64; 5] {
    let last = unix_nanos(c.last_time());
    [
        node,
        drift.into(),
        c.is_inverse().into(),
        last,
        c.snapshot().into(),
    ]
}

native! {
    /// A clock's settings and state into `out`: node, drift code, inverse
    /// (0 or 1), the time of its last id in Unix nanoseconds, its snapshot.
    fn Java_io_kguid_Native_clockInfo(
        env, _owner: JObject<'l>, h: jlong, generation: jint, out: JLongArray<'l>,
    ) {
        let info = match generation {
            2 => {
                let c = v2(h)?;
                info(c, c.node().into(), c.drift().code())
            }
            _ => {
                let c = v3c(h)?;
                info(c, c.node(), c.drift().code())
            }
        };
        env.set_long_array_region(&out, 0, &info.map(|v| v as jlong))?;
        Ok(())
    }
}

native! {
    /// Checks that a value is a clock's snapshot (`Snapshot::try_from`).
    fn Java_io_kguid_Native_snapshotCheck(_, snapshot: jlong) {
        Snapshot::try_from(snapshot as u64)
            .map(drop)
            .map_err(Fail::from)
    }
}

native! {
    /// A new id of the clock `h` of type `t` (`Native.GUID`, `V3_GUID`,
    /// `XUID`): its low 64 bits returned, its high bits stored at `addr`
    /// (a thread's scratch in a direct buffer), so that no Java array or
    /// object is touched.
    fn Java_io_kguid_Native_g(_, _owner: JObject<'l>, h: jlong, t: jint, addr: jlong) -> jlong {
        let v = match t {
            0 => v2(h)?.try_g()?.to_u128(),
            2 => v3c(h)?.try_g()?.to_u128(),
            4 => v3c(h)?.try_x()?.to_u128(),
            _ => return Err(Fail::State("no global id of this type")),
        };
        let [hi, lo] = split(v);
        // SAFETY: `addr` is the start of a live direct buffer of at least
        // 8 bytes that only this thread uses (`Native.scratch`).
        unsafe { (addr as *mut jlong).write_unaligned(hi) };
        Ok(lo)
    }
}

native! {
    /// A new local id of the clock `h` (`t` `Native.LUID` or `V3_LUID`).
    fn Java_io_kguid_Native_l(_, _owner: JObject<'l>, h: jlong, t: jint) -> jlong {
        Ok(match t {
            1 => v2(h)?.try_l()?.to_u64(),
            _ => v3c(h)?.try_l()?.to_u64(),
        } as jlong)
    }
}

/// Ids of one clock read at a time, from the stack: few enough not to
/// strain it, enough that a batch takes the clock's state once per
/// thousand ids.
const CHUNK: usize = 1024;

/// An id type a clock here issues, with the clock's call that fills a
/// slice of it: what lets one generic function serve every batch call.
trait Issued: Id {
    /// Fills `ids` from the clock `h` (0: the process's clock of the
    /// type's generation).
    fn fill(h: jlong, ids: &mut [Self]) -> Res<()>;
}

macro_rules! issued {
    ($($I:ty: $clock:ident.$fill:ident;)*) => {$(
        impl Issued for $I {
            fn fill(h: jlong, ids: &mut [Self]) -> Res<()> {
                Ok($clock(h)?.$fill(ids)?)
            }
        }
    )*};
}

issued! {
    guid::Guid: v2.try_fill;
    guid::Luid: v2.try_fill_l;
    v3::Guid: v3c.try_fill;
    v3::Luid: v3c.try_fill_l;
    v3::Xuid: v3c.try_fill_x;
}

/// Fills `n` ids of type `t` from the clock `h`, each as (`hi`, `lo`) for
/// a 96- or 128-bit id, as one value for a local id.
fn fill_with(h: jlong, t: jint, n: usize, mut put: impl FnMut(usize, u128)) -> Res<()> {
    by_type!(t, I => chunks::<I>(h, n, &mut put), sno => Err(Fail::State("no clock of this type")))
}

/// [`fill_with`] of the type `I`, a chunk at a time.
fn chunks<I: Issued>(h: jlong, n: usize, put: &mut impl FnMut(usize, u128)) -> Res<()> {
    let mut buf = [I::MIN; CHUNK];
    let mut done = 0;
    while done < n {
        let k = CHUNK.min(n - done);
        I::fill(h, &mut buf[..k])?;
        for (i, id) in buf[..k].iter().enumerate() {
            put(done + i, id.to_u128());
        }
        done += k;
    }
    Ok(())
}

native! {
    /// Fills `out[off..]` with `n` ids of type `t` from the clock `h`, in
    /// one call: two longs an id (`hi`, `lo`) for a 96- or 128-bit id, one
    /// for a local id. The ids increase along the array.
    fn Java_io_kguid_Native_fill(
        env, _owner: JObject<'l>, h: jlong, t: jint, out: JLongArray<'l>, off: jint, n: jint,
    ) {
        let (off, n) = (off.max(0) as usize, n.max(0) as usize);
        let wide = matches!(t, 0 | 2 | 4);
        let len = env.get_array_length(&out)? as usize;
        let need = off + if wide { 2 * n } else { n };
        if need > len {
            return Err(Fail::State("array too short for the batch"));
        }
        // SAFETY: no JNI call until the elements are released at the end
        // of this block; the clock's fill makes none.
        let mut a = unsafe { env.get_array_elements_critical(&out, ReleaseMode::CopyBack)? };
        let a = &mut a[off..need];
        if wide {
            fill_with(h, t, n, |i, v| {
                let [hi, lo] = split(v);
                a[2 * i] = hi;
                a[2 * i + 1] = lo;
            })
        } else {
            fill_with(h, t, n, |i, v| a[i] = v as u64 as jlong)
        }
    }
}

native! {
    /// Fills a direct buffer from `off` with `n` ids of type `t` from the
    /// clock `h`, each as its big-endian bytes (12, 8 or 16): the clock writes
    /// them in place, since every id type is its bytes (`repr(transparent)`
    /// over a byte array, alignment 1).
    #[allow(clippy::too_many_arguments)]
    fn Java_io_kguid_Native_fillBuffer(
        env, _owner: JObject<'l>, h: jlong, t: jint, buf: JByteBuffer<'l>, off: jint, n: jint,
    ) {
        let (off, n) = (off.max(0) as usize, n.max(0) as usize);
        let addr = env.get_direct_buffer_address(&buf)?;
        let cap = env.get_direct_buffer_capacity(&buf)?;
        by_type!(t, I => fill_in_place::<I>(h, addr, cap, off, n),
            sno => Err(Fail::State("no clock of this type")))
    }
}

/// Fills the direct buffer at `addr` of `cap` bytes from `off` with `n`
/// ids of type `I` from the clock `h`, in place.
fn fill_in_place<I: Issued>(h: jlong, addr: *mut u8, cap: usize, off: usize, n: usize) -> Res<()> {
    // Every id type is its bytes: `repr(transparent)` over a byte array.
    const { assert!(size_of::<I>() == I::BYTES && align_of::<I>() == 1) };
    if off + n * I::BYTES > cap {
        return Err(Fail::State("buffer too short for the batch"));
    }
    // SAFETY: `I` is `I::BYTES` bytes of alignment 1 (above), and the
    // buffer holds `off + n * I::BYTES` bytes that nothing else uses
    // during the call.
    let ids = unsafe { std::slice::from_raw_parts_mut(addr.add(off).cast::<I>(), n) };
    I::fill(h, ids)
}

native! {
    /// The global id a clock gives a local id: its node put back (`t`
    /// `Native.GUID`, `V3_GUID` or `XUID`).
    fn Java_io_kguid_Native_clockFromL64(
        env, _owner: JObject<'l>, h: jlong, t: jint, local: jlong, out: JLongArray<'l>,
    ) {
        let v = match t {
            0 => v2(h)?
                .from_l64(guid::Luid::from_u64(local as u64)?)
                .to_u128(),
            2 => v3c(h)?.from_l64(v3::Luid::from_u64(local as u64)).to_u128(),
            _ => v3c(h)?
                .x_from_l64(v3::Luid::from_u64(local as u64))
                .to_u128(),
        };
        put(env, &out, v)
    }
}

native! {
    /// The id of type `t` (`Native.V3_GUID`, `V3_LUID`, `XUID`) that the v3
    /// clock `h` gives at a time (its node and drift, its direction), at
    /// sequence 0: the crate's `from_time`, a bound for range queries.
    fn Java_io_kguid_Native_v3FromTime(
        env, _owner: JObject<'l>, h: jlong, t: jint, time_ns: jlong, out: JLongArray<'l>,
    ) {
        let c = v3c(h)?;
        let at = time_at(time_ns);
        let v = match t {
            2 => v3::Guid::from_time(c, at).to_u128(),
            3 => v3::Luid::from_time(c, at).to_u128(),
            _ => v3::Xuid::from_time(c, at).to_u128(),
        };
        put(env, &out, v)
    }
}

native! {
    /// The address of a direct buffer (a thread's scratch for `g`).
    fn Java_io_kguid_Native_address(env, buf: JByteBuffer<'l>) -> jlong {
        if env.get_direct_buffer_capacity(&buf)? < 64 {
            return Err(Fail::State("scratch buffer too short"));
        }
        Ok(env.get_direct_buffer_address(&buf)? as jlong)
    }
}

native! {
    /// A mock time source at `ns`.
    fn Java_io_kguid_Native_mockNew(_, ns: jlong) -> jlong {
        Ok(boxed(Handle::Mock(MockTime::new(ns as u64))))
    }
}

native! {
    /// Moves a mock time: `op` 0 sets it, 1 advances it, 2 steps it back;
    /// returns its time.
    fn Java_io_kguid_Native_mockMove(
        _, _owner: JObject<'l>, h: jlong, op: jint, ns: jlong,
    ) -> jlong {
        let m = mock(h)?.ok_or(Fail::State("no mock time"))?;
        match op {
            0 => m.set(ns as u64),
            1 => m.advance(ns as u64),
            2 => m.step_back(ns as u64),
            _ => {}
        }
        Ok(guid::TimeSource::now(&m) as jlong)
    }
}

native! {
    /// A sno generator: `partition` < 0 draws one; a mock time's handle in
    /// `mock` (0: the wall clock); `restore`, if not null, a snapshot's eight
    /// fields (as `snoSnapshot` gives them) to resume from.
    #[allow(clippy::too_many_arguments)]
    fn Java_io_kguid_Native_snoNew(
        env, _owner: JObject<'l>, partition: jint, seq_min: jint, seq_max: jint, mock_time: jlong,
        restore: JLongArray<'l>,
    ) -> jlong {
        let mut b = sno::Generator::builder();
        if !restore.is_null() {
            let mut f = [0; 8];
            env.get_long_array_region(&restore, 0, &mut f)?;
            let u16_of = |name, v: jlong| part::<u16>(name, v, u16::MAX.into());
            let u32_of = |name, v: jlong| part::<u32>(name, v, u32::MAX.into());
            b = b.restore(sno::Snapshot {
                partition: u16_of("partition", f[0])?,
                sequence_min: u16_of("sequence_min", f[1])?,
                sequence_max: u16_of("sequence_max", f[2])?,
                sequence: u32_of("sequence", f[3])?,
                now: f[4],
                wall_hi: f[5],
                wall_safe: f[6],
                drifts: u32_of("drifts", f[7])?,
            });
        } else {
            if partition >= 0 {
                b = b.partition(part("partition", partition.into(), u16::MAX.into())?);
            }
            b = b
                .sequence_min(part("sequence_min", seq_min.into(), u16::MAX.into())?)
                .sequence_max(part("sequence_max", seq_max.into(), u16::MAX.into())?);
        }
        if let Some(m) = mock(mock_time)? {
            b = b.time(m);
        }
        Ok(boxed(Handle::Sno(b.build()?)))
    }
}

native! {
    /// A sno generator's snapshot into `out`: partition, sequence bounds,
    /// sequence, now, wall_hi, wall_safe, drifts (sno's `GeneratorSnapshot`).
    fn Java_io_kguid_Native_snoSnapshot(env, _owner: JObject<'l>, h: jlong, out: JLongArray<'l>) {
        let s = sno_gen(h)?.snapshot();
        let f = [
            s.partition.into(),
            s.sequence_min.into(),
            s.sequence_max.into(),
            s.sequence.into(),
            s.now,
            s.wall_hi,
            s.wall_safe,
            s.drifts.into(),
        ];
        env.set_long_array_region(&out, 0, &f)?;
        Ok(())
    }
}

native! {
    /// Panics inside the library: for the test that a panic reaches Java as
    /// an exception, never unwinding into the JVM.
    fn Java_io_kguid_Native_panic(_) {
        panic!("a panic on purpose")
    }
}

native! {
    /// A new sno id of the generator `h` (0: the process's), its metabyte
    /// `meta`: the low 64 bits returned, the high 16 stored at `addr`.
    fn Java_io_kguid_Native_snoNext(
        _, _owner: JObject<'l>, h: jlong, meta: jint, addr: jlong,
    ) -> jlong {
        let meta: u8 = part("meta", meta.into(), u8::MAX.into())?;
        let id: Sno = sno_gen(h)?.try_next(meta)?;
        let [hi, lo] = split(id.to_u128());
        // SAFETY: as in `g`.
        unsafe { (addr as *mut jlong).write_unaligned(hi) };
        Ok(lo)
    }
}

native! {
    /// A sno id of the generator `h` at a given time (sno's `NewWithTime`),
    /// returned as `snoNext` does.
    fn Java_io_kguid_Native_snoNextAt(
        _, _owner: JObject<'l>, h: jlong, meta: jint, time_ns: jlong, addr: jlong,
    ) -> jlong {
        let meta: u8 = part("meta", meta.into(), u8::MAX.into())?;
        let id = sno_gen(h)?.next_with_time(meta, time_at(time_ns))?;
        let [hi, lo] = split(id.to_u128());
        // SAFETY: as in `g`.
        unsafe { (addr as *mut jlong).write_unaligned(hi) };
        Ok(lo)
    }
}

native! {
    /// A sno generator's settings into `out`: partition, sequence bounds,
    /// the sequence now.
    fn Java_io_kguid_Native_snoInfo(env, _owner: JObject<'l>, h: jlong, out: JLongArray<'l>) {
        let g = sno_gen(h)?;
        let info = [
            g.partition(),
            g.sequence_min(),
            g.sequence_max(),
            g.sequence(),
        ];
        env.set_long_array_region(&out, 0, &info.map(jlong::from))?;
        Ok(())
    }
}

/// The crate's layout of the widths, unit and epoch the Java `Layout`
/// holds.
fn layout(bits: &JLongArray<'_>, env: &mut JNIEnv<'_>) -> Res<Layout> {
    let mut p = [0; 5];
    env.get_long_array_region(bits, 0, &mut p)?;
    let width = |v: jlong| u32::try_from(v).unwrap_or(u32::MAX);
    let l = Layout::new(width(p[0]), width(p[1]), width(p[2]))?
        .with_unit(Duration::from_nanos(p[3] as u64))?
        .with_epoch(time_at(p[4]));
    Ok(l)
}

native! {
    /// Checks a layout (time, node, seq bits, unit and epoch in nanoseconds).
    fn Java_io_kguid_Native_layoutCheck(env, p: JLongArray<'l>) {
        layout(&p, env).map(drop)
    }
}

native! {
    /// The flake id of parts (time in the layout's units since its epoch).
    fn Java_io_kguid_Native_layoutCompose(
        env, p: JLongArray<'l>, time: jlong, node: jlong, seq: jlong,
    ) -> jlong {
        let l = layout(&p, env)?;
        Ok(l.compose(time as u64, node as u64, seq as u64)? as jlong)
    }
}

native! {
    /// A flake id's parts into `out`: time units, node, sequence, and the
    /// time in Unix nanoseconds.
    fn Java_io_kguid_Native_layoutDecompose(
        env, p: JLongArray<'l>, id: jlong, out: JLongArray<'l>,
    ) {
        let l = layout(&p, env)?;
        let parts = l.decompose(id as u64)?;
        let t = unix_nanos(l.time_of(id as u64)?);
        env.set_long_array_region(
            &out,
            0,
            &[parts.time, parts.node, parts.seq, t].map(|v| v as jlong),
        )?;
        Ok(())
    }
}

native! {
    /// noeqd's node id of a datacenter and a worker.
    fn Java_io_kguid_Native_noeqdNode(_, datacenter: jlong, worker: jlong) -> jlong {
        Ok(flake::noeqd_node(datacenter as u64, worker as u64)? as jlong)
    }
}

native! {
    /// A flake clock of a layout and node; `source` and `mock` as for
    /// `clockNew`.
    fn Java_io_kguid_Native_flakeNew(
        env, _owner: JObject<'l>, p: JLongArray<'l>, node: jlong, source: jint, mock_time: jlong,
    ) -> jlong {
        let l = layout(&p, env)?;
        let mut b = flake::Clock::builder(l).node(node as u64);
        b = match (mock(mock_time)?, source) {
            (Some(m), _) => b.time(m),
            (None, 1) => b.ticker(),
            (None, 2) => b.coarse(),
            _ => b.wall(),
        };
        Ok(boxed(Handle::Flake(b.build()?)))
    }
}

fn flake_clock(h: jlong) -> Res<&'static flake::Clock> {
    match handle(h)? {
        Handle::Flake(c) => Ok(c),
        _ => Err(Fail::State("not a flake clock")),
    }
}

native! {
    /// A new flake id.
    fn Java_io_kguid_Native_flakeNext(_, _owner: JObject<'l>, h: jlong) -> jlong {
        Ok(flake_clock(h)?.next()? as jlong)
    }
}

native! {
    /// Fills `out[off..off + n]` with flake ids, in one call.
    fn Java_io_kguid_Native_flakeFill(
        env, _owner: JObject<'l>, h: jlong, out: JLongArray<'l>, off: jint, n: jint,
    ) {
        let c = flake_clock(h)?;
        let (off, n) = (off.max(0) as usize, n.max(0) as usize);
        if off + n > env.get_array_length(&out)? as usize {
            return Err(Fail::State("array too short for the batch"));
        }
        // SAFETY: no JNI call while the elements are held.
        let mut a = unsafe { env.get_array_elements_critical(&out, ReleaseMode::CopyBack)? };
        let ids: &mut [u64] = bytemuck_u64(&mut a[off..off + n]);
        c.fill(ids)?;
        Ok(())
    }
}

/// A `jlong` slice as `u64`s (the same size and alignment).
fn bytemuck_u64(a: &mut [jlong]) -> &mut [u64] {
    // SAFETY: i64 and u64 have the same size, alignment and validity.
    unsafe { std::slice::from_raw_parts_mut(a.as_mut_ptr().cast::<u64>(), a.len()) }
}

native! {
    /// A flake clock's node.
    fn Java_io_kguid_Native_flakeNode(_, _owner: JObject<'l>, h: jlong) -> jlong {
        Ok(flake_clock(h)?.node() as jlong)
    }
}
