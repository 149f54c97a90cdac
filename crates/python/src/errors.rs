//! The crate's [`guid::Error`] as Python exceptions: `kguid.Error`, a
//! `ValueError`, and one subclass for each [`ErrorKind`], with the crate's
//! message and the kind's fields as attributes.
//!
//! The same exceptions serve the arguments the crate never sees: an
//! integer its Rust type does not hold gets the error of the argument's
//! kind ([`Limit`]: a part, a setting, an id's value, a cell), with the
//! value as given; a JSON text the crate's reader refuses is
//! `kguid.Error` with the kind `"Json"`.

use guid::ErrorKind;
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyModule;

pyo3::create_exception!(
    kguid,
    Error,
    PyValueError,
    "An id, a drift, a part or a setting that the crate rejects. Its message is the crate's; `kind` names the reason (`\"Length\"`, `\"Char\"`, ...; `\"Json\"` for a JSON text the crate's reader refuses, `\"UsedUp\"` for a clock with no id left) and the reason's fields are attributes (`expected`, `found`, `byte`, `index`, ...)."
);
pyo3::create_exception!(
    kguid,
    LengthError,
    Error,
    "The input has the wrong length (bytes or characters): `expected`, `found`."
);
pyo3::create_exception!(
    kguid,
    CharError,
    Error,
    "A byte outside the encoding's alphabet: `byte` at `index`."
);
pyo3::create_exception!(
    kguid,
    LeadingZeroError,
    Error,
    "A base62 value with a leading zero digit: not the canonical form."
);
pyo3::create_exception!(
    kguid,
    TooWideError,
    Error,
    "A value that does not fit the id's width (`bits`)."
);
pyo3::create_exception!(
    kguid,
    DriftError,
    Error,
    "A v2 drift code of 0, which no clock makes: not an id."
);
pyo3::create_exception!(
    kguid,
    PartError,
    Error,
    "A part (`name`) outside its field: `value` not in 0..=`max`."
);
pyo3::create_exception!(
    kguid,
    CellWidthError,
    Error,
    "A cell width for split/fold outside 1..=8 (`width`)."
);
pyo3::create_exception!(
    kguid,
    CellError,
    Error,
    "A cell of fold wider than the cell width: `value` at `index`."
);
pyo3::create_exception!(
    kguid,
    MarkerError,
    Error,
    "A global id's text that starts with '*', the mark of a local id's JSON."
);
pyo3::create_exception!(
    kguid,
    LayoutError,
    Error,
    "A flake layout whose widths (`time`, `node`, `seq`) do not add up to 63, each at least 1."
);
pyo3::create_exception!(
    kguid,
    NotUuidV8Error,
    Error,
    "16 bytes that are not an RFC 9562 UUIDv8: `version`, `variant`."
);
pyo3::create_exception!(
    kguid,
    ForkedError,
    Error,
    "A clock or generator with a chosen node used in a forked child, where it would repeat its parent's ids."
);
pyo3::create_exception!(
    kguid,
    UsedUpError,
    Error,
    "A 96-bit clock with no id left: its 47-bit tick range is used up (the year 2554; a time source past it, or a clock restored at its end)."
);
pyo3::create_exception!(
    kguid,
    InverseError,
    Error,
    "An inverse clock where ids must increase."
);
pyo3::create_exception!(
    kguid,
    RangeError,
    Error,
    "A setting (`name`) outside the range it allows: `value` not in `min`..=`max`."
);

