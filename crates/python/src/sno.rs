//! `kguid.sno`: the ids of muyo/sno and the crate's generator of them.

use std::sync::atomic::{AtomicPtr, Ordering};

use guid::ErrorKind;
use guid::sno::{Generator as Gen, Snapshot as Snap, Sno as Id};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyType};

use crate::clock::MockTime;
use crate::convert::{Int, Text, Time, id_of_int};
use crate::errors::{Limit, err, json};
use crate::ids::{int_form, no_id};

/// The Python name of the id, for messages.
const NAME: &str = "kguid.sno.Sno";

/// A `meta` argument, the metabyte: 0..=255.
fn meta_arg(meta: &Int) -> PyResult<u8> {
    meta.fit(Limit::Part("meta", u8::MAX.into()))
}

/// A 16-bit part of a sno id (`partition`, `sequence`): 0..=65535.
fn u16_part(v: &Int, name: &'static str) -> PyResult<u16> {
    v.fit(Limit::Part(name, u16::MAX.into()))
}

/// A setting of `Snapshot` or `Generator` read as a `T`, `T`'s range.
fn setting<T>(v: &Int, name: &'static str, min: i128, max: i128) -> PyResult<T>
where
    T: TryFrom<i64> + for<'a, 'py> FromPyObject<'a, 'py>,
{
    v.fit(Limit::Range(name, min, max))
}

/// A 10-byte id of muyo/sno: time (4 ms units since 2010), tick-tock bit,
/// metabyte, partition and sequence.
#[pyclass(
    frozen,
    skip_from_py_object,
    eq,
    ord,
    hash,
    str,
    module = "kguid.sno",
    name = "Sno"
)]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sno(pub Id);

impl std::fmt::Display for Sno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The process-wide generator of [`Sno::now`], leaked: replaced (and the
/// old one left) only in a forked child, where the parent's refuses.
static GLOBAL: AtomicPtr<Gen> = AtomicPtr::new(std::ptr::null_mut());

/// The process-wide generator, built on first use and again in a forked
/// child (with a partition drawn in the child, as the crate draws them).
fn global() -> PyResult<&'static Gen> {
    let p = GLOBAL.load(Ordering::Acquire);
    if !p.is_null() {
        // SAFETY: every pointer stored is of a leaked `Box`, never freed.
        return Ok(unsafe { &*p });
    }
    renew(p)
}

/// Installs a new process-wide generator in place of `old`.
#[cold]
fn renew(old: *mut Gen) -> PyResult<&'static Gen> {
    let new: &'static Gen = Box::leak(Box::new(Gen::builder().build().map_err(err)?));
    let new_ptr = new as *const Gen as *mut Gen;
    match GLOBAL.compare_exchange(old, new_ptr, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => Ok(new),
        // Another thread installed one first: use it (ours stays leaked,
        // unused, once per race).
        // SAFETY: as in `global`.
        Err(current) => Ok(unsafe { &*current }),
    }
}

#[pymethods]
impl Sno {
    /// The id of a string, 10 bytes, an int or an id.
    #[new]
    fn new(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(id) = value.cast::<Sno>() {
            return Ok(*id.get());
        }
        if value.is_instance_of::<PyString>() {
            return Self::parse(value.extract()?);
        }
        if let Ok(b) = value.cast::<PyBytes>() {
            return Self::from_bytes(b.as_bytes());
        }
        if let Some(v) = int_form(value) {
            return Self::from_int(v);
        }
        no_id(value, NAME, "a str, bytes, an int or a Sno")
    }

