"""64-bit snowflake ids as ``int``: a ``Layout`` of time, node and
sequence bits (``Layout.NOEQD``, ``Layout.snowcast(n)``,
``Layout.redis(epoch)``), and a lock-free ``Clock`` of them.
"""

from ._kguid import flake as _flake

Layout = _flake.Layout
Parts = _flake.Parts
Clock = _flake.Clock
noeqd_node = _flake.noeqd_node
TWITTER_EPOCH_MS: int = _flake.TWITTER_EPOCH_MS

__all__ = ["TWITTER_EPOCH_MS", "Clock", "Layout", "Parts", "noeqd_node"]

del _flake
