# SPDX-License-Identifier: MIT
"""The ONNX runner's integer operators (ConvInteger, QLinearConv, MatMulInteger, QLinearMatMul)
on the NPU's int8 engines, bit for bit against references written here (a loop over the
window, exact rational requantisation with Python's round-half-even) and the CPU run: uint8 and
int8 operands, zero points per tensor, per output channel, per row and per column, padding,
strides, dilations, groups, 1-D, batches, saturation and ties; the int32 wrap; a shape past the
conv's product limit on the CPU, named; malformed zero points refused."""
from fractions import Fraction

import numpy as np
import pytest

import npukit.rk as rk

pytest.importorskip("onnx")
from npukit.onnx import cpu, npu  # noqa: E402
from npukit.onnx.errors import OnnxError, Unsupported  # noqa: E402
from npukit.onnx.model import Node  # noqa: E402

RNG = np.random.default_rng(32)
DEVICES = ["sim", "sim-rocket"]


def q(dtype, shape, rng=RNG):
    lo, hi = (0, 256) if dtype == np.uint8 else (-128, 128)
    return rng.integers(lo, hi, shape).astype(dtype)


def loop_conv(x, w, xz, wz, stride, pads, dil, groups):
    """ConvInteger by its definition: padding reads as xz, one window at a time."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    pt, pl, pb, pr = pads
    xp = np.full((n, c, h + pt + pb, wd + pl + pr), int(xz), np.int64)
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    oh = (xp.shape[2] - (kh - 1) * dil[0] - 1) // stride[0] + 1
    ow = (xp.shape[3] - (kw - 1) * dil[1] - 1) // stride[1] + 1
    wc = w.astype(np.int64) - np.broadcast_to(np.asarray(wz, np.int64).reshape(-1), (m,))[:, None, None, None]
    y = np.zeros((n, m, oh, ow), np.int64)
    for o in range(m):
        g = o // (m // groups)
        for i in range(oh):
            for j in range(ow):
                win = xp[:, g * cg:(g + 1) * cg,
                         i * stride[0]:i * stride[0] + (kh - 1) * dil[0] + 1:dil[0],
                         j * stride[1]:j * stride[1] + (kw - 1) * dil[1] + 1:dil[1]]
                y[:, o, i, j] = ((win - int(xz)) * wc[o]).sum(axis=(1, 2, 3))
    return y


def run_npu(device, node, inputs):
    with rk.Runtime(device) as rt:
        y = npu.run_node(rt, node, inputs, 13)
        return y, rt.last_stats


CONV_CASES = [
    # x dtype, w dtype, x shape, w shape, x zp, w zp (None, a value or per channel), attrs
    (np.uint8, np.uint8, (1, 3, 9, 8), (5, 3, 3, 2), 131, "per-channel",
     dict(pads=[1, 2, 0, 1], strides=[2, 1], dilations=[1, 2])),
    (np.int8, np.int8, (2, 4, 6, 6), (6, 2, 2, 2), -5, "per-channel",
     dict(pads=[1, 1, 1, 1], group=2)),
    (np.uint8, np.int8, (1, 3, 7, 5), (6, 1, 3, 3), 255, 0,
     dict(group=3, auto_pad="SAME_UPPER")),
    (np.int8, np.uint8, (1, 20, 4, 4), (3, 20, 1, 1), None, 200, {}),
    (np.uint8, np.uint8, (1, 2, 5, 5), (2, 2, 5, 5), 128, 128, dict(pads=[2, 0, 0, 2])),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv_integer(device, case):
    xt, wt, xs, ws, xz, wz, attrs = CONV_CASES[case]
    x, w = q(xt, xs), q(wt, ws)
    xzv = None if xz is None else np.array(xz, xt)
    wzv = q(wt, (ws[0],)) if wz == "per-channel" else np.array(wz, wt)
    node = Node("c", "ConvInteger", "", ["x", "w", "xz", "wz"], ["y"], attrs)
    y, st = run_npu(device, node, [x, w, xzv, wzv])
    want = cpu.run(node, [x, w, xzv, wzv], 13)[0]
    assert y[0].dtype == np.int32 and np.array_equal(y[0], want)
    if "auto_pad" not in attrs:
        k = len(ws) - 2
        pads = attrs.get("pads", [0] * 2 * k)
        ref = loop_conv(x, w, 0 if xz is None else xz, wzv, attrs.get("strides", [1, 1]),
                        (pads[0], pads[1], pads[2], pads[3]), attrs.get("dilations", [1, 1]),
                        attrs.get("group", 1))
        assert np.array_equal(want, ref.astype(np.int32))
    assert st.tasks > 0 and st.host_steps > 0


def test_conv_integer_extremes_and_1d():
    """Every product at its largest, (0 - 255) x (255 - 0), and a 1-D convolution."""
    x = np.zeros((1, 8, 4, 4), np.uint8)
    w = np.full((3, 8, 3, 3), 255, np.uint8)
    node = Node("c", "ConvInteger", "", ["x", "w", "xz"], ["y"], dict(pads=[1, 1, 1, 1]))
    xz = np.array(255, np.uint8)
    y, _ = run_npu("sim", node, [x, w, xz])
    want = cpu.run(node, [x, w, xz], 13)[0]
    assert np.array_equal(y[0], want) and want.min() == -255 * 255 * 8 * 9
    x1, w1 = q(np.uint8, (2, 3, 17)), q(np.uint8, (4, 3, 3))
    node = Node("c", "ConvInteger", "", ["x", "w", "xz", "wz"], ["y"],
                dict(pads=[2, 1], strides=[2], dilations=[2]))
    ins = [x1, w1, np.array(7, np.uint8), np.array(250, np.uint8)]
    y, _ = run_npu("sim-rocket", node, ins)
    assert np.array_equal(y[0], cpu.run(node, ins, 13)[0])


def exact_requant(acc, mult_parts, zp, lo, hi):
    """round-half-even(acc * s1 * s2 / s3) + zp, saturated: in exact rationals."""
    s1, s2, s3 = (Fraction(float(v)) for v in mult_parts)
    return min(hi, max(lo, round(Fraction(int(acc)) * s1 * s2 / s3) + int(zp)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ydtype", [np.uint8, np.int8])
def test_qlinear_conv_ties_saturation(device, ydtype):
    """Power-of-two scales make the real product exact, so sums of odd value land on .5 (ties
    to even); a wide y range saturates at both ends; per-channel w scales and an int32 bias."""
    # operands near their zero points, so the sums stay near the output's range
    rng = np.random.default_rng(5)
    x = (100 + rng.integers(-12, 13, (1, 4, 6, 6))).astype(np.uint8)
    w = (np.array([3, -7, 0]).reshape(3, 1, 1, 1) + rng.integers(-9, 10, (3, 4, 3, 3))).astype(np.int8)
    xs, ws, ys = np.float32(0.5), np.array([1.0, 0.25, 2.0], np.float32), np.float32(1.0)
    xz, wz = np.array(100, np.uint8), np.array([3, -7, 0], np.int8)
    yz = np.array(128 if ydtype == np.uint8 else 0, ydtype)
    b = np.array([500, 0, -500], np.int32)  # channel 0 saturates high, 2 low, 1 ties
    node = Node("c", "QLinearConv", "", list("abcdefghi"), ["y"], dict(pads=[1, 1, 1, 1]))
    ins = [x, xs, xz, w, ws, wz, ys, yz, b]
    y, st = run_npu(device, node, ins)
    acc = loop_conv(x, w, 100, wz, (1, 1), (1, 1, 1, 1), (1, 1), 1) + b.reshape(1, 3, 1, 1)
    lo, hi = (0, 255) if ydtype == np.uint8 else (-128, 127)
    want = np.array([[[[exact_requant(acc[0, o, i, j], (xs, ws[o], ys), yz, lo, hi)
                        for j in range(acc.shape[3])] for i in range(acc.shape[2])]
                      for o in range(3)]], ydtype)
    assert y[0].dtype == ydtype and np.array_equal(y[0], want)
    assert np.array_equal(y[0], cpu.run(node, ins, 13)[0])
    prod = acc.astype(np.float64) * (xs * ws.reshape(1, 3, 1, 1)) / ys
    tie = np.abs(prod - np.floor(prod) - 0.5) < 1e-12
    inside = (prod + int(yz) > lo + 1) & (prod + int(yz) < hi - 1)
    assert (tie & inside).sum() >= 3                             # ties were rounded
    assert (y[0] == lo).any() and (y[0] == hi).any()             # both ends saturated
    assert st.host_steps >= 2


def loop_matmul(a, b, az, bz):
    """(a - az) @ (b - bz) in Python integers, per row / column zero points broadcast."""
    a64, b64 = a.astype(np.int64) - az, b.astype(np.int64) - bz
    batch = np.broadcast_shapes(a64.shape[:-2], b64.shape[:-2])
    a64 = np.broadcast_to(a64, batch + a64.shape[-2:])
    b64 = np.broadcast_to(b64, batch + b64.shape[-2:])
    out = np.zeros(a64.shape[:-1] + (b64.shape[-1],), np.int64)
    for idx in np.ndindex(*out.shape):
        out[idx] = sum(int(a64[idx[:-1] + (k,)]) * int(b64[idx[:-2] + (k, idx[-1])])
                       for k in range(a64.shape[-1]))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_matmul_integer(device):
    a, b = q(np.uint8, (2, 5, 7)), q(np.uint8, (7, 4))
    az = q(np.uint8, (5,))            # per row
    bz = q(np.uint8, (4,))            # per column
    node = Node("m", "MatMulInteger", "", ["a", "b", "az", "bz"], ["y"], {})
    y, st = run_npu(device, node, [a, b, az, bz])
    want = loop_matmul(a, b, az.reshape(5, 1).astype(np.int64), bz.astype(np.int64))
    assert y[0].dtype == np.int32 and np.array_equal(y[0], want)
    assert st.host_steps >= 3
    # int8 operands, a [D, M, 1] zero point, B batched; A 1-D against B 2-D; no zero points
    a8, b8 = q(np.int8, (3, 2, 6)), q(np.int8, (3, 6, 5))
    az8 = q(np.int8, (3, 2, 1))
    y, _ = run_npu(device, node, [a8, b8, az8, np.array(-9, np.int8)])
    assert np.array_equal(y[0], loop_matmul(a8, b8, az8.astype(np.int64), -9))
    a1 = q(np.uint8, (6,))
    node2 = Node("m", "MatMulInteger", "", ["a", "b"], ["y"], {})
    y, _ = run_npu(device, node2, [a1, b8[0].astype(np.int8)])
    assert np.array_equal(y[0], cpu.run(node2, [a1, b8[0]], 13)[0])


def test_matmul_integer_wraps_at_32_bits():
    """140000 products of (0 - 255)(0 - 255) sum past int32: ONNX's int32 accumulator wraps.
    The engine's own sum of (-128)(-128) products passes 2^31 too and wraps, the corrections
    wrap alike, so the result is the wrapped sum."""
    k = 140000
    a, b = np.zeros((1, k), np.uint8), np.zeros((k, 1), np.uint8)
    z = np.array(255, np.uint8)
    node = Node("m", "MatMulInteger", "", ["a", "b", "az", "bz"], ["y"], {})
    y, _ = run_npu("sim", node, [a, b, z, z])
    true = k * 255 * 255
    assert k * 128 * 128 > 2 ** 31 and int(y[0][0, 0]) == (true + 2 ** 31) % 2 ** 32 - 2 ** 31
    assert np.array_equal(y[0], cpu.run(node, [a, b, z, z], 13)[0])


@pytest.mark.parametrize("device", DEVICES)
def test_qlinear_matmul_per_row_column(device):
    a, b = q(np.int8, (4, 9)), q(np.uint8, (9, 3))
    a_s = np.array([0.5, 0.25, 1.0, 0.125], np.float32)
    b_s = np.array([1.0, 2.0, 0.5], np.float32)
    az, bz = q(np.int8, (4,)), q(np.uint8, (3,))
    ys, yz = np.float32(16.0), np.array(10, np.uint8)
    node = Node("m", "QLinearMatMul", "", list("abcdefgh"), ["y"], {})
    ins = [a, a_s, az, b, b_s, bz, ys, yz]
    y, _ = run_npu(device, node, ins)
    acc = loop_matmul(a, b, az.reshape(4, 1).astype(np.int64), bz.astype(np.int64))
    want = np.array([[exact_requant(acc[i, j], (a_s[i], b_s[j], ys), yz, 0, 255)
                      for j in range(3)] for i in range(4)], np.uint8)
    assert y[0].dtype == np.uint8 and np.array_equal(y[0], want)
    assert np.array_equal(y[0], cpu.run(node, ins, 13)[0])


def test_conv_past_product_limit_named():
    """14564 x 3 x 3 = 131076 products per output, past the int8 conv's 131071: the NPU
    refuses naming the limit, and the node's CPU run is still exact."""
    x, w = q(np.int8, (1, 14564, 3, 3)), q(np.int8, (1, 14564, 3, 3))
    node = Node("c", "ConvInteger", "", ["x", "w"], ["y"], {})
    with rk.Runtime("sim") as rt:
        with pytest.raises(Unsupported, match="131071"):
            npu.run_node(rt, node, [x, w], 13)
    ref = (x.astype(np.int64) * w.astype(np.int64)).sum()
    assert int(cpu.run(node, [x, w], 13)[0].reshape(())) == ref


