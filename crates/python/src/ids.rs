//! The id types of both generations (v2's `Guid` and `Luid`, v3's `Guid`,
//! `Luid` and `Xuid`) and their drifts, as Python classes: each a frozen
//! wrapper of the crate's value whose methods call the crate's.

use std::cmp::Ordering;
use std::time::Duration;

use guid::Id;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDelta, PyDict, PyList, PyString, PyType};

use crate::clock::V3Clock;
use crate::convert::{Int, Span, Text, Time, id_of_int, signed_ns, wrong_kind};
use crate::errors::{Limit, err};

/// The limit of a 32-bit `node` argument (v2's, and v3's global id's).
pub const NODE32: Limit = Limit::Part("node", u32::MAX as u64);

/// The limit of a 58-bit `node` argument (v3's 128-bit id's).
pub const NODE58: Limit = Limit::Part("node", guid::v3::node::MAX);

/// A batch's length `n`: a list's length in Python, `0..=isize::MAX`
/// (past the room the process has, a `MemoryError` when the ids are made).
pub fn batch_len(n: &Int) -> PyResult<usize> {
    const BATCH: Limit = Limit::Range("n", 0, isize::MAX as i128);
    let len = n.fit::<isize>(BATCH)?;
    usize::try_from(len)
        .map_err(|_| Python::attach(|py| crate::errors::beyond(BATCH, &n.object(py), "")))
}

/// The limit of a local id's `to_i64` value `v`.
const I64: Limit = Limit::Range("v", i64::MIN as i128, i64::MAX as i128);

/// A `seq` argument: a `u16`, whose 14 bits the crate checks; past the
/// `u16` the same `PartError`, up to the largest id's sequence (16383).
fn seq_arg(seq: &Int) -> PyResult<u16> {
    seq.fit(Limit::Part("seq", <guid::Guid as Id>::MAX.seq().into()))
}

