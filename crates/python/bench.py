#!/usr/bin/env python3
"""Nanoseconds per id made, parsed and written: kguid beside uuid.uuid4(),
uuid_utils (uuid7) and python-ulid, in one run.

    python crates/python/bench.py            # after installing the wheel and
                                             # pip install uuid-utils python-ulid

timeit-style tight loops, the best of several rounds; the machine's load
is printed first (`uptime`), as the figures move with it.
"""

import os
import platform
import subprocess
import sys
import timeit
import uuid

import kguid
from kguid._kguid import _fill_ns
from kguid import flake, sno, v3

try:
    import uuid_utils
except ImportError:  # pragma: no cover
    uuid_utils = None
try:
    import ulid
except ImportError:  # pragma: no cover
    ulid = None

ROUNDS = 7


def best(stmt, number, per=1, setup="pass", g=None):
    """ns per item: the best of ROUNDS runs of `number` calls of `stmt`,
    each giving `per` items."""
    t = timeit.Timer(stmt, setup=setup, globals=g or globals())
    return min(t.repeat(repeat=ROUNDS, number=number)) / (number * per) * 1e9


def row(name, ns, note=""):
    print(f"| {name} | {ns:8.1f} | {note} |")


def main():
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; uptime: {load}")
    print()
    print("| what | ns per id | |")
    print("|---|---:|---|")
    n = 200_000

    make = {
        "kguid `Guid.now()`": "Guid_now()",
        "kguid `Luid.now()`": "Luid_now()",
        "kguid `v3.Xuid.now()`": "Xuid_now()",
        "kguid `sno.Sno.now()`": "Sno_now()",
        "kguid `clock.g()` (own `Clock`)": "clock_g()",
        "kguid `clock.g()` (own `Clock(ticker=True)`)": "ticker_g()",
        "kguid `flake.Clock().next()`": "flake_next()",
        "`uuid.uuid4()`": "uuid4()",
    }
    if uuid_utils:
        make["`uuid_utils.uuid7()`"] = "uuid7()"
    if ulid:
        make["`ulid.ULID()` (python-ulid)"] = "ULID()"
    env = dict(
        Guid_now=kguid.Guid.now, Luid_now=kguid.Luid.now, Xuid_now=v3.Xuid.now, Sno_now=sno.Sno.now,
        clock_g=kguid.Clock().g, ticker_g=kguid.Clock(ticker=True).g, flake_next=flake.Clock().next,
        uuid4=uuid.uuid4, uuid7=uuid_utils.uuid7 if uuid_utils else None, ULID=ulid.ULID if ulid else None,
    )
    print("| **make one id** | | |")
    made = {}
    for name, stmt in make.items():
        made[name] = best(stmt, n, g=env)
        row(name, made[name])

    print("| **batches** | | |")
    verdicts = []
    for size in (1_000, 100_000):
        number = max(1, 2_000_000 // size // 10)
        env.update(size=size, batch=kguid.Guid.batch, xbatch=v3.Xuid.batch, fbatch=flake.Clock(node=1).batch)
        batch_ns = best("batch(size)", number, size, g=env)
        row(f"kguid `Guid.batch({size:,})`, per id", batch_ns)
        row(f"kguid `v3.Xuid.batch({size:,})`, per id", best("xbatch(size)", number, size, g=env))
        row(f"kguid `flake.Clock().batch({size:,})` (ints), per id", best("fbatch(size)", number, size, g=env))
        fill_ns = _fill_ns(size, 200)
        row(f"Rust `CLOCK.fill` of {size:,}, per id (no Python objects)", fill_ns)
        row(f"list `[None] * {size:,}`, per item", best("[None] * size", number * 10, size, g=env))
        ints_ns = best("list(range(1 << 40, (1 << 40) + size))", number, size, g=env)
        row(f"list `list(range(2**40, 2**40 + {size:,}))` (new ints), per item", ints_ns)
        target = 2 * (fill_ns + ints_ns)
        verdicts.append(f"Guid.batch({size:,}) {batch_ns:.1f} ns/id against 2 x (fill {fill_ns:.1f} + "
                        f"list of new ints {ints_ns:.1f}) = {target:.1f}: {'met' if batch_ns <= target else 'MISSED'}")
        if uuid_utils:
            row(f"`[uuid_utils.uuid7() for _ in range({size:,})]`, per id",
                best("[uuid7() for _ in range(size)]", max(1, number // 10), size, g=env))

    print("| **parse one string** | | |")
    g = kguid.Guid.now()
    x = v3.Xuid.now()
    penv = dict(
        G=kguid.Guid, s=str(g), X=v3.Xuid, xs=str(x), S=sno.Sno, ss=str(sno.Sno.now()),
        U=uuid.UUID, us=str(uuid.uuid4()),
        UU=uuid_utils.UUID if uuid_utils else None, uus=str(uuid_utils.uuid7()) if uuid_utils else "",
        L=ulid.ULID if ulid else None, ls=str(ulid.ULID()) if ulid else "",
        Gp=kguid.Guid.parse, Xp=v3.Xuid.parse,
    )
    row("kguid `Guid.parse(s)`", best("Gp(s)", n, g=penv))
    row("kguid `Guid(s)`", best("G(s)", n, g=penv))
    row("kguid `v3.Xuid.parse(s)` (a UUID string)", best("Xp(xs)", n, g=penv))
    row("kguid `sno.Sno.parse(s)`", best("S.parse(ss)", n, g=penv))
    row("`uuid.UUID(s)`", best("U(us)", n, g=penv))
    if uuid_utils:
        row("`uuid_utils.UUID(s)`", best("UU(uus)", n, g=penv))
    if ulid:
        row("`ulid.ULID.from_str(s)`", best("L.from_str(ls)", n, g=penv))

    print("| **write one string** | | |")
    wenv = dict(g=g, x=x, sn=sno.Sno.now(), u=uuid.uuid4(),
                uu=uuid_utils.uuid7() if uuid_utils else None, ul=ulid.ULID() if ulid else None)
    row("kguid `str(guid)`", best("str(g)", n, g=wenv))
    row("kguid `str(xuid)`", best("str(x)", n, g=wenv))
    row("kguid `str(sno)`", best("str(sn)", n, g=wenv))
    row("`str(uuid.UUID)`", best("str(u)", n, g=wenv))
    if uuid_utils:
        row("`str(uuid_utils.UUID)`", best("str(uu)", n, g=wenv))
    if ulid:
        row("`str(ulid.ULID)`", best("str(ul)", n, g=wenv))

    peers = [v for k, v in made.items() if not k.startswith("kguid")]
    if peers:
        ok = made["kguid `Guid.now()`"] <= min(peers)
        print()
        for v in verdicts:
            print(v)
        print(f"Guid.now() {made['kguid `Guid.now()`']:.1f} ns against the fastest peer {min(peers):.1f} ns: "
              f"{'met' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
