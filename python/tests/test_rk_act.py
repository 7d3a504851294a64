# SPDX-License-Identifier: MIT
"""npukit.rk's activations, softmax, norms and the fused matmul -> activation against numpy
references in double precision, within the bounds the runtime states; bad input."""
import math

import numpy as np
import pytest

import npukit
import npukit.rk as rk

RNG = np.random.default_rng(77)

REF = {
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3))),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hardsigmoid": lambda x: np.clip(x / 6 + 0.5, 0, 1),
    "exp": np.exp,
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
}
# the entries' fixed-point step of each LUT activation (rk_act_hw.h's out_exp)
STEP = {"sigmoid": 2.0 ** -14, "tanh": 2.0 ** -14, "gelu": 2.0 ** -11, "silu": 2.0 ** -10,
        "hardswish": 2.0 ** -12, "hardsigmoid": 2.0 ** -14, "exp": 2.0 ** -14, "relu": 0.0,
        "relu6": 0.0}


@pytest.fixture(scope="module")
def rt():
    with rk.Runtime("sim") as r:
        yield r


@pytest.mark.parametrize("fn", rk.ACTIVATIONS)
@pytest.mark.parametrize("shape", [(1,), (3, 5), (17, 33)])
def test_act(rt, fn, shape):
    x = (RNG.uniform(-10, 10, shape)).astype(np.float16)
    if fn == "exp":
        x = -np.abs(x)
    y = rt.act(fn, x)
    assert y.shape == x.shape and y.dtype == np.float16
    ref = REF[fn](x.astype(np.float64))
    tol = np.abs(ref) * 2.0 ** -11 + STEP[fn]
    assert np.all(np.abs(y.astype(np.float64) - ref) <= tol)
    assert rt.last_stats.sdp_tasks >= 1


def test_relu_int8_in_place(rt):
    x = RNG.integers(-128, 128, (4, 9)).astype(np.int8)
    want = np.maximum(x, 0)
    rt.act("relu", x, out=x)
    assert np.array_equal(x, want)


def test_softmax(rt):
    x = RNG.uniform(-6, 6, (4, 100)).astype(np.float16)
    y = rt.softmax(x)
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    tol = ref * 2.0 ** -10 + ref.max(axis=1, keepdims=True) * 2.0 ** -12
    assert np.all(np.abs(y.astype(np.float64) - ref) <= tol)
    assert rt.last_stats.host_steps == 8


@pytest.mark.parametrize("kind", ["rms", "layer"])
def test_norm(rt, kind):
    x = RNG.uniform(-3, 3, (3, 37)).astype(np.float16)
    g = RNG.uniform(0.5, 1.5, 37).astype(np.float16)
    b = RNG.uniform(-1, 1, 37).astype(np.float16)
    y = rt.norm(kind, x, g, b)
    xd = x.astype(np.float64)
    c = xd - xd.mean(axis=1, keepdims=True) if kind == "layer" else xd
    ref = c / np.sqrt((c * c).mean(axis=1, keepdims=True) + 1e-5) * g + b
    assert np.all(np.abs(y.astype(np.float64) - ref) <= np.abs(ref) * 2.0 ** -11 + 1e-6)
    assert rt.last_stats.host_steps == 3


def test_matmul_act(rt):
    a = (RNG.standard_normal((5, 64)) * 0.3).astype(np.float16)
    b = (RNG.standard_normal((64, 24)) * 0.3).astype(np.float16)
    bias = RNG.uniform(-1, 1, 24).astype(np.float16)
    w = rt.weights(b)
    fused = rt.matmul_act(a, w, "silu", bias=bias)
    split = rt.matmul_act(a, w, "silu", bias=bias, fuse=False)
    assert np.array_equal(fused, split)
    z = a.astype(np.float64) @ b.astype(np.float64) + bias
    mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)) + np.abs(bias)
    ref = REF["silu"](z)
    assert np.all(np.abs(fused - ref) <= np.abs(ref) * 2.0 ** -11 + STEP["silu"] + 1.2 * mag * 2.0 ** -9)
    w.free()


def test_bad_input(rt):
    with pytest.raises(npukit.BadArgument, match="swish"):
        rt.act("swish", np.zeros(4, np.float16))
    with pytest.raises(npukit.NpukitError, match="fp16 only"):
        rt.act("gelu", np.zeros(4, np.int8))
    with pytest.raises(npukit.BadArgument, match="float16"):
        rt.softmax(np.zeros(4, np.float32))
    with pytest.raises(npukit.BadArgument, match="rms"):
        rt.norm("batch", np.zeros(4, np.float16))
    with pytest.raises(npukit.BadArgument, match="dimensions"):
        rt.act("tanh", np.zeros((2, 2, 2), np.float16))


def test_rocket_runs_sdp():
    """The rocket kernel waits for the DPU interrupt, which an SDP task ends on."""
    with rk.Runtime("sim-rocket") as r:
        assert r.info["sdp"] is True
        x = np.linspace(-4, 4, 64).astype(np.float16)
        y = r.act("tanh", x).astype(np.float64)
        assert np.max(np.abs(y - np.tanh(x.astype(np.float64)))) < 2.0 ** -10
