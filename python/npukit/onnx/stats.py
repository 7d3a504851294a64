# SPDX-License-Identifier: MIT
"""One step's figures from several library calls: a step that runs as more than one NPU call
(a dilated pool's phases, an integer node's correction sums) reports their sum, with the
host's own parts counted in host_steps."""
from __future__ import annotations

import dataclasses


def combined(stats, host_steps):
    """The calls' Stats added up, plus host_steps the handler ran itself."""
    total = dataclasses.replace(stats[0])
    for st in stats[1:]:
        total = dataclasses.replace(
            total, tasks=total.tasks + st.tasks, submits=total.submits + st.submits,
            npu_time_s=total.npu_time_s + st.npu_time_s,
            npu_time_summed_s=total.npu_time_summed_s + st.npu_time_summed_s,
            host_time_s=total.host_time_s + st.host_time_s,
            host_steps=total.host_steps + st.host_steps)
    return dataclasses.replace(total, host_steps=total.host_steps + host_steps)
