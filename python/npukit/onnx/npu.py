# SPDX-License-Identifier: MIT
"""The NPU side of the runner: one handler per ONNX operator the NPU takes, each a row of
NPU_OPS. A handler computes the node on the runtime (fp16 operands, the engines' arithmetic)
or raises Unsupported naming the operator and the attribute or value it cannot take; the
runner then runs that node on the CPU and counts it there. Errors the library raises for a
shape past a hardware limit become Unsupported with the library's message (value and limit)."""
from __future__ import annotations

import dataclasses

import numpy as np

from . import cpu, npu_quant, pool_dilated, volume
from .errors import Unsupported, library_call
from .stats import combined

FP16_MAX = 65504.0


def _attr(node, name, default=None):
    return node.attrs.get(name, default)


def _f16(x, what):
    if x.dtype.kind != "f":
        raise Unsupported(f"{what}: dtype {x.dtype} (the NPU nodes here take float tensors)")
    if x.size and np.nanmax(np.abs(x)) > FP16_MAX:
        raise Unsupported(f"{what}: a value past fp16's range ({FP16_MAX})")
    return np.ascontiguousarray(x, np.float16)


# The largest integer magnitude fp16 holds with every integer below it: 2^11.
FP16_EXACT_INT = 2048


def _f16_order(x, what):
    """x for an operation that only orders values (max, min pooling): a float tensor as _f16
    makes it, or an integer one whose values fp16 holds exactly (|v| <= 2048), so the result
    converts back to x's dtype without change."""
    if x.dtype.kind not in "iu":
        return _f16(x, what)
    if x.size and np.max(np.abs(x.astype(np.int64))) > FP16_EXACT_INT:
        raise Unsupported(f"{what}: dtype {x.dtype} with a value past {FP16_EXACT_INT} (fp16 "
                          "holds every integer only up to there)")
    return np.ascontiguousarray(x, np.float16)


def _as_2d_spatial(node, x, kernel_rank):
    if kernel_rank not in (1, 2):
        raise Unsupported(f"{node.op}: a {kernel_rank}-D kernel (the engines are 2-D)")
    return x if kernel_rank == 2 else x[:, :, None, :]


def _pad4(p, rank):
    """(top, left, bottom, right) from ONNX's (begin..., end...)."""
    return (p[0], p[1], p[2], p[3]) if rank == 2 else (0, p[0], 0, p[1])


def conv(rt, node, inputs, act=("none", 0.0)):
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    rank = w.ndim - 2
    kernel = list(w.shape[2:])
    strides = list(_attr(node, "strides", [1] * rank))
    dil = list(_attr(node, "dilations", [1] * rank))
    pads = cpu.spatial_pads(node, x.shape[2:], kernel, strides, dil)
    bias = None if b is None else np.ascontiguousarray(b, np.float32)
    groups = int(_attr(node, "group", 1))
    if rank == 3 and x.ndim == 5:  # the depth unfolded into the 2-D conv's channels
        y = volume.conv3d(rt, _f16(x, "Conv input"), _f16(w, "Conv weights"), bias, strides,
                          dil, pads, groups, act)
        return [y.astype(np.float32)]
    x4 = _as_2d_spatial(node, _f16(x, "Conv input"), rank)
    w4 = _as_2d_spatial(node, _f16(w, "Conv weights"), rank)
    s2 = tuple(strides) if rank == 2 else (1, strides[0])
    d2 = tuple(dil) if rank == 2 else (1, dil[0])
    y = library_call(lambda: rt.conv2d(x4, w4, bias, stride=s2, pads=_pad4(pads, rank),
                                       dilation=d2, groups=groups, act=act[0], act_max=act[1]),
                     "Conv")
    return [(y if rank == 2 else y[:, :, 0, :]).astype(np.float32)]


