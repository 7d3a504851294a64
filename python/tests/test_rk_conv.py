# SPDX-License-Identifier: MIT
"""Runtime.conv2d / pool2d against numpy, their argument checks, and the ONNX runner's steps
(a folded BatchNormalization, a fused clamp, a CPU fallback named) and reader errors."""
import numpy as np
import pytest

import npukit.rk as rk
from npukit.errors import BadArgument, LimitError

RNG = np.random.default_rng(7)


def ref_conv(x, w, b, stride, pad, groups):
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = x[:, g * cg:(g + 1) * cg, i * stride:i * stride + kh, j * stride:j * stride + kw]
                y[:, oc, i, j] = (patch * w[oc].astype(np.float64)).sum(axis=(1, 2, 3))
    return y + b.reshape(1, -1, 1, 1)


@pytest.mark.parametrize("device", ["sim", "sim-rocket"])
@pytest.mark.parametrize("groups", [1, 4])
def test_conv2d_matches_numpy(device, groups):
    x = RNG.standard_normal((2, 8, 9, 7)).astype(np.float16)
    w = (RNG.standard_normal((12, 8 // groups, 3, 3)) * 0.3).astype(np.float16)
    b = RNG.standard_normal(12).astype(np.float32)
    with rk.Runtime(device) as rt:
        y = rt.conv2d(x, w, b, stride=2, pads=1, groups=groups, act="clip", act_max=1.0)
        assert rt.last_stats.tasks >= 1
    want = np.clip(ref_conv(x, w, b, 2, 1, groups), 0, 1)
    assert y.dtype == np.float16 and y.shape == want.shape
    assert np.max(np.abs(y.astype(np.float64) - want)) < 4e-3


@pytest.mark.parametrize("device", ["sim", "sim-rocket"])
def test_conv2d_int8_exact(device):
    """int8: the NPU's int32 sums equal numpy's exact ones; the host's requantisation matches
    round-half-even of the definition, saturating."""
    x = RNG.integers(-128, 128, (1, 20, 7, 6), dtype=np.int8)  # C not a multiple of 16
    w = RNG.integers(-128, 128, (5, 20, 3, 3), dtype=np.int8)
    ws = (RNG.integers(1, 64, 5) / 4096).astype(np.float32)
    b = RNG.standard_normal(5).astype(np.float32)
    with rk.Runtime(device) as rt:
        acc = rt.conv2d(x, w, stride=1, pads=1, x_scale=0.05, w_scales=ws)
        q = rt.conv2d(x, w, b, stride=1, pads=1, act="relu", x_scale=0.05, w_scales=ws,
                      out_scale=0.25)
        assert rt.last_stats.host_steps == 5
    want = ref_conv(x, w, np.zeros(5), 1, 1, 1)
    assert acc.dtype == np.int32 and np.array_equal(acc, want.astype(np.int64))
    y = np.maximum(want * (np.float64(np.float32(0.05)) * ws.astype(np.float64)).reshape(1, -1, 1, 1)
                   + b.reshape(1, -1, 1, 1), 0)
    assert q.dtype == np.int8 and np.array_equal(q, np.clip(np.rint(y / 0.25), -128, 127))
    with rk.Runtime("sim") as rt:
        with pytest.raises(BadArgument, match="x_scale and w_scales"):
            rt.conv2d(x, w)
        with pytest.raises(BadArgument, match="expected int8"):
            rt.conv2d(x, w.astype(np.float16), x_scale=1.0, w_scales=ws)
        with pytest.raises(BadArgument, match=r"w_scales\[2\]"):
            rt.conv2d(x, w, x_scale=1.0, w_scales=np.array([1, 1, 0, 1, 1], np.float32))


def test_pool2d_matches_numpy():
    x = RNG.standard_normal((1, 5, 8, 8)).astype(np.float16)
    with rk.Runtime("sim") as rt:
        m = rt.pool2d(x, "max", kernel=2)
        g = rt.pool2d(x, "avg", global_pool=True)
    assert np.array_equal(m, x.reshape(1, 5, 4, 2, 4, 2).max(axis=(3, 5)))
    assert np.allclose(g[:, :, 0, 0], x.astype(np.float64).mean(axis=(2, 3)), atol=3e-3)


def test_bad_arguments():
    x = np.zeros((1, 4, 6, 6), np.float16)
    w = np.zeros((2, 4, 3, 3), np.float16)
    with rk.Runtime("sim") as rt:
        with pytest.raises(BadArgument, match="float16"):
            rt.conv2d(x.astype(np.float32), w)
        with pytest.raises(BadArgument, match="pads"):
            rt.conv2d(x, w, pads=-1)
        with pytest.raises(BadArgument, match="larger than the padded input"):
            rt.conv2d(x, np.zeros((2, 4, 7, 7), np.float16))
        with pytest.raises(LimitError, match="exceeds 7"):
            rt.conv2d(x, w, stride=8)
        with pytest.raises(BadArgument, match="method"):
            rt.pool2d(x, "median")
    with rk.Runtime("sim-rocket") as rt:
        with pytest.raises(BadArgument, match="DPU interrupt") as refused:
            rt.pool2d(x, "max")
        # the library's message names the call; the exception says it once
        assert str(refused.value).startswith("pool2d: ")
        assert not str(refused.value).startswith("pool2d: pool2d:")


def _tiny_model():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array((RNG.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32), "w")
    bn = [numpy_helper.from_array(v.astype(np.float32), n) for n, v in
          (("g", RNG.uniform(0.5, 1.5, 4)), ("b", RNG.normal(0, 0.1, 4)),
           ("m", RNG.normal(0, 0.1, 4)), ("v", RNG.uniform(0.5, 1.5, 4)))]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1] * 4),
             helper.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["n"]),
             helper.make_node("Relu", ["n"], ["r"]),
             helper.make_node("Sigmoid", ["r"], ["y"])]
    g = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])], [w] + bn)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("device", ["sim", "sim-rocket"])