/// The drift class of a generation: a frozen wrapper of its drift.
macro_rules! drift_class {
    (
        $(#[$meta:meta])*
        $py:ident($inner:ty), module: $module:literal, { $($extra:tt)* }
    ) => {
        $(#[$meta])*
        #[pyclass(frozen, skip_from_py_object, eq, ord, hash, str, module = $module, name = "Drift")]
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $py(pub $inner);

        impl std::fmt::Display for $py {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl $py {
            /// The drift of an argument: `None` (the default), a drift, a
            /// code (`int`) or a tolerated skew (`timedelta`).
            pub fn arg(drift: Option<&Bound<'_, PyAny>>) -> PyResult<$inner> {
                let Some(drift) = drift else {
                    return Ok(<$inner>::DEFAULT);
                };
                if let Ok(d) = drift.cast::<$py>() {
                    return Ok(d.get().0);
                }
                if drift.is_instance_of::<PyDelta>() {
                    let skew = drift.extract::<Span>()?.duration("drift")?;
                    return Ok(<$inner>::from_duration(skew));
                }
                match drift.is_instance_of::<PyBool>() {
                    false => match drift.extract::<Int>() {
                        Ok(code) => Self::of_code(&code),
                        Err(_) => Err(Self::not_a_drift(drift)),
                    },
                    true => Err(Self::not_a_drift(drift)),
                }
            }

            /// The drift of a code, `MIN.code..=MAX.code`.
            fn of_code(code: &Int) -> PyResult<$inner> {
                let (min, max) = (<$inner>::MIN.code(), <$inner>::MAX.code());
                let code = code.fit::<u8>(Limit::Range("drift code", min.into(), max.into()))?;
                <$inner>::new(code).map_err(err)
            }

            /// The `TypeError` of a drift argument of another kind.
            #[cold]
            fn not_a_drift(drift: &Bound<'_, PyAny>) -> PyErr {
                let what = "a drift is a Drift, a code (int) or a timedelta";
                wrong_kind(Some("drift"), what, drift, "")
            }
        }

        #[pymethods]
        impl $py {
            /// The drift of a code.
            #[new]
            fn new(code: Int) -> PyResult<Self> {
                Self::of_code(&code).map($py)
            }

            /// The drift for a tolerated clock skew (a `timedelta`, or
            /// nanoseconds; a negative one reads as zero).
            #[staticmethod]
            fn from_duration(skew: Span) -> PyResult<Self> {
                Ok($py(<$inner>::from_duration(skew.duration("skew")?)))
            }

            /// The drift for a signed skew in nanoseconds (Go's
            /// `time.Duration`); zero and negative skews give `MIN`.
            #[staticmethod]
            fn from_nanos(skew: Int) -> PyResult<Self> {
                let skew = skew.fit::<i64>(Limit::Range("skew", i64::MIN.into(), i64::MAX.into()))?;
                Ok($py(<$inner>::from_nanos(skew)))
            }

            /// The default drift.
            #[classattr]
            #[allow(non_snake_case)]
            fn DEFAULT() -> Self {
                $py(<$inner>::DEFAULT)
            }

            /// The smallest drift.
            #[classattr]
            #[allow(non_snake_case)]
            fn MIN() -> Self {
                $py(<$inner>::MIN)
            }

            /// The largest drift.
            #[classattr]
            #[allow(non_snake_case)]
            fn MAX() -> Self {
                $py(<$inner>::MAX)
            }

            /// The 3-bit code.
            #[getter]
            fn code(&self) -> u8 {
                self.0.code()
            }

            /// The window: ids of different nodes sort by node within it.
            #[getter]
            fn window(&self) -> Duration {
                self.0.window()
            }

            /// The window in nanoseconds.
            #[getter]
            fn window_ns(&self) -> u128 {
                self.0.window().as_nanos()
            }

            fn __int__(&self) -> u8 {
                self.0.code()
            }

            fn __index__(&self) -> u8 {
                self.0.code()
            }

            fn __repr__(&self) -> String {
                format!("{}.Drift({})", $module, self.0.code())
            }

            fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyType>, (u8,)) {
                (py.get_type::<Self>(), (self.0.code(),))
            }

            $($extra)*
        }
    };
}

drift_class!(
    /// v2's drift: the code `k` (1..=7, default 3) puts the low `18 + k`
    /// tick bits below the node.
    Drift(guid::Drift), module: "kguid", {}
);

drift_class!(
    /// v3's drift: codes 0..=7 (default 4) on Go v3's ladder of windows.
    V3Drift(guid::v3::Drift), module: "kguid.v3", {
        /// Bits of the tick below the node.
        #[getter]
        fn bits(&self) -> u32 {
            self.0.bits()
        }

        /// The v3 drift of a v2 drift (the same window).
        #[staticmethod]
        fn from_v2(drift: &Drift) -> Self {
            V3Drift(guid::v3::Drift::from_v2(drift.0))
        }
    }
);

/// The `uuid.UUID` class, imported once.
fn uuid_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static UUID: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    UUID.import(py, "uuid", "UUID")
}

/// Go's comparison result, -1, 0 or 1.
fn sign(o: Ordering) -> i8 {
    o as i8
}

/// The `TypeError` for a value that no form of the id `name` is read from
/// (`forms` lists them).
pub fn no_id<T>(value: &Bound<'_, PyAny>, name: &str, forms: &str) -> PyResult<T> {
    let what = format!("a {name} is read from {forms}");
    Err(wrong_kind(Some("value"), &what, value, ""))
}

/// The integer an id is read from, if `value` is one (an `int`, or an
/// object with `__index__`; not a `bool`).
pub fn int_form(value: &Bound<'_, PyAny>) -> Option<Int> {
    match value.is_instance_of::<PyBool>() {
        false => value.extract::<Int>().ok(),
        true => None,
    }
}

/// The cells of a `fold` argument: `bytes`, or a sequence of `int`s, each
/// read as a byte (a cell past 255 is a `CellError` at its index).
pub fn cells_arg(cells: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = cells.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let items = match cells.is_instance_of::<PyString>() {
        false => cells.try_iter().ok(),
        true => None,
    };
    let what = "cells are bytes or a sequence of ints";
    let Some(items) = items else {
        return Err(wrong_kind(Some("cells"), what, cells, ""));
    };
    items
        .enumerate()
        .map(|(i, cell)| {
            let cell = cell?;
            match cell.extract::<Int>() {
                Ok(cell) => cell.fit::<u8>(Limit::Cell(i)),
                Err(_) => Err(wrong_kind(
                    Some("cells"),
                    &format!("{what} (cell {i})"),
                    &cell,
                    "",
                )),
            }
        })
        .collect()
}

/// An id class: a frozen wrapper of one of the crate's id types, with
/// everything the `Id` trait gives, and the type's own methods (`extra`).
macro_rules! id_class {
    (
        $(#[$meta:meta])*
        $py:ident($inner:ty), name: $name:literal, module: $module:literal,
        drift: $drift:ident, local: $local:ident, forms: $forms:literal,
        clock: $clock:path, next: $next:ident, fill: $fill:ident, other: $other:ident,
        { $($extra:tt)* }
    ) => {
        $(#[$meta])*
        #[pyclass(frozen, skip_from_py_object, eq, ord, hash, str, module = $module, name = $name)]
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $py(pub $inner);

        impl std::fmt::Display for $py {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl $py {
            /// The id of a text argument, by the crate's reader.
            fn read(s: &Text<'_>) -> PyResult<Self> {
                <$inner>::parse_bytes(s.bytes()).map($py).map_err(err)
            }

            /// The id of an integer argument (its value).
            fn of_int(v: &Int) -> PyResult<Self> {
                id_of_int(v, concat!($module, ".", $name), <$inner as Id>::BITS, <$inner as Id>::from_u128).map($py)
            }

            /// The `TypeError` of a value that is no form of the id.
            fn no_form<T>(value: &Bound<'_, PyAny>) -> PyResult<T> {
                no_id(value, concat!($module, ".", $name), $forms)
            }
        }

        #[pymethods]
        impl $py {
            /// A new id from the process-wide clock of its generation:
            /// strictly increasing, never repeated, across threads and forks.
            #[staticmethod]
            fn now(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
                crate::alloc::object(py, $py($clock.$next().map_err(err)?))
            }

            /// `n` consecutive new ids from the process-wide clock of its
            /// generation, one read of the time (the clock's `fill`).
            #[staticmethod]
            fn batch(py: Python<'_>, n: Int) -> PyResult<Bound<'_, PyList>> {
                let n = batch_len(&n)?;
                crate::alloc::batch(py, n, |ids| $clock.$fill(ids), $py)
            }

            /// The id of a string (what `str()` gives), bytes (what
            /// `bytes()` gives), an int (what `int()` gives) or an id.
            #[new]
            fn new(value: &Bound<'_, PyAny>) -> PyResult<Self> {
                if let Ok(id) = value.cast::<$py>() {
                    return Ok(*id.get());
                }
                if value.is_instance_of::<PyString>() {
                    return Self::read(&value.extract()?);
                }
                if let Ok(b) = value.cast::<PyBytes>() {
                    return <$inner>::from_slice(b.as_bytes()).map($py).map_err(err);
                }
                if let Some(v) = int_form(value) {
                    return Self::of_int(&v);
                }
                Self::$other(value)
            }

            /// Parses the text form (`str` or `bytes` of it), strictly.
            #[staticmethod]
            fn parse(s: Text<'_>) -> PyResult<Self> {
                Self::read(&s)
            }

            /// The id of its big-endian bytes.
            #[staticmethod]
            fn from_bytes(b: &[u8]) -> PyResult<Self> {
                <$inner>::from_slice(b).map($py).map_err(err)
            }

            /// The id of its value, the big-endian bytes as an integer.
            #[staticmethod]
            fn from_int(v: Int) -> PyResult<Self> {
                Self::of_int(&v)
            }

            /// Parses the canonical base62 string.
            #[staticmethod]
            fn from_base62(s: Text<'_>) -> PyResult<Self> {
                <$inner>::from_base62(s.bytes()).map($py).map_err(err)
            }

            /// Reads the JSON value the crate's serde writes.
            #[staticmethod]
            fn from_json(s: Text<'_>) -> PyResult<Self> {
                serde_json::from_slice::<$inner>(s.bytes())
                    .map($py)
                    .map_err(|e| crate::errors::json(concat!($module, ".", $name), e))
            }

            /// Puts `split` cells back together (Go's `Fold`): `n` in
            /// 1..=8, the cells `bytes` or a sequence of ints.
            #[staticmethod]
            fn fold(n: Int, cells: &Bound<'_, PyAny>) -> PyResult<Self> {
                let n = n.fit::<u32>(Limit::CellWidth)?;
                <$inner>::fold(n, &cells_arg(cells)?).map($py).map_err(err)
            }

            /// The zero id of a drift (default: the default drift).
            #[staticmethod]
            #[pyo3(signature = (drift = None))]
            fn zero(drift: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
                Ok($py(<$inner>::zero($drift::arg(drift)?)))
            }

            /// The smallest id.
            #[classattr]
            #[allow(non_snake_case)]
            fn MIN() -> Self {
                $py(<$inner as Id>::MIN)
            }

            /// The largest id.
            #[classattr]
            #[allow(non_snake_case)]
            fn MAX() -> Self {
                $py(<$inner as Id>::MAX)
            }

            /// Length of the bytes.
            #[classattr]
            #[allow(non_snake_case)]
            fn BYTES() -> usize {
                <$inner as Id>::BYTES
            }

            /// Bits of the node (0 for a local id).
            #[classattr]
            #[allow(non_snake_case)]
            fn NODE_BITS() -> u32 {
                <$inner as Id>::NODE_BITS
            }

            /// Length of the text form.
            #[classattr]
            #[allow(non_snake_case)]
            fn STRING_LEN() -> usize {
                <$inner as Id>::STRING_LEN
            }

            /// The big-endian bytes.
            #[getter]
            fn bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, self.0.as_ref())
            }

            /// The value: the big-endian bytes as an integer.
            #[getter]
            fn int(&self) -> u128 {
                self.0.to_u128()
            }

            /// The bytes in lowercase hex.
            #[getter]
            fn hex(&self) -> String {
                format!("{:x}", self.0)
            }

            /// The time as an aware `datetime` in UTC (to the microsecond;
            /// `time_ns` has it all).
            #[getter]
            fn time(&self) -> std::time::SystemTime {
                self.0.epoch()
            }

            /// The time in Unix nanoseconds, to the tick (2^17 ns).
            #[getter]
            fn time_ns(&self) -> u64 {
                self.0.time()
            }

            /// The node id (0 for a local id).
            #[getter]
            fn node(&self) -> u64 {
                self.0.node()
            }

            /// The sequence number, 0..=16383.
            #[getter]
            fn seq(&self) -> u16 {
                self.0.seq()
            }

            /// The drift.
            #[getter]
            fn drift(&self) -> $drift {
                $drift(Id::drift(&self.0))
            }

            /// The local id: drift, time and sequence without the node.
            fn to_l64(&self) -> $local {
                $local(self.0.to_l64())
            }

            /// The base62 string.
            fn to_base62(&self) -> String {
                self.0.to_base62()
            }

            /// The JSON value the crate's serde writes.
            fn to_json(&self) -> PyResult<String> {
                serde_json::to_string(&self.0).map_err(|e| crate::errors::json(concat!($module, ".", $name), e))
            }

            /// The value cut into `n`-bit cells from the top (Go's
            /// `Split`), `n` in 1..=8.
            fn split<'py>(&self, py: Python<'py>, n: Int) -> PyResult<Bound<'py, PyBytes>> {
                let cells = self.0.split(n.fit(Limit::CellWidth)?).map_err(err)?;
                Ok(PyBytes::new(py, &cells))
            }

            /// The approximate distance from `other` to `self` (Go's `Diff`).
            fn diff(&self, other: &Self) -> Self {
                $py(self.0.diff(&other.0))
            }

            fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, self.0.as_ref())
            }

            fn __int__(&self) -> u128 {
                self.0.to_u128()
            }

            fn __repr__(&self) -> String {
                format!("{}.{}('{}')", $module, $name, self.0)
            }

            fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyType>, (Bound<'py, PyBytes>,)) {
                (py.get_type::<Self>(), (PyBytes::new(py, self.0.as_ref()),))
            }

            fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
                slf
            }

            fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: &Bound<'py, PyDict>) -> PyRef<'py, Self> {
                slf
            }

            $($extra)*
        }
    };
}

