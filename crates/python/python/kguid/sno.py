"""The ids of muyo/sno (``Sno``: 10 bytes, a 16-character base32 string)
and the generator of them.

``Sno.now()`` takes an id from a process-wide generator (a new one, with
a partition drawn in the child, in a forked child).
"""

from ._kguid import sno as _sno

Sno = _sno.Sno
Generator = _sno.Generator
Snapshot = _sno.Snapshot
EPOCH_NS: int = _sno.EPOCH_NS
UNIT_NS: int = _sno.UNIT_NS
MAX_UNITS: int = _sno.MAX_UNITS

__all__ = ["EPOCH_NS", "MAX_UNITS", "UNIT_NS", "Generator", "Snapshot", "Sno"]

del _sno
