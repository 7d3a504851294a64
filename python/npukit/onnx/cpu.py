# SPDX-License-Identifier: MIT
"""The CPU run: every ONNX operator the runner knows, in numpy (float32 arithmetic for float
inputs), written from the operator specification. It is the reference the NPU's nodes are
measured against and the fallback for nodes the NPU does not take."""
from __future__ import annotations

import math

import numpy as np

from .errors import OnnxError

from . import cpu_quant  # (it reads conv from here at call time)


def _attr(node, name, default=None):
    return node.attrs.get(name, default)


def spatial_pads(node, in_spatial, kernel, strides, dilations):
    """The explicit (begin..., end...) pads of a Conv/Pool node, auto_pad resolved."""
    rank = len(kernel)
    auto = _attr(node, "auto_pad", "NOTSET")
    if isinstance(auto, bytes):
        auto = auto.decode()
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * (2 * rank)
        for i in range(rank):
            out = -(-in_spatial[i] // strides[i])
            total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in_spatial[i])
            small = total // 2
            pads[i], pads[i + rank] = ((small, total - small) if auto == "SAME_UPPER"
                                       else (total - small, small))
        return pads
    if auto == "VALID":
        return [0] * (2 * rank)
    if auto != "NOTSET":
        raise OnnxError(f"node {node.name!r} ({node.op}): auto_pad {auto!r} is not NOTSET, "
                        "SAME_UPPER, SAME_LOWER or VALID")
    pads = list(_attr(node, "pads", [0] * (2 * rank)))
    if len(pads) != 2 * rank or any(p < 0 for p in pads):
        raise OnnxError(f"node {node.name!r} ({node.op}): pads {pads} for a {rank}-D kernel")
    return pads


def _window_geometry(node, x, kernel):
    rank = len(kernel)
    strides = list(_attr(node, "strides", [1] * rank))
    dilations = list(_attr(node, "dilations", [1] * rank))
    if len(strides) != rank or len(dilations) != rank or min(strides + dilations) < 1:
        raise OnnxError(f"node {node.name!r} ({node.op}): strides {strides} / dilations "
                        f"{dilations} for a {rank}-D kernel (each at least 1)")
    pads = spatial_pads(node, x.shape[2:], kernel, strides, dilations)
    return strides, dilations, pads


