# SPDX-License-Identifier: MIT
"""A MobileNetV2-shaped network built with onnx.helper (random weights; BatchNormalization
nodes left in the graph for the runner to fold), run on an NPU device against the CPU run:
per-layer error, modelled NPU time and the top-1 of both.

python3 -m npukit.onnx.mobilenet [--resolution 224] [--device sim] [--save FILE.onnx]
exits 1 when the NPU's top-1 differs from the CPU's."""
from __future__ import annotations

import argparse
import sys

import numpy as np

# MobileNetV2's inverted-residual stages: expansion t, output channels c, repeats n, stride s.
STAGES = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
          (6, 160, 3, 2), (6, 320, 1, 1)]


def build(resolution: int = 224, classes: int = 1000, seed: int = 0, opset: int = 13):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    count = [0]

    def name(kind):
        count[0] += 1
        return f"{kind}{count[0]}"

    def const(arr, kind):
        n = name(kind)
        inits.append(numpy_helper.from_array(np.asarray(arr, np.float32), n))
        return n

    def conv_bn(x, cin, cout, k, stride, groups=1, relu6=True):
        w = rng.standard_normal((cout, cin // groups, k, k)) * np.sqrt(2.0 / (cin // groups * k * k))
        c = name("conv")
        nodes.append(helper.make_node("Conv", [x, const(w, "w")], [c], name=c,
                                      kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[k // 2] * 4, group=groups))
        b = name("bn")
        nodes.append(helper.make_node(
            "BatchNormalization",
            [c, const(rng.uniform(0.5, 1.5, cout), "gamma"), const(rng.normal(0, 0.1, cout), "beta"),
             const(rng.normal(0, 0.1, cout), "mean"), const(rng.uniform(0.5, 1.5, cout), "var")],
            [b], name=b, epsilon=1e-5))
        if not relu6:
            return b
        r = name("relu6")
        nodes.append(helper.make_node("Clip", [b, const(0.0, "lo"), const(6.0, "hi")], [r], name=r))
        return r

    x = conv_bn("input", 3, 32, 3, 2)
    cin = 32
    for t, c, n, s in STAGES:
        for i in range(n):
            stride = s if i == 0 else 1
            h = conv_bn(x, cin, cin * t, 1, 1) if t != 1 else x
            h = conv_bn(h, cin * t, cin * t, 3, stride, groups=cin * t)
            h = conv_bn(h, cin * t, c, 1, 1, relu6=False)
            if stride == 1 and cin == c:
                a = name("add")
                nodes.append(helper.make_node("Add", [x, h], [a], name=a))
                h = a
            x, cin = h, c
    x = conv_bn(x, cin, 1280, 1, 1)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"], name="pool"))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten", axis=1))
    fc_w = rng.standard_normal((classes, 1280)) * np.sqrt(1.0 / 1280)
    nodes.append(helper.make_node("Gemm", ["flat", const(fc_w, "fc_w"),
                                           const(rng.normal(0, 0.01, classes), "fc_b")],
                                  ["logits"], name="fc", transB=1))
    graph = helper.make_graph(
        nodes, "mobilenet_v2_shaped",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, resolution, resolution])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    return model


def main(argv=None) -> int:
    from .. import rk
    from . import format_report, from_proto, run

    p = argparse.ArgumentParser(prog="python3 -m npukit.onnx.mobilenet")
    p.add_argument("--resolution", type=int, default=224, help="input H = W (default 224)")
    p.add_argument("--device", default="sim", help="npukit.rk device (default sim)")
    p.add_argument("--seed", type=int, default=0, help="weights' and input's seed")
    p.add_argument("--save", metavar="FILE", help="also write the model to FILE")
    a = p.parse_args(argv)
    proto = build(a.resolution, seed=a.seed)
    if a.save:
        import onnx
        onnx.save(proto, a.save)
    model = from_proto(proto)
    x = np.random.default_rng(a.seed + 1).standard_normal((1, 3, a.resolution, a.resolution))
    with rk.Runtime(a.device) as rt:
        r = run(model, {"input": x.astype(np.float32)}, rt)
        kind = "modelled" if rt.simulated else "measured"
    print(format_report(r, kind))
    got, want = r.outputs["logits"][0], r.cpu_outputs["logits"][0]
    top, ref = int(np.argmax(got)), int(np.argmax(want))
    second = np.sort(want)[-2]
    print(f"top-1 NPU {top}, CPU {ref} (CPU margin to the second {float(want[ref] - second):.4f}; "
          f"logits max |err| {float(np.max(np.abs(got - want))):.4f})")
    return 0 if top == ref else 1


if __name__ == "__main__":
    sys.exit(main())
