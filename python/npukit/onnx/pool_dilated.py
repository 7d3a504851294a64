# SPDX-License-Identifier: MIT
"""Dilated pooling as dense PDP pools. The PDP has no dilation field (the spec's PDP registers
and NVDLA's PDP give a kernel, a stride and padding, nothing else), so a window of kernel k,
dilation d and stride s is taken apart on the host: output o reads the padded input at
o*s + j*d (j < k), which is the dense window of k at q = o*s // d over the sub-sampled input
x[r::d] with r = o*s % d. Each phase r the outputs need is one dense pool on the NPU (stride
s // d when d divides s, so one phase; else stride 1 and the outputs picked). A max window past
the PDP's kernel limit runs as stride-1 stages (a max of overlapping maxima is the max over
their union). The padding, the sub-sampling, the picking and an average's divisor for
windows that reach into the padding are host work, counted in the call's host steps."""
from __future__ import annotations

import numpy as np

from .stats import combined

KERNEL_MAX = 16  # the PDP's kernel field (4 bits, value - 1): docs/rk-pooling.md


def _stages(k):
    """Stride-1 kernels whose chained windows cover k (each <= KERNEL_MAX)."""
    out = []
    while k > KERNEL_MAX:
        out.append(KERNEL_MAX)
        k -= KERNEL_MAX - 1
    return out + [k]


def _dense(rt, x, method, kernel, stride, stats):
    """One dense pool; a max whose kernel is past the limit as chained stride-1 stages."""
    kh, kw = (_stages(k) if method == "max" else [k] for k in kernel)
    n = max(len(kh), len(kw))
    kh, kw = [1] * (n - len(kh)) + kh, [1] * (n - len(kw)) + kw
    for i, (a, b) in enumerate(zip(kh, kw)):
        last = i == n - 1
        x = rt.pool2d(np.ascontiguousarray(x), method, (a, b), stride if last else (1, 1))
        stats.append(rt.last_stats)
    return x


def _phases(out, s, d):
    """{phase r: the outputs o with o*s % d == r}, and the dense stride on a phase."""
    if s % d == 0:
        return {0: np.arange(out)}, s // d
    ph = {}
    for o in range(out):
        ph.setdefault(o * s % d, []).append(o)
    return {r: np.asarray(v) for r, v in ph.items()}, 1


def pool(rt, x16, method, kernel, stride, dilation, pads, count_include_pad):
    """x16 float16 NCHW; kernel, stride, dilation (h, w); pads (top, left, bottom, right).
    Returns float16 [N][C][OH][OW]; rt.last_stats sums the NPU calls and counts the host's."""
    fill = -np.inf if method == "max" else 0.0
    pt, pl, pb, pr = pads
    xp = np.pad(x16, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=fill)
    outs = [(xp.shape[2 + i] - ((kernel[i] - 1) * dilation[i] + 1)) // stride[i] + 1
            for i in range(2)]
    (ph_h, sh), (ph_w, sw) = (_phases(outs[i], stride[i], dilation[i]) for i in range(2))
    y = np.empty(x16.shape[:2] + tuple(outs), np.float16)
    stats, host = [], 1  # the padding
    for rh, oh in ph_h.items():
        for rw, ow in ph_w.items():
            sub = xp[:, :, rh::dilation[0], rw::dilation[1]]
            r = _dense(rt, sub, method, kernel, (sh, sw), stats)
            qh = oh * stride[0] // dilation[0] // sh
            qw = ow * stride[1] // dilation[1] // sw
            y[:, :, oh[:, None], ow[None, :]] = r[:, :, qh[:, None], qw[None, :]]
            host += 2  # the sub-sampling and the picking
    if method == "avg" and not count_include_pad and any(pads):
        # the PDP divided by the whole window; ONNX divides by the cells inside the input
        mask = np.pad(np.ones(x16.shape[2:], np.float32), ((pt, pb), (pl, pr)))
        cells = np.zeros(outs, np.float32)
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                h0, w0 = i * dilation[0], j * dilation[1]
                cells += mask[h0:h0 + (outs[0] - 1) * stride[0] + 1:stride[0],
                              w0:w0 + (outs[1] - 1) * stride[1] + 1:stride[1]]
        y = (y.astype(np.float32) * (kernel[0] * kernel[1] / cells)).astype(np.float16)
        host += 1
    rt.last_stats = combined(stats, host)
    return y
