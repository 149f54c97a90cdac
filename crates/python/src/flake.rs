//! `kguid.flake`: 64-bit snowflake ids as Python `int`s, the crate's
//! layouts and its lock-free clock of them.

use std::time::{Duration, SystemTime};

use guid::flake;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyType};

use crate::clock::MockTime;
use crate::convert::{Int, Span, Time, id_of_int};
use crate::errors::{Limit, err};
use crate::ids::batch_len;

/// What `read` (the layout's) makes of a flake id argument: 63 bits.
fn of_id<T>(id: &Int, read: impl FnOnce(u64) -> guid::Result<T>) -> PyResult<T> {
    id_of_int(id, "flake id", 63, read)
}

/// A `u64` argument of the crate's (a time in units, an epoch in ms).
fn u64_arg(v: &Int, name: &'static str) -> PyResult<u64> {
    v.fit(Limit::Range(name, 0, u64::MAX.into()))
}

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
        py: Python<'_>,
        time_bits: Int,
        node_bits: Int,
        seq_bits: Int,
        epoch_ms: Option<Int>,
        unit: Option<Span>,
    ) -> PyResult<Self> {
        let (time, node, seq) = match (time_bits.get(), node_bits.get(), seq_bits.get()) {
            (Some(time), Some(node), Some(seq)) => (time, node, seq),
            // A width no u32 holds: the crate's error for the widths as given.
            _ => {
                let widths = [&time_bits, &node_bits, &seq_bits].map(|w| w.object(py));
                return Err(crate::errors::layout([&widths[0], &widths[1], &widths[2]]));
            }
        };
        let mut layout = flake::Layout::new(time, node, seq).map_err(err)?;
        if let Some(ms) = epoch_ms {
            layout = layout.with_epoch_ms(u64_arg(&ms, "epoch_ms")?);
        }
        if let Some(unit) = unit {
            layout = layout.with_unit(unit.duration("unit")?).map_err(err)?;
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
    fn snowcast(node_bits: Int) -> PyResult<Self> {
        let fallback = Limit::Range("node_bits", 0, u32::MAX.into());
        let node_bits =
            node_bits.fit(Limit::stated(flake::Layout::snowcast(u32::MAX), fallback))?;
        flake::Layout::snowcast(node_bits).map(Layout).map_err(err)
    }

    /// The Redis id talk's layout: 41/10/12 bits since a custom epoch (a
    /// `datetime` or Unix nanoseconds).
    #[staticmethod]
    fn redis(epoch: Time) -> PyResult<Self> {
        Ok(Layout(flake::Layout::redis(epoch.system("epoch")?)))
    }

    /// The same split with time counted from `epoch` (one before 1970
    /// counts from 1970).
    fn with_epoch(&self, epoch: Time) -> PyResult<Self> {
        Ok(Layout(self.0.with_epoch(epoch.system("epoch")?)))
    }

    /// The same split with time counted from `ms` Unix milliseconds.
    fn with_epoch_ms(&self, ms: Int) -> PyResult<Self> {
        Ok(Layout(self.0.with_epoch_ms(u64_arg(&ms, "ms")?)))
    }

    /// The same split with time counted in `unit`s (at least 1 ns).
    fn with_unit(&self, unit: Span) -> PyResult<Self> {
        self.0
            .with_unit(unit.duration("unit")?)
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
    fn compose(&self, time: Int, node: Int, seq: Int) -> PyResult<u64> {
        let l = &self.0;
        let time = time.fit(Limit::Part("time", l.max_time()))?;
        let node = node.fit(Limit::Part("node", l.max_node()))?;
        let seq = seq.fit(Limit::Part("seq", l.max_seq()))?;
        l.compose(time, node, seq).map_err(err)
    }

    /// The parts of an id (63 bits): `Parts(time, node, seq)`.
    fn decompose(&self, id: Int) -> PyResult<Parts> {
        of_id(&id, |id| self.0.decompose(id)).map(Parts)
    }

    /// Whole units from the epoch to a time (0 before the epoch).
    fn units(&self, time: Time) -> PyResult<u64> {
        Ok(self.0.units(time.system("time")?))
    }

    /// The start of unit `units` since the epoch (saturating in 2554).
    fn time(&self, units: Int) -> PyResult<SystemTime> {
        Ok(self.0.time(u64_arg(&units, "units")?))
    }

    /// The time of an id (the start of its unit).
    fn time_of(&self, id: Int) -> PyResult<SystemTime> {
        of_id(&id, |id| self.0.time_of(id))
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
    /// The parts, each a `u64` (a layout checks them against its fields).
    #[new]
    fn new(time: Int, node: Int, seq: Int) -> PyResult<Self> {
        let part = |v: &Int, name| v.fit::<u64>(Limit::Part(name, u64::MAX));
        Ok(Parts(flake::Parts {
            time: part(&time, "time")?,
            node: part(&node, "node")?,
            seq: part(&seq, "seq")?,
        }))
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
    #[pyo3(
        signature = (layout = None, node = Int::ZERO, *, ticker = false, time = None, max_lead = None, not_before = None),
        text_signature = "(layout=None, node=0, *, ticker=False, time=None, max_lead=None, not_before=None)"
    )]
    fn new(
        layout: Option<PyRef<'_, Layout>>,
        node: Int,
        ticker: bool,
        time: Option<PyRef<'_, MockTime>>,
        max_lead: Option<Span>,
        not_before: Option<Time>,
    ) -> PyResult<Self> {
        let layout = layout.map_or(flake::Layout::NOEQD, |l| l.0);
        let node = node.fit(Limit::Part("node", layout.max_node()))?;
        let mut b = flake::Clock::builder(layout).node(node);
        if let Some(t) = time {
            b = b.time(t.0.clone());
        } else if ticker {
            b = b.ticker();
        }
        if let Some(lead) = max_lead {
            b = b.max_lead(lead.duration("max_lead")?);
        }
        if let Some(t) = not_before {
            b = b.not_before(t.system("not_before")?).map_err(err)?;
        }
        b.build().map(Clock).map_err(err)
    }

    /// A new id, later than every id this clock issued before.
    fn next(&self) -> PyResult<u64> {
        self.0.next().map_err(err)
    }

    /// `n` consecutive ids from one read of the time (`fill`).
    fn batch<'py>(&self, py: Python<'py>, n: Int) -> PyResult<Bound<'py, PyList>> {
        let mut ids = crate::alloc::room(batch_len(&n)?, 0u64)?;
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
pub fn noeqd_node(datacenter: Int, worker: Int) -> PyResult<u64> {
    let limit = |name| Limit::Part(name, u64::MAX);
    let datacenter = datacenter.fit(Limit::stated(
        flake::noeqd_node(u64::MAX, 0),
        limit("datacenter"),
    ))?;
    let worker = worker.fit(Limit::stated(
        flake::noeqd_node(0, u64::MAX),
        limit("worker"),
    ))?;
    flake::noeqd_node(datacenter, worker).map_err(err)
}