/// The exception of a crate error, its attributes set.
#[cold]
pub fn err(e: guid::Error) -> PyErr {
    Python::attach(|py| {
        let message = e.to_string();
        let (err, name, fields): (PyErr, &str, Vec<(&str, Py<PyAny>)>) = match e.kind() {
            ErrorKind::Length { expected, found } => (
                LengthError::new_err(message),
                "Length",
                vec![("expected", int(py, expected)), ("found", int(py, found))],
            ),
            ErrorKind::Char { byte, index } => (
                CharError::new_err(message),
                "Char",
                vec![("byte", int(py, byte)), ("index", int(py, index))],
            ),
            ErrorKind::LeadingZero => (LeadingZeroError::new_err(message), "LeadingZero", vec![]),
            ErrorKind::Overflow { bits } => (
                TooWideError::new_err(message),
                "Overflow",
                vec![("bits", int(py, bits))],
            ),
            ErrorKind::Drift => (DriftError::new_err(message), "Drift", vec![]),
            ErrorKind::Part { name, value, max } => (
                PartError::new_err(message),
                "Part",
                vec![
                    ("name", text(py, name)),
                    ("value", int(py, value)),
                    ("max", int(py, max)),
                ],
            ),
            ErrorKind::CellWidth(n) => (
                CellWidthError::new_err(message),
                "CellWidth",
                vec![("width", int(py, n))],
            ),
            ErrorKind::Cell { value, index } => (
                CellError::new_err(message),
                "Cell",
                vec![("value", int(py, value)), ("index", int(py, index))],
            ),
            ErrorKind::Marker { local } => (
                MarkerError::new_err(message),
                "Marker",
                vec![("local", int(py, local))],
            ),
            ErrorKind::Layout { time, node, seq } => (
                LayoutError::new_err(message),
                "Layout",
                vec![
                    ("time", int(py, time)),
                    ("node", int(py, node)),
                    ("seq", int(py, seq)),
                ],
            ),
            ErrorKind::NotUuidV8 { version, variant } => (
                NotUuidV8Error::new_err(message),
                "NotUuidV8",
                vec![("version", int(py, version)), ("variant", int(py, variant))],
            ),
            ErrorKind::Forked => (ForkedError::new_err(message), "Forked", vec![]),
            ErrorKind::UsedUp => (UsedUpError::new_err(message), "UsedUp", vec![]),
            ErrorKind::Inverse => (InverseError::new_err(message), "Inverse", vec![]),
            ErrorKind::Range {
                name,
                value,
                min,
                max,
            } => (
                RangeError::new_err(message),
                "Range",
                vec![
                    ("name", text(py, name)),
                    ("value", int(py, value)),
                    ("min", int(py, min)),
                    ("max", int(py, max)),
                ],
            ),
            _ => (Error::new_err(message), "Other", vec![]),
        };
        with_fields(py, err, name, fields)
    })
}

/// `err` with `kind` and the fields set as attributes.
fn with_fields(py: Python<'_>, err: PyErr, kind: &str, fields: Vec<(&str, Py<PyAny>)>) -> PyErr {
    let value = err.value(py);
    // Attributes of a fresh exception object: setting them cannot fail
    // but for memory, and then the exception is still the right one.
    let _ = value.setattr("kind", kind);
    for (field, v) in fields {
        let _ = value.setattr(field, v);
    }
    err
}

