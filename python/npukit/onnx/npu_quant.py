# SPDX-License-Identifier: MIT
"""ONNX's integer operators on the NPU's int8 engines: ConvInteger and QLinearConv on the
int8 convolution, MatMulInteger and QLinearMatMul on the int8 matmul, both summing int8
products exactly in int32. Asymmetric operands (uint8, or any zero point) are brought to the
engines' symmetric int8 as quant.py derives: the NPU computes sum x'w' and, when the weights'
zero point is not 0, the activations' window / row sums (one more int8 product, against ones);
the host adds the correction terms in int64, takes the result modulo 2^32 (ONNX's int32
accumulator; the engines' sums wrap the same way, so the identity holds modulo 2^32 whatever
the sizes) and requantises. Each host part is counted in the step's host_steps; the result is
bit for bit cpu_quant's. QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear stay on the
host: float32 element-wise rescaling that the fp16 SDP cannot reproduce bit for bit."""
from __future__ import annotations

import numpy as np

from . import cpu, cpu_quant, quant
from .errors import OnnxError, Unsupported, library_call
from .stats import combined


def _opt(inputs, i):
    return inputs[i] if len(inputs) > i else None


def _shifted(zp, like, what):
    """A raw zero point (None: 0) in the int8 domain (int64), its dtype checked against its
    tensor's: uint8's 0 is -128 there."""
    if zp is None:
        return np.array(-quant.INT8_OFFSET[like.dtype], np.int64)
    zp = np.asarray(zp)
    if zp.dtype != like.dtype:
        raise Unsupported(f"{what}: dtype {zp.dtype} differs from its tensor's {like.dtype}")
    return zp.astype(np.int64) - quant.INT8_OFFSET[like.dtype]


def _eight_bit(x, what):
    if np.asarray(x).dtype not in quant.INT8_OFFSET:
        raise Unsupported(f"{what}: dtype {np.asarray(x).dtype} (uint8 or int8 only)")
    return np.asarray(x)