def test_onnx_runner_steps(device):
    """The Sigmoid runs on the SDP's LUT on both kernels."""
    from npukit import onnx as nox
    model = nox.from_proto(_tiny_model())
    x = RNG.standard_normal((1, 3, 6, 6)).astype(np.float32)
    with rk.Runtime(device) as rt:
        r = nox.run(model, {"x": x}, rt)
    ops = [(s.op, s.placement) for s in r.steps]
    assert ops == [("Conv+BN(folded)+Relu", "npu"), ("Sigmoid", "npu")]
    assert r.steps[0].local_err < 4e-3 and r.steps[0].npu_s > 0
    assert np.max(np.abs(r.outputs["y"] - r.cpu_outputs["y"])) < 4e-3


def test_onnx_reader_errors(tmp_path):
    from npukit import onnx as nox
    pytest.importorskip("onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x01garbage")
    with pytest.raises(nox.OnnxError):
        nox.load(bad)
    with pytest.raises(nox.OnnxError, match="No such file"):
        nox.load(tmp_path / "missing.onnx")
    with pytest.raises(nox.OnnxError, match="ModelProto"):
        nox.from_proto(b"not a proto")


def test_onnx_reader_mutations(tmp_path):
    """A bounded fuzz of the model reader: every truncation point and random byte flips of a
    valid model either load into a model (then run on the CPU) or raise OnnxError, never
    another exception."""
    from npukit import onnx as nox
    pytest.importorskip("onnx")
    good = _tiny_model().SerializeToString()
    rng = np.random.default_rng(3)
    cases = [good[:n] for n in range(0, len(good), max(1, len(good) // 60))]
    for _ in range(200):
        b = bytearray(good)
        for i in rng.integers(0, len(b), rng.integers(1, 6)):
            b[i] = int(rng.integers(0, 256))
        cases.append(bytes(b))
    f = tmp_path / "m.onnx"
    x = {"x": np.zeros((1, 3, 6, 6), np.float32)}
    for data in cases:
        f.write_bytes(data)
        try:
            m = nox.load(f)
            nox.run(m, {k: x.get(k, np.zeros(1, np.float32)) for k in m.inputs}, None)
        except nox.OnnxError:
            pass


class _NoSdp:
    """A runtime whose kernel refuses SDP tasks (as a kernel whose interrupt mask missed the
    DPU's would): every other call goes to rt."""
    def __init__(self, rt):
        object.__setattr__(self, "_rt", rt)

    def __getattr__(self, name):
        return getattr(self._rt, name)

    def __setattr__(self, name, value):  # last_stats, as the runner resets it
        setattr(self._rt, name, value)

    def ew(self, *args, **kwargs):
        raise BadArgument("ew: this kernel runs no SDP tasks")


@pytest.mark.parametrize("sdp", [True, False])
def test_onnx_per_channel(sdp):
    """On rocket a per-channel Mul and an element-wise Add run on the SDP; where a kernel has
    no SDP, the Mul runs as a depthwise 1x1 conv and the Add on the CPU, named."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    from npukit import onnx as nox
    s = numpy_helper.from_array(RNG.uniform(0.5, 2, (3, 1, 1)).astype(np.float32), "s")
    nodes = [helper.make_node("Mul", ["x", "s"], ["m"]), helper.make_node("Add", ["m", "x"], ["y"])]
    g = helper.make_graph(nodes, "pc", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])], [s])
    model = nox.from_proto(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    x = RNG.standard_normal((1, 3, 4, 4)).astype(np.float32)
    with rk.Runtime("sim-rocket") as rt:
        r = nox.run(model, {"x": x}, rt if sdp else _NoSdp(rt))
    assert [s.placement for s in r.steps] == (["npu", "npu"] if sdp else ["npu", "cpu"])
    if not sdp:
        assert "no SDP tasks" in r.steps[1].reason
    assert np.max(np.abs(r.outputs["y"] - r.cpu_outputs["y"])) < 1e-2
