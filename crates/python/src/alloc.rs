//! New Python objects of ids, through PyO3's public API only: the objects'
//! layout is PyO3's business, so a PyO3 upgrade cannot silently break it.

use pyo3::PyClass;
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// A new Python object of `value`.
#[inline]
pub fn object<W>(py: Python<'_>, value: W) -> PyResult<Bound<'_, PyAny>>
where
    W: PyClass + Into<PyClassInitializer<W>>,
{
    Bound::new(py, value).map(Bound::into_any)
}

/// `n` copies of `value`, or a `MemoryError` where the process has no
/// room for them (a batch too large aborts nothing).
pub fn room<T: Clone>(n: usize, value: T) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| PyMemoryError::new_err(format!("no room for {n} ids")))?;
    v.resize(n, value);
    Ok(v)
}

/// A list of `n` new Python objects of the ids `fill` makes (one of the
/// crate's `try_` fills: consecutive ids from one read of the time), each
/// wrapped by `wrap`; the fill's error (a chosen node in a forked child, a
/// clock with too few ids left) raises.
pub fn batch<'py, T, W>(
    py: Python<'py>,
    n: usize,
    fill: impl FnOnce(&mut [T]) -> guid::Result<()>,
    wrap: fn(T) -> W,
) -> PyResult<Bound<'py, PyList>>
where
    T: guid::Id + Copy,
    W: IntoPyObject<'py>,
{
    let mut ids = room(n, T::MIN)?;
    fill(&mut ids).map_err(crate::errors::err)?;
    // The list is sized once (an exact-size iterator) and takes each new
    // object as it is made.
    PyList::new(py, ids.into_iter().map(wrap))
}