# ---- convolution -----------------------------------------------------------------------------
def _conv_sums(rt, node, x, w, xz, wz):
    """The int64 sums of (x - xz)(w - wz) over each window, from the NPU's int8 sums and the
    host's correction terms; rt.last_stats covers the step."""
    op = node.op
    x, w = _eight_bit(x, f"{op} x"), _eight_bit(w, f"{op} w")
    rank = w.ndim - 2
    if rank not in (1, 2) or x.ndim != rank + 2:
        raise Unsupported(f"{op}: a {rank}-D kernel (the engines are 2-D)")
    m = w.shape[0]
    xz8 = _shifted(xz, x, f"{op} x_zero_point").reshape(-1)
    wz8 = _shifted(wz, w, f"{op} w_zero_point").reshape(-1)
    if xz8.size != 1:
        raise Unsupported(f"{op} x_zero_point: {xz8.size} values, expected 1")
    if wz8.size not in (1, m):
        raise Unsupported(f"{op} w_zero_point: {wz8.size} values, expected 1 or {m}")
    wz8 = np.broadcast_to(wz8, (m,))
    xz1 = int(xz8[0])
    kernel = list(w.shape[2:])
    strides, dil, pads = cpu._window_geometry(node, x, kernel)
    g = int(node.attrs.get("group", 1))
    host = int(x.dtype == np.uint8) + int(w.dtype == np.uint8)  # the top-bit flips
    x8, w8 = quant.to_int8(x), quant.to_int8(w)
    if rank == 1:
        x8, w8 = x8[:, :, None, :], w8[:, :, None, :]
        strides, dil, pads = [1] + strides, [1] + dil, [0, pads[0], 0, pads[1]]
    pt, pl, pb, pr = pads[0], pads[1], pads[2], pads[3]
    if xz1 != 0 and any(pads):  # padding must read as the zero point, not as 0
        x8 = np.pad(x8, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=xz1)
        pt = pl = pb = pr = 0
        host += 1
    x8 = np.ascontiguousarray(x8)

    def npu(weights, groups):
        o = weights.shape[0]
        return library_call(lambda: rt.conv2d(
            x8, np.ascontiguousarray(weights), None, stride=tuple(strides), pads=(pt, pl, pb, pr),
            dilation=tuple(dil), groups=groups, x_scale=1.0,
            w_scales=np.ones(o, np.float32)), op)

    s = npu(w8, g).astype(np.int64)
    stats = [rt.last_stats]
    if xz1 != 0:  # - xz' sum w' (the weights' sums, on the host)
        s -= xz1 * w8.reshape(m, -1).astype(np.int64).sum(1).reshape(1, m, 1, 1)
        host += 1
    if wz8.any():  # - wz' sum x' (each window's sum over its group: an int8 conv with ones)
        ones = np.ones((g,) + w8.shape[1:], np.int8)
        box = npu(ones, g).astype(np.int64)
        stats.append(rt.last_stats)
        per_group = m // g
        s -= wz8.reshape(1, m, 1, 1) * box[:, np.arange(m) // per_group]
        k = int(np.prod(w8.shape[1:]))
        s += k * xz1 * wz8.reshape(1, m, 1, 1)
        host += 1
    rt.last_stats = combined(stats, host)
    return s[:, :, 0, :] if rank == 1 else s


def conv_integer(rt, node, inputs):
    s = _conv_sums(rt, node, inputs[0], inputs[1], _opt(inputs, 2), _opt(inputs, 3))
    return [quant.wrap_int32(s)]


def qlinear_conv(rt, node, inputs):
    x, xs, xz, w, ws, wz, ys, yz = inputs[:8]
    b = _opt(inputs, 8)
    if np.asarray(yz).dtype not in quant.RANGE:
        raise Unsupported(f"QLinearConv y_zero_point: dtype {np.asarray(yz).dtype}")
    s = _conv_sums(rt, node, x, w, xz, wz)
    m = s.shape[1]
    if b is not None:
        if b.dtype != np.int32 or b.size != m:
            raise Unsupported(f"QLinearConv B: {b.dtype} {list(b.shape)} (int32 [{m}] only)")
        s = s + b.astype(np.int64).reshape([1, m] + [1] * (s.ndim - 2))
    y = cpu_quant.finish_conv(s, xs, ws, ys, yz, m, np.asarray(yz).dtype)
    _count_host(rt, 1)  # the requantisation
    return [y]


def _count_host(rt, n):
    rt.last_stats = combined([rt.last_stats], n)


# ---- matmul ----------------------------------------------------------------------------------
def _matmul_sums(rt, a, b, az, bz, op):
    """The int64 product of (a - az)(b - bz) for matrices (as_matrices made): per batch, the
    NPU's int8 product with, when bz' is not 0, a column of ones appended to B (A's row sums
    in the same pass); B's column sums and the combination on the host."""
    a, b = _eight_bit(a, f"{op} A"), _eight_bit(b, f"{op} B")
    try:
        az8 = quant.per_row(_shifted(az, a, f"{op} a_zero_point"), a, f"{op} a_zero_point")
        bz8 = quant.per_col(_shifted(bz, b, f"{op} b_zero_point"), b, f"{op} b_zero_point")
    except OnnxError as e:
        raise Unsupported(str(e)) from e
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    mm, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    a8 = np.broadcast_to(quant.to_int8(a), batch + (mm, k))
    b8 = np.broadcast_to(quant.to_int8(b), batch + (k, n))
    az8 = np.broadcast_to(az8, batch + (mm, 1))
    bz8 = np.broadcast_to(bz8, batch + (1, n))
    host = int(a.dtype == np.uint8) + int(b.dtype == np.uint8)
    out = np.empty(batch + (mm, n), np.int64)
    stats = []
    for i in np.ndindex(*batch):
        bi = b8[i]
        rows = bool(bz8[i].any())
        if rows:
            bi = np.concatenate([bi, np.ones((k, 1), np.int8)], axis=1)
        p = library_call(lambda: rt.matmul(np.ascontiguousarray(a8[i]),
                                           np.ascontiguousarray(bi)), op).astype(np.int64)
        stats.append(rt.last_stats)
        s = p[:, :n]
        if rows:
            s = s - p[:, n:] * bz8[i]
        if az8[i].any():
            s = s - az8[i] * b8[i].astype(np.int64).sum(0, keepdims=True)
            if rows:
                s = s + k * az8[i] * bz8[i]
        out[i] = s
        host += int(rows or az8[i].any())
    rt.last_stats = combined(stats, host)
    return out


def matmul_integer(rt, node, inputs):
    a, b = inputs[:2]
    if np.ndim(a) < 1 or np.ndim(b) < 1:
        raise Unsupported("MatMulInteger: a scalar operand")
    a2, b2 = cpu_quant.as_matrices(np.asarray(a), np.asarray(b))
    s = _matmul_sums(rt, a2, b2, _opt(inputs, 2), _opt(inputs, 3), node.op)
    return [quant.wrap_int32(cpu_quant.squeeze(s, np.asarray(a), np.asarray(b)))]


def qlinear_matmul(rt, node, inputs):
    a, a_s, az, b, b_s, bz, ys, yz = inputs[:8]
    if np.ndim(a) < 1 or np.ndim(b) < 1:
        raise Unsupported("QLinearMatMul: a scalar operand")
    if np.asarray(yz).dtype not in quant.RANGE:
        raise Unsupported(f"QLinearMatMul y_zero_point: dtype {np.asarray(yz).dtype}")
    a2, b2 = cpu_quant.as_matrices(np.asarray(a), np.asarray(b))
    s = _matmul_sums(rt, a2, b2, az, bz, node.op)
    y = cpu_quant.finish_matmul(s, a2, b2, a_s, b_s, ys, yz)
    _count_host(rt, 1)  # the requantisation
    return [cpu_quant.squeeze(y, np.asarray(a), np.asarray(b))]


def _host(op, why):
    def handler(rt, node, inputs):
        raise Unsupported(f"{op}: a host step ({why})")
    return handler


_RESCALE = ("float32 element-wise rescaling rounded half to even; the SDP's fp16 arithmetic "
            "cannot reproduce it bit for bit")

# The integer operators' rows: op type -> handler(rt, node, inputs).
QUANT_NPU_OPS = {
    "ConvInteger": conv_integer,
    "QLinearConv": qlinear_conv,
    "MatMulInteger": matmul_integer,
    "QLinearMatMul": qlinear_matmul,
    "QuantizeLinear": _host("QuantizeLinear", _RESCALE),
    "DequantizeLinear": _host("DequantizeLinear", _RESCALE),
    "DynamicQuantizeLinear": _host("DynamicQuantizeLinear", "a min/max reduction over the "
                                   "whole tensor, then QuantizeLinear's rescaling"),
}
