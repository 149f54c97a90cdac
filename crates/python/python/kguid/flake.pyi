import datetime
from typing import ClassVar, Iterator, List, Optional, Union

from kguid import MockTime

_Time = Union[int, datetime.datetime]
_Duration = Union[int, datetime.timedelta]

TWITTER_EPOCH_MS: int

class Parts:
    """The parts of a flake id; unpacks as (time, node, seq)."""
    def __init__(self, time: int, node: int, seq: int) -> None: ...
    time: int
    node: int
    seq: int
    def __iter__(self) -> Iterator[int]: ...

class Layout:
    """A split of 63 bits into time, node and sequence."""
    NOEQD: ClassVar["Layout"]
    def __init__(self, time_bits: int, node_bits: int, seq_bits: int, *, epoch_ms: Optional[int] = None,
                 unit: Optional[_Duration] = None) -> None: ...
    @staticmethod
    def snowcast(node_bits: int) -> "Layout": ...
    @staticmethod
    def redis(epoch: _Time) -> "Layout": ...
    def with_epoch(self, epoch: _Time) -> "Layout": ...
    def with_epoch_ms(self, ms: int) -> "Layout": ...
    def with_unit(self, unit: _Duration) -> "Layout": ...
    time_bits: int
    node_bits: int
    seq_bits: int
    max_time: int
    max_node: int
    max_seq: int
    unit: datetime.timedelta
    epoch: datetime.datetime
    def compose(self, time: int, node: int, seq: int) -> int: ...
    def decompose(self, id: int) -> Parts: ...
    def units(self, time: _Time) -> int: ...
    def time(self, units: int) -> datetime.datetime: ...
    def time_of(self, id: int) -> datetime.datetime: ...

class Clock:
    """A lock-free clock of flake ids (ints)."""
    def __init__(self, layout: Optional[Layout] = None, node: int = 0, *, ticker: bool = False,
                 time: Optional[MockTime] = None, max_lead: Optional[_Duration] = None,
                 not_before: Optional[_Time] = None) -> None: ...
    def next(self) -> int: ...
    def batch(self, n: int) -> List[int]: ...
    layout: Layout
    node: int
    max_lead: datetime.timedelta
    last_time: datetime.datetime

def noeqd_node(datacenter: int, worker: int) -> int: ...
