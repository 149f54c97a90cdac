//! The crate's 96-bit clocks (`kguid.Clock`, `kguid.v3.Clock`) and its mock
//! time source.
//!
//! The crate's clocks handle forks themselves: a random node is redrawn in
//! a forked child, and a chosen node refuses there. Every call here takes
//! the crate's `try_` form, whose error (`ForkedError`, `UsedUpError`) is
//! the exception.

use guid::Id;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::convert::{Int, Time};
use crate::errors::{Limit, err};
use crate::ids::{Drift, Guid, Luid, NODE32, NODE58, V3Drift, V3Guid, V3Luid, Xuid, batch_len};

/// A time source that reads what it is set to, for tests: the crate's
/// `MockTime`. Clocks built with it share it.
#[pyclass(frozen, module = "kguid", name = "MockTime")]
pub struct MockTime(pub guid::MockTime);

/// An `ns` argument of a `MockTime`: `0..2**64` nanoseconds.
fn ns_arg(ns: &Int) -> PyResult<u64> {
    ns.fit(Limit::Range("ns", 0, u64::MAX.into()))
}

#[pymethods]
impl MockTime {
    /// A source that reads `ns` Unix nanoseconds until moved.
    #[new]
    #[pyo3(signature = (ns = Int::ZERO), text_signature = "(ns=0)")]
    fn new(ns: Int) -> PyResult<Self> {
        Ok(MockTime(guid::MockTime::new(ns_arg(&ns)?)))
    }

    /// Sets the time (Unix nanoseconds).
    fn set(&self, ns: Int) -> PyResult<()> {
        self.0.set(ns_arg(&ns)?);
        Ok(())
    }

    /// Moves the time forward by `ns` (saturating).
    fn advance(&self, ns: Int) -> PyResult<()> {
        self.0.advance(ns_arg(&ns)?);
        Ok(())
    }

    /// Moves the time back by `ns` (saturating at 0).
    fn step_back(&self, ns: Int) -> PyResult<()> {
        self.0.step_back(ns_arg(&ns)?);
        Ok(())
    }

    /// The time it reads, in Unix nanoseconds.
    #[getter]
    fn ns(&self) -> u64 {
        guid::TimeSource::now(&self.0)
    }

    fn __repr__(&self) -> String {
        format!("kguid.MockTime({})", guid::TimeSource::now(&self.0))
    }
}

/// The time-source and restart settings both 96-bit builders share.
macro_rules! configure {
    ($b:ident, $ticker:ident, $inverse:ident, $time:ident, $not_before:ident, $restore:ident) => {{
        let mut b = $b;
        if let Some(t) = $time {
            b = b.time(t.0.clone());
        } else if $ticker {
            b = b.ticker();
        }
        if $inverse {
            b = b.inverse();
        }
        if let Some(t) = $not_before {
            b = b.not_before(t.system("not_before")?).map_err(err)?;
        }
        if let Some(s) = $restore {
            let s = s.fit::<u64>(Limit::Range("restore", 0, u64::MAX.into()))?;
            b = b.restore(guid::Snapshot::try_from(s).map_err(err)?);
        }
        b
    }};
}

/// A 96-bit clock class: a frozen wrapper of one generation's clock, with
/// what both generations' clocks have, and the generation's own methods
/// (`extra`, its constructor among them).
macro_rules! clock_class {
    (
        $(#[$meta:meta])*
        $py:ident($inner:ty), module: $module:literal, drift: $drift:ident,
        global: $guid:ident, local: $luid:ident, node: $node:ty, { $($extra:tt)* }
    ) => {
        $(#[$meta])*
        #[pyclass(frozen, module = $module, name = "Clock")]
        pub struct $py {
            /// The crate's clock.
            pub inner: $inner,
        }

        #[pymethods]
        impl $py {
            /// A new global id.
            fn g<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                crate::alloc::object(py, $guid(self.inner.try_g().map_err(err)?))
            }

            /// A new local id.
            fn l<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                crate::alloc::object(py, $luid(self.inner.try_l().map_err(err)?))
            }

            /// `n` consecutive global ids from one read of the time (`fill`).
            fn batch<'py>(&self, py: Python<'py>, n: Int) -> PyResult<Bound<'py, PyList>> {
                let n = batch_len(&n)?;
                crate::alloc::batch(py, n, |ids| self.inner.try_fill(ids), $guid)
            }

            /// `n` consecutive local ids from one read of the time (`fill_l`).
            fn batch_l<'py>(&self, py: Python<'py>, n: Int) -> PyResult<Bound<'py, PyList>> {
                let n = batch_len(&n)?;
                crate::alloc::batch(py, n, |ids| self.inner.try_fill_l(ids), $luid)
            }

            /// The global id of a local id made by this clock.
            fn from_l64(&self, local: &$luid) -> $guid {
                $guid(self.inner.from_l64(local.0))
            }

            /// The state after the last id, to `restore` a restarted clock.
            fn snapshot(&self) -> u64 {
                self.inner.snapshot().into()
            }

            /// The node stamped on global ids.
            #[getter]
            fn node(&self) -> $node {
                self.inner.node()
            }

            /// The drift stamped on ids.
            #[getter]
            fn drift(&self) -> $drift {
                $drift(self.inner.drift())
            }

            /// Whether ids decrease.
            #[getter]
            fn is_inverse(&self) -> bool {
                self.inner.is_inverse()
            }

            /// The start of the tick of the last id.
            #[getter]
            fn last_time(&self) -> std::time::SystemTime {
                self.inner.last_time()
            }

            fn __repr__(&self) -> String {
                format!(
                    "{}.Clock(node={:#x}, drift={})",
                    $module,
                    self.inner.node(),
                    self.inner.drift().code()
                )
            }

            $($extra)*
        }
    };
}

