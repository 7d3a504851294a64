# SPDX-License-Identifier: MIT
"""The ONNX runner's 3-D layers on the 2-D engines against its CPU run: a 3-D convolution
(depth unfolded into the 2-D conv's channels: strides, dilations, padding, groups, a bias and a
fused clamp) and 3-D pools (separable: every depth slice's (h, w) pool, then the depth's;
padding, ceil_mode, count_include_pad), max exact; a dilated 3-D pool named unsupported."""
import numpy as np
import pytest

import npukit.rk as rk

pytest.importorskip("onnx")
from npukit.onnx import cpu, npu  # noqa: E402
from npukit.onnx.errors import Unsupported  # noqa: E402
from npukit.onnx.model import Node  # noqa: E402

RNG = np.random.default_rng(3)


def f16(shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16).astype(np.float32)


CONVS = [
    ((2, 3, 6, 5, 7), (4, 3, 2, 3, 2), dict(strides=[2, 1, 2], pads=[1, 1, 0, 0, 1, 1])),
    ((1, 4, 7, 6, 6), (6, 2, 3, 2, 2), dict(dilations=[2, 1, 2], group=2)),
    ((1, 2, 3, 4, 4), (2, 2, 3, 3, 3), dict(auto_pad="SAME_UPPER")),
]


@pytest.mark.parametrize("device", ["sim", "sim-rocket"])
@pytest.mark.parametrize("case", range(len(CONVS)))
def test_conv3d(device, case):
    xs, ws, attrs = CONVS[case]
    x, w, b = f16(xs), f16(ws, 0.5), RNG.standard_normal(ws[0]).astype(np.float32)
    node = Node("c", "Conv", "", ["x", "w", "b"], ["y"], attrs)
    want = cpu.run(node, [x, w, b], 13)[0]
    with rk.Runtime(device) as rt:
        got = npu.run_node(rt, node, [x, w, b], 13, act=("relu", 0.0))[0]
        assert rt.last_stats.tasks > 0 and rt.last_stats.host_steps >= 1
    relu = np.maximum(want, 0)
    assert got.shape == want.shape
    # one fp16 rounding of each output (the fp32 sum of fp16 products is exact here up to
    # the accumulation order)
    assert np.max(np.abs(got - relu)) <= 2.0 ** -10 * max(1.0, float(np.max(np.abs(relu))))


POOLS = [
    ("MaxPool", (2, 3, 5, 6, 7), dict(kernel_shape=[2, 3, 2], strides=[2, 2, 1],
                                      pads=[1, 1, 0, 1, 1, 1])),
    ("MaxPool", (1, 2, 7, 7, 7), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], ceil_mode=1)),
    ("AveragePool", (1, 3, 6, 5, 5), dict(kernel_shape=[3, 2, 3], strides=[1, 2, 2],
                                          pads=[1, 0, 1, 2, 1, 1])),
    ("AveragePool", (1, 2, 5, 5, 5), dict(kernel_shape=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1],
                                          count_include_pad=1)),
]


@pytest.mark.parametrize("case", range(len(POOLS)))
def test_pool3d(case):
    op, shape, attrs = POOLS[case]
    x = f16(shape)
    node = Node("p", op, "", ["x"], ["y"], attrs)
    want = cpu.run(node, [x], 13)[0]
    with rk.Runtime("sim") as rt:
        got = npu.run_node(rt, node, [x], 13)[0]
        assert rt.last_stats.host_steps >= 2
    assert got.shape == want.shape
    # max: exact; average: two fp16 roundings (the (h, w) stage's and the depth stage's)
    limit = 0.0 if op == "MaxPool" else 2.0 ** -9 * float(np.max(np.abs(want)))
    assert np.max(np.abs(got - want)) <= limit


def test_pool3d_average_on_rocket_and_dilation_named():
    x = f16((1, 2, 4, 6, 6))
    node = Node("p", "AveragePool", "", ["x"], ["y"], dict(kernel_shape=[2, 3, 3]))
    with rk.Runtime("sim-rocket") as rt:  # an average runs as a depthwise conv there
        got = npu.run_node(rt, node, [x], 13)[0]
        dil = Node("p", "MaxPool", "", ["x"], ["y"], dict(kernel_shape=[2, 2, 2],
                                                          dilations=[1, 2, 2]))
        with pytest.raises(Unsupported, match="dilations"):
            npu.run_node(rt, dil, [x], 13)
    want = cpu.run(node, [x], 13)[0]
    assert np.max(np.abs(got - want)) <= 2.0 ** -9 * float(np.max(np.abs(want)))
