//! Python arguments read into the crate's types: integers, times,
//! durations, text.
//!
//! Each kind of argument has one reader here, a type that PyO3 extracts:
//! an argument of the wrong kind is a `TypeError`, which PyO3 prefixes
//! with the argument's name (`argument 'meta': ...`). Its value is then
//! read where the argument's name and range are known ([`Int::fit`],
//! [`Time::ns`], [`Time::system`], [`Span::duration`]): one that the
//! crate's type does not hold is the error of the argument's kind
//! ([`Limit`]), naming the argument and its range; the crate checks the
//! rest.

use std::borrow::Cow;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use guid::ErrorKind;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDateTime, PyDelta, PyFloat, PyInt, PyString};
use pyo3::{Borrowed, ffi};

use crate::errors::{Limit, beyond, err};

/// An integer argument: an `int`, or an object with `__index__` (as
/// `operator.index` reads it); not a `bool` (a flag where a number is
/// meant), a `float` or anything else.
pub struct Int(Repr);

enum Repr {
    /// A value that fits `i64`, the common case.
    Small(i64),
    /// Any other: read into the argument's type where that is known.
    Big(Py<PyInt>),
}

impl Int {
    /// Zero, the default of an integer argument.
    pub const ZERO: Int = Int(Repr::Small(0));

    /// The value as a `T`, or the error of `limit` for one that `T` does
    /// not hold (negative, or past `T`'s maximum). The crate checks the
    /// argument's own range after this.
    #[inline]
    pub fn fit<T>(&self, limit: Limit) -> PyResult<T>
    where
        T: TryFrom<i64> + for<'a, 'py> FromPyObject<'a, 'py>,
    {
        self.fit_noted(limit, "")
    }

    /// [`Int::fit`], with `note` after the error's message.
    #[inline]
    pub fn fit_noted<T>(&self, limit: Limit, note: &str) -> PyResult<T>
    where
        T: TryFrom<i64> + for<'a, 'py> FromPyObject<'a, 'py>,
    {
        match self.get() {
            Some(v) => Ok(v),
            None => Err(Python::attach(|py| beyond(limit, &self.object(py), note))),
        }
    }

    /// The value as a `T`, if `T` holds it.
    #[inline]
    pub fn get<T>(&self) -> Option<T>
    where
        T: TryFrom<i64> + for<'a, 'py> FromPyObject<'a, 'py>,
    {
        match &self.0 {
            Repr::Small(v) => T::try_from(*v).ok(),
            Repr::Big(v) => Python::attach(|py| v.bind(py).extract::<T>().ok()),
        }
    }

    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Small(v) => *v < 0,
            Repr::Big(v) => Python::attach(|py| v.bind(py).lt(0).unwrap_or(false)),
        }
    }

    /// The value as a Python `int`, for an error.
    pub fn object<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match &self.0 {
            Repr::Small(v) => PyInt::new(py, *v).into_any(),
            Repr::Big(v) => v.bind(py).clone().into_any(),
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Int> {
        const AN_INT: &str = "an int is needed";
        if obj.is_instance_of::<PyBool>() {
            return Err(wrong_kind(None, AN_INT, &obj, ""));
        }
        let int = match obj.is_instance_of::<PyInt>() {
            true => obj.to_owned(),
            // SAFETY: a call of the C API with a live object; the result
            // is a new reference or null with an exception set (a
            // TypeError for an object without `__index__`).
            false => {
                unsafe { Bound::from_owned_ptr_or_err(obj.py(), ffi::PyNumber_Index(obj.as_ptr())) }
                    .map_err(|e| match e.is_instance_of::<PyTypeError>(obj.py()) {
                        true => wrong_kind(None, AN_INT, &obj, " (pass int(x) if it is whole)"),
                        false => e,
                    })?
            }
        };
        // An int past i64 is no error here: read without raising one (an
        // exception made and dropped would cost more than the rest).
        let mut past = 0;
        // SAFETY: a call of the C API with a live `int`; it fails only
        // past i64 (`past` set), or with -1 and an exception set.
        let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(int.as_ptr(), &mut past) };
        if v == -1 && past == 0 {
            if let Some(e) = PyErr::take(obj.py()) {
                return Err(e);
            }
        }
        Ok(match past {
            0 => Int(Repr::Small(v)),
            _ => Int(Repr::Big(int.cast_into::<PyInt>()?.unbind())),
        })
    }
}

