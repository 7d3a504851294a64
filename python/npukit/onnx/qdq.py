# SPDX-License-Identifier: MIT
"""QDQ models on the int8 engines. A quantised model in ONNX's QDQ form keeps float operators
between DequantizeLinear and QuantizeLinear nodes:

    xq -> DequantizeLinear -> Conv (weights DequantizeLinear(wq), bias DequantizeLinear(bq))
       -> QuantizeLinear -> yq

which is QLinearConv(xq, wq, bq) written out in float (MatMul likewise QLinearMatMul). The
runner finds such groups and runs each as one integer step (npu_quant): the float tensors
between never exist. The group is taken only where that is the same computation: every
intermediate read by nothing else; the weights, the bias and every scale and zero point
constant; x, y and a MatMul's A per tensor; the weights per output channel on their output
axis (Conv: axis 0; MatMul: B's columns, axis 1) or per tensor; the bias int32 with zero point
0 and scale exactly x_scale * w_scale (float32), as QLinearConv's bias is. The CPU run still
computes the float form (dequantise, float32 convolution, quantise), so an integer step can
differ from it by one quantisation step where the float32 sum lands on the other side of a
rounding boundary; the step's local error says so."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

import numpy as np

from .model import Model, Node

# float op -> (the integer op it becomes, the weights' per-channel axis)
QDQ_OPS = {"Conv": ("QLinearConv", 0), "MatMul": ("QLinearMatMul", 1)}


@dataclasses.dataclass
class Group:
    op: Node
    dq_x: Node
    dq_w: Node
    dq_b: Optional[Node]
    q: Node

    @property
    def nodes(self) -> List[Node]:
        """The group's nodes in an order that computes it (the CPU's)."""
        return [self.dq_x, self.dq_w] + ([self.dq_b] if self.dq_b else []) + [self.op, self.q]

    def qlinear(self):
        """The integer node this group is, and its input names."""
        qop, _ = QDQ_OPS[self.op.op]
        x, w, q = self.dq_x.inputs, self.dq_w.inputs, self.q.inputs
        names = [x[0], _opt(x, 1), _opt(x, 2), w[0], _opt(w, 1), _opt(w, 2), _opt(q, 1),
                 _opt(q, 2)]
        if self.dq_b:
            names.append(self.dq_b.inputs[0])
        return Node(self.op.name, qop, "", names, list(self.q.outputs), dict(self.op.attrs)), names


def _opt(names, i):
    return names[i] if len(names) > i else ""


def _const(env, consts, name):
    return np.asarray(env[name]) if name and name in consts else None


def _per_tensor(v):
    return v is not None and v.size == 1


def _group(op, producer, consumers, uses, env, consts) -> Optional[Group]:
    if op.op not in QDQ_OPS or len(op.inputs) < 2 or len(op.outputs) != 1:
        return None
    _, axis = QDQ_OPS[op.op]
    dq = []
    for name in op.inputs[:3]:
        p = producer.get(name) if name else None
        if p is None or p.op != "DequantizeLinear" or uses.get(name) != 1:
            dq.append(None)
        else:
            dq.append(p)
    if dq[0] is None or dq[1] is None or (len(op.inputs) > 2 and op.inputs[2] and dq[2] is None):
        return None
    after = consumers.get(op.outputs[0], [])
    if len(after) != 1 or uses.get(op.outputs[0]) != 1 or after[0].op != "QuantizeLinear":
        return None
    q = after[0]
    dq_x, dq_w = dq[0], dq[1]
    xs, xz = (_const(env, consts, _opt(dq_x.inputs, i)) for i in (1, 2))
    ws, wz = (_const(env, consts, _opt(dq_w.inputs, i)) for i in (1, 2))
    ys, yz = (_const(env, consts, _opt(q.inputs, i)) for i in (1, 2))
    wq = _const(env, consts, dq_w.inputs[0])
    if not (_per_tensor(xs) and _per_tensor(ys) and yz is not None and _per_tensor(yz)
            and wq is not None and ws is not None and wz is not None and xz is not None):
        return None
    if ws.size != 1:  # per channel: along the weights' output axis (a MatMul's B 2-D)
        w_axis = int(dq_w.attrs.get("axis", 1)) % max(wq.ndim, 1)
        if (wq.ndim < 2 or (op.op == "MatMul" and wq.ndim != 2) or w_axis != axis
                or ws.size != wq.shape[w_axis]):
            return None
    dq_b = dq[2] if len(dq) > 2 else None
    if dq_b is not None:
        bq = _const(env, consts, dq_b.inputs[0])
        bs, bz = (_const(env, consts, _opt(dq_b.inputs, i)) for i in (1, 2))
        want = np.float32(xs.reshape(())) * ws.astype(np.float32).reshape(-1)
        have = None if bs is None else bs.astype(np.float32).reshape(-1)
        if (bq is None or bq.dtype != np.int32 or have is None
                or have.size not in (1, want.size) or not np.all(have == want)
                or (bz is not None and np.any(bz != 0))):
            return None
    return Group(op, dq_x, dq_w, dq_b, q)


def find(model: Model, env, uses) -> Dict[int, Group]:
    """{id(float node): its group} for every QDQ group of the model (env: the constants)."""
    producer, consumers = {}, {}
    for n in model.nodes:
        for o in n.outputs:
            if o:
                producer[o] = n
        for i in n.inputs[:1]:
            consumers.setdefault(i, []).append(n)
    consts = set(model.initializers)
    groups = {}
    for n in model.nodes:
        g = _group(n, producer, consumers, uses, env, consts)
        if g is not None:
            groups[id(n)] = g
    return groups