def _pool(rt, node, x, method, global_pool=False):
    if x.ndim not in (3, 4, 5):
        raise Unsupported(f"{node.op}: input rank {x.ndim} (1-D, 2-D or 3-D pools)")
    if len(node.outputs) > 1 and node.outputs[1]:
        raise Unsupported(f"{node.op}: the Indices output")
    out_dtype = x.dtype if method == "max" and x.dtype.kind in "iu" else np.float32
    x4 = (_f16_order if method == "max" else _f16)(x, f"{node.op} input")
    if x.ndim == 3:
        x4 = x4[:, :, None, :]
    if global_pool:  # a 3-D volume as a [D][H*W] plane: the same cells
        xg = x4.reshape(x4.shape[:3] + (-1,)) if x.ndim == 5 else x4
        y = library_call(lambda: rt.pool2d(np.ascontiguousarray(xg), method, global_pool=True),
                         node.op)
        return [y.reshape(x.shape[:2] + (1,) * (x.ndim - 2)).astype(out_dtype)]
    kernel = list(_attr(node, "kernel_shape", []))
    rank = len(kernel)
    if rank != x.ndim - 2:
        raise Unsupported(f"{node.op}: kernel_shape {kernel} for input rank {x.ndim}")
    strides = list(_attr(node, "strides", [1] * rank))
    dil = list(_attr(node, "dilations", [1] * rank))
    pads = cpu.spatial_pads(node, x.shape[2:], kernel, strides, dil)
    include = int(_attr(node, "count_include_pad", 0))
    if int(_attr(node, "ceil_mode", 0)):  # ceil_mode: the last window as extra end padding
        for i in range(rank):
            span_k = (kernel[i] - 1) * dil[i] + 1
            span = x.shape[2 + i] + pads[i] + pads[i + rank] - span_k
            out = -(-span // strides[i]) + 1
            if (out - 1) * strides[i] >= x.shape[2 + i] + pads[i]:
                out -= 1
            extra = (out - 1) * strides[i] + span_k - (x.shape[2 + i] + pads[i] + pads[i + rank])
            if extra > 0 and method == "avg" and include:
                raise Unsupported(f"{node.op}: ceil_mode with count_include_pad")
            pads[i + rank] += max(0, extra)
    if rank == 3:  # separable: the (h, w) windows of every depth slice, then the depth
        if dil != [1, 1, 1]:
            raise Unsupported(f"{node.op}: dilations {dil} of a 3-D pool")
        return [volume.pool3d(rt, x4, method, kernel, strides, pads,
                              bool(include)).astype(out_dtype)]
    two = (lambda v, one: tuple(v) if rank == 2 else (one, v[0]))  # noqa: E731
    k2, s2, d2 = two(kernel, 1), two(strides, 1), two(dil, 1)
    if d2 != (1, 1):  # no dilation field in the PDP: dense pools over sub-sampled phases
        y = library_call(lambda: pool_dilated.pool(rt, x4, method, k2, s2, d2,
                                                   _pad4(pads, rank), bool(include)),
                         f"{node.op} (dilations {dil})")
    else:
        y = library_call(lambda: rt.pool2d(np.ascontiguousarray(x4), method, k2, s2,
                                           _pad4(pads, rank), count_include_pad=bool(include)),
                         node.op)
    return [(y if rank == 2 else y[:, :, 0, :]).astype(out_dtype)]


def _rows(x):
    return x.reshape(-1, x.shape[-1]) if x.ndim >= 2 else x.reshape(1, -1)


def _ew_vec(rt, op, x16, value, what):
    """x op value (a scalar broadcast per channel) on the SDP, in x's dtype."""
    r = _rows(x16)
    vec = np.full(r.shape[1], value, x16.dtype)
    y = library_call(lambda: rt.ew(op, np.ascontiguousarray(r), vec), what)
    return y.reshape(x16.shape)


def _channelwise(rt, x16, scale, shift, act, what):
    """y[:, c] = act(scale[c] * x[:, c] + shift[c]) as a depthwise 1x1 convolution: the conv
    path (both kernels), the shift added in fp32 by the BS stage, the clamp fused."""
    if x16.ndim < 2:
        raise Unsupported(f"{what}: input rank {x16.ndim} (a channel axis is needed)")
    n, c = x16.shape[:2]
    x4 = np.ascontiguousarray(x16.reshape(n, c, 1, -1) if x16.ndim != 4 else x16)
    w = _f16(np.asarray(scale, np.float32).reshape(c, 1, 1, 1), f"{what} scale")
    b = np.ascontiguousarray(np.asarray(shift, np.float32).reshape(c))
    y = library_call(lambda: rt.conv2d(x4, w, b, groups=c, act=act[0], act_max=act[1]), what)
    return y.reshape(x16.shape)


def _clamp_conv(rt, x16, act, what):
    c = x16.shape[1] if x16.ndim >= 2 else 1
    x = x16 if x16.ndim >= 2 else x16.reshape(1, 1, -1)
    y = _channelwise(rt, x, np.ones(c), np.zeros(c), act, what)
    return y.reshape(x16.shape)


def relu(rt, node, inputs):
    if inputs[0].dtype in (np.int8, np.int16):  # the SDP's integer max, exact
        return [_ew_vec(rt, "max", np.ascontiguousarray(inputs[0]), 0, "Relu")]
    x16 = _f16(inputs[0], "Relu input")
    try:
        y = _ew_vec(rt, "max", x16, 0.0, "Relu")
    except Unsupported:  # no SDP on this kernel: the conv's clamp (x * 1 + 0, exact)
        y = _clamp_conv(rt, x16, ("relu", 0.0), "Relu")
    return [y.astype(np.float32)]


def leaky_relu(rt, node, inputs):
    a = float(_attr(node, "alpha", 0.01))
    x16 = _f16(inputs[0], "LeakyRelu input")
    t = _ew_vec(rt, "mul", x16, a, "LeakyRelu")
    # x >= 0 keeps x, x < 0 gives a*x: the larger of the two for a <= 1, the smaller above
    y = library_call(lambda: rt.ew("max" if a <= 1 else "min", _rows(x16), _rows(t)),
                     "LeakyRelu")
    return [y.reshape(x16.shape).astype(np.float32)]


def clip(rt, node, inputs, opset):
    lo, hi = cpu.clip_bounds(node, inputs, opset)
    if inputs[0].dtype in (np.int8, np.int16):  # the SDP's integer max / min, exact
        y = np.ascontiguousarray(inputs[0])
        for op, v in (("max", lo), ("min", hi)):
            if np.isfinite(v):
                y = _ew_vec(rt, op, y, int(v), "Clip")
        return [y]
    y = _f16(inputs[0], "Clip input")
    if lo == 0 and hi >= 0 and (np.isinf(hi) or hi <= FP16_MAX):
        try:
            for op, v in (("max", lo), ("min", hi)):
                if np.isfinite(v):
                    y = _ew_vec(rt, op, y, float(v), "Clip")
            return [y.astype(np.float32)]
        except Unsupported:  # no SDP on this kernel: the conv's ReLU/ReLUX clamp
            act = ("relu", 0.0) if np.isinf(hi) else ("clip", float(hi))
            x16 = _f16(inputs[0], "Clip input")
            return [_clamp_conv(rt, x16, act, "Clip").astype(np.float32)]
    for op, v in (("max", lo), ("min", hi)):
        if np.isfinite(v):
            if abs(v) > FP16_MAX:
                raise Unsupported(f"Clip: bound {v} past fp16's range")
            y = _ew_vec(rt, op, y, float(v), "Clip")
    return [y.astype(np.float32)]


def _per_channel(a, b):
    """b as a vector over a's channel axis (NCHW: b of shape (C, 1, ...) or (1, C, 1, ...)),
    or None."""
    if a.ndim < 2 or b.ndim < 2 or b.size != a.shape[1]:
        return None
    shape = (1,) * (a.ndim - b.ndim) + b.shape
    return b.reshape(-1) if shape[1] == a.shape[1] and b.size == shape[1] else None


INT16_MAX = 32767


def _binary_8bit(rt, node, op, a, b):
    """Add / Mul of 8-bit integers, which ONNX wraps modulo 256: the SDP's int16 add or mul of
    the widened operands (exact: a sum within +-510, a product within int16), the host's wrap
    back to the 8-bit type (a host step)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    if op == "mul" and a.size and b.size:
        big = int(np.max(np.abs(a.astype(np.int64)))) * int(np.max(np.abs(b.astype(np.int64))))
        if big > INT16_MAX:
            raise Unsupported(f"Mul: {a.dtype} products up to {big}, past the SDP's int16 "
                              f"({INT16_MAX}) where they would saturate")
    a16 = _rows(np.ascontiguousarray(np.broadcast_to(a, shape), np.int16))
    b16 = _rows(np.ascontiguousarray(np.broadcast_to(b, shape), np.int16))
    y = library_call(lambda: rt.ew(op, a16, b16), node.op)
    rt.last_stats = combined([rt.last_stats], 1)  # the wrap modulo 256
    return [y.reshape(shape).astype(a.dtype)]


def binary(rt, node, inputs):
    op = {"Add": "add", "Mul": "mul"}[node.op]
    a, b = inputs[0], inputs[1]
    if a.dtype == b.dtype and a.dtype in (np.int8, np.uint8):
        return _binary_8bit(rt, node, op, a, b)
    try:
        return _binary_sdp(rt, node, op, a, b)
    except Unsupported:
        # no SDP on this kernel: a per-channel operand as a depthwise 1x1 conv (mul: its
        # weight, add: its fp32 bias)
        vec = _per_channel(a, np.asarray(b)) if a.ndim >= np.ndim(b) else None
        if vec is None or a.dtype.kind != "f":
            raise
        a16 = _f16(a, f"{node.op} input")
        c = a.shape[1]
        scale, shift = (vec, np.zeros(c)) if op == "mul" else (np.ones(c), vec)
        return [_channelwise(rt, a16, scale, shift, ("none", 0.0), node.op).astype(np.float32)]


def _binary_sdp(rt, node, op, a, b):
    shape = np.broadcast_shapes(a.shape, b.shape)
    if a.shape != shape:  # both ops commute: the full-shape operand goes first
        a, b = b, a
    if a.shape != shape:
        a, b = np.broadcast_arrays(a, b)
    a16 = _f16(np.ascontiguousarray(a), f"{node.op} input")
    r = _rows(a16)
    bb = np.asarray(b)
    squeezed = bb.reshape(-1) if bb.size == r.shape[1] and bb.ndim >= 1 and bb.shape[-1] == r.shape[1] else None
    if squeezed is not None and bb.size == bb.shape[-1]:  # a vector along the last axis
        b16 = _f16(np.ascontiguousarray(squeezed), f"{node.op} input")
    else:
        b16 = _rows(_f16(np.ascontiguousarray(np.broadcast_to(bb, shape)), f"{node.op} input"))
    y = library_call(lambda: rt.ew(op, np.ascontiguousarray(r), np.ascontiguousarray(b16)),
                     node.op)
    return [y.reshape(shape).astype(np.float32)]


def _mm(rt, a2, b2, what):
    return library_call(lambda: rt.matmul(np.ascontiguousarray(a2, np.float16),
                                          np.ascontiguousarray(b2, np.float16)), what)


def matmul(rt, node, inputs):
    a, b = inputs[0], inputs[1]
    if a.ndim < 1 or b.ndim < 1:
        raise Unsupported("MatMul: a scalar operand")
    _f16(a, "MatMul A"), _f16(b, "MatMul B")
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if b2.ndim == 2:
        y = _mm(rt, a2.reshape(-1, a2.shape[-1]), b2, "MatMul").reshape(a2.shape[:-1] + (b2.shape[1],))
    else:
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
        ab = np.broadcast_to(a2, batch + a2.shape[-2:])
        bb = np.broadcast_to(b2, batch + b2.shape[-2:])
        y = np.stack([_mm(rt, ab[i], bb[i], "MatMul") for i in np.ndindex(*batch)])
        y = y.reshape(batch + (a2.shape[-2], b2.shape[-1]))
    if a.ndim == 1:
        y = y[..., 0, :]
    if b.ndim == 1:
        y = y[..., 0]
    return [y.astype(np.float32)]


def gemm(rt, node, inputs):
    a, b = inputs[0], inputs[1]
    c = inputs[2] if len(inputs) > 2 else None
    if int(_attr(node, "transA", 0)):
        a = a.T
    if int(_attr(node, "transB", 0)):
        b = b.T
    _f16(a, "Gemm A"), _f16(b, "Gemm B")
    y = _mm(rt, a, b, "Gemm")
    # alpha and beta * C: the host's epilogue on the NPU's product
    y = float(_attr(node, "alpha", 1.0)) * y
    if c is not None:
        y = y + float(_attr(node, "beta", 1.0)) * c.astype(np.float32)
    return [y.astype(np.float32)]


def batchnorm(rt, node, inputs):
    x, scale, bias, mean, var = inputs[:5]
    if int(_attr(node, "training_mode", 0)) or len(node.outputs) > 1:
        raise Unsupported("BatchNormalization: training_mode (running statistics outputs)")
    if x.ndim < 2:
        raise Unsupported(f"BatchNormalization: input rank {x.ndim}")
    eps = float(_attr(node, "epsilon", 1e-5))
    inv = scale.astype(np.float32) / np.sqrt(var.astype(np.float32) + eps)
    shift = bias.astype(np.float32) - mean.astype(np.float32) * inv
    # a depthwise 1x1 conv: the scale as its fp16 weight, the shift as its fp32 bias
    y = _channelwise(rt, _f16(x, "BatchNormalization input"), inv, shift, ("none", 0.0),
                     "BatchNormalization")
    return [y.astype(np.float32)]


def _lut(fn):
    """Sigmoid, Tanh, HardSwish: the SDP's LUT over the tensor as rows, fp16 in and out."""
    def handler(rt, node, inputs):
        x16 = _f16(inputs[0], f"{node.op} input")
        y = library_call(lambda: rt.act(fn, np.ascontiguousarray(_rows(x16))), node.op)
        return [y.reshape(x16.shape).astype(np.float32)]
    return handler


def hard_sigmoid(rt, node, inputs):
    a, b = float(_attr(node, "alpha", 0.2)), float(_attr(node, "beta", 0.5))
    if a == 0 and b == 0:  # Runtime.act reads both 0 as hardsigmoid's defaults (1/6, 1/2)
        raise Unsupported("HardSigmoid: alpha 0 with beta 0 (the constant 0)")
    x16 = _f16(inputs[0], "HardSigmoid input")
    y = library_call(lambda: rt.act("hardsigmoid", np.ascontiguousarray(_rows(x16)), alpha=a,
                                    beta=b), "HardSigmoid")
    return [y.reshape(x16.shape).astype(np.float32)]


def softmax(rt, node, inputs, opset):
    """Softmax on the SDP's exp LUT (two chained passes per row, the row's maximum and sum on
    the host). Before opset 13 the tensor is 2-D at axis (rows as they lie); from 13 the axis
    is moved last on the host (data movement) and back.

    The row maximum is subtracted on the host in float32 before the fp16 conversion (one host
    step per row): fp16's spacing at 10000 is 8, so rounding 10000..10003 first would leave
    nothing of their differences, while x - max rounds only values that matter to exp. A
    shifted value past fp16's range is clamped to -65504, where exp is 0 in either case."""
    x = inputs[0]
    if x.ndim == 0:
        raise Unsupported("Softmax: a scalar input")
    if x.dtype.kind != "f":
        raise Unsupported(f"Softmax input: dtype {x.dtype} (the NPU nodes here take float tensors)")
    if x.size and np.isinf(x).any():
        raise Unsupported("Softmax input: an infinite value (x - max is not defined)")
    axis = int(_attr(node, "axis", -1 if opset >= 13 else 1)) % x.ndim
    x32 = np.asarray(x, np.float32)
    if opset < 13:
        rows = x32.reshape(int(np.prod(x.shape[:axis])), -1)
        back = lambda y: y.reshape(x.shape)  # noqa: E731
    else:
        moved = np.moveaxis(x32, axis, -1)
        rows = moved.reshape(-1, x.shape[axis])
        back = lambda y: np.moveaxis(y.reshape(moved.shape), -1, axis)  # noqa: E731
    shifted = np.maximum(rows - rows.max(axis=-1, keepdims=True), np.float32(-FP16_MAX))
    x16 = _f16(shifted, "Softmax input")
    y = library_call(lambda: rt.softmax(np.ascontiguousarray(x16)), "Softmax")
    if rt.last_stats is not None:  # the row maxima subtracted here
        rt.last_stats = dataclasses.replace(rt.last_stats,
                                            host_steps=rt.last_stats.host_steps + rows.shape[0])
    return [np.ascontiguousarray(back(y)).astype(np.float32)]


# The NPU's operator rows: op type -> handler(rt, node, inputs[, opset]).
NPU_OPS = {
    "Conv": conv,
    "MaxPool": lambda rt, n, i: _pool(rt, n, i[0], "max"),
    "AveragePool": lambda rt, n, i: _pool(rt, n, i[0], "avg"),
    "GlobalAveragePool": lambda rt, n, i: _pool(rt, n, i[0], "avg", True),
    "GlobalMaxPool": lambda rt, n, i: _pool(rt, n, i[0], "max", True),
    "Relu": relu,
    "LeakyRelu": leaky_relu,
    "Clip": None,  # needs the opset: see run_node
    "Add": binary,
    "Mul": binary,
    "MatMul": matmul,
    "Gemm": gemm,
    "BatchNormalization": batchnorm,
    "Sigmoid": _lut("sigmoid"),
    "Tanh": _lut("tanh"),
    "HardSigmoid": hard_sigmoid,
    "HardSwish": _lut("hardswish"),
    "Softmax": None,  # needs the opset: see run_node
}


def run_node(rt, node, inputs, opset, act=("none", 0.0)):
    if node.op in npu_quant.QUANT_NPU_OPS:
        return npu_quant.QUANT_NPU_OPS[node.op](rt, node, inputs)
    if node.op not in NPU_OPS:
        raise Unsupported(f"{node.op}: not an NPU operator here (data movement runs on the CPU)")
    if any(v is None for v in inputs[:1]):
        raise Unsupported(f"{node.op}: an omitted input")
    if node.op == "Clip":
        return clip(rt, node, inputs, opset)
    if node.op == "Softmax":
        return softmax(rt, node, inputs, opset)
    if node.op == "Conv":
        return conv(rt, node, inputs, act)
    return NPU_OPS[node.op](rt, node, inputs)