    /// A new id from the process-wide generator, with the metabyte `meta`.
    #[staticmethod]
    #[pyo3(signature = (meta = Int::ZERO), text_signature = "(meta=0)")]
    fn now(py: Python<'_>, meta: Int) -> PyResult<Bound<'_, PyAny>> {
        let meta = meta_arg(&meta)?;
        let g = global()?;
        let id = match g.try_next(meta) {
            Ok(id) => Sno(id),
            Err(e) if e.kind() == ErrorKind::Forked => Sno(renew(g as *const Gen as *mut Gen)?
                .try_next(meta)
                .map_err(err)?),
            Err(e) => return Err(err(e)),
        };
        crate::alloc::object(py, id)
    }

    /// Parses the 16-character string, strictly.
    #[staticmethod]
    fn parse(s: Text<'_>) -> PyResult<Self> {
        Id::parse_bytes(s.bytes()).map(Sno).map_err(err)
    }

    /// The id of exactly 10 bytes.
    #[staticmethod]
    fn from_bytes(b: &[u8]) -> PyResult<Self> {
        Id::from_slice(b).map(Sno).map_err(err)
    }

    /// The id of an 80-bit value.
    #[staticmethod]
    fn from_int(v: Int) -> PyResult<Self> {
        id_of_int(&v, NAME, 80, Id::from_u128).map(Sno)
    }

    /// Reads the JSON value the crate's serde writes (`null` is the zero id).
    #[staticmethod]
    fn from_json(s: Text<'_>) -> PyResult<Self> {
        serde_json::from_slice::<Id>(s.bytes())
            .map(Sno)
            .map_err(|e| json(NAME, e))
    }

    /// The id of these parts: the time (Unix nanoseconds or a `datetime`,
    /// floored to 4 ms), the tick-tock bit, the metabyte, the partition and
    /// the sequence.
    #[staticmethod]
    #[pyo3(
        signature = (time, tick = false, meta = Int::ZERO, partition = Int::ZERO, sequence = Int::ZERO),
        text_signature = "(time, tick=False, meta=0, partition=0, sequence=0)"
    )]
    fn compose(time: Time, tick: bool, meta: Int, partition: Int, sequence: Int) -> PyResult<Self> {
        let (meta, partition) = (meta_arg(&meta)?, u16_part(&partition, "partition")?);
        let sequence = u16_part(&sequence, "sequence")?;
        Id::compose(time.ns("time")?, tick, meta, partition, sequence)
            .map(Sno)
            .map_err(err)
    }

    /// The id of these parts, the time in sno's units (4 ms since 2010).
    #[staticmethod]
    #[pyo3(
        signature = (units, tick = false, meta = Int::ZERO, partition = Int::ZERO, sequence = Int::ZERO),
        text_signature = "(units, tick=False, meta=0, partition=0, sequence=0)"
    )]
    fn from_units(
        units: Int,
        tick: bool,
        meta: Int,
        partition: Int,
        sequence: Int,
    ) -> PyResult<Self> {
        let units = units.fit(Limit::Part("units", guid::sno::MAX_UNITS))?;
        let (meta, partition) = (meta_arg(&meta)?, u16_part(&partition, "partition")?);
        let sequence = u16_part(&sequence, "sequence")?;
        Id::from_units(units, tick, meta, partition, sequence)
            .map(Sno)
            .map_err(err)
    }

    /// The zero id.
    #[classattr]
    #[allow(non_snake_case)]
    fn ZERO() -> Self {
        Sno(Id::ZERO)
    }

    /// The smallest id (the zero id).
    #[classattr]
    #[allow(non_snake_case)]
    fn MIN() -> Self {
        Sno(Id::MIN)
    }

    /// The largest id.
    #[classattr]
    #[allow(non_snake_case)]
    fn MAX() -> Self {
        Sno(Id::MAX)
    }

    /// The 10 big-endian bytes.
    #[getter]
    fn bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.as_bytes())
    }

    /// The 80-bit value.
    #[getter]
    fn int(&self) -> u128 {
        self.0.to_u128()
    }

    /// The bytes in lowercase hex.
    #[getter]
    fn hex(&self) -> String {
        format!("{:x}", self.0)
    }

    /// The time as an aware `datetime` in UTC.
    #[getter]
    fn time(&self) -> std::time::SystemTime {
        self.0.time()
    }

    /// The time in Unix nanoseconds (a multiple of 4 ms).
    #[getter]
    fn time_ns(&self) -> u64 {
        self.0.unix_ns()
    }

    /// The time in sno's units, 4 ms since 2010-01-01 UTC.
    #[getter]
    fn units(&self) -> u64 {
        self.0.units()
    }

    /// The tick-tock bit.
    #[getter]
    fn tick(&self) -> bool {
        self.0.tick()
    }

    /// The metabyte.
    #[getter]
    fn meta(&self) -> u8 {
        self.0.meta()
    }

    /// The partition.
    #[getter]
    fn partition(&self) -> u16 {
        self.0.partition()
    }

    /// The sequence.
    #[getter]
    fn sequence(&self) -> u16 {
        self.0.sequence()
    }

    /// Whether this is the zero id.
    #[getter]
    fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    /// The JSON value the crate's serde writes (`null` for the zero id).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.0).map_err(|e| json(NAME, e))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.as_bytes())
    }

    fn __int__(&self) -> u128 {
        self.0.to_u128()
    }

    fn __repr__(&self) -> String {
        format!("kguid.sno.Sno('{}')", self.0)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyType>, (Bound<'py, PyBytes>,)) {
        (
            py.get_type::<Self>(),
            (PyBytes::new(py, self.0.as_bytes()),),
        )
    }

    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: &Bound<'py, PyDict>) -> PyRef<'py, Self> {
        slf
    }
}

