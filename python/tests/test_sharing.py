# SPDX-License-Identifier: MIT
"""Objects shared between threads, and arguments that numpy would refuse: a Card used by two
threads at once over one transport, a Card closed while another thread is inside a call, a
Runtime likewise; read-only `out=` arrays, conversions that lose precision, reads past the card,
and the package's submodules reached as attributes."""
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import npukit
import npukit.kt as kt
import npukit.rk as rk


def _hammer(card, base, words, rounds, errors):
    # Each thread owns its own granule-aligned range; any word that comes back different was
    # another thread's reply, or another thread's write.
    try:
        for r in range(rounds):
            data = (np.arange(words, dtype=np.uint64) + np.uint64(base + r * 7919))
            card.write_block(base, data.tobytes())
            got = np.frombuffer(card.read_block(base, words * 8), np.uint64)
            bad = int((got != data).sum())
            if bad:
                errors.append(f"{bad} wrong words at {base:#x} round {r}")
            v = card.read64(base + 8)
            if v != int(data[1]):
                errors.append(f"read64 {base + 8:#x} gave {v:#x}, wrote {int(data[1]):#x}")
    except Exception as e:  # noqa: BLE001 - reported to the main thread
        errors.append(repr(e))


def _share(card, threads=4, rounds=40):
    mem = card.mem_base(0)
    errors = []
    ts = [threading.Thread(target=_hammer, args=(card, mem + 0x10000 * (i + 1), 32, rounds,
                                                 errors)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return errors


def test_card_shared_by_threads_sim():
    with kt.Card("sim") as card:
        assert _share(card) == []


def test_card_shared_by_threads_line_protocol():
    try:
        kt.cli_path()
    except npukit.NpukitError:
        pytest.skip("the npukit command is not built beside the library")
    with kt.serve("line") as spec, kt.Card(spec) as card:
        assert _share(card) == []


def _close_during_use(obj, work):
    """Close `obj` while another thread calls work() on it in a loop: the thread ends with
    BadArgument (the call after close is refused), never a crash; its message is returned."""
    started, seen = threading.Event(), []

    def user():
        started.set()
        try:
            while True:
                work()
        except npukit.BadArgument as e:
            seen.append(str(e))

    t = threading.Thread(target=user)
    t.start()
    started.wait()
    obj.close()
    t.join(30)
    assert not t.is_alive() and seen
    return seen[0]


def test_card_close_waits_then_refuses():
    card = kt.Card("sim")
    x = np.arange(4096, dtype=np.float32)

    def work():
        np.testing.assert_array_equal(card.saxpy(2.0, x, x), 3 * x)

    assert "closed" in _close_during_use(card, work)
    with pytest.raises(npukit.BadArgument, match="closed"):
        card.read64(0)


def test_runtime_close_waits_then_refuses():
    rt = rk.Runtime("sim")
    a = np.ones((8, 64), np.float16)
    w = rt.weights(np.ones((64, 32), np.float16))

    def work():
        np.testing.assert_array_equal(rt.matmul(a, w), np.full((8, 32), 64.0))

    said = _close_during_use(rt, work)
    assert "closed" in said or "freed" in said


# ---- out= arrays -------------------------------------------------------------------------
def test_out_read_only_memmap_refused(tmp_path):
    f = tmp_path / "c.bin"
    np.zeros((4, 32), np.float32).tofile(f)
    ro = np.memmap(f, dtype=np.float32, mode="r", shape=(4, 32))
    with rk.Runtime("sim") as rt, pytest.raises(npukit.BadArgument, match="out.*read-only"):
        rt.matmul(np.ones((4, 64), np.float16), np.ones((64, 32), np.float16), out=ro)


@pytest.mark.parametrize("call", ["matmul", "matmul_quant", "ew"])
def test_out_read_only_array_untouched(call):
    with rk.Runtime("sim") as rt:
        if call == "ew":
            a = np.ones((2, 16), np.float16)
            out = np.full_like(a, 5)
            out.flags.writeable = False
            with pytest.raises(npukit.BadArgument, match="out.*read-only"):
                rt.ew("add", a, a, out=out)
        else:
            out = np.full((2, 32), 5, np.float32 if call == "matmul_quant" else np.int32)
            out.flags.writeable = False
            a = np.ones((2, 64), np.int8)
            b = np.ones((64, 32), np.int8)
            with pytest.raises(npukit.BadArgument, match="out.*read-only"):
                if call == "matmul":
                    rt.matmul(a, b, out=out)
                else:
                    rt.matmul_quant(a, rt.qweights(b, np.ones(32, np.float32)), 1.0, out=out)
        assert (out == 5).all()


# ---- precision and sizes -----------------------------------------------------------------
def test_saxpy_refuses_precision_loss():
    x = np.array([1, 16777217, 3], np.int64)
    with kt.Card("sim") as card:
        with pytest.raises(npukit.BadArgument, match=r"x\[1\] = 16777217.*float32"):
            card.saxpy(1.0, x, np.zeros(3, np.float32))
        with pytest.raises(npukit.BadArgument, match=r"y\[0\].*float32"):
            card.saxpy(1.0, np.zeros(1, np.float32), np.array([2.0 ** 25 + 1]))
        with pytest.raises(npukit.BadArgument, match="a = 16777217"):
            card.saxpy(16777217, np.zeros(1, np.float32), np.zeros(1, np.float32))
        # What converts exactly is taken as before.
        got = card.saxpy(2, np.array([1, 2, 16777216], np.int64), np.zeros(3, np.float64))
        np.testing.assert_array_equal(got, [2, 4, 33554432])


def test_read_block_past_the_card():
    with kt.Card("sim") as card:
        size = card.board["dram_size"]
        with pytest.raises(npukit.LimitError, match=f"{2**40}.*{size:#x}"):
            card.read_block(card.mem_base(), 2 ** 40)


# ---- the package ---------------------------------------------------------------------------
@pytest.mark.parametrize("sub", ["rk", "kt"])
def test_submodule_as_attribute(sub):
    # A fresh interpreter: this one has imported both already.
    root = Path(npukit.__file__).resolve().parent.parent
    code = (f"import sys; sys.path.insert(0, {str(root)!r}); import npukit; "
            f"m = npukit.{sub}; print(m.__name__)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"npukit.{sub}"


# ---- progress --------------------------------------------------------------------------------
def test_matmul_progress_callback():
    seen = []
    a = np.ones((256, 512), np.float16)
    b = np.ones((512, 1024), np.float16)
    with rk.Runtime("sim") as rt:
        c = rt.matmul(a, b, progress=lambda done, total: seen.append((done, total)))
        np.testing.assert_array_equal(c, np.full((256, 1024), 512.0))
        total = rt.last_stats.tasks
        assert total > 1 and seen, seen
        assert all(t == total for _, t in seen)
        dones = [d for d, _ in seen]
        assert dones == sorted(dones) and dones[-1] == total and dones[0] >= 1
        # the next call without one reports nothing
        before = len(seen)
        rt.matmul(a, b)
        assert len(seen) == before


def test_matmul_progress_error_raised_after_the_call():
    def stop(done, total):
        raise KeyboardInterrupt("stop")
    with rk.Runtime("sim") as rt:
        with pytest.raises(KeyboardInterrupt):
            rt.matmul(np.ones((64, 64), np.float16), np.ones((64, 256), np.float16),
                      progress=stop)
        with pytest.raises(npukit.BadArgument, match="progress: expected a callable"):
            rt.matmul(np.ones((4, 64), np.float16), np.ones((64, 16), np.float16), progress=3)
        # the runtime works on afterwards
        assert rt.matmul(np.ones((4, 64), np.float16), np.ones((64, 16), np.float16))[0, 0] == 64
