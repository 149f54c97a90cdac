"""A forked child never repeats its parent's ids: the crate's clocks redraw
a random node in the child (and a chosen node refuses there)."""

import os
import subprocess
import sys
import textwrap

import pytest

import kguid
from kguid import Guid, sno, v3

N = 50_000

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")


def read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def in_child(make, size):
    """Forks: the child makes N ids with `make` and sends their bytes back
    through a pipe while the parent makes N of its own; the child's and the
    parent's after the fork."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(r)
            data = b"".join(bytes(make()) for _ in range(N))
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    parent = [make() for _ in range(N)]
    data = read_all(r)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    child = [data[i:i + size] for i in range(0, len(data), size)]
    assert len(child) == N
    return child, [bytes(p) for p in parent]


@pytest.mark.parametrize(
    "make, size",
    [(Guid.now, 12), (v3.Guid.now, 12), (v3.Xuid.now, 16), (sno.Sno.now, 10)],
    ids=["Guid", "v3.Guid", "v3.Xuid", "sno.Sno"],
)
def test_forked_child_never_repeats_parent_ids(make, size):
    before = [bytes(make()) for _ in range(N)]
    child, after = in_child(make, size)
    every = before + after + child
    assert len(set(every)) == len(every) == 3 * N
    # Each process's ids increase.
    assert before == sorted(before) and after == sorted(after) and child == sorted(child)
    assert before[-1] < after[0]
    print(f"{make.__qualname__}: {N} before the fork, {N} in the parent and {N} in the child after it, no duplicate")


def test_batches_in_a_child_differ_from_the_parent():
    Guid.now()
    child, after = in_child(lambda: b"".join(bytes(g) for g in Guid.batch(8)), 96)
    ids = {c[i:i + 12] for c in child for i in range(0, 96, 12)}
    ids |= {a[i:i + 12] for a in after for i in range(0, 96, 12)}
    assert len(ids) == 2 * N * 8


def test_a_chosen_node_refuses_in_a_child():
    clock = kguid.Clock(node=7)
    v3_clock = v3.Clock(node=7)
    generator = sno.Generator(partition=7)
    clock.g(), v3_clock.x(), generator.next()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        results = []
        for call in (clock.g, clock.l, lambda: clock.batch(3), v3_clock.g, v3_clock.x, generator.next):
            try:
                call()
                results.append("made")
            except kguid.ForkedError:
                results.append("refused")
            except BaseException as e:  # noqa: BLE001
                results.append(type(e).__name__)
        results.append("random" if kguid.Clock().g() else "none")
        os.write(w, ",".join(results).encode())
        os._exit(0)
    os.close(w)
    out = read_all(r).decode()
    os.close(r)
    os.waitpid(pid, 0)
    assert out == "refused,refused,refused,refused,refused,refused,random"
    assert clock.g().node == 7  # the parent goes on


def test_the_process_wide_clock_with_a_chosen_node_refuses_in_a_child():
    script = textwrap.dedent(
        """
        import os, kguid
        from kguid import v3
        kguid.Guid.now(); v3.Guid.now()
        pid = os.fork()
        if pid == 0:
            out = []
            for f in (kguid.Guid.now, kguid.Luid.now, v3.Guid.now, v3.Xuid.now):
                try:
                    f(); out.append("made")
                except kguid.ForkedError:
                    out.append("refused")
            print(",".join(out), flush=True)
            os._exit(0)
        os.waitpid(pid, 0)
        print(kguid.Guid.now().node == kguid.node_from_name("node-1"))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "CONFIG_GUID_NODE_ID": "node-1"},
        capture_output=True, text=True, check=True,
    ).stdout.split()
    assert out == ["refused,refused,refused,refused", "True"]


def test_a_used_up_clock_and_a_forked_child_give_typed_errors():
    """Every id call of both 96-bit clocks raises the crate's typed error,
    its kind and message the crate's: UsedUpError ("UsedUp") with no id
    left, ForkedError ("Forked") for a chosen node in a forked child (no
    PanicException, no other exception), and issues nothing."""
    end = 2**61 - 1
    v2_used, v3_used = kguid.Clock(node=1, restore=end), v3.Clock(node=1, restore=end)
    calls = lambda c2, c3: [  # noqa: E731
        c2.g, c2.l, lambda: c2.batch(2), lambda: c2.batch_l(2),
        c3.g, c3.l, c3.x, lambda: c3.batch(2), lambda: c3.batch_l(2), lambda: c3.batch_x(2),
    ]
    for call in calls(v2_used, v3_used):
        with pytest.raises(kguid.UsedUpError) as e:
            call()
        assert type(e.value) is kguid.UsedUpError and e.value.kind == "UsedUp"
        assert "used up its 47-bit tick range" in str(e.value)
    assert v2_used.snapshot() == end and v3_used.snapshot() == end, "nothing issued"

    c2, c3 = kguid.Clock(node=7), v3.Clock(node=7)
    local, x = c2.l(), c3.x()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        out = []
        for call in calls(c2, c3):
            try:
                call()
                out.append("made")
            except kguid.ForkedError as e:
                ok = type(e) is kguid.ForkedError and e.kind == "Forked" and "forked child" in str(e)
                out.append("forked" if ok else "untyped")
            except BaseException as e:  # noqa: BLE001
                out.append(type(e).__name__)
        # Converting an id issues nothing: the chosen node, no error.
        out.append(str(c2.from_l64(local).node == 7 and c3.x_from_l64(x.to_l64()) == x))
        os.write(w, ",".join(out).encode())
        os._exit(0)
    os.close(w)
    out = read_all(r).decode().split(",")
    os.close(r)
    os.waitpid(pid, 0)
    assert out == ["forked"] * 10 + ["True"]
    assert c2.g().node == 7 and c3.x() > x, "the parent goes on"