clock_class!(
    /// A v2 clock: makes `kguid.Guid` and `kguid.Luid`, strictly increasing,
    /// never repeated, lock-free across threads (the crate's `guid::Clock`).
    V2Clock(guid::Clock), module: "kguid", drift: Drift, global: Guid, local: Luid, node: u32, {
        /// A clock: `node` (32 bits; default random, redrawn in a forked
        /// child), `drift` (a `Drift`, code or `timedelta`), `ticker` (read the
        /// time from the process-wide ticker thread), `inverse` (decreasing
        /// ids), `time` (a `MockTime`), `not_before` (a time every id comes
        /// after), `restore` (a `snapshot()` of an earlier clock).
        #[new]
        #[pyo3(signature = (node = None, drift = None, *, ticker = false, inverse = false, time = None, not_before = None, restore = None))]
        fn new(
            node: Option<Int>,
            drift: Option<&Bound<'_, PyAny>>,
            ticker: bool,
            inverse: bool,
            time: Option<PyRef<'_, MockTime>>,
            not_before: Option<Time>,
            restore: Option<Int>,
        ) -> PyResult<Self> {
            let node = node.map(|n| n.fit::<u32>(NODE32)).transpose()?;
            let mut b = guid::Clock::builder().drift(Drift::arg(drift)?);
            if let Some(node) = node {
                b = b.node(node);
            }
            let b = configure!(b, ticker, inverse, time, not_before, restore);
            Ok(V2Clock { inner: b.build() })
        }
    }
);

clock_class!(
    /// A v3 clock: makes `kguid.v3.Guid`, `Luid` and `Xuid` (Go v3's clock:
    /// the first id of a tick has sequence 1, a 58-bit node).
    V3Clock(guid::v3::Clock), module: "kguid.v3", drift: V3Drift, global: V3Guid, local: V3Luid, node: u64, {
        /// A v3 clock: `node` (58 bits; default random, redrawn in a forked
        /// child), `drift`, and the settings of `kguid.Clock`.
        #[new]
        #[pyo3(signature = (node = None, drift = None, *, ticker = false, inverse = false, time = None, not_before = None, restore = None))]
        fn new(
            node: Option<Int>,
            drift: Option<&Bound<'_, PyAny>>,
            ticker: bool,
            inverse: bool,
            time: Option<PyRef<'_, MockTime>>,
            not_before: Option<Time>,
            restore: Option<Int>,
        ) -> PyResult<Self> {
            let node = node.map(|n| n.fit::<u64>(NODE58)).transpose()?;
            let mut b = guid::v3::Clock::builder().drift(V3Drift::arg(drift)?);
            if let Some(node) = node {
                b = b.node(node).map_err(err)?;
            }
            let b = configure!(b, ticker, inverse, time, not_before, restore);
            Ok(V3Clock { inner: b.build() })
        }

        /// A new 128-bit id.
        fn x<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            crate::alloc::object(py, Xuid(self.inner.try_x().map_err(err)?))
        }

        /// `n` consecutive 128-bit ids from one read of the time.
        fn batch_x<'py>(&self, py: Python<'py>, n: Int) -> PyResult<Bound<'py, PyList>> {
            let n = batch_len(&n)?;
            crate::alloc::batch(py, n, |ids| self.inner.try_fill_x(ids), Xuid)
        }

        /// The 128-bit id of a local id made by this clock.
        fn x_from_l64(&self, local: &V3Luid) -> Xuid {
            Xuid(self.inner.x_from_l64(local.0))
        }
    }
);

/// The node of the process-wide v2 clock (in a forked child, its new one).
#[pyfunction]
pub fn node() -> u32 {
    guid::CLOCK.node()
}

/// The node of the process-wide v3 clock.
#[pyfunction]
#[pyo3(name = "node")]
pub fn v3_node() -> u64 {
    guid::v3::CLOCK.node()
}

/// v2's node id of a name, as `CONFIG_GUID_NODE_ID` names it.
#[pyfunction]
pub fn node_from_name(name: &str) -> u32 {
    guid::node::from_name(name)
}

/// v3's 58-bit node id of a name.
#[pyfunction]
#[pyo3(name = "node_from_name")]
pub fn v3_node_from_name(name: &str) -> u64 {
    guid::v3::node::from_name(name)
}

/// The crate's batch speed in this build, for `bench.py`: nanoseconds per
/// id of the best of `rounds` fills of `n` global ids from the
/// process-wide clock, timed in Rust (no Python objects made).
#[pyfunction]
pub fn _fill_ns(n: Int, rounds: Int) -> PyResult<f64> {
    let rounds = rounds.fit::<u32>(Limit::Range("rounds", 0, u32::MAX.into()))?;
    let mut ids = crate::alloc::room(batch_len(&n)?.max(1), guid::Guid::MIN)?;
    let mut best = f64::INFINITY;
    for _ in 0..rounds.max(1) {
        let start = std::time::Instant::now();
        guid::CLOCK.fill(&mut ids);
        std::hint::black_box(&ids);
        best = best.min(start.elapsed().as_nanos() as f64 / ids.len() as f64);
    }
    Ok(best)
}