/// What the crate reads from an id's integer value (by `read`: an id's
/// `from_u128`, a flake layout's `decompose`): a value that does not fit
/// the id's `bits` (negative, past the integer type `R` that `read`
/// takes, or refused by the crate as too wide) is a `TooWideError` naming
/// the value and the id (`id`).
pub fn id_of_int<R, T>(
    v: &Int,
    id: &'static str,
    bits: u32,
    read: impl FnOnce(R) -> guid::Result<T>,
) -> PyResult<T>
where
    R: TryFrom<i64> + for<'a, 'py> FromPyObject<'a, 'py>,
{
    let limit = Limit::Wide(id, bits);
    read(v.fit(limit)?).map_err(|e| match e.kind() {
        ErrorKind::Overflow { .. } => Python::attach(|py| beyond(limit, &v.object(py), "")),
        _ => err(e),
    })
}

/// The `TypeError` of an argument of another kind than `what` says (`a
/// str or bytes is needed`): `what, not <its type>`, then `seconds` for a
/// `float` (a hint, or empty). `arg` names the argument where PyO3 does
/// not (for a value read in a method's body; `None` in an extraction,
/// whose `TypeError` PyO3 prefixes with the argument's name).
#[cold]
pub fn wrong_kind(arg: Option<&str>, what: &str, value: &Bound<'_, PyAny>, seconds: &str) -> PyErr {
    let kind = value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    let hint = match value.is_instance_of::<PyFloat>() {
        true => seconds,
        false => "",
    };
    let message = format!("{what}, not {kind}{hint}");
    PyTypeError::new_err(match arg {
        Some(arg) => format!("argument '{arg}': {message}"),
        None => message,
    })
}

/// What a time argument is, for its errors.
const A_TIME: &str = "a time is an int of Unix nanoseconds or an aware datetime";

/// A time argument: Unix nanoseconds as an `int`, or an aware `datetime`
/// of any year. Read as the crate takes it: Unix nanoseconds ([`Time::ns`],
/// 1970 to 2554) or a `SystemTime` ([`Time::system`]).
pub struct Time(When);