/// Where an integer argument's values end, for one its Rust type does not
/// hold (negative, or past the type's maximum), which the crate therefore
/// never sees: the kind of error the crate gives the argument's values out
/// of range, and the range.
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    /// A part of an id (`PartError`): `name` in `0..=max`.
    Part(&'static str, u64),
    /// A setting (`RangeError`): `name` in `min..=max`.
    Range(&'static str, i128, i128),
    /// An id's value (`TooWideError`): the id type's name and its width in
    /// bits.
    Wide(&'static str, u32),
    /// A cell width of `split`/`fold` (`CellWidthError`), 1..=8.
    CellWidth,
    /// A cell of `fold` (`CellError`), at its index.
    Cell(usize),
}

impl Limit {
    /// The limit that the crate's error `probe` states (its kind, name and
    /// bounds): the crate's answer for a value past an argument's range,
    /// asked once with such a value, for the argument's values that the
    /// crate cannot be given. `fallback` if the crate answered otherwise.
    pub fn stated<T>(probe: guid::Result<T>, fallback: Limit) -> Limit {
        match probe.map_err(|e| e.kind()) {
            Err(ErrorKind::Part { name, max, .. }) => Limit::Part(name, max),
            Err(ErrorKind::Range { name, min, max, .. }) => {
                Limit::Range(name, min.into(), max.into())
            }
            _ => fallback,
        }
    }
}

/// The exception of an integer argument `value` out of its `limit`, in
/// the crate's words for the kind, `note` after them (may be empty).
#[cold]
pub fn beyond(limit: Limit, value: &Bound<'_, PyAny>, note: &str) -> PyErr {
    let py = value.py();
    let v = value.clone().unbind();
    let (err, name, fields): (PyErr, &str, Vec<(&str, Py<PyAny>)>) = match limit {
        Limit::Part(name, max) => (
            PartError::new_err(format!("{name} {value} is out of range 0..={max}{note}")),
            "Part",
            vec![
                ("name", text(py, name)),
                ("value", v),
                ("max", int(py, max)),
            ],
        ),
        Limit::Range(name, min, max) => (
            RangeError::new_err(format!("{name} {value} is outside {min}..={max}{note}")),
            "Range",
            vec![
                ("name", text(py, name)),
                ("value", v),
                ("min", int(py, min)),
                ("max", int(py, max)),
            ],
        ),
        Limit::Wide(id, bits) => (
            TooWideError::new_err(format!(
                "invalid {id}: value {value} does not fit {bits} bits (0..2**{bits}){note}"
            )),
            "Overflow",
            vec![("bits", int(py, bits))],
        ),
        Limit::CellWidth => (
            CellWidthError::new_err(format!("cell width {value} is outside 1..=8{note}")),
            "CellWidth",
            vec![("width", v)],
        ),
        Limit::Cell(index) => (
            CellError::new_err(format!(
                "cell {index} value {value} is wider than the cell width{note}"
            )),
            "Cell",
            vec![("value", v), ("index", int(py, index))],
        ),
    };
    with_fields(py, err, name, fields)
}

/// The `LayoutError` of bit widths not all of which are `u32`s, in the
/// crate's words.
#[cold]
pub fn layout(widths: [&Bound<'_, PyAny>; 3]) -> PyErr {
    let py = widths[0].py();
    let [time, node, seq] = widths;
    let err = LayoutError::new_err(format!(
        "invalid layout {time}/{node}/{seq}: needs time + node + seq = 63 bits, each at least 1"
    ));
    let fields = vec![
        ("time", time.clone().unbind()),
        ("node", node.clone().unbind()),
        ("seq", seq.clone().unbind()),
    ];
    with_fields(py, err, "Layout", fields)
}

/// A JSON text that the crate's serde reader refuses (`what` names what
/// was read): `kguid.Error` with the kind `"Json"`.
#[cold]
pub fn json(what: &str, e: impl std::fmt::Display) -> PyErr {
    Python::attach(|py| {
        let err = Error::new_err(format!("invalid {what} JSON: {e}"));
        with_fields(py, err, "Json", vec![])
    })
}

/// An integer (or bool) attribute.
fn int<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> Py<PyAny> {
    v.into_py_any(py).unwrap_or_else(|_| py.None())
}

/// A string attribute.
fn text(py: Python<'_>, s: &str) -> Py<PyAny> {
    pyo3::types::PyString::new(py, s).into_any().unbind()
}

/// Adds the exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("LengthError", py.get_type::<LengthError>())?;
    m.add("CharError", py.get_type::<CharError>())?;
    m.add("LeadingZeroError", py.get_type::<LeadingZeroError>())?;
    m.add("TooWideError", py.get_type::<TooWideError>())?;
    m.add("DriftError", py.get_type::<DriftError>())?;
    m.add("PartError", py.get_type::<PartError>())?;
    m.add("CellWidthError", py.get_type::<CellWidthError>())?;
    m.add("CellError", py.get_type::<CellError>())?;
    m.add("MarkerError", py.get_type::<MarkerError>())?;
    m.add("LayoutError", py.get_type::<LayoutError>())?;
    m.add("NotUuidV8Error", py.get_type::<NotUuidV8Error>())?;
    m.add("ForkedError", py.get_type::<ForkedError>())?;
    m.add("UsedUpError", py.get_type::<UsedUpError>())?;
    m.add("InverseError", py.get_type::<InverseError>())?;
    m.add("RangeError", py.get_type::<RangeError>())?;
    Ok(())
}
