//! Python arguments read into the crate's types: times, drifts, text.

use std::borrow::Cow;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyString};

/// A time argument: an aware `datetime`, or Unix nanoseconds as an `int`.
/// Anything else fails saying what a time is: a negative `int` or a naive
/// `datetime` with a `ValueError`, another type (a `float` of seconds,
/// a string) with a `TypeError`.
pub fn time_arg(t: &Bound<'_, PyAny>) -> PyResult<SystemTime> {
    Ok(UNIX_EPOCH + Duration::from_nanos(time_ns_arg(t)?))
}

/// Unix nanoseconds of a time argument (see [`time_arg`]).
pub fn time_ns_arg(t: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(ns) = t.extract::<u64>() {
        return Ok(ns);
    }
    if let Ok(time) = t.extract::<SystemTime>() {
        return Ok(guid::unix_nanos(time));
    }
    const WHAT: &str = "a time is an int of Unix nanoseconds or an aware datetime";
    if t.is_instance_of::<PyInt>() {
        return Err(PyValueError::new_err(format!(
            "{WHAT}: {t} is out of range"
        )));
    }
    if t.hasattr("tzinfo")? && t.getattr("tzinfo")?.is_none() {
        return Err(PyValueError::new_err(format!(
            "{WHAT}: {t} is naive (give it a tzinfo, e.g. datetime.timezone.utc)"
        )));
    }
    let hint = match t.is_instance_of::<PyFloat>() {
        true => " (seconds? pass int(seconds * 1e9) or a datetime)",
        false => "",
    };
    Err(PyTypeError::new_err(format!(
        "{WHAT}, not {}{hint}",
        t.get_type().name()?
    )))
}

/// A duration argument: a `timedelta` (negative reads as zero), or
/// nanoseconds as an `int`.
pub fn duration_arg(d: &Bound<'_, PyAny>) -> PyResult<Duration> {
    if let Ok(ns) = d.extract::<i64>() {
        return Ok(Duration::from_nanos(ns.max(0) as u64));
    }
    match d.extract::<Duration>() {
        Ok(d) => Ok(d),
        // A negative timedelta: no skew.
        Err(_) if d.is_instance_of::<pyo3::types::PyDelta>() => Ok(Duration::ZERO),
        Err(e) => Err(e),
    }
}

/// The bytes of a text argument: a `str` (as UTF-8) or `bytes`.
pub fn text_arg<'a>(s: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(b) = s.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    match s.cast::<PyString>() {
        Ok(s) => Ok(match s.to_cow()? {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }),
        Err(_) => Err(PyTypeError::new_err(format!(
            "expected str or bytes, not {}",
            s.get_type().name()?
        ))),
    }
}

/// Signed Unix nanoseconds of a time, negative before 1970.
pub fn signed_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}
