"""The Go vector files of the repository (tests/data/, read in place, not
copied), and the count of cases checked per section, printed at the end of
the run by conftest.py."""

import datetime
import json
from collections import Counter
from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / "tests" / "data"

#: Cases checked, by "file: section".
COUNTS: Counter = Counter()

UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)


def load(name):
    with open(DATA / name, encoding="utf-8") as f:
        return json.load(f)


def hexint(s):
    """A vector's "0x..." value."""
    return int(s, 16)


def hexbytes(s):
    """A vector's bytes: lowercase hex without prefix."""
    return bytes.fromhex(s)


def at_ns(ns):
    """The datetime of Unix nanoseconds, to the microsecond (floored)."""
    return EPOCH + datetime.timedelta(microseconds=ns // 1000)
