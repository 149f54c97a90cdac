//! `kguid._kguid`, the native module of the Python package `kguid`: thin
//! wrappers of the crate `kguid` (`guid`). Every layout, codec, comparison
//! and clock is the crate's; this module converts arguments and results
//! and maps the crate's errors to Python exceptions.
//!
//! The Python package re-exports it: `kguid` (v2's `Guid`, `Luid`,
//! `Clock`, `Drift`, the errors), `kguid.v3`, `kguid.sno` and
//! `kguid.flake`, each a submodule here. Build it with maturin (see the
//! package's README).

// The methods' names are the Python API's, after the crate's (`to_l64`,
// `from_l64` of a clock): Python methods take `&self` whatever the name.
#![allow(clippy::wrong_self_convention)]

use pyo3::prelude::*;
use pyo3::types::PyModule;

mod alloc;
mod clock;
mod convert;
mod errors;
mod flake;
mod ids;
mod sno;

/// The native module.
#[pymodule]
fn _kguid(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    errors::register(m)?;
    m.add_class::<ids::Guid>()?;
    m.add_class::<ids::Luid>()?;
    m.add_class::<ids::Drift>()?;
    m.add_class::<clock::V2Clock>()?;
    m.add_class::<clock::MockTime>()?;
    m.add_function(wrap_pyfunction!(clock::node, m)?)?;
    m.add_function(wrap_pyfunction!(clock::node_from_name, m)?)?;
    m.add_function(wrap_pyfunction!(clock::_fill_ns, m)?)?;

    let v3 = PyModule::new(py, "v3")?;
    v3.add_class::<ids::V3Guid>()?;
    v3.add_class::<ids::V3Luid>()?;
    v3.add_class::<ids::Xuid>()?;
    v3.add_class::<ids::V3Drift>()?;
    v3.add_class::<clock::V3Clock>()?;
    v3.add_function(wrap_pyfunction!(clock::v3_node, &v3)?)?;
    v3.add_function(wrap_pyfunction!(clock::v3_node_from_name, &v3)?)?;
    m.add_submodule(&v3)?;

    let sno = PyModule::new(py, "sno")?;
    sno.add_class::<sno::Sno>()?;
    sno.add_class::<sno::Generator>()?;
    sno.add_class::<sno::Snapshot>()?;
    sno.add("EPOCH_NS", guid::sno::EPOCH_NS)?;
    sno.add("UNIT_NS", guid::sno::UNIT_NS)?;
    sno.add("MAX_UNITS", guid::sno::MAX_UNITS)?;
    m.add_submodule(&sno)?;

    let flake = PyModule::new(py, "flake")?;
    flake.add_class::<flake::Layout>()?;
    flake.add_class::<flake::Parts>()?;
    flake.add_class::<flake::Clock>()?;
    flake.add_function(wrap_pyfunction!(flake::noeqd_node, &flake)?)?;
    flake.add("TWITTER_EPOCH_MS", guid::flake::TWITTER_EPOCH_MS)?;
    m.add_submodule(&flake)?;
    Ok(())
}