/// A sno generator's bookkeeping (sno's `Snapshot`), to restore it after a
/// restart, here or in the Go library.
#[pyclass(
    frozen,
    skip_from_py_object,
    eq,
    module = "kguid.sno",
    name = "Snapshot"
)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Snapshot(pub Snap);

#[pymethods]
impl Snapshot {
    /// A snapshot of these fields (sno's, snake-cased), each in its Rust
    /// type's range (`partition`, `sequence_min`, `sequence_max` 16 bits,
    /// `sequence` and `drifts` 32, the times signed 64); the generator
    /// that restores it checks the rest.
    #[new]
    #[pyo3(
        signature = (*, partition = Int::ZERO, sequence_min = Int::ZERO, sequence_max = Int::ZERO, sequence = Int::ZERO, now = Int::ZERO, wall_hi = Int::ZERO, wall_safe = Int::ZERO, drifts = Int::ZERO),
        text_signature = "(*, partition=0, sequence_min=0, sequence_max=0, sequence=0, now=0, wall_hi=0, wall_safe=0, drifts=0)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        partition: Int,
        sequence_min: Int,
        sequence_max: Int,
        sequence: Int,
        now: Int,
        wall_hi: Int,
        wall_safe: Int,
        drifts: Int,
    ) -> PyResult<Self> {
        const U16: i128 = u16::MAX as i128;
        const U32: i128 = u32::MAX as i128;
        const I64: (i128, i128) = (i64::MIN as i128, i64::MAX as i128);
        Ok(Snapshot(Snap {
            partition: u16_part(&partition, "partition")?,
            sequence_min: setting(&sequence_min, "sequence_min", 0, U16)?,
            sequence_max: setting(&sequence_max, "sequence_max", 0, U16)?,
            sequence: setting(&sequence, "sequence", 0, U32)?,
            now: setting(&now, "now", I64.0, I64.1)?,
            wall_hi: setting(&wall_hi, "wall_hi", I64.0, I64.1)?,
            wall_safe: setting(&wall_safe, "wall_safe", I64.0, I64.1)?,
            drifts: setting(&drifts, "drifts", 0, U32)?,
        }))
    }

    /// The partition.
    #[getter]
    fn partition(&self) -> u16 {
        self.0.partition
    }

    /// The lower bound of the sequence.
    #[getter]
    fn sequence_min(&self) -> u16 {
        self.0.sequence_min
    }

    /// The upper bound of the sequence.
    #[getter]
    fn sequence_max(&self) -> u16 {
        self.0.sequence_max
    }

    /// The sequence of the last id in the unit `wall_hi`.
    #[getter]
    fn sequence(&self) -> u32 {
        self.0.sequence
    }

    /// When it was taken, in sno's units.
    #[getter]
    fn now(&self) -> i64 {
        self.0.now
    }

    /// The unit of the last id.
    #[getter]
    fn wall_hi(&self) -> i64 {
        self.0.wall_hi
    }

    /// The highest unit of the other tick-tock timeline.
    #[getter]
    fn wall_safe(&self) -> i64 {
        self.0.wall_safe
    }

    /// How many times the clock stepped back.
    #[getter]
    fn drifts(&self) -> u32 {
        self.0.drifts
    }

    /// sno's JSON of the snapshot.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.0).map_err(|e| json(SNAPSHOT, e))
    }

    /// The snapshot of sno's JSON, by the crate's reader; an error names
    /// the field it failed on.
    #[staticmethod]
    fn from_json(s: Text<'_>) -> PyResult<Self> {
        serde_json::from_slice::<Snap>(s.bytes())
            .map(Snapshot)
            .map_err(|e| json(SNAPSHOT, snapshot_error(s.bytes(), e)))
    }

    fn __repr__(&self) -> String {
        format!("kguid.sno.Snapshot({:?})", self.0)
    }
}

