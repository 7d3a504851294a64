# SPDX-License-Identifier: MIT
"""Reading an ONNX model into the runner's plain form: nodes in graph order with their
attributes as Python values, initializers as numpy arrays, the graph's inputs and outputs.
python3-onnx parses the protobuf; everything it returns is checked here before use, so a
malformed file is one OnnxError naming what is wrong, never a crash deep in the runner."""
from __future__ import annotations

import dataclasses
import os
from typing import Dict, List, Optional

import numpy as np

from .errors import OnnxError

# The largest model file read (a 224x224 MobileNetV2 in fp32 is ~14 MB).
MAX_MODEL_BYTES = 512 << 20


def _onnx():
    try:
        import onnx  # noqa: F401  (Debian: python3-onnx)
        from onnx import numpy_helper
    except ImportError as e:  # pragma: no cover - depends on the system
        raise OnnxError("the ONNX runner needs python3-onnx (apt-get install python3-onnx): "
                        f"{e}") from e
    return onnx, numpy_helper


@dataclasses.dataclass
class Node:
    name: str
    op: str
    domain: str
    inputs: List[str]   # "" for an omitted optional input
    outputs: List[str]
    attrs: Dict[str, object]


@dataclasses.dataclass
class Model:
    nodes: List[Node]
    initializers: Dict[str, np.ndarray]
    inputs: List[str]          # graph inputs that are not initializers
    input_shapes: Dict[str, list]
    outputs: List[str]
    opset: int
    proto: object = None


def _attr_value(onnx, a, node_name):
    t = onnx.AttributeProto
    kinds = {t.FLOAT: lambda: a.f, t.INT: lambda: a.i, t.STRING: lambda: a.s,
             t.FLOATS: lambda: list(a.floats), t.INTS: lambda: list(a.ints),
             t.STRINGS: lambda: list(a.strings)}
    if a.type == t.TENSOR:
        return _onnx()[1].to_array(a.t)
    if a.type not in kinds:
        raise OnnxError(f"node {node_name!r}: attribute {a.name!r} of type {a.type} "
                        "(graphs, sparse tensors) is not read by the runner")
    return kinds[a.type]()


def from_proto(proto) -> Model:
    onnx, numpy_helper = _onnx()
    if not isinstance(proto, onnx.ModelProto):
        raise OnnxError(f"expected an onnx.ModelProto, got {type(proto).__name__}")
    g = proto.graph
    if g is None or not g.node:
        raise OnnxError("the model's graph has no nodes")
    opset = 0
    for o in proto.opset_import:
        if o.domain in ("", "ai.onnx"):
            opset = int(o.version)
    if opset <= 0:
        raise OnnxError("the model imports no version of the default ONNX operator set")
    inits = {}
    for t in g.initializer:
        if not t.name:
            raise OnnxError("an initializer without a name")
        try:
            inits[t.name] = numpy_helper.to_array(t)
        except Exception as e:  # onnx raises several types for a bad tensor
            raise OnnxError(f"initializer {t.name!r}: {e}") from e
    known = set(inits)
    inputs, shapes = [], {}
    for vi in g.input:
        if vi.name not in inits:
            inputs.append(vi.name)
            dims = vi.type.tensor_type.shape.dim if vi.type.HasField("tensor_type") else []
            shapes[vi.name] = [d.dim_value if d.HasField("dim_value") else None for d in dims]
        known.add(vi.name)
    nodes = []
    for i, n in enumerate(g.node):
        name = n.name or f"{n.op_type}_{i}"
        if not n.op_type:
            raise OnnxError(f"node {i}: no op_type")
        for x in n.input:
            if x and x not in known:
                raise OnnxError(f"node {name!r} ({n.op_type}): input {x!r} is produced by no "
                                "earlier node, initializer or graph input")
        attrs = {a.name: _attr_value(onnx, a, name) for a in n.attribute}
        if n.op_type == "Constant" and "value" in attrs:
            inits[n.output[0]] = np.asarray(attrs["value"])
        nodes.append(Node(name, n.op_type, n.domain, list(n.input), list(n.output), attrs))
        known.update(x for x in n.output if x)
    outputs = [o.name for o in g.output]
    for o in outputs:
        if o not in known:
            raise OnnxError(f"graph output {o!r} is produced by no node")
    return Model([n for n in nodes if n.op != "Constant"], inits, inputs, shapes, outputs, opset,
                 proto)


def load(path) -> Model:
    onnx, _ = _onnx()
    path = os.fspath(path)
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise OnnxError(f"{path}: {e.strerror}") from e
    if size > MAX_MODEL_BYTES:
        raise OnnxError(f"{path}: {size} bytes, past the runner's {MAX_MODEL_BYTES}")
    try:
        proto = onnx.load(path)
    except Exception as e:  # a truncated or foreign file: protobuf's DecodeError and others
        raise OnnxError(f"{path}: not an ONNX model ({type(e).__name__}: {e})") from e
    return from_proto(proto)


def load_tensor(path) -> np.ndarray:
    onnx, numpy_helper = _onnx()
    t = onnx.TensorProto()
    try:
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        return numpy_helper.to_array(t)
    except Exception as e:
        raise OnnxError(f"{path}: not an ONNX tensor ({type(e).__name__}: {e})") from e


def first_input_shape(m: Model) -> Optional[list]:
    return m.input_shapes.get(m.inputs[0]) if m.inputs else None
