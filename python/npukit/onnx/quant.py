# SPDX-License-Identifier: MIT
"""Asymmetric 8-bit arithmetic for ONNX's quantised operators, shared by the CPU run and the
NPU's handlers: 8-bit operands checked, uint8 moved into the NPU's int8, per-row and per-column
values shaped, the requantisation (round half to even, saturate) and QuantizeLinear /
DequantizeLinear / DynamicQuantizeLinear.

The algebra that lets a symmetric int8 engine compute an asymmetric product exactly: a uint8
value u is u' + 128 with u' = u - 128 in [-128, 127] (the byte with its top bit flipped), an
int8 value is itself, so every operand v and its zero point z become v' and z' in int8 with
v - z = v' - z'. For a dot product over K terms

    sum (x' - xz')(w' - wz') = sum x'w' - wz' sum x' - xz' sum w' + K xz' wz'

where sum x'w' is the engine's int8 product (exact in int32: |x'w'| <= 2^14), sum x' is the
activation's row / window sum (one more int8 product, against ones), sum w' the weights' (fixed,
summed on the host) and the last term a constant. A convolution's padding must contribute
x - xz = 0, so the padded cells hold xz' (the host pads when xz' != 0). Everything past the
engine's int32 sums is host arithmetic in int64, and the result is taken modulo 2^32, the
int32 accumulator ONNX specifies ("accumulation may overflow if and only if in 32 bits")."""
from __future__ import annotations

import numpy as np

from .errors import OnnxError

# The 8-bit types ONNX's quantised operators take: the offset into int8, the saturation range.
INT8_OFFSET = {np.dtype(np.uint8): 128, np.dtype(np.int8): 0}
RANGE = {np.dtype(np.uint8): (0, 255), np.dtype(np.int8): (-128, 127)}


def check_8bit(x, what):
    """x as an 8-bit integer array, or OnnxError naming its type."""
    x = np.asarray(x)
    if x.dtype not in INT8_OFFSET:
        raise OnnxError(f"{what}: dtype {x.dtype}, expected uint8 or int8")
    return x


def to_int8(x):
    """x (uint8 or int8) as int8 x - offset: uint8's top bit flipped, which is u - 128."""
    x = check_8bit(x, "operand")
    if x.dtype == np.int8:
        return np.ascontiguousarray(x)
    return np.ascontiguousarray((x ^ np.uint8(0x80)).view(np.int8))


def wrap_int32(v):
    """int64 values modulo 2^32 as int32: an int32 accumulator's sum."""
    return np.asarray(v, np.int64).astype(np.int32)


def multiplier(s1, s2, s3):
    """s1 * s2 / s3 of float32 scales, evaluated in float64 (each operation rounded at 53
    bits, far below the output's 8): the value requantise multiplies the int32 sum by."""
    s1, s2, s3 = (np.asarray(s, np.float64) for s in (s1, s2, s3))
    return s1 * s2 / s3


def requantise(acc, mult, zp, dtype):
    """saturate(round_half_even(acc * mult) + zp) as dtype (uint8 or int8): ONNX's formula for
    QLinearConv / QLinearMatMul, with acc the int32 sum and mult the float64 real scale."""
    lo, hi = RANGE[np.dtype(dtype)]
    y = np.rint(np.asarray(acc, np.float64) * mult) + np.asarray(zp, np.float64)
    return np.clip(y, lo, hi).astype(dtype)


def _axis_shape(x, scale, axis, what):
    """The shape that broadcasts a per-axis scale / zero point over x."""
    scale = np.asarray(scale)
    if scale.size == 1:
        return ()
    if scale.ndim != 1:
        raise OnnxError(f"{what}: shape {list(scale.shape)}, expected a scalar or 1-D")
    ax = axis % max(x.ndim, 1)
    if x.ndim == 0 or x.shape[ax] != scale.size:
        raise OnnxError(f"{what}: {scale.size} values for axis {axis} of shape {list(x.shape)}")
    return tuple(scale.size if i == ax else 1 for i in range(x.ndim))


