# SPDX-License-Identifier: MIT
"""The CPU run of ONNX's quantised operators, written from the operator specification: each
operand minus its zero point in int64, the product or convolution exact in int64, the sum
taken modulo 2^32 (ONNX's int32 accumulator), requantised by quant.requantise. It is the
reference the NPU's integer nodes are compared with bit for bit, and their fallback."""
from __future__ import annotations

import numpy as np

from . import cpu, quant
from .errors import OnnxError


def _opt(inputs, i):
    return inputs[i] if len(inputs) > i else None


def _same_type(zp, x, what):
    if zp is not None and np.asarray(zp).dtype != x.dtype:
        raise OnnxError(f"{what}: dtype {np.asarray(zp).dtype}, expected {x.dtype} (its "
                        "tensor's type)")


def conv_integer(node, x, w, xz=None, wz=None):
    """ConvInteger: int32 sum over the window of (x - xz)(w - wz), padding counted as x = xz."""
    x, w = quant.check_8bit(x, f"{node.op} x"), quant.check_8bit(w, f"{node.op} w")
    _same_type(xz, x, f"{node.op} x_zero_point")
    _same_type(wz, w, f"{node.op} w_zero_point")
    if xz is not None and np.asarray(xz).size != 1:
        raise OnnxError(f"{node.op} x_zero_point: {np.asarray(xz).size} values, expected 1")
    m = w.shape[0]
    wz_v = np.zeros(1, np.int64) if wz is None else np.asarray(wz, np.int64).reshape(-1)
    if wz_v.size not in (1, m):
        raise OnnxError(f"{node.op} w_zero_point: {wz_v.size} values, expected 1 or {m}")
    xc = x.astype(np.int64) - (0 if xz is None else int(np.asarray(xz).reshape(-1)[0]))
    wc = w.astype(np.int64) - wz_v.reshape([-1] + [1] * (w.ndim - 1))
    return cpu.conv(node, xc, wc, acc=np.int64)


def qlinear_conv(node, inputs):
    x, xs, xz, w, ws, wz, ys, yz = inputs[:8]
    b = _opt(inputs, 8)
    acc = conv_integer(node, x, w, xz, wz)
    m = acc.shape[1]
    if b is not None:
        if b.dtype != np.int32 or b.size != m:
            raise OnnxError(f"QLinearConv B: {b.dtype} {list(b.shape)}, expected int32 [{m}]")
        acc = acc + b.astype(np.int64).reshape([1, m] + [1] * (acc.ndim - 2))
    return finish_conv(acc, xs, ws, ys, yz, m, np.asarray(yz).dtype)


def finish_conv(acc, xs, ws, ys, yz, m, dtype):
    """QLinearConv's requantisation of the int64 sums (bias added): per output channel."""
    ws = np.asarray(ws)
    if ws.size not in (1, m):
        raise OnnxError(f"QLinearConv w_scale: {ws.size} values, expected 1 or {m}")
    if np.asarray(xs).size != 1 or np.asarray(ys).size != 1 or np.asarray(yz).size != 1:
        raise OnnxError("QLinearConv x_scale, y_scale and y_zero_point: one value each")
    mult = quant.multiplier(np.asarray(xs).reshape(()),
                            ws.reshape([1, -1] + [1] * (acc.ndim - 2)),
                            np.asarray(ys).reshape(()))
    return quant.requantise(quant.wrap_int32(acc), mult, np.asarray(yz).reshape(()), dtype)


def as_matrices(a, b):
    """numpy.matmul's view of 1-D operands: A [K] as [1, K], B [K] as [K, 1]."""
    return (a[None, :] if a.ndim == 1 else a), (b[:, None] if b.ndim == 1 else b)


def squeeze(y, a, b):
    """The inverse of as_matrices on the product."""
    if a.ndim == 1:
        y = y[..., 0, :]
    if b.ndim == 1:
        y = y[..., 0]
    return y


def matmul_integer(a, b, az=None, bz=None, op="MatMulInteger"):
    """MatMulInteger on operands as_matrices made: numpy.matmul of (a - az)(b - bz), per-row
    az / per-column bz, in int64."""
    a, b = quant.check_8bit(a, f"{op} A"), quant.check_8bit(b, f"{op} B")
    _same_type(az, a, f"{op} a_zero_point")
    _same_type(bz, b, f"{op} b_zero_point")
    ac = a.astype(np.int64) - (0 if az is None else
                               quant.per_row(az, a, f"{op} a_zero_point").astype(np.int64))
    bc = b.astype(np.int64) - (0 if bz is None else
                               quant.per_col(bz, b, f"{op} b_zero_point").astype(np.int64))
    return np.matmul(ac, bc)


def qlinear_matmul(inputs):
    a, a_s, az, b, b_s, bz, ys, yz = inputs[:8]
    a2, b2 = as_matrices(a, b)
    acc = matmul_integer(a2, b2, az, bz, "QLinearMatMul")
    return squeeze(finish_matmul(acc, a2, b2, a_s, b_s, ys, yz), a, b)


def finish_matmul(acc, a, b, a_s, b_s, ys, yz):
    """QLinearMatMul's requantisation of the int64 product: per row of A, per column of B."""
    if np.asarray(ys).size != 1 or np.asarray(yz).size != 1:
        raise OnnxError("QLinearMatMul y_scale and y_zero_point: one value each")
    mult = quant.multiplier(quant.per_row(a_s, a, "QLinearMatMul a_scale"),
                            quant.per_col(b_s, b, "QLinearMatMul b_scale"),
                            np.asarray(ys).reshape(()))
    return quant.requantise(quant.wrap_int32(acc), mult, np.asarray(yz).reshape(()),
                            np.asarray(yz).dtype)


def run(node, inputs):
    """The outputs of a quantised node (a list)."""
    op = node.op
    axis = int(node.attrs.get("axis", 1))
    if op == "ConvInteger":
        return [quant.wrap_int32(conv_integer(node, *inputs[:2], _opt(inputs, 2),
                                              _opt(inputs, 3)))]
    if op == "QLinearConv":
        return [qlinear_conv(node, inputs)]
    if op == "MatMulInteger":
        a2, b2 = as_matrices(*inputs[:2])
        y = matmul_integer(a2, b2, _opt(inputs, 2), _opt(inputs, 3))
        return [quant.wrap_int32(squeeze(y, *inputs[:2]))]
    if op == "QLinearMatMul":
        return [qlinear_matmul(inputs)]
    if op == "QuantizeLinear":
        return [quant.quantize_linear(inputs[0], inputs[1], _opt(inputs, 2), axis)]
    if op == "DequantizeLinear":
        return [quant.dequantize_linear(inputs[0], inputs[1], _opt(inputs, 2), axis)]
    if op == "DynamicQuantizeLinear":
        return list(quant.dynamic_quantize_linear(inputs[0]))
    raise OnnxError(f"node {node.name!r}: operator {op} is not a quantised operator")


QUANT_OPS = {"ConvInteger", "QLinearConv", "MatMulInteger", "QLinearMatMul", "QuantizeLinear",
             "DequantizeLinear", "DynamicQuantizeLinear"}