id_class!(
    /// A 96-bit global id of fogfish/guid v2: drift, time, node and
    /// sequence, unique across nodes.
    Guid(guid::Guid), name: "Guid", module: "kguid", drift: Drift, local: Luid,
    forms: "a str, bytes, an int or a Guid",
    clock: guid::CLOCK, next: try_g, fill: try_fill, other: no_form, {
        /// The id of these parts: a 32-bit node, the time (Unix
        /// nanoseconds or a `datetime`, kept to the tick), the sequence
        /// (0..=16383) and the drift.
        #[staticmethod]
        #[pyo3(signature = (node, time, seq, drift = None))]
        fn compose(node: Int, time: Time, seq: Int, drift: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
            let (node, time, seq) = (node.fit(NODE32)?, time.ns("time")?, seq_arg(&seq)?);
            guid::Guid::compose(node, time, seq, Drift::arg(drift)?).map(Guid).map_err(err)
        }

        /// The global id of a local id made on `node` (Go's `FromL`).
        #[staticmethod]
        fn from_l64(local: &Luid, node: Int) -> PyResult<Self> {
            Ok(Guid(guid::Guid::from_l64(local.0, node.fit(NODE32)?)))
        }

        /// The inverse time `2**64 - 1 - time_ns` read as signed
        /// nanoseconds (Go's `EpochI`).
        #[getter]
        fn inverse_time_ns(&self) -> i128 {
            signed_ns(self.0.epoch_i())
        }
    }
);

