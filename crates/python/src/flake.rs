//! `kguid.flake`: 64-bit snowflake ids as Python `int`s, the crate's
//! layouts and its lock-free clock of them.

use std::time::{Duration, SystemTime};

use guid::flake;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyType};

use crate::clock::MockTime;
use crate::convert::{duration_arg, time_arg};
use crate::errors::err;

/// A split of 63 bits into time, node and sequence, with the time unit and
/// the epoch the time counts from.
#[pyclass(
    frozen,
    skip_from_py_object,
    eq,
    hash,
    module = "kguid.flake",
    name = "Layout"
)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout(pub flake::Layout);

#[pymethods]
impl Layout {
    /// A split of `time + node + seq = 63` bits, each at least 1, in
    /// milliseconds since Twitter's epoch unless `epoch_ms`/`unit` say
    /// otherwise (`unit` a `timedelta` or nanoseconds).
    #[new]
    #[pyo3(signature = (time_bits, node_bits, seq_bits, *, epoch_ms = None, unit = None))]
    fn new(
        time_bits: u32,
        node_bits: u32,
        seq_bits: u32,
        epoch_ms: Option<u64>,
        unit: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut layout = flake::Layout::new(time_bits, node_bits, seq_bits).map_err(err)?;
        if let Some(ms) = epoch_ms {
            layout = layout.with_epoch_ms(ms);
        }
        if let Some(unit) = unit {
            layout = layout.with_unit(duration_arg(unit)?).map_err(err)?;
        }
        Ok(Layout(layout))
    }

    /// noeqd's and Twitter snowflake's layout: 41/10/12 bits, milliseconds
    /// since 2010-11-04 01:42:54.657 UTC.
    #[classattr]
    #[allow(non_snake_case)]
    fn NOEQD() -> Self {
        Layout(flake::Layout::NOEQD)
    }

    /// snowcast's layout for `node_bits` in 7..=13.
    #[staticmethod]
    fn snowcast(node_bits: u32) -> PyResult<Self> {
        flake::Layout::snowcast(node_bits).map(Layout).map_err(err)
    }

    /// The Redis id talk's layout: 41/10/12 bits since a custom epoch (a
    /// `datetime` or Unix nanoseconds).
    #[staticmethod]
    fn redis(epoch: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Layout(flake::Layout::redis(time_arg(epoch)?)))
    }

    /// The same split with time counted from `epoch`.
    fn with_epoch(&self, epoch: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Layout(self.0.with_epoch(time_arg(epoch)?)))
    }

    /// The same split with time counted from `ms` Unix milliseconds.
    fn with_epoch_ms(&self, ms: u64) -> Self {
        Layout(self.0.with_epoch_ms(ms))
    }

    /// The same split with time counted in `unit`s (at least 1 ns).
    fn with_unit(&self, unit: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.0
            .with_unit(duration_arg(unit)?)
            .map(Layout)
            .map_err(err)
    }

    /// Bits of time.
    #[getter]
    fn time_bits(&self) -> u32 {
        self.0.time_bits()
    }

    /// Bits of node.
    #[getter]
    fn node_bits(&self) -> u32 {
        self.0.node_bits()
    }

    /// Bits of sequence.
    #[getter]
    fn seq_bits(&self) -> u32 {
        self.0.seq_bits()
    }

    /// The largest time, in units since the epoch.
    #[getter]
    fn max_time(&self) -> u64 {
        self.0.max_time()
    }

    /// The largest node id.
    #[getter]
    fn max_node(&self) -> u64 {
        self.0.max_node()
    }

    /// The largest sequence number.
    #[getter]
    fn max_seq(&self) -> u64 {
        self.0.max_seq()
    }

    /// The time unit.
    #[getter]
    fn unit(&self) -> Duration {
        self.0.unit()
    }

    /// The epoch time counts from.
    #[getter]
    fn epoch(&self) -> SystemTime {
        self.0.epoch()
    }

    /// The id of `time` units since the epoch, `node` and `seq`, each
    /// checked against its field.
    fn compose(&self, time: u64, node: u64, seq: u64) -> PyResult<u64> {
        self.0.compose(time, node, seq).map_err(err)
    }

    /// The parts of an id: `Parts(time, node, seq)`.
    fn decompose(&self, id: u64) -> PyResult<Parts> {
        self.0.decompose(id).map(Parts).map_err(err)
    }

    /// Whole units from the epoch to a time (0 before the epoch).
    fn units(&self, time: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(self.0.units(time_arg(time)?))
    }

    /// The start of unit `units` since the epoch.
    fn time(&self, units: u64) -> SystemTime {
        self.0.time(units)
    }

    /// The time of an id (the start of its unit).
    fn time_of(&self, id: u64) -> PyResult<SystemTime> {
        self.0.time_of(id).map_err(err)
    }

    fn __repr__(&self) -> String {
        let ns = guid::unix_nanos(self.0.epoch());
        format!(
            "kguid.flake.Layout({}, {}, {}, epoch_ms={}, unit={})",
            self.0.time_bits(),
            self.0.node_bits(),
            self.0.seq_bits(),
            ns / 1_000_000,
            self.0.unit().as_nanos()
        )
    }
}