def quantize_linear(x, scale, zp, axis=1):
    """ONNX QuantizeLinear: saturate(round_half_even(x / scale) + zp), in float32 as the
    operator's types are (x float32 or int32, scale float32)."""
    shape = _axis_shape(x, scale, axis, "QuantizeLinear y_scale")
    dtype = np.dtype(np.uint8) if zp is None else np.asarray(zp).dtype
    if dtype not in RANGE:
        raise OnnxError(f"QuantizeLinear y_zero_point: dtype {dtype}, expected uint8 or int8")
    s = np.asarray(scale, np.float32).reshape(shape)
    z = np.zeros(shape, np.float32) if zp is None else np.asarray(zp, np.float32).reshape(shape)
    lo, hi = RANGE[dtype]
    y = np.rint(np.asarray(x, np.float32) / s) + z
    return np.clip(y, lo, hi).astype(dtype)


def dequantize_linear(x, scale, zp, axis=1):
    """ONNX DequantizeLinear: (x - zp) * scale in float32."""
    shape = _axis_shape(x, scale, axis, "DequantizeLinear x_scale")
    z = 0 if zp is None else np.asarray(zp).astype(np.int64).reshape(shape)
    d = (np.asarray(x).astype(np.int64) - z).astype(np.float32)
    return d * np.asarray(scale, np.float32).reshape(shape)


def dynamic_quantize_linear(x):
    """ONNX DynamicQuantizeLinear (uint8): the range widened to hold 0, scale = range / 255,
    zero point = saturate(round(0 - min / scale)), then QuantizeLinear."""
    x = np.asarray(x, np.float32)
    lo = np.float32(min(0.0, float(x.min()) if x.size else 0.0))
    hi = np.float32(max(0.0, float(x.max()) if x.size else 0.0))
    scale = np.float32((hi - lo) / np.float32(255))
    if scale == 0:  # every value 0: nothing to divide by, every output the zero point 0
        return np.zeros(x.shape, np.uint8), np.array(scale, np.float32), np.array(0, np.uint8)
    zp = np.uint8(np.clip(np.rint(np.float32(0) - lo / scale), 0, 255))
    return quantize_linear(x, scale, zp), np.array(scale, np.float32), np.array(zp, np.uint8)


def per_row(v, a, what):
    """A's per-tensor or per-row value (scale or zero point) shaped to broadcast over A
    [..., M, K]: a scalar, M values, or [..., M, 1]."""
    v = np.asarray(v)
    if v.size == 1:
        return v.reshape(())
    if a.ndim >= 2 and v.ndim == 1 and v.size == a.shape[-2]:
        return v.reshape(-1, 1)
    if a.ndim >= 2 and v.ndim >= 2 and v.shape[-1] == 1 and v.shape[-2] == a.shape[-2]:
        try:
            np.broadcast_shapes(v.shape, a.shape[:-1] + (1,))
            return v
        except ValueError:
            pass
    raise OnnxError(f"{what}: shape {list(v.shape)}, expected a scalar or per row of "
                    f"{list(a.shape)} ({a.shape[-2] if a.ndim >= 2 else 1} values)")


def per_col(v, b, what):
    """B's per-tensor or per-column value shaped to broadcast over B [..., K, N]: a scalar,
    N values, or [..., 1, N]."""
    v = np.asarray(v)
    if v.size == 1:
        return v.reshape(())
    if b.ndim >= 2 and v.ndim == 1 and v.size == b.shape[-1]:
        return v.reshape(1, -1)
    if b.ndim >= 2 and v.ndim >= 2 and v.shape[-2] == 1 and v.shape[-1] == b.shape[-1]:
        try:
            np.broadcast_shapes(v.shape, b.shape[:-2] + (1, b.shape[-1]))
            return v
        except ValueError:
            pass
    raise OnnxError(f"{what}: shape {list(v.shape)}, expected a scalar or per column of "
                    f"{list(b.shape)} ({b.shape[-1] if b.ndim >= 2 else 1} values)")