id_class!(
    /// A 64-bit local id of fogfish/guid v2: drift, time and sequence,
    /// unique within one clock.
    Luid(guid::Luid), name: "Luid", module: "kguid", drift: Drift, local: Luid,
    forms: "a str, bytes, an int or a Luid",
    clock: guid::CLOCK, next: try_l, fill: try_fill_l, other: no_form, {
        /// The id of these parts: the time (Unix nanoseconds or a
        /// `datetime`), the sequence and the drift.
        #[staticmethod]
        #[pyo3(signature = (time, seq, drift = None))]
        fn compose(time: Time, seq: Int, drift: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
            guid::Luid::compose(time.ns("time")?, seq_arg(&seq)?, Drift::arg(drift)?).map(Luid).map_err(err)
        }

        /// The smallest local id at a time, for range queries (Go's `FromT`).
        #[staticmethod]
        #[pyo3(signature = (time, drift = None))]
        fn from_time(time: Time, drift: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
            Ok(Luid(guid::Luid::from_time(time.system("time")?, Drift::arg(drift)?)))
        }

        /// The global id of this local id made on `node`.
        fn to_g(&self, node: Int) -> PyResult<Guid> {
            Ok(Guid(self.0.to_g(node.fit(NODE32)?)))
        }

        /// The id as a signed 64-bit integer that sorts as the id does.
        fn to_i64(&self) -> i64 {
            self.0.to_i64()
        }

        /// The id of a `to_i64` value.
        #[staticmethod]
        fn from_i64(v: Int) -> PyResult<Self> {
            guid::Luid::from_i64(v.fit(I64)?).map(Luid).map_err(err)
        }

        /// The inverse time read as signed nanoseconds (Go's `EpochI`).
        #[getter]
        fn inverse_time_ns(&self) -> i128 {
            signed_ns(self.0.epoch_i())
        }
    }
);