enum When {
    /// An `int` of Unix nanoseconds.
    Ns(Int),
    /// An aware `datetime`: its signed Unix nanoseconds, and itself.
    At(i128, Py<PyAny>),
    /// A naive `datetime`, refused where the argument is read.
    Naive(Py<PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Time {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Time> {
        let py = obj.py();
        // An int first: the common case, and the cheaper type check.
        if obj.is_exact_instance_of::<PyInt>() {
            return Ok(Time(When::Ns(obj.extract()?)));
        }
        if obj.is_instance_of::<PyDateTime>() {
            if obj.call_method0("utcoffset")?.is_none() {
                return Ok(Time(When::Naive(obj.to_owned().unbind())));
            }
            let since = obj.sub(unix_epoch(py)?)?;
            return Ok(Time(When::At(
                signed_delta_ns(&since)?,
                obj.to_owned().unbind(),
            )));
        }
        if !obj.is_instance_of::<PyBool>() {
            if let Ok(ns) = obj.extract::<Int>() {
                return Ok(Time(When::Ns(ns)));
            }
        }
        let seconds = " (seconds? pass int(seconds * 1e9) or a datetime)";
        Err(wrong_kind(None, A_TIME, &obj, seconds))
    }
}

impl Time {
    /// Unix nanoseconds, as the crate's `u64` times: from 1970 to 2554.
    /// Out of that a `RangeError` (the argument `name`), and a naive
    /// `datetime` a `ValueError`.
    pub fn ns(&self, name: &'static str) -> PyResult<u64> {
        const NOTE: &str =
            ": a time is an int of Unix nanoseconds or an aware datetime, from 1970 to 2554";
        let limit = Limit::Range(name, 0, u64::MAX.into());
        match &self.0 {
            When::Ns(ns) => ns.fit_noted(limit, NOTE),
            When::At(ns, at) => u64::try_from(*ns).or_else(|_| {
                Python::attach(|py| {
                    let note = format!(" (Unix ns of {}){NOTE}", at.bind(py));
                    Err(beyond(limit, &PyInt::new(py, *ns).into_any(), &note))
                })
            }),
            When::Naive(at) => Err(naive(name, at)),
        }
    }

    /// A `SystemTime`, as the crate's `SystemTime` arguments: an aware
    /// `datetime` of any year, or Unix nanoseconds in `0..2**64`.
    pub fn system(&self, name: &'static str) -> PyResult<SystemTime> {
        let ns = match &self.0 {
            When::At(ns, _) => *ns,
            _ => self.ns(name)?.into(),
        };
        let d = Duration::new(
            (ns.unsigned_abs() / 1_000_000_000) as u64,
            (ns.unsigned_abs() % 1_000_000_000) as u32,
        );
        let t = match ns < 0 {
            true => UNIX_EPOCH.checked_sub(d),
            false => UNIX_EPOCH.checked_add(d),
        };
        // A datetime's years (1 to 9999) are all within a SystemTime's.
        t.ok_or_else(|| PyValueError::new_err(format!("{name} is past what a SystemTime holds")))
    }
}

/// The error of a naive `datetime` for the time argument `name`.
#[cold]
fn naive(name: &str, at: &Py<PyAny>) -> PyErr {
    Python::attach(|py| {
        PyValueError::new_err(format!(
            "{name} {} is a naive datetime: {A_TIME} (give it a tzinfo, e.g. datetime.timezone.utc)",
            at.bind(py)
        ))
    })
}

/// 1970-01-01 00:00 UTC as an aware `datetime`.
fn unix_epoch(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static EPOCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    EPOCH
        .get_or_try_init(py, || {
            let datetime = py.import("datetime")?;
            let utc = datetime.getattr("timezone")?.getattr("utc")?;
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("tzinfo", utc)?;
            Ok::<_, PyErr>(
                datetime
                    .getattr("datetime")?
                    .call((1970, 1, 1), Some(&kwargs))?
                    .unbind(),
            )
        })
        .map(|epoch| epoch.bind(py))
}

/// The nanoseconds of a `timedelta`, signed.
fn signed_delta_ns(delta: &Bound<'_, PyAny>) -> PyResult<i128> {
    let days: i64 = delta.getattr("days")?.extract()?;
    let seconds: i64 = delta.getattr("seconds")?.extract()?;
    let micros: i64 = delta.getattr("microseconds")?.extract()?;
    Ok(
        (i128::from(days) * 86_400 + i128::from(seconds)) * 1_000_000_000
            + i128::from(micros) * 1_000,
    )
}

/// A duration argument: a `timedelta`, or nanoseconds as an `int`; a
/// negative one reads as zero.
pub struct Span(Length);

enum Length {
    /// An `int` of nanoseconds.
    Ns(Int),
    /// A `timedelta`, zero for a negative one.
    Delta(Duration),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Span {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Span> {
        if obj.is_instance_of::<PyDelta>() {
            if signed_delta_ns(&obj)? < 0 {
                return Ok(Span(Length::Delta(Duration::ZERO)));
            }
            return Ok(Span(Length::Delta(obj.extract()?)));
        }
        if !obj.is_instance_of::<PyBool>() {
            if let Ok(ns) = obj.extract::<Int>() {
                return Ok(Span(Length::Ns(ns)));
            }
        }
        let what = "a duration is an int of nanoseconds or a timedelta";
        let seconds = " (seconds? pass a timedelta or int(seconds * 1e9))";
        Err(wrong_kind(None, what, &obj, seconds))
    }
}

impl Span {
    /// The duration: zero for a negative one; an `int` past `2**64 - 1`
    /// nanoseconds (584 years) is a `RangeError` (the argument `name`).
    pub fn duration(&self, name: &'static str) -> PyResult<Duration> {
        match &self.0 {
            Length::Delta(d) => Ok(*d),
            Length::Ns(ns) if ns.is_negative() => Ok(Duration::ZERO),
            Length::Ns(ns) => ns
                .fit_noted(
                    Limit::Range(name, 0, u64::MAX.into()),
                    " (nanoseconds; a negative duration reads as zero)",
                )
                .map(Duration::from_nanos),
        }
    }
}

/// A text argument: a `str` (its UTF-8) or `bytes`. A lone surrogate in a
/// `str` is kept as `surrogatepass` writes it, for the crate to refuse as
/// any other byte outside its alphabet.
pub struct Text<'a>(Cow<'a, [u8]>);

impl Text<'_> {
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Text<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Text<'a>> {
        if let Ok(b) = obj.extract::<&'a [u8]>() {
            return Ok(Text(Cow::Borrowed(b)));
        }
        if obj.is_instance_of::<PyString>() {
            return Ok(Text(match obj.extract::<Cow<'a, str>>() {
                Ok(Cow::Borrowed(s)) => Cow::Borrowed(s.as_bytes()),
                Ok(Cow::Owned(s)) => Cow::Owned(s.into_bytes()),
                Err(_) => Cow::Owned(
                    obj.call_method1("encode", ("utf-8", "surrogatepass"))?
                        .cast_into::<PyBytes>()?
                        .as_bytes()
                        .to_vec(),
                ),
            }));
        }
        Err(wrong_kind(None, "a str or bytes is needed", &obj, ""))
    }
}

/// Signed Unix nanoseconds of a time, negative before 1970.
pub fn signed_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}
