# SPDX-License-Identifier: MIT
"""Running a model: the CPU run (every node in numpy, the reference), then the mixed run (each
node the NPU takes on the runtime, the rest on the CPU), with a report per step: where it ran
and why, its error against the CPU run's same tensor, and the NPU time the device gave (a
model on the simulator).

Steps fuse what the engines fuse: a BatchNormalization right behind a Conv (whose output
nothing else reads) is folded into its weights and bias; a Relu, or a Clip with min 0, right
behind a Conv becomes the conv's clamp; a QDQ group (DequantizeLinear -> Conv or MatMul ->
QuantizeLinear, qdq.py) runs as its integer operator."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

import numpy as np

from . import cpu, npu, qdq
from .errors import OnnxError, Unsupported
from .model import Model, Node


@dataclasses.dataclass
class Step:
    node: Node
    folded_bn: Optional[Node] = None
    act: Optional[Node] = None
    qdq: Optional[qdq.Group] = None  # a QDQ group run as its integer operator

    @property
    def outputs(self):
        if self.qdq:
            return self.qdq.q.outputs
        return (self.act or self.folded_bn or self.node).outputs

    @property
    def nodes(self):
        """The step's nodes in the order the CPU computes them."""
        if self.qdq:
            return self.qdq.nodes
        return [self.node] + [x for x in (self.folded_bn, self.act) if x]

    @property
    def label(self):
        if self.qdq:
            return f"{self.node.op}(QDQ int8)"
        parts = [self.node.op] + (["BN(folded)"] if self.folded_bn else []) + \
            ([self.act.op] if self.act else [])
        return "+".join(parts)


@dataclasses.dataclass
class StepReport:
    name: str
    op: str
    placement: str  # "npu" or "cpu"
    reason: str
    npu_s: float
    tasks: int
    max_abs_err: float
    rel_err: float  # max |mixed - cpu| / max |cpu| over the step's outputs (accumulated)
    local_err: float = 0.0  # the same for the step alone: its output against the CPU's on
                            # the same (mixed-run) inputs, what this step itself adds
    host_steps: int = 0     # an NPU step's parts the host ran (softmax's row reductions, an
                            # int8 requantisation, a dilated pool's sub-sampling)


@dataclasses.dataclass
class Result:
    outputs: Dict[str, np.ndarray]
    cpu_outputs: Dict[str, np.ndarray]
    steps: List[StepReport]

    @property
    def npu_s(self):
        return sum(s.npu_s for s in self.steps)


def _consumers(model: Model):
    n = {}
    for node in model.nodes:
        for x in node.inputs:
            if x:
                n[x] = n.get(x, 0) + 1
    for o in model.outputs:
        n[o] = n.get(o, 0) + 1
    return n


def _clamp_of(node, env, opset):
    """The conv clamp a Relu / Clip node is, or None."""
    if node.op == "Relu":
        return ("relu", 0.0)
    if node.op == "Clip":
        try:
            lo, hi = cpu.clip_bounds(node, [None] + [env.get(x) if x else None
                                                     for x in node.inputs[1:]], opset)
        except (AttributeError, TypeError):
            return None
        if lo == 0 and hi == np.inf:
            return ("relu", 0.0)
        if lo == 0 and np.isfinite(hi) and hi >= 0:
            return ("clip", float(hi))
    return None


def plan_steps(model: Model, env) -> List[Step]:
    uses = _consumers(model)
    by_input = {}
    for node in model.nodes:
        for x in node.inputs[:1]:
            by_input.setdefault(x, []).append(node)
    groups = qdq.find(model, env, uses)
    taken = {id(n) for g in groups.values() for n in g.nodes if n is not g.op}
    steps = []
    for node in model.nodes:
        if id(node) in taken:
            continue
        st = Step(node, qdq=groups.get(id(node)))
        if node.op == "Conv" and not st.qdq:
            out = node.outputs[0]
            nxt = by_input.get(out, [])
            if (len(nxt) == 1 and uses.get(out) == 1 and nxt[0].op == "BatchNormalization"
                    and len(nxt[0].outputs) == 1 and not nxt[0].attrs.get("training_mode", 0)
                    and all(x in env for x in nxt[0].inputs[1:5])):
                st.folded_bn = nxt[0]
                taken.add(id(nxt[0]))
                out = nxt[0].outputs[0]
            nxt = by_input.get(out, [])
            if (len(nxt) == 1 and uses.get(out) == 1 and _clamp_of(nxt[0], env, model.opset)):
                st.act = nxt[0]
                taken.add(id(nxt[0]))
        steps.append(st)
    return steps