id_class!(
    /// A 96-bit global id of Go's fogfish/guid v3.
    V3Guid(guid::v3::Guid), name: "Guid", module: "kguid.v3", drift: V3Drift, local: V3Luid,
    forms: "a str, bytes, an int or a v3.Guid",
    clock: guid::v3::CLOCK, next: try_g, fill: try_fill, other: no_form, {
        /// The id of these parts: a 32-bit node, the time, the sequence
        /// and the drift.
        #[staticmethod]
        #[pyo3(signature = (node, time, seq, drift = None))]
        fn compose(node: Int, time: Time, seq: Int, drift: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
            let (node, time, seq) = (node.fit(NODE32)?, time.ns("time")?, seq_arg(&seq)?);
            guid::v3::Guid::compose(node, time, seq, V3Drift::arg(drift)?).map(V3Guid).map_err(err)
        }

        /// The smallest id of `clock` at a time (Go's `G.FromTime`).
        #[staticmethod]
        fn from_time(clock: &V3Clock, time: Time) -> PyResult<Self> {
            Ok(V3Guid(guid::v3::Guid::from_time(&clock.inner, time.system("time")?)))
        }

        /// The global id of a local id made on `node`.
        #[staticmethod]
        fn from_l64(local: &V3Luid, node: Int) -> PyResult<Self> {
            Ok(V3Guid(guid::v3::Guid::from_l64(local.0, node.fit(NODE32)?)))
        }

        /// The v3 id of a v2 id: the same node, time and sequence.
        #[staticmethod]
        fn from_v2(id: &Guid) -> Self {
            V3Guid(guid::v3::Guid::from_v2(id.0))
        }

        /// The v3 id of a v2 id's string.
        #[staticmethod]
        fn from_v2_str(s: Text<'_>) -> PyResult<Self> {
            guid::v3::Guid::from_v2_str(s.bytes()).map(V3Guid).map_err(err)
        }

        /// The v3 id of a v2 id's base62 string.
        #[staticmethod]
        fn from_v2_base62(s: Text<'_>) -> PyResult<Self> {
            guid::v3::Guid::from_v2_base62(s.bytes()).map(V3Guid).map_err(err)
        }

        /// The global id of a 128-bit id; fails if its node is wider than
        /// 32 bits (Go's `G.FromX`).
        #[staticmethod]
        fn from_x(x: &Xuid) -> PyResult<Self> {
            guid::v3::Guid::try_from(x.0).map(V3Guid).map_err(err)
        }

        /// The 128-bit id of this id.
        fn to_x(&self) -> Xuid {
            Xuid(guid::v3::Xuid::from(self.0))
        }

        /// Go v3's ring order around `reference` (a 32-bit node): -1, 0 or 1.
        fn cmp_ring(&self, other: &Self, reference: Int) -> PyResult<i8> {
            let reference = reference.fit(Limit::Range("reference", 0, u32::MAX.into()))?;
            Ok(sign(self.0.cmp_ring(&other.0, reference)))
        }
    }
);

