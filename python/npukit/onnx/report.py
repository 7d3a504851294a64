# SPDX-License-Identifier: MIT
"""The runner's report as a table (per step: placement, reason, error, NPU time) or JSON."""
from __future__ import annotations

import json

from .runner import Result


def format_report(r: Result, time_kind: str = "modelled") -> str:
    rows = ["step                 op                       on   local err  rel err    "
            "max |err|  NPU ms   why",
            "                                                    (this step) (vs the CPU run)"]
    for s in r.steps:
        local = f"{s.local_err:9.2e}" if s.placement == "npu" else "        -"
        why = s.reason or (f"{s.host_steps} host steps" if s.host_steps else "")
        rows.append(f"{s.name[:20]:<20} {s.op[:24]:<24} {s.placement:<4} {local}  "
                    f"{s.rel_err:9.2e} {s.max_abs_err:10.3e} {s.npu_s * 1e3:7.3f}  {why}")
    npu = sum(1 for s in r.steps if s.placement == "npu")
    rows.append(f"{npu} of {len(r.steps)} steps on the NPU, NPU time {r.npu_s * 1e3:.3f} ms "
                f"({time_kind})")
    return "\n".join(rows)


def report_json(r: Result, time_kind: str = "modelled") -> str:
    steps = [dict(name=s.name, op=s.op, placement=s.placement, reason=s.reason,
                  npu_ms=s.npu_s * 1e3, tasks=s.tasks, rel_err=s.rel_err,
                  max_abs_err=s.max_abs_err, local_err=s.local_err, host_steps=s.host_steps)
             for s in r.steps]
    return json.dumps({"steps": steps, "npu_ms": r.npu_s * 1e3, "npu_time": time_kind})
