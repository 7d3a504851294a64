# SPDX-License-Identifier: MIT
"""npukit.rk against numpy references: every dtype, edge shapes, resident weights, element-wise
ops, plans, programs, errors and a bounded memory footprint over many calls."""
import os

import numpy as np
import pytest

import npukit
import npukit.rk as rk
from npukit import _lib

from layout_check import check_layouts

RNG = np.random.default_rng(1234)
DEVICES = ["sim", "sim-rocket"]


@pytest.fixture(scope="module", params=DEVICES)
def rt(request):
    with rk.Runtime(request.param) as r:
        yield r


def f16(shape):
    return (RNG.standard_normal(shape) * 0.5).astype(np.float16)


def i8(shape, lo=-128, hi=127):
    return RNG.integers(lo, hi + 1, shape).astype(np.int8)


def ref_f(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


def ref_i(a, b):
    return a.astype(np.int64) @ b.astype(np.int64)


SHAPES = [(1, 1, 1), (1, 64, 32), (7, 33, 65), (4, 300, 17), (65, 96, 130), (2, 8200, 20)]


@pytest.mark.parametrize("m,k,n", SHAPES)
def test_fp16_to_fp32(rt, m, k, n):
    a, b = f16((m, k)), f16((k, n))
    c = rt.matmul(a, b)
    assert c.dtype == np.float32 and c.shape == (m, n)
    np.testing.assert_allclose(c, ref_f(a, b), rtol=2e-3, atol=2e-3 * np.sqrt(k))


@pytest.mark.parametrize("m,k,n", SHAPES[:4])
def test_fp16_to_fp16(rt, m, k, n):
    a, b = f16((m, k)), f16((k, n))
    c = rt.matmul(a, b, out_dtype=np.float16)
    assert c.dtype == np.float16
    np.testing.assert_allclose(c.astype(np.float32), ref_f(a, b), rtol=4e-3,
                               atol=4e-3 * np.sqrt(k))


@pytest.mark.parametrize("m,k,n", SHAPES)
def test_int8_exact(rt, m, k, n):
    a, b = i8((m, k)), i8((k, n))
    c = rt.matmul(a, b)
    assert c.dtype == np.int32
    np.testing.assert_array_equal(c, ref_i(a, b))


@pytest.mark.parametrize("m,k,n", SHAPES[:5])
def test_int4_exact(rt, m, k, n):
    a, b = i8((m, k), -8, 7), i8((k, n), -8, 7)
    np.testing.assert_array_equal(rt.matmul(a, b, dtype="int4"), ref_i(a, b))


def test_int4_extremes(rt):
    a = np.full((3, 512), -8, np.int8)
    b = np.full((512, 40), -8, np.int8)
    np.testing.assert_array_equal(rt.matmul(a, b, dtype="int4"), ref_i(a, b))


def test_resident_weights_many_calls(rt):
    b = f16((128, 96))
    w = rt.weights(b)
    assert w.shape == (128, 96) and "resident" in repr(w)
    for m in (1, 5, 64, 3):
        a = f16((m, 128))
        np.testing.assert_allclose(rt.matmul(a, w), ref_f(a, b), rtol=2e-3, atol=0.03)
    w.free()
    assert "freed" in repr(w)
    with pytest.raises(npukit.BadArgument, match="freed"):
        rt.matmul(f16((1, 128)), w)


def test_transposed_weights(rt):
    bt = i8((24, 200))  # [N][K], ggml's and Linear's form
    w = rt.weights(bt, layout="transposed")
    assert w.shape == (200, 24)
    a = i8((9, 200))
    np.testing.assert_array_equal(rt.matmul(a, w), ref_i(a, bt.T))


def test_out_array_written_in_place(rt):
    a, b = i8((4, 64)), i8((64, 32))
    out = np.zeros((4, 32), np.int32)
    got = rt.matmul(a, b, out=out)
    assert got is out
    np.testing.assert_array_equal(out, ref_i(a, b))


def test_stats_label_modelled(rt):
    rt.matmul(f16((8, 64)), f16((64, 32)))
    s = rt.last_stats
    assert rt.simulated and s.npu_time_kind == "modelled"
    assert s.tasks >= 1 and s.submits >= s.tasks and s.npu_time_s > 0 and s.host_time_s > 0


def test_info(rt):
    info = rt.info
    assert info["soc"] == "rk3588" and info["simulated"]
    # rocket: one open file per core (each a scheduler entity), so every core either way
    assert (info["kernel"], info["cores"]) in (("rknpu", 3), ("rocket", 3))
    assert info["weight_capacity"] == info["weight_spaces"] * (4096 - 256) * 2**20
    # the PDP (max/min pooling) ends on the PPU interrupt, which rocket never waits for
    assert info["pdp"] is (info["kernel"] == "rknpu")


def needs_sdp(rt):
    # Both kernels run SDP tasks (they end on the DPU interrupt, the one rocket waits for).
    assert rt.info["sdp"]


@pytest.mark.parametrize("op", ["add", "mul", "max", "min"])
def test_ew_fp16(rt, op):
    needs_sdp(rt)
    a, b = f16((5, 40)), f16((5, 40))
    fn = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}[op]
    want = fn(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(rt.ew(op, a, b), want)


def test_ew_int8_saturates_and_per_channel(rt):
    needs_sdp(rt)
    a = i8((3, 50))
    b = i8((50,))
    want = np.clip(a.astype(np.int32) + b.astype(np.int32), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(rt.ew("add", a, b), want)


def test_ew_int16_max_per_channel(rt):
    needs_sdp(rt)
    a = RNG.integers(-1000, 1000, (4, 33)).astype(np.int16)
    b = np.zeros(33, np.int16)
    np.testing.assert_array_equal(rt.ew("max", a, b), np.maximum(a, 0))


def test_ew_clamps_and_immediates(rt):
    needs_sdp(rt)
    a = (RNG.integers(-160, 160, (6, 40)) / 16).astype(np.float16)  # past relu6's bound
    a32 = a.astype(np.float32)
    np.testing.assert_array_equal(rt.ew("relu", a), np.maximum(a, 0))
    np.testing.assert_array_equal(rt.ew("relu6", a), np.clip(a, 0, 6))
    leaky = np.where(a32 < 0, a32 * np.float32(0.25), a32).astype(np.float16)
    np.testing.assert_array_equal(rt.ew("leakyrelu", a, 0.25), leaky)
    bn = (a32 * np.float32(1.5) + np.float32(-2)).astype(np.float16)
    np.testing.assert_array_equal(rt.ew("batchnorm", a, (1.5, -2)), bn)
    np.testing.assert_array_equal(rt.ew("max", a, 0.5), np.maximum(a, np.float16(0.5)))
    i = RNG.integers(-128, 128, (3, 50)).astype(np.int8)
    want = np.clip(i.astype(np.int32) * 3, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(rt.ew("mul", i, 3), want)
    with pytest.raises(npukit.BadArgument, match="whole"):
        rt.ew("add", i, 2.5)
    with pytest.raises(npukit.BadArgument, match="takes no operand"):
        rt.ew("relu6", a, 1)
    with pytest.raises(npukit.BadArgument, match="2 immediate"):
        rt.ew("batchnorm", a, 1.0)
    with pytest.raises(npukit.NpukitError, match="no source gives its output"):
        rt.ew("eql", a, a)


def test_matmul_epilogue_steps(rt):
    needs_sdp(rt)
    a = (RNG.integers(-8, 8, (4, 64)) / 8).astype(np.float16)
    b = (RNG.integers(-8, 8, (64, 32)) / 64).astype(np.float16)
    w = rt.weights(b)
    plain = rt.matmul(a, w, out_dtype=np.float16).astype(np.float32)
    got = rt.matmul_epilogue(a, w, [("batchnorm", (2.0, -0.5)), ("relu6", None)])
    want = np.clip((plain * np.float32(2) + np.float32(-0.5)).astype(np.float16), 0, 6)
    np.testing.assert_array_equal(got, want)
    w.free()


def test_matmul_batch(rt):
    shapes = [(1, 256, 64), (3, 100, 37), (5, 64, 96)]
    pairs, want = [], []
    for m, k, n in shapes:
        a = RNG.integers(-4, 4, (m, k)).astype(np.int8)
        b = RNG.integers(-4, 4, (k, n)).astype(np.int8)
        pairs.append((a, rt.weights(b)))
        want.append(a.astype(np.int32) @ b.astype(np.int32))
    got = rt.matmul_batch(pairs)
    for g, wnt in zip(got, want):
        np.testing.assert_array_equal(g, wnt)
    assert [s.tasks >= 1 for s in rt.last_batch_stats] == [True] * 3
    assert rt.last_stats.tasks == sum(s.tasks for s in rt.last_batch_stats)
    with pytest.raises(npukit.BadArgument, match="at least one"):
        rt.matmul_batch([])
    for _, w in pairs:
        w.free()


# ---- quantised matmuls (W8A8, per group) ---------------------------------------------------
def quant_ref(a, b, sa, sb, group):
    m, k = a.shape
    n = b.shape[1]
    g = k if group is None else group
    out = np.zeros((m, n), np.float64)
    for gi, k0 in enumerate(range(0, k, g)):
        part = a[:, k0:k0 + g].astype(np.int64) @ b[k0:k0 + g].astype(np.int64)
        sag = sa if sa.ndim == 1 else sa[:, gi]
        out += sag[:, None] * (sb if group is None else sb[gi])[None, :] * part
    return out


@pytest.mark.parametrize("group", [None, 32, 96])
def test_quant_matmul(rt, group):
    m, k, n = 5, 200, 40
    a, b = i8((m, k)), i8((k, n))
    groups = 1 if group is None else -(-k // group)
    sb = RNG.uniform(0.01, 0.1, n if group is None else (groups, n)).astype(np.float32)
    sa = RNG.uniform(0.01, 0.1, m).astype(np.float32)
    w = rt.qweights(b, sb, group=group)
    assert w.groups == groups and "QWeights" in repr(w)
    c = rt.matmul_quant(a, w, sa)
    np.testing.assert_allclose(c, quant_ref(a, b, sa, sb, group), rtol=1e-5, atol=1e-4)
    c16 = rt.matmul_quant(a, w, sa, out_dtype=np.float16)
    assert c16.dtype == np.float16
    with pytest.raises(npukit.NpukitError):
        rt.qweights(b, sb[..., :-1].copy(), group=group)  # wrong scale count


def test_quant_errors(rt):
    b = i8((64, 8))
    with pytest.raises(npukit.NpukitError, match="48|group"):
        rt.qweights(b, np.ones((2, 8), np.float32), group=48)
    with pytest.raises(npukit.BadArgument, match="float32"):
        rt.qweights(b, np.ones(8))
    w = rt.qweights(b, np.ones(8, np.float32))
    with pytest.raises(npukit.BadArgument, match="float32 or float16"):
        rt.matmul_quant(i8((1, 64)), w, 1.0, out_dtype=np.int32)
    with pytest.raises(npukit.NpukitError):
        rt.matmul_quant(i8((2, 64)), w, np.ones(3, np.float32))  # neither 1, M nor M x groups


# ---- errors --------------------------------------------------------------------------------
def test_errors(rt):
    with pytest.raises(npukit.BadArgument, match="float64"):
        rt.matmul(np.ones((2, 3)), np.ones((3, 4)))
    with pytest.raises(npukit.BadArgument, match="C-contiguous"):
        rt.matmul(f16((8, 4)).T, f16((8, 4)))
    with pytest.raises(npukit.BadArgument, match="K = 32"):
        rt.matmul(f16((2, 31)), f16((32, 4)))
    with pytest.raises(npukit.BadArgument, match="does not match"):
        rt.matmul(i8((2, 32)), f16((32, 4)))
    with pytest.raises(npukit.LimitError, match=r"\[-8, 7\]"):
        rt.matmul(i8((2, 32)), i8((32, 4)), dtype="int4")
    with pytest.raises(npukit.BadArgument, match="out_dtype"):
        rt.matmul(i8((2, 32)), i8((32, 4)), out_dtype=np.float32)
    with pytest.raises(npukit.BadArgument, match="per channel"):
        rt.ew("add", f16((2, 8)), f16((3,)))
    with pytest.raises(npukit.BadArgument, match="op"):
        rt.ew("pow", f16((2, 8)), f16((2, 8)))
    assert issubclass(npukit.BadArgument, ValueError)
    assert issubclass(npukit.DeviceError, OSError)


def test_library_errors_carry_message():
    with pytest.raises(npukit.NpukitError) as e:
        rk.Runtime("/dev/no-such-npu-node")
    assert e.value.status is not None and "no-such-npu-node" in str(e.value)
    with pytest.raises(npukit.NpukitError) as e:
        rk.Runtime("sim", cores=9)
    assert e.value.status in ("EINVAL", "ELIMIT") and "9" in str(e.value)


def test_closed_runtime_and_foreign_weights():
    r1 = rk.Runtime("sim")
    r2 = rk.Runtime("sim")
    w = r1.weights(f16((32, 16)))
    with pytest.raises(npukit.BadArgument, match="another runtime"):
        r2.matmul(f16((1, 32)), w)
    r1.close()
    r1.close()  # idempotent
    with pytest.raises(npukit.BadArgument, match="closed"):
        r1.matmul(f16((1, 32)), f16((32, 16)))
    assert "freed" in repr(w)  # closing freed the runtime's weights
    r2.close()


def test_one_shot_function():
    a, b = i8((3, 64)), i8((64, 8))
    np.testing.assert_array_equal(rk.matmul(a, b, device="sim"), ref_i(a, b))


def test_int4_packing():
    v = i8((3, 10), -8, 7)
    p = rk.pack_int4(v)
    assert p.dtype == np.uint8 and p.shape == (3, 5)
    assert int(p[0, 0]) == (int(v[0, 0]) & 15) | ((int(v[0, 1]) & 15) << 4)
    np.testing.assert_array_equal(rk.unpack_int4(p), v)
    with pytest.raises(npukit.LimitError):
        rk.pack_int4(np.array([9, 0], np.int8))
    with pytest.raises(npukit.BadArgument, match="even"):
        rk.pack_int4(np.zeros(3, np.int8))


# ---- plans and programs --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["fp16", "int8", "int4"])
def test_plan_covers_the_shape(dtype):
    m, k, n = 300, 5000, 700
    p = rk.plan(m, k, n, dtype)
    assert p.shape == (m, k, n) and p.tasks and p.modelled_total_us > 0
    cover = np.zeros((m, n), np.int64)
    for t in p.tasks:
        assert t.k[1] - t.k[0] <= p.k_slice and 0 <= t.core < 3
        cover[t.m[0]:t.m[1], t.n[0]:t.n[1]] += t.k[1] - t.k[0]
    assert (cover == k).all(), "every output element sums exactly K products"


def test_plan_errors():
    with pytest.raises(npukit.BadArgument):
        rk.plan(0, 64, 64)
    with pytest.raises(npukit.BadArgument):
        rk.plan(4, 64, 64, "fp64")


def test_synth_decode():
    prog = rk.synth(4, 64, 32, "fp16", a=0x1000, b=0x2000, c=0x3000)
    assert prog.dtype == np.uint64 and prog.shape == (108,)
    entries = rk.decode(prog)
    assert len(entries) == 108
    names = " ".join(e.text for e in entries)
    assert "CNA_CBUF_CON0" in names and "DPU" in names
    con0 = [e for e in entries if "CNA_CBUF_CON0" in e.text][0]
    assert con0.reg == 0x1040
    assert rk.plan(4, 64, 32, "fp16", cores=1).tasks[0].cbuf_con0 == con0.value
    with pytest.raises(npukit.NpukitError):
        rk.synth(4, 63, 32, "fp16")


def test_help_is_useful():
    assert "Runtime" in rk.__doc__ or "runtime" in rk.__doc__
    assert "out_dtype" in rk.Runtime.matmul.__doc__
    assert "modelled" in rk.Stats.__doc__


# ---- the C structs the package mirrors match the compiler's layout -------------------------
def test_struct_layouts_match_c(tmp_path):
    check_layouts(tmp_path, ["npukit/rk.h", "npukit/rk_plan.h", "npukit/rk_synth.h"],
                  _lib.MIRRORED)


# ---- no leaks over many calls ---------------------------------------------------------------
def _rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_bounded_memory_over_many_calls():
    a, b = i8((16, 256)), i8((256, 64))

    def rounds(n):
        for _ in range(n):
            with rk.Runtime("sim") as r:
                w = r.weights(b)
                r.matmul(a, w)
                r.matmul(a, b)
                w.free()

    rounds(20)
    before = _rss_kib()
    rounds(150)
    grown = _rss_kib() - before
    assert grown < 16 * 1024, f"RSS grew {grown} KiB over 150 runtimes"


# ---- threads: close and free wait for a running call ----------------------------------------
CLOSE_DURING_CALL = """
import json, threading, time
import numpy as np
import npukit, npukit.rk as rk

def busy(lock):
    # True while another thread holds the runtime's lock (a call is running).
    if lock.acquire(blocking=False):
        lock.release()
        return False
    return True

def scenario(end):
    rt = rk.Runtime("sim")
    a = np.ones((512, 4096), np.float16)
    w = rt.weights(np.ones((4096, 512), np.float16))
    res = {}
    def run():
        res["t0"] = time.monotonic()
        try:
            res["ok"] = bool((rt.matmul(a, w) == 4096).all())
        except npukit.NpukitError as e:
            res["err"] = str(e)
        res["t"] = time.monotonic()
    t = threading.Thread(target=run)
    t.start()
    while not busy(rt._lock) and t.is_alive():
        time.sleep(0.0005)
    (rt.close if end == "close" else w.free)()
    ended = time.monotonic()
    t.join()
    # The call's end is measured just after its lock is released, so a close that waited can
    # end a moment before it; one that did not wait ends a whole matmul earlier.
    res["waited"] = ended >= res["t"] - 0.02
    res["call_s"] = res["t"] - res["t0"]
    try:
        rt.matmul(a, w)
    except npukit.BadArgument as e:
        res["after"] = str(e)
    rt.close()
    return res

print(json.dumps({end: scenario(end) for end in ("close", "free")}))
"""


def test_close_and_free_wait_for_a_running_matmul():
    import json
    import subprocess
    import sys
    # In a child: on a runtime that does not wait, the call runs on freed memory, which may
    # end the process.
    r = subprocess.run([sys.executable, "-c", CLOSE_DURING_CALL], capture_output=True,
                       text=True, timeout=600,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout)
    for end in ("close", "free"):
        res = got[end]
        assert res.get("ok") is True and res["waited"], (end, res)
    assert "closed" in got["close"]["after"] and "freed" in got["free"]["after"]


# ---- input checks ---------------------------------------------------------------------------
def test_core_mask_beyond_the_c_type_is_refused():
    # An unsigned int parameter: 2**40 would arrive as 0 (every core), 2**32 + 1 as core 0.
    for mask in (2**40, 2**32 + 1):
        with pytest.raises(npukit.BadArgument, match=rf"{mask:#x}.*cores 0\.\.2 \(mask 0x7\)"):
            rk.Runtime("sim", core_mask=mask)
    with pytest.raises(npukit.BadArgument, match="-1"):
        rk.Runtime("sim", core_mask=-1)
    with rk.Runtime("sim", core_mask=0b10) as r:
        r.matmul(i8((2, 64)), i8((64, 8)))
        assert r.last_stats.cores_used == 1


def test_device_must_be_a_string():
    with pytest.raises(npukit.BadArgument, match="device 123"):
        rk.Runtime(123)


def test_empty_a_is_named_as_given(rt):
    with pytest.raises(npukit.BadArgument, match=r"a: shape \(0, 64\): M = 0") as e:
        rt.matmul(np.ones((0, 64), np.float16), f16((64, 8)))
    assert "m_hint" not in str(e.value)
    with pytest.raises(npukit.BadArgument, match=r"a: shape \(64,\)"):
        rt.matmul(f16((64,)), f16((64, 8)))


def test_ew_keeps_the_shape_of_a_vector(rt):
    needs_sdp(rt)
    a, b = f16((40,)), f16((40,))
    c = rt.ew("add", a, b)
    assert c.shape == (40,)
    np.testing.assert_array_equal(c, (a.astype(np.float32) + b).astype(np.float16))
    out = np.empty(40, np.float16)
    assert rt.ew("max", a, b, out=out) is out
