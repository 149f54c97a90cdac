//! Lists of new Python objects of ids, built for batches.

use pyo3::PyClass;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// A list of the Python objects of `ids`, each wrapped by `wrap`.
pub fn list_of<'py, T: Copy, W>(
    py: Python<'py>,
    ids: &[T],
    wrap: fn(T) -> W,
) -> PyResult<Bound<'py, PyList>>
where
    W: PyClass + Into<PyClassInitializer<W>>,
{
    let objects = ids
        .iter()
        .map(|id| Bound::new(py, wrap(*id)))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, objects)
}