id_class!(
    /// A 64-bit local id of Go's fogfish/guid v3.
    V3Luid(guid::v3::Luid), name: "Luid", module: "kguid.v3", drift: V3Drift, local: V3Luid,
    forms: "a str, bytes, an int or a v3.Luid",
    clock: guid::v3::CLOCK, next: try_l, fill: try_fill_l, other: no_form, {
        /// The id of these parts: the time, the sequence and the drift.
        #[staticmethod]
        #[pyo3(signature = (time, seq, drift = None))]
        fn compose(time: Time, seq: Int, drift: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
            guid::v3::Luid::compose(time.ns("time")?, seq_arg(&seq)?, V3Drift::arg(drift)?).map(V3Luid).map_err(err)
        }

        /// The smallest local id of `clock` at a time.
        #[staticmethod]
        fn from_time(clock: &V3Clock, time: Time) -> PyResult<Self> {
            Ok(V3Luid(guid::v3::Luid::from_time(&clock.inner, time.system("time")?)))
        }

        /// The v3 local id of a v2 local id.
        #[staticmethod]
        fn from_v2(id: &Luid) -> Self {
            V3Luid(guid::v3::Luid::from_v2(id.0))
        }

        /// The global id of this local id made on `node`.
        fn to_g(&self, node: Int) -> PyResult<V3Guid> {
            Ok(V3Guid(self.0.to_g(node.fit(NODE32)?)))
        }

        /// The 128-bit id of this local id made on `node` (58 bits).
        fn to_x(&self, node: Int) -> PyResult<Xuid> {
            self.0.to_x(node.fit(NODE58)?).map(Xuid).map_err(err)
        }

        /// The id as a signed 64-bit integer that sorts as the id does.
        fn to_i64(&self) -> i64 {
            self.0.to_i64()
        }

        /// The id of a `to_i64` value.
        #[staticmethod]
        fn from_i64(v: Int) -> PyResult<Self> {
            Ok(V3Luid(guid::v3::Luid::from_i64(v.fit(I64)?)))
        }
    }
);

