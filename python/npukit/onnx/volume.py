# SPDX-License-Identifier: MIT
"""3-D convolution and pooling on the 2-D engines.

A 3-D convolution is a 2-D one once its depth is unfolded on the host: output depth od reads
input depths od*sd + kd*dd - pd (kd < KD), so gathering those KD slices as input channels —
per group, in (kd, c) order, matching the weights [O][C/g][KD][KH][KW] reordered to
[O][KD*C/g][KH][KW] — makes each output depth one 2-D convolution whose window covers the whole
3-D one, summed in the conv's fp32 accumulator and rounded once as any conv. The output depths
are the 2-D call's batch, so the whole layer is one call; depth padding is zero slices.

A 3-D pool is separable: a max over a box is the max over depth of the max over each (h, w)
window, and an average's divisor is the product of the per-axis counts (cells inside the input
along each axis, or the whole window with count_include_pad), so it is the average over depth
of the (h, w) averages. The PDP pools every depth slice as a batch, then the depth axis as a
(KD x 1) pool over a [D][OH*OW] plane per channel; the intermediate average rounds once more
to fp16 (the max is exact)."""
from __future__ import annotations

import numpy as np

from .errors import Unsupported, library_call
from .stats import combined


def conv3d(rt, x16, w16, bias, strides, dilations, pads, groups, act):
    """x16 float16 [N][C][D][H][W], w16 float16 [O][C/g][KD][KH][KW], pads ONNX's
    (begin d, h, w, end d, h, w). Returns float16 [N][O][OD][OH][OW]."""
    n, c, depth, h, w = x16.shape
    o, cg, kd, kh, kw = w16.shape
    (sd, sh, sw), (dd, dh, dw) = strides, dilations
    pd0, ph0, pw0, pd1, ph1, pw1 = pads
    od = (depth + pd0 + pd1 - (kd - 1) * dd - 1) // sd + 1
    if od < 1 or groups < 1 or c != cg * groups:
        raise Unsupported(f"Conv: a 3-D kernel {list(w16.shape)} over {list(x16.shape)} "
                          f"(pads {list(pads)}, group {groups})")
    xp = np.pad(x16, ((0, 0), (0, 0), (pd0, pd1), (0, 0), (0, 0)))
    taps = np.arange(od)[:, None] * sd + np.arange(kd)[None, :] * dd       # [OD][KD]
    win = xp[:, :, taps]                                                    # N C OD KD H W
    win = win.reshape(n, groups, cg, od, kd, h, w).transpose(0, 3, 1, 4, 2, 5, 6)
    x2 = np.ascontiguousarray(win.reshape(n * od, groups * kd * cg, h, w))
    w2 = np.ascontiguousarray(w16.transpose(0, 2, 1, 3, 4).reshape(o, kd * cg, kh, kw))
    y = library_call(lambda: rt.conv2d(x2, w2, bias, stride=(sh, sw), pads=(ph0, pw0, ph1, pw1),
                                       dilation=(dh, dw), groups=groups, act=act[0],
                                       act_max=act[1]), "Conv (3-D)")
    rt.last_stats = combined([rt.last_stats], 1)  # the depth unfolding
    return y.reshape(n, od, o, y.shape[2], y.shape[3]).transpose(0, 2, 1, 3, 4)


def pool3d(rt, x16, method, kernel, strides, pads, include):
    """x16 float16 [N][C][D][H][W]; kernel, strides (d, h, w); pads ONNX's (begin d, h, w,
    end d, h, w), any ceil_mode already added to the ends. Returns float16
    [N][C][OD][OH][OW]."""
    n, c, depth, h, w = x16.shape
    (kd, kh, kw), (sd, sh, sw) = kernel, strides
    pd0, ph0, pw0, pd1, ph1, pw1 = pads
    slices = np.ascontiguousarray(x16.transpose(0, 2, 1, 3, 4).reshape(n * depth, c, h, w))
    what = f"{'MaxPool' if method == 'max' else 'AveragePool'} (3-D)"
    y1 = library_call(lambda: rt.pool2d(slices, method, (kh, kw), (sh, sw), (ph0, pw0, ph1, pw1),
                                        count_include_pad=include), what)
    stats = [rt.last_stats]
    oh, ow = y1.shape[2], y1.shape[3]
    planes = np.ascontiguousarray(y1.reshape(n, depth, c, oh * ow).transpose(0, 2, 1, 3))
    y2 = library_call(lambda: rt.pool2d(planes, method, (kd, 1), (sd, 1), (pd0, 0, pd1, 0),
                                        count_include_pad=include), what)
    stats.append(rt.last_stats)
    rt.last_stats = combined(stats, 2)  # the two re-layouts between the stages
    return y2.reshape(n, c, y2.shape[2], oh, ow)