def test_runner_placement_quantised_chain():
    """QuantizeLinear -> QLinearConv -> DequantizeLinear: the conv on the NPU, the two
    rescalings on the host, each named; the output equal to the CPU run's bit for bit."""
    from onnx import TensorProto, helper, numpy_helper
    from npukit import onnx as nox
    inits = [numpy_helper.from_array(v, n) for n, v in [
        ("xs", np.array(0.05, np.float32)), ("xz", np.array(120, np.uint8)),
        ("w", q(np.int8, (4, 3, 3, 3))), ("ws", np.array([0.01, 0.02, 0.015, 0.03], np.float32)),
        ("wz", np.zeros(4, np.int8)), ("ys", np.array(0.1, np.float32)),
        ("yz", np.array(-3, np.int8)), ("b", q(np.int8, (4,)).astype(np.int32))]]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                              ["yq"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    g = helper.make_graph(nodes, "q", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                     [1, 3, 9, 9])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = nox.from_proto(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    x = RNG.standard_normal((1, 3, 9, 9)).astype(np.float32) * 3
    with rk.Runtime("sim-rocket") as rt:
        r = nox.run(model, {"x": x}, rt)
    assert [s.placement for s in r.steps] == ["cpu", "npu", "cpu"]
    assert "host step" in r.steps[0].reason and "host step" in r.steps[2].reason
    assert r.steps[1].host_steps >= 3 and r.steps[1].npu_s > 0
    assert np.array_equal(r.outputs["y"], r.cpu_outputs["y"])


@pytest.mark.parametrize("inputs, match", [
    (lambda x, w: [x, w, np.array(1, np.int8)], "x_zero_point: dtype int8"),
    (lambda x, w: [x, w, None, np.zeros(3, np.uint8)], "w_zero_point: 3 values"),
    (lambda x, w: [x.astype(np.int16), w], "dtype int16"),
])
def test_bad_zero_points_named(inputs, match):
    x, w = q(np.uint8, (1, 2, 4, 4)), q(np.uint8, (5, 2, 2, 2))
    node = Node("c", "ConvInteger", "", ["x", "w", "xz", "wz"], ["y"], {})
    ins = inputs(x, w)
    with pytest.raises(OnnxError, match=match):
        cpu.run(node, ins, 13)
    with rk.Runtime("sim") as rt:
        with pytest.raises(Unsupported, match=match):
            npu.run_node(rt, node, ins, 13)


@pytest.mark.parametrize("device", DEVICES)
def test_integer_tensors_in_ordering_ops(device):
    """Clip and Relu of int8 / int16 on the SDP's integer max and min, MaxPool of uint8 on the
    PDP in fp16 (every integer up to 2048 is exact there): equal to the CPU run, in the
    input's dtype; an int16 value past 2048 keeps a MaxPool on the CPU, named."""
    x8 = q(np.int8, (2, 3, 5, 6))
    x16 = RNG.integers(-30000, 30000, (4, 7)).astype(np.int16)
    clip = Node("c", "Clip", "", ["x", "lo", "hi"], ["y"], {})
    relu = Node("r", "Relu", "", ["x"], ["y"], {})
    cases = [(clip, [x8, np.array(-100, np.int8), np.array(57, np.int8)]),
             (clip, [x16, np.array(-7, np.int16), None]), (relu, [x8]), (relu, [x16])]
    with rk.Runtime(device) as rt:
        for node, ins in cases:
            got = npu.run_node(rt, node, ins, 14)[0]
            want = cpu.run(node, ins, 14)[0]
            assert got.dtype == ins[0].dtype and np.array_equal(got, want)
        if device == "sim":  # max pooling needs the PDP (rknpu)
            xu = q(np.uint8, (1, 2, 9, 9))
            pool = Node("p", "MaxPool", "", ["x"], ["y"], dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
            got = npu.run_node(rt, pool, [xu], 13)[0]
            assert got.dtype == np.uint8 and np.array_equal(got, cpu.run(pool, [xu], 13)[0])
            with pytest.raises(Unsupported, match="past 2048"):
                npu.run_node(rt, pool, [x16.reshape(1, 1, 4, 7)], 13)


def qdq_model(bias_scale_off=1.0):
    """x -> Q -> DQ -> Conv (per-channel int8 weights, int32 bias) -> Q (uint8) -> Reshape ->
    DQ -> MatMul (per-column uint8 weights) -> Q (int8) -> DQ."""
    from onnx import TensorProto, helper, numpy_helper
    from npukit import onnx as nox
    rng = np.random.default_rng(11)
    xs, ws = np.float32(0.04), rng.uniform(0.005, 0.02, 8).astype(np.float32)
    consts = [("xs", np.array(xs)), ("xz", np.array(3, np.int8)),
              ("wq", rng.integers(-127, 128, (8, 3, 3, 3)).astype(np.int8)), ("ws", ws),
              ("wz", np.zeros(8, np.int8)), ("bq", rng.integers(-2000, 2000, 8).astype(np.int32)),
              ("bs", (xs * ws * np.float32(bias_scale_off)).astype(np.float32)),
              ("ys", np.array(0.2, np.float32)), ("yz", np.array(128, np.uint8)),
              ("shape", np.array([1, -1], np.int64)),
              ("w2q", rng.integers(0, 256, (128, 5)).astype(np.uint8)),
              ("w2s", rng.uniform(0.01, 0.03, 5).astype(np.float32)),
              ("w2z", rng.integers(100, 150, 5).astype(np.uint8)),
              ("zs", np.array(0.5, np.float32)), ("zz", np.array(-4, np.int8))]
    n = helper.make_node
    nodes = [n("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             n("DequantizeLinear", ["xq", "xs", "xz"], ["xf"]),
             n("DequantizeLinear", ["wq", "ws", "wz"], ["wf"], axis=0),
             n("DequantizeLinear", ["bq", "bs"], ["bf"]),
             n("Conv", ["xf", "wf", "bf"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2]),
             n("QuantizeLinear", ["y", "ys", "yz"], ["yq"]),
             n("Reshape", ["yq", "shape"], ["flat"]),
             n("DequantizeLinear", ["flat", "ys", "yz"], ["ff"]),
             n("DequantizeLinear", ["w2q", "w2s", "w2z"], ["w2f"], axis=1),
             n("MatMul", ["ff", "w2f"], ["z"]),
             n("QuantizeLinear", ["z", "zs", "zz"], ["zq"]),
             n("DequantizeLinear", ["zq", "zs", "zz"], ["out"])]
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                       [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(v, k) for k, v in consts])
    return nox.from_proto(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))


@pytest.mark.parametrize("device", DEVICES)
def test_qdq_groups_run_as_integer_steps(device):
    """A QDQ Conv and MatMul each run as one integer step on the NPU; the output stays within
    one quantisation step of the CPU's float form (here equal), the quantised tensors equal."""
    from npukit import onnx as nox
    x = np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype(np.float32) * 2
    with rk.Runtime(device) as rt:
        r = nox.run(qdq_model(), {"x": x}, rt)
    assert [(s.op, s.placement) for s in r.steps] == [
        ("QuantizeLinear", "cpu"), ("Conv(QDQ int8)", "npu"), ("Reshape", "cpu"),
        ("MatMul(QDQ int8)", "npu"), ("DequantizeLinear", "cpu")]
    diff = np.abs(r.outputs["out"] - r.cpu_outputs["out"])
    assert diff.max() <= 0.5 and (diff > 0).mean() <= 0.05


def test_qdq_bias_of_another_scale_stays_float():
    """A bias whose scale is not x_scale * w_scale is not QLinearConv's: the group is not
    taken; the Conv runs as a float conv (fp16) and the DequantizeLinear nodes on the host."""
    from npukit import onnx as nox
    x = np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype(np.float32)
    with rk.Runtime("sim") as rt:
        r = nox.run(qdq_model(bias_scale_off=1.5), {"x": x}, rt)
    ops = [s.op for s in r.steps]
    assert "Conv" in ops and "Conv(QDQ int8)" not in ops and "MatMul(QDQ int8)" in ops


@pytest.mark.parametrize("device", DEVICES)
def test_8bit_add_mul_wrap(device):
    """Add and Mul of uint8 / int8 wrap modulo 256 as ONNX's do: the SDP's exact int16 sum or
    product, wrapped on the host; a uint8 product past int16 stays on the CPU, named."""
    add = Node("a", "Add", "", ["x", "y"], ["z"], {})
    mul = Node("m", "Mul", "", ["x", "y"], ["z"], {})
    xu, yu = q(np.uint8, (3, 4, 5)), q(np.uint8, (3, 4, 5))
    xi, yi = q(np.int8, (2, 6)), q(np.int8, (6,))   # the second broadcast along rows
    xi[0, 0] = yi[0] = -128                          # (-128)^2 = 16384 wraps to 0
    small = (xu % 100).astype(np.uint8), (yu % 300 // 3).astype(np.uint8)
    with rk.Runtime(device) as rt:
        for node, ins in [(add, [xu, yu]), (add, [xi, yi]), (mul, [xi, yi]), (mul, list(small))]:
            got = npu.run_node(rt, node, ins, 13)[0]
            want = cpu.run(node, ins, 13)[0]
            assert got.dtype == ins[0].dtype and np.array_equal(got, want)
        assert (xu.astype(int) + yu > 255).any()  # the wrap was exercised
        with pytest.raises(Unsupported, match="past the SDP's int16"):
            npu.run_node(rt, mul, [xu, yu], 13)
