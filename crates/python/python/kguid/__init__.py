"""K-ordered unique ids, from the Rust crate ``kguid``.

``kguid.Guid`` (96 bits) and ``kguid.Luid`` (64 bits) are byte for byte
the ids of the Go library fogfish/guid v2; ``kguid.v3`` holds its v3 ids
(``Guid``, ``Luid`` and the 128-bit UUIDv8 ``Xuid``), ``kguid.sno`` the ids
of muyo/sno, ``kguid.flake`` 64-bit snowflake ids as ``int``.

``Guid.now()`` takes an id from the process-wide clock: strictly
increasing, never repeated, safe across threads and ``os.fork()``.
Every layout, codec and clock is the crate's; errors are ``kguid.Error``
(a ``ValueError``) and its subclasses, with the crate's messages.
"""

from . import _kguid
from ._kguid import (
    CellError,
    CellWidthError,
    CharError,
    Clock,
    Drift,
    DriftError,
    Error,
    ForkedError,
    Guid,
    InverseError,
    LayoutError,
    LeadingZeroError,
    LengthError,
    Luid,
    MarkerError,
    MockTime,
    NotUuidV8Error,
    PartError,
    RangeError,
    TooWideError,
    UsedUpError,
    node,
    node_from_name,
)
from . import flake, sno, v3

__all__ = [
    "CellError",
    "CellWidthError",
    "CharError",
    "Clock",
    "Drift",
    "DriftError",
    "Error",
    "ForkedError",
    "Guid",
    "InverseError",
    "LayoutError",
    "LeadingZeroError",
    "LengthError",
    "Luid",
    "MarkerError",
    "MockTime",
    "NotUuidV8Error",
    "PartError",
    "RangeError",
    "TooWideError",
    "UsedUpError",
    "flake",
    "node",
    "node_from_name",
    "sno",
    "v3",
]

del _kguid
