"""The ids of fogfish/guid v3: ``Guid`` (96 bits), ``Luid`` (64) and
``Xuid`` (128, an RFC 9562 UUIDv8 with a 58-bit node), their ``Drift`` and
``Clock``.

The same bytes read as a v2 and as a v3 id mean other times and nodes:
convert with ``Guid.from_v2``.
"""

from ._kguid import v3 as _v3

Guid = _v3.Guid
Luid = _v3.Luid
Xuid = _v3.Xuid
Drift = _v3.Drift
Clock = _v3.Clock
node = _v3.node
node_from_name = _v3.node_from_name

__all__ = ["Clock", "Drift", "Guid", "Luid", "Xuid", "node", "node_from_name"]

del _v3