def conv(node, x, w, b=None, acc=np.float32):
    """Conv in acc arithmetic: float32, or int64 for the integer convolutions (exact)."""
    x = x.astype(acc)
    w = w.astype(acc)
    kernel = list(w.shape[2:])
    strides, dil, pads = _window_geometry(node, x, kernel)
    g = int(_attr(node, "group", 1))
    n, c = x.shape[:2]
    o = w.shape[0]
    rank = len(kernel)
    if g < 1 or c % g or o % g or w.shape[1] * g != c:
        raise OnnxError(f"node {node.name!r} (Conv): group {g} with {c} input channels and "
                        f"weights {list(w.shape)}")
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + rank]) for i in range(rank)])
    out_sp = [(xp.shape[2 + i] - ((kernel[i] - 1) * dil[i] + 1)) // strides[i] + 1 for i in range(rank)]
    if min(out_sp) < 1:
        raise OnnxError(f"node {node.name!r} (Conv): kernel {kernel} (dilations {dil}) larger "
                        f"than the padded input {list(xp.shape[2:])}")
    y = np.zeros([n, o] + out_sp, acc)
    cg, og = c // g, o // g
    for idx in np.ndindex(*kernel):
        sl = tuple(slice(idx[i] * dil[i], idx[i] * dil[i] + (out_sp[i] - 1) * strides[i] + 1,
                         strides[i]) for i in range(rank))
        patch = xp[(slice(None), slice(None)) + sl]            # n, c, *out
        for gi in range(g):
            wk = w[(slice(gi * og, (gi + 1) * og), slice(None)) + idx]  # og, cg
            y[:, gi * og:(gi + 1) * og] += np.einsum(
                "nc...,oc->no...", patch[:, gi * cg:(gi + 1) * cg], wk)
    if b is not None:
        y += b.astype(acc).reshape([1, o] + [1] * rank)
    return y


def pool(node, x, method):
    if len(node.outputs) > 1 and node.outputs[1]:
        raise OnnxError(f"node {node.name!r} ({node.op}): the Indices output is not implemented")
    kernel = list(_attr(node, "kernel_shape", []))
    if not kernel:
        raise OnnxError(f"node {node.name!r} ({node.op}): no kernel_shape")
    rank = len(kernel)
    strides, dil, pads = _window_geometry(node, x, kernel)
    ceil_mode = int(_attr(node, "ceil_mode", 0))
    include = int(_attr(node, "count_include_pad", 0))
    x = x.astype(np.float32)
    sp = x.shape[2:]
    eff = [(kernel[i] - 1) * dil[i] + 1 for i in range(rank)]
    out_sp = []
    for i in range(rank):
        span = sp[i] + pads[i] + pads[i + rank] - eff[i]
        o = (-(-span // strides[i]) if ceil_mode else span // strides[i]) + 1
        # a ceil window must start inside the input or its left padding
        if ceil_mode and (o - 1) * strides[i] >= sp[i] + pads[i]:
            o -= 1
        out_sp.append(o)
    y = np.zeros(x.shape[:2] + tuple(out_sp), np.float32)
    for pos in np.ndindex(*out_sp):
        starts = [pos[i] * strides[i] - pads[i] for i in range(rank)]
        idx = [np.arange(starts[i], starts[i] + eff[i], dil[i]) for i in range(rank)]
        valid = [v[(v >= 0) & (v < sp[i])] for i, v in enumerate(idx)]
        win = x[(slice(None), slice(None)) + np.ix_(*valid)]
        if method == "max":
            y[(slice(None), slice(None)) + pos] = win.reshape(x.shape[:2] + (-1,)).max(-1)
        else:
            s = win.reshape(x.shape[:2] + (-1,)).sum(-1)
            if include:
                # the window clipped to the padded input
                cnt = 1
                for i in range(rank):
                    lo = max(starts[i], -pads[i])
                    hi = min(starts[i] + eff[i], sp[i] + pads[i + rank])
                    cnt *= len(range(lo, hi, dil[i])) if dil[i] == 1 else math.ceil((hi - lo) / dil[i])
            else:
                cnt = int(np.prod([len(v) for v in valid]))
            y[(slice(None), slice(None)) + pos] = s / cnt
    return y


def gemm(node, a, b, c=None):
    alpha = float(_attr(node, "alpha", 1.0))
    beta = float(_attr(node, "beta", 1.0))
    a = a.astype(np.float32)
    b = b.astype(np.float32)
    if int(_attr(node, "transA", 0)):
        a = a.T
    if int(_attr(node, "transB", 0)):
        b = b.T
    y = alpha * (a @ b)
    if c is not None:
        y = y + beta * c.astype(np.float32)
    return y


def batchnorm(node, x, scale, bias, mean, var):
    if int(_attr(node, "training_mode", 0)) or len(node.outputs) > 1:
        raise OnnxError(f"node {node.name!r} (BatchNormalization): training_mode (the running "
                        "statistics outputs) is not implemented")
    eps = float(_attr(node, "epsilon", 1e-5))
    shape = [1, -1] + [1] * (x.ndim - 2)
    inv = scale.astype(np.float32) / np.sqrt(var.astype(np.float32) + eps)
    return (x.astype(np.float32) - mean.reshape(shape)) * inv.reshape(shape) + bias.reshape(shape)


def softmax(node, x, opset):
    axis = int(_attr(node, "axis", -1 if opset >= 13 else 1))
    x = x.astype(np.float32)
    if opset < 13:  # coerced to 2-D at axis
        shp = x.shape
        x2 = x.reshape(int(np.prod(shp[:axis % x.ndim])), -1)
        e = np.exp(x2 - x2.max(1, keepdims=True))
        return (e / e.sum(1, keepdims=True)).reshape(shp)
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def clip_bounds(node, inputs, opset):
    if opset < 11:
        return _attr(node, "min", -np.inf), _attr(node, "max", np.inf)
    lo = inputs[1] if len(inputs) > 1 and inputs[1] is not None else None
    hi = inputs[2] if len(inputs) > 2 and inputs[2] is not None else None
    return (lo.item() if lo is not None else -np.inf), (hi.item() if hi is not None else np.inf)


def run(node, inputs, opset):
    """The node's outputs (a list) from its inputs (None for an omitted optional input); inputs
    the operator cannot take (shapes that do not broadcast, a missing input) raise OnnxError
    naming the node."""
    try:
        return _run(node, inputs, opset)
    except OnnxError:
        raise
    except (ValueError, IndexError, TypeError, AttributeError, KeyError) as e:
        raise OnnxError(f"node {node.name!r} ({node.op}): {type(e).__name__}: {e}") from e


def _run(node, inputs, opset):
    op, x = node.op, inputs[0] if inputs else None
    f32 = lambda v: v.astype(np.float32) if v.dtype.kind == "f" else v  # noqa: E731
    if op == "Conv":
        return [conv(node, x, inputs[1], inputs[2] if len(inputs) > 2 else None)]
    if op in ("MaxPool", "AveragePool"):
        return [pool(node, x, "max" if op == "MaxPool" else "avg")]
    if op == "GlobalAveragePool":
        return [f32(x).mean(axis=tuple(range(2, x.ndim)), keepdims=True)]
    if op == "GlobalMaxPool":
        return [f32(x).max(axis=tuple(range(2, x.ndim)), keepdims=True)]
    if op == "Relu":
        return [np.maximum(f32(x), 0).astype(f32(x).dtype)]
    if op == "LeakyRelu":
        a = float(_attr(node, "alpha", 0.01))
        x = f32(x)
        return [np.where(x >= 0, x, a * x).astype(np.float32)]
    if op == "Clip":
        lo, hi = clip_bounds(node, inputs, opset)
        return [np.clip(f32(x), lo, hi).astype(f32(x).dtype)]
    if op in ("Add", "Mul"):
        y = inputs[1]
        if x.dtype.kind in "iu" and y.dtype.kind in "iu":  # integers wrap, as ONNX's do
            return [x + y if op == "Add" else x * y]
        return [(f32(x) + f32(y)) if op == "Add" else (f32(x) * f32(y))]
    if op == "MatMul":
        return [np.matmul(f32(x), f32(inputs[1]))]
    if op == "Gemm":
        return [gemm(node, x, inputs[1], inputs[2] if len(inputs) > 2 else None)]
    if op == "BatchNormalization":
        return [batchnorm(node, *inputs[:5])]
    if op == "Sigmoid":
        return [(1 / (1 + np.exp(-f32(x)))).astype(np.float32)]
    if op == "Tanh":
        return [np.tanh(f32(x))]
    if op == "HardSigmoid":
        a, b = float(_attr(node, "alpha", 0.2)), float(_attr(node, "beta", 0.5))
        return [np.clip(a * f32(x) + b, 0, 1)]
    if op == "HardSwish":
        x = f32(x)
        return [x * np.clip(x / 6 + 0.5, 0, 1)]
    if op == "Softmax":
        return [softmax(node, x, opset)]
    if op in ("Flatten",):
        axis = int(_attr(node, "axis", 1)) % max(x.ndim, 1)
        return [x.reshape(int(np.prod(x.shape[:axis])), -1)]
    if op == "Reshape":
        shape = [int(v) for v in inputs[1]]
        shape = [x.shape[i] if v == 0 and not int(_attr(node, "allowzero", 0)) else v
                 for i, v in enumerate(shape)]
        return [x.reshape(shape)]
    if op == "Identity":
        return [x]
    if op in cpu_quant.QUANT_OPS:
        return cpu_quant.run(node, inputs)
    raise OnnxError(f"node {node.name!r}: operator {op} has no CPU implementation here")


CPU_OPS = cpu_quant.QUANT_OPS | {
    "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Relu", "LeakyRelu",
    "Clip", "Add", "Mul", "MatMul", "Gemm", "BatchNormalization", "Sigmoid", "Tanh",
    "HardSigmoid", "HardSwish", "Softmax", "Flatten", "Reshape", "Identity"}
