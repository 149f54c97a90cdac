//! New Python objects of ids, made the short way.
//!
//! PyO3 makes an object of a `#[pyclass]` through the base type's
//! `tp_new` (`object.__new__`, with an empty argument tuple), which then
//! calls `tp_alloc` and zeroes the object: most of the time of a batch went
//! there, not to the crate's `fill` (measured with `perf`: malloc, memset,
//! `object_new`, `PyTuple_New`, `PyType_GetSlot` for every object). An id
//! object is a header and the id's bytes, so it is made here as CPython
//! makes its own small objects: `PyObject_Malloc`, `PyObject_Init`, and the
//! value written in place; PyO3's `tp_dealloc` frees it as any of its
//! objects.
//!
//! The place of the value is measured, not assumed: once per type, an
//! object made by PyO3 tells the offset of its value, and the fast path is
//! taken only if the type is as expected (no GC, `tp_free` is
//! `PyObject_Free`, the value right after the header and nothing after
//! it). Otherwise
//! objects are made by PyO3.

use std::ptr;
use std::sync::OnceLock;

use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyType};
use pyo3::{PyClass, ffi};

/// Where the value of a frozen `#[pyclass]` sits in its objects.
pub struct Layout {
    /// The type, kept alive.
    ty: Py<PyType>,
    /// Bytes of an object (`tp_basicsize`).
    size: usize,
    /// Offset of the value from the object's start.
    offset: usize,
}

/// An id class whose objects can be made the short way.
pub trait Fast:
    PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Into<PyClassInitializer<Self>> + Copy + Sync
{
    /// The class's measured layout (`None`: made by PyO3).
    fn slot() -> &'static OnceLock<Option<Layout>>;
    /// A value to measure the layout with.
    fn sample() -> Self;
}

/// The layout of `W`, measured on first use.
fn layout<W: Fast>(py: Python<'_>) -> Option<&'static Layout> {
    W::slot().get_or_init(|| probe::<W>(py)).as_ref()
}

/// Measures the layout of `W`'s objects on one made by PyO3, or `None` if
/// they are not plain (GC, another `tp_free`, other fields).
fn probe<W: Fast>(py: Python<'_>) -> Option<Layout> {
    let obj = Bound::new(py, W::sample()).ok()?;
    let ty = obj.as_any().get_type();
    let start = obj.as_ptr() as usize;
    let value = obj.get() as *const W as usize;
    let offset = value.checked_sub(start)?;
    let size: usize = ty.getattr("__basicsize__").ok()?.extract().ok()?;
    let flags: std::ffi::c_ulong = ty.getattr("__flags__").ok()?.extract().ok()?;
    let end = offset + size_of::<W>();
    // SAFETY: a slot read of a live type object.
    let free = unsafe { ffi::PyType_GetSlot(ty.as_type_ptr(), ffi::Py_tp_free) };
    let plain = flags & ffi::Py_TPFLAGS_HAVE_GC == 0
        && ptr::eq(free, ffi::PyObject_Free as *mut std::ffi::c_void)
        // The value right after the header: no field of PyO3's before it
        // that the short way would leave unwritten.
        && offset == size_of::<ffi::PyObject>().next_multiple_of(align_of::<W>())
        && end <= size
        && size - end < align_of::<W>().max(8);
    plain.then(|| Layout {
        ty: ty.unbind(),
        size,
        offset,
    })
}

/// A new object of `value`, or null (out of memory).
///
/// # Safety
///
/// `layout` is `W`'s, and the GIL is held.
#[inline]
unsafe fn make<W: Fast>(layout: &Layout, value: W) -> *mut ffi::PyObject {
    // SAFETY: the caller's; the memory is the object's size, its header
    // set by `PyObject_Init`, the value written at its measured place, the
    // rest padding.
    unsafe {
        let obj = ffi::PyObject_Malloc(layout.size).cast::<ffi::PyObject>();
        if obj.is_null() {
            return obj;
        }
        ffi::PyObject_Init(obj, layout.ty.as_ptr().cast());
        ptr::write(obj.cast::<u8>().add(layout.offset).cast::<W>(), value);
        obj
    }
}

/// A new Python object of `value`.
#[inline]
pub fn object<W: Fast>(py: Python<'_>, value: W) -> PyResult<Bound<'_, PyAny>> {
    let Some(layout) = layout::<W>(py) else {
        return Bound::new(py, value).map(Bound::into_any);
    };
    // SAFETY: the layout is `W`'s; the GIL is held (`py`).
    let obj = unsafe { make(layout, value) };
    if obj.is_null() {
        return Err(PyMemoryError::new_err(()));
    }
    // SAFETY: a new, owned reference.
    Ok(unsafe { Bound::from_owned_ptr(py, obj) })
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
pub fn batch<'py, T: guid::Id + Copy, W: Fast>(
    py: Python<'py>,
    n: usize,
    fill: impl FnOnce(&mut [T]) -> guid::Result<()>,
    wrap: fn(T) -> W,
) -> PyResult<Bound<'py, PyList>> {
    let mut ids = room(n, T::MIN)?;
    fill(&mut ids).map_err(crate::errors::err)?;
    let ids = &ids[..];
    let Some(layout) = layout::<W>(py) else {
        let objects = ids
            .iter()
            .map(|id| Bound::new(py, wrap(*id)))
            .collect::<PyResult<Vec<_>>>()?;
        return PyList::new(py, objects);
    };
    let len = isize::try_from(ids.len()).map_err(|_| PyMemoryError::new_err(()))?;
    // SAFETY: a new list of `len` empty places, owned by `list` (so freed,
    // with the objects placed so far, on an error); each place set once
    // with a new reference, which the list steals.
    unsafe {
        let list = ffi::PyList_New(len);
        if list.is_null() {
            return Err(PyErr::fetch(py));
        }
        let list = Bound::from_owned_ptr(py, list);
        for (i, id) in ids.iter().enumerate() {
            let obj = make(layout, wrap(*id));
            if obj.is_null() {
                return Err(PyMemoryError::new_err(()));
            }
            ffi::PyList_SetItem(list.as_ptr(), i as isize, obj);
        }
        Ok(list.cast_into_unchecked())
    }
}

/// Implements [`Fast`] for id classes: `sample` is the id's `MIN`.
macro_rules! fast {
    ($($py:ident($min:expr)),* $(,)?) => {$(
        impl $crate::alloc::Fast for $py {
            fn slot() -> &'static ::std::sync::OnceLock<Option<$crate::alloc::Layout>> {
                static SLOT: ::std::sync::OnceLock<Option<$crate::alloc::Layout>> =
                    ::std::sync::OnceLock::new();
                &SLOT
            }
            fn sample() -> Self {
                $py($min)
            }
        }
    )*};
}

pub(crate) use fast;