id_class!(
    /// A 128-bit id of Go's fogfish/guid v3: an RFC 9562 UUIDv8 with a
    /// 58-bit node.
    Xuid(guid::v3::Xuid), name: "Xuid", module: "kguid.v3", drift: V3Drift, local: V3Luid,
    forms: "a str, bytes, an int, a uuid.UUID or a v3.Xuid",
    clock: guid::v3::CLOCK, next: try_x, fill: try_fill_x, other: other, {
        /// The id of these parts: a 58-bit node, the time, the sequence
        /// and the drift.
        #[staticmethod]
        #[pyo3(signature = (node, time, seq, drift = None))]
        fn compose(node: Int, time: Time, seq: Int, drift: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
            let (node, time, seq) = (node.fit(NODE58)?, time.ns("time")?, seq_arg(&seq)?);
            guid::v3::Xuid::compose(node, time, seq, V3Drift::arg(drift)?).map(Xuid).map_err(err)
        }

        /// The smallest 128-bit id of `clock` at a time.
        #[staticmethod]
        fn from_time(clock: &V3Clock, time: Time) -> PyResult<Self> {
            Ok(Xuid(guid::v3::Xuid::from_time(&clock.inner, time.system("time")?)))
        }

        /// The 128-bit id of a local id made on `node` (58 bits).
        #[staticmethod]
        fn from_l64(local: &V3Luid, node: Int) -> PyResult<Self> {
            guid::v3::Xuid::from_l64(local.0, node.fit(NODE58)?).map(Xuid).map_err(err)
        }

        /// The 128-bit id of a v3 global id.
        #[staticmethod]
        fn from_g(g: &V3Guid) -> Self {
            Xuid(guid::v3::Xuid::from(g.0))
        }

        /// The global id of this id; fails if its node is wider than 32 bits.
        fn to_g(&self) -> PyResult<V3Guid> {
            guid::v3::Guid::try_from(self.0).map(V3Guid).map_err(err)
        }

        /// Go v3's ring order around `reference` (a 64-bit int, taken
        /// modulo 2**58): -1, 0 or 1.
        fn cmp_ring(&self, other: &Self, reference: Int) -> PyResult<i8> {
            let reference = reference.fit(Limit::Range("reference", 0, u64::MAX.into()))?;
            Ok(sign(self.0.cmp_ring(&other.0, reference)))
        }

        /// The id as a `uuid.UUID`.
        fn to_uuid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            let kwargs = PyDict::new(py);
            kwargs.set_item("bytes", PyBytes::new(py, self.0.as_ref()))?;
            uuid_class(py)?.call((), Some(&kwargs))
        }

        /// The id of a `uuid.UUID`; fails unless it is a UUIDv8.
        #[staticmethod]
        fn from_uuid(u: &Bound<'_, PyAny>) -> PyResult<Self> {
            if !u.is_instance(uuid_class(u.py())?)? {
                return Err(wrong_kind(Some("u"), "a uuid.UUID is needed", u, ""));
            }
            Self::of_uuid(u)
        }
    }
);

impl Xuid {
    /// The id of a `uuid.UUID`, by its bytes.
    fn of_uuid(u: &Bound<'_, PyAny>) -> PyResult<Self> {
        let bytes = u.getattr("bytes")?;
        Self::from_bytes(bytes.cast::<PyBytes>()?.as_bytes())
    }

    /// The id of a `uuid.UUID`, else the `TypeError` of another value.
    fn other(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        match value.is_instance(uuid_class(value.py())?)? {
            true => Self::of_uuid(value),
            false => Self::no_form(value),
        }
    }
}