def _fold(step, w, b, env):
    bn = step.folded_bn
    scale, beta, mean, var = (env[x].astype(np.float32) for x in bn.inputs[1:5])
    inv = scale / np.sqrt(var + float(bn.attrs.get("epsilon", 1e-5)))
    w = w.astype(np.float32) * inv.reshape([-1] + [1] * (w.ndim - 1))
    b = (b.astype(np.float32) if b is not None else np.zeros(w.shape[0], np.float32))
    return w, (b - mean) * inv + beta


def _gather(node, env):
    return [env[x] if x else None for x in node.inputs]


def _err(a, ref):
    a = np.asarray(a, np.float64)
    ref = np.asarray(ref, np.float64)
    if a.shape != ref.shape:
        return float("inf"), float("inf")
    if not a.size:
        return 0.0, 0.0
    d = float(np.max(np.abs(a - ref)))
    scale = float(np.max(np.abs(ref)))
    return d, d / scale if scale > 0 else d


def run_cpu(model: Model, feeds: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    env = dict(model.initializers)
    env.update(feeds)
    for node in model.nodes:
        outs = cpu.run(node, _gather(node, env), model.opset)
        for name, v in zip(node.outputs, outs):
            if name:
                env[name] = v
    return env


def run(model: Model, feeds: Dict[str, np.ndarray], rt=None) -> Result:
    """The CPU run and the mixed run of model on feeds (graph input name -> array); rt the
    npukit.rk.Runtime the NPU's nodes run on (None: every node on the CPU)."""
    for name in model.inputs:
        if name not in feeds:
            raise OnnxError(f"graph input {name!r} has no value")
    ref = run_cpu(model, feeds)
    env = dict(model.initializers)
    env.update(feeds)
    reports = []
    for step in plan_steps(model, env):
        node = step.node
        inputs = [] if step.qdq else _gather(node, env)  # a QDQ group reads its own below
        reason, placement, npu_s, tasks, host_steps = "", "npu", 0.0, 0, 0
        outs = None
        if rt is None:
            reason, placement = "no NPU runtime", "cpu"
        else:
            try:
                act = ("none", 0.0)
                if step.folded_bn:
                    w, b = _fold(step, inputs[1], inputs[2] if len(inputs) > 2 else None, env)
                    inputs = [inputs[0], w, b]
                if step.act:
                    act = _clamp_of(step.act, env, model.opset)
                run_as = node
                if step.qdq:
                    run_as, names = step.qdq.qlinear()
                    inputs = [env[x] if x else None for x in names]
                rt.last_stats = None
                outs = npu.run_node(rt, run_as, inputs, model.opset, act)
                st = rt.last_stats
                npu_s = st.npu_time_s if st else 0.0
                tasks = st.tasks if st else 0
                host_steps = st.host_steps if st else 0
            except Unsupported as u:
                reason, placement, outs = str(u), "cpu", None
            except (ValueError, IndexError, TypeError) as e:  # operands the handler cannot shape
                reason, placement, outs = f"{node.op}: {type(e).__name__}: {e}", "cpu", None
        # the CPU's step on this run's own inputs, node by node (the fused ones too): the
        # fallback's result, or the NPU step's local reference
        local = dict(env)
        for n in step.nodes:
            for name, v in zip(n.outputs, cpu.run(n, _gather(n, local), model.opset)):
                if name:
                    local[name] = v
        local_err = 0.0
        if outs is None:
            env = local
        else:
            for name, v in zip(step.outputs, outs):
                if name:
                    local_err = max(local_err, _err(v, local[name])[1])
                    env[name] = v
        errs = [_err(env[o], ref[o]) for o in step.outputs if o]
        reports.append(StepReport(node.name, step.label, placement, reason, npu_s, tasks,
                                  max((e[0] for e in errs), default=0.0),
                                  max((e[1] for e in errs), default=0.0), local_err,
                                  host_steps))
    return Result({o: env[o] for o in model.outputs}, {o: ref[o] for o in model.outputs},
                  reports)
