//! `kguid.sno`: the ids of muyo/sno and the crate's generator of them.

use std::sync::atomic::{AtomicPtr, Ordering};

use guid::ErrorKind;
use guid::sno::{Generator as Gen, Snapshot as Snap, Sno as Id};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyType};

use crate::clock::MockTime;
use crate::convert::{text_arg, time_arg, time_ns_arg};
use crate::errors::err;

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
            return Self::parse(value);
        }
        if let Ok(b) = value.cast::<PyBytes>() {
            return Self::from_bytes(b.as_bytes());
        }
        if let Ok(v) = value.extract::<u128>() {
            return Self::from_int(v);
        }
        Err(PyTypeError::new_err(format!(
            "no Sno of {}",
            value.get_type().name()?
        )))
    }

    /// A new id from the process-wide generator, with the metabyte `meta`.
    #[staticmethod]
    #[pyo3(signature = (meta = 0))]
    fn now(py: Python<'_>, meta: u8) -> PyResult<Bound<'_, PyAny>> {
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
    fn parse(s: &Bound<'_, PyAny>) -> PyResult<Self> {
        Id::parse_bytes(text_arg(s)?).map(Sno).map_err(err)
    }

    /// The id of exactly 10 bytes.
    #[staticmethod]
    fn from_bytes(b: &[u8]) -> PyResult<Self> {
        Id::from_slice(b).map(Sno).map_err(err)
    }

    /// The id of an 80-bit value.
    #[staticmethod]
    fn from_int(v: u128) -> PyResult<Self> {
        Id::from_u128(v).map(Sno).map_err(err)
    }

    /// Reads the JSON value the crate's serde writes (`null` is the zero id).
    #[staticmethod]
    fn from_json(s: &Bound<'_, PyAny>) -> PyResult<Self> {
        serde_json::from_slice::<Id>(&text_arg(s)?)
            .map(Sno)
            .map_err(|e| crate::errors::Error::new_err(e.to_string()))
    }

    /// The id of these parts: the time (Unix nanoseconds or a `datetime`,
    /// floored to 4 ms), the tick-tock bit, the metabyte, the partition and
    /// the sequence.
    #[staticmethod]
    #[pyo3(signature = (time, tick = false, meta = 0, partition = 0, sequence = 0))]
    fn compose(
        time: &Bound<'_, PyAny>,
        tick: bool,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> PyResult<Self> {
        Id::compose(time_ns_arg(time)?, tick, meta, partition, sequence)
            .map(Sno)
            .map_err(err)
    }

    /// The id of these parts, the time in sno's units (4 ms since 2010).
    #[staticmethod]
    #[pyo3(signature = (units, tick = false, meta = 0, partition = 0, sequence = 0))]
    fn from_units(
        units: u64,
        tick: bool,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> PyResult<Self> {
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
        serde_json::to_string(&self.0).map_err(|e| crate::errors::Error::new_err(e.to_string()))
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
    /// A snapshot of these fields (sno's, snake-cased).
    #[new]
    #[pyo3(signature = (*, partition = 0, sequence_min = 0, sequence_max = 0, sequence = 0, now = 0, wall_hi = 0, wall_safe = 0, drifts = 0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        partition: u16,
        sequence_min: u16,
        sequence_max: u16,
        sequence: u32,
        now: i64,
        wall_hi: i64,
        wall_safe: i64,
        drifts: u32,
    ) -> Self {
        Snapshot(Snap {
            partition,
            sequence_min,
            sequence_max,
            sequence,
            now,
            wall_hi,
            wall_safe,
            drifts,
        })
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
        serde_json::to_string(&self.0).map_err(|e| crate::errors::Error::new_err(e.to_string()))
    }

    /// The snapshot of sno's JSON.
    #[staticmethod]
    fn from_json(s: &Bound<'_, PyAny>) -> PyResult<Self> {
        serde_json::from_slice::<Snap>(&text_arg(s)?)
            .map(Snapshot)
            .map_err(|e| crate::errors::Error::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        format!("kguid.sno.Snapshot({:?})", self.0)
    }
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
        partition: Option<u16>,
        sequence_min: Option<u16>,
        sequence_max: Option<u16>,
        time: Option<PyRef<'_, MockTime>>,
        restore: Option<PyRef<'_, Snapshot>>,
    ) -> PyResult<Self> {
        let mut b = Gen::builder();
        if let Some(s) = restore {
            b = b.restore(s.0);
        }
        if let Some(p) = partition {
            b = b.partition(p);
        }
        if let Some(min) = sequence_min {
            b = b.sequence_min(min);
        }
        if let Some(max) = sequence_max {
            b = b.sequence_max(max);
        }
        if let Some(t) = time {
            b = b.time(t.0.clone());
        }
        b.build().map(Generator).map_err(err)
    }

    /// A new id with the metabyte `meta`.
    #[pyo3(signature = (meta = 0))]
    fn next(&self, meta: u8) -> PyResult<Sno> {
        self.0.try_next(meta).map(Sno).map_err(err)
    }

    /// An id at a time (Unix nanoseconds or a `datetime`) with the
    /// metabyte `meta` (sno's `NewWithTime`).
    fn next_with_time(&self, meta: u8, time: &Bound<'_, PyAny>) -> PyResult<Sno> {
        self.0
            .next_with_time(meta, time_arg(time)?)
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

crate::alloc::fast!(Sno(Id::MIN));