/// The Python name of a snapshot, for messages.
const SNAPSHOT: &str = "kguid.sno.Snapshot";

/// Why the crate's reader refused a snapshot's JSON `text`: its error
/// `e`, after the first field that the reader refuses alone (its error
/// on the whole object may only say where it stopped), and the form the
/// crate writes.
#[cold]
fn snapshot_error(text: &[u8], e: serde_json::Error) -> String {
    let form = serde_json::to_string(&Snap::default()).unwrap_or_default();
    let fields = match serde_json::from_slice::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(fields)) => fields,
        _ => return format!("{e} (sno's form: {form})"),
    };
    for (name, value) in fields {
        let alone =
            serde_json::Value::Object([(name.clone(), value.clone())].into_iter().collect());
        if let Err(why) = serde_json::from_value::<Snap>(alone) {
            return format!("field {name:?} is {value}: {why} (sno's form: {form})");
        }
    }
    format!("{e} (sno's form: {form})")
}

/// sno's generator: a partition, sequence bounds, the tick-tock bit
/// flipped when the clock steps back; never waits and never repeats an id.
#[pyclass(frozen, skip_from_py_object, module = "kguid.sno", name = "Generator")]
pub struct Generator(Gen);

#[pymethods]
impl Generator {
    /// A generator: `partition` (default: drawn for the process, then
    /// counted up), sequence bounds, `time` (a `MockTime`), `restore` (a
    /// `Snapshot`).
    #[new]
    #[pyo3(signature = (partition = None, sequence_min = None, sequence_max = None, *, time = None, restore = None))]
    fn new(
        partition: Option<Int>,
        sequence_min: Option<Int>,
        sequence_max: Option<Int>,
        time: Option<PyRef<'_, MockTime>>,
        restore: Option<PyRef<'_, Snapshot>>,
    ) -> PyResult<Self> {
        const U16: i128 = u16::MAX as i128;
        let mut b = Gen::builder();
        if let Some(s) = restore {
            b = b.restore(s.0);
        }
        if let Some(p) = partition {
            b = b.partition(u16_part(&p, "partition")?);
        }
        if let Some(min) = sequence_min {
            b = b.sequence_min(setting(&min, "sequence_min", 0, U16)?);
        }
        if let Some(max) = sequence_max {
            b = b.sequence_max(setting(&max, "sequence_max", 0, U16)?);
        }
        if let Some(t) = time {
            b = b.time(t.0.clone());
        }
        b.build().map(Generator).map_err(err)
    }

    /// A new id with the metabyte `meta`.
    #[pyo3(signature = (meta = Int::ZERO), text_signature = "($self, meta=0)")]
    fn next(&self, meta: Int) -> PyResult<Sno> {
        self.0.try_next(meta_arg(&meta)?).map(Sno).map_err(err)
    }

    /// An id at a time (Unix nanoseconds or a `datetime`) with the
    /// metabyte `meta` (sno's `NewWithTime`).
    fn next_with_time(&self, meta: Int, time: Time) -> PyResult<Sno> {
        self.0
            .next_with_time(meta_arg(&meta)?, time.system("time")?)
            .map(Sno)
            .map_err(err)
    }

    /// The partition stamped on ids.
    #[getter]
    fn partition(&self) -> u16 {
        self.0.partition()
    }

    /// The lower bound of the sequence.
    #[getter]
    fn sequence_min(&self) -> u16 {
        self.0.sequence_min()
    }

    /// The upper bound of the sequence.
    #[getter]
    fn sequence_max(&self) -> u16 {
        self.0.sequence_max()
    }

    /// How many ids a unit holds.
    #[getter]
    fn capacity(&self) -> u32 {
        self.0.capacity()
    }

    /// The sequence of the last id if the time is still in its unit.
    #[getter]
    fn sequence(&self) -> u16 {
        self.0.sequence()
    }

    /// How many times the clock stepped back.
    #[getter]
    fn drifts(&self) -> u32 {
        self.0.drifts()
    }

    /// The generator's bookkeeping, to restore it after a restart.
    fn snapshot(&self) -> Snapshot {
        Snapshot(self.0.snapshot())
    }

    fn __repr__(&self) -> String {
        format!("kguid.sno.Generator(partition={})", self.0.partition())
    }
}