/// The parts of a flake id: `time` (units since the epoch), `node`, `seq`;
/// unpacks as a tuple.
#[pyclass(
    frozen,
    skip_from_py_object,
    eq,
    hash,
    module = "kguid.flake",
    name = "Parts"
)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parts(pub flake::Parts);

#[pymethods]
impl Parts {
    /// The parts.
    #[new]
    fn new(time: u64, node: u64, seq: u64) -> Self {
        Parts(flake::Parts { time, node, seq })
    }

    /// Units since the layout's epoch.
    #[getter]
    fn time(&self) -> u64 {
        self.0.time
    }

    /// The node id.
    #[getter]
    fn node(&self) -> u64 {
        self.0.node
    }

    /// The sequence within the unit.
    #[getter]
    fn seq(&self) -> u64 {
        self.0.seq
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = PyTuple::new(py, [self.0.time, self.0.node, self.0.seq])?;
        t.try_iter().map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        format!(
            "kguid.flake.Parts(time={}, node={}, seq={})",
            self.0.time, self.0.node, self.0.seq
        )
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyType>, (u64, u64, u64)) {
        (
            py.get_type::<Self>(),
            (self.0.time, self.0.node, self.0.seq),
        )
    }
}

/// A lock-free clock of flake ids on a layout: strictly increasing `int`s,
/// borrowing the next units when the sequence runs out, up to `max_lead`.
#[pyclass(frozen, skip_from_py_object, module = "kguid.flake", name = "Clock")]
pub struct Clock(flake::Clock);

#[pymethods]
impl Clock {
    /// A clock for `layout` (default `Layout.NOEQD`) stamping `node`;
    /// `ticker`, `time` (a `MockTime`), `max_lead` (a `timedelta` or
    /// nanoseconds) and `not_before` as the crate's builder.
    #[new]
    #[pyo3(signature = (layout = None, node = 0, *, ticker = false, time = None, max_lead = None, not_before = None))]
    fn new(
        layout: Option<PyRef<'_, Layout>>,
        node: u64,
        ticker: bool,
        time: Option<PyRef<'_, MockTime>>,
        max_lead: Option<&Bound<'_, PyAny>>,
        not_before: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let layout = layout.map_or(flake::Layout::NOEQD, |l| l.0);
        let mut b = flake::Clock::builder(layout).node(node);
        if let Some(t) = time {
            b = b.time(t.0.clone());
        } else if ticker {
            b = b.ticker();
        }
        if let Some(lead) = max_lead {
            b = b.max_lead(duration_arg(lead)?);
        }
        if let Some(t) = not_before {
            b = b.not_before(time_arg(t)?).map_err(err)?;
        }
        b.build().map(Clock).map_err(err)
    }

    /// A new id, later than every id this clock issued before.
    fn next(&self) -> PyResult<u64> {
        self.0.next().map_err(err)
    }

    /// `n` consecutive ids from one read of the time (`fill`).
    fn batch<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyList>> {
        let mut ids = crate::alloc::room(n, 0u64)?;
        self.0.fill(&mut ids).map_err(err)?;
        PyList::new(py, ids)
    }

    /// The layout of the ids.
    #[getter]
    fn layout(&self) -> Layout {
        Layout(self.0.layout())
    }

    /// The node stamped on ids.
    #[getter]
    fn node(&self) -> u64 {
        self.0.node()
    }

    /// How far ids may run ahead of the time source.
    #[getter]
    fn max_lead(&self) -> Duration {
        self.0.max_lead()
    }

    /// The start of the unit of the last id.
    #[getter]
    fn last_time(&self) -> SystemTime {
        self.0.last_time()
    }

    fn __repr__(&self) -> String {
        format!("kguid.flake.Clock(node={})", self.0.node())
    }
}

/// noeqd's node id: `datacenter << 5 | worker`, each in 0..=31.
#[pyfunction]
pub fn noeqd_node(datacenter: u64, worker: u64) -> PyResult<u64> {
    flake::noeqd_node(datacenter, worker).map_err(err)
}
