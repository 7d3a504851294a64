#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeds for fuzz_rknn_matmul that get past rknn_matmul_create: one per matmul type, B layout
and A/C layout, plus per-channel and per-group quantised B for the types that take it, each a
small valid shape followed by operand bytes. Random inputs almost never make a context (the
create refuses most shapes and combinations), so without these the fuzzer spends its time on
the refusals. The byte order is the target's: raw flag, M, K, N, type, B layout, B quant type,
A/C layout, A/C quant type, group; then, per operand, a shrink byte, its bytes, a bind-again
byte; then the quant-params bytes.    python3 fuzz/seeds_rknn_matmul.py [DIR]"""
import random
import sys
from pathlib import Path

out = Path(sys.argv[1] if len(sys.argv) > 1 else
           Path(__file__).resolve().parent / "corpus" / "fuzz_rknn_matmul")
rng = random.Random(1874)
TYPES = range(1, 13)        # rknn_matmul_type 1..12
QUANT = {2, 3, 9, 11}       # int8 B: per-channel (1) and per-group (2) quant types as well


def seed(m, k, n, t, b_layout, b_quant, ac_layout, group):
    # small-shape form: M = byte % 70, K = 32 * (byte % 5), N = 16 * (byte % 9)
    head = bytes([0, m, k // 32, n // 16, t, b_layout, b_quant, ac_layout, 0, group // 32])
    # A and B bytes for the run (the target fills each mem from the input), then the flags
    body = bytes([1]) + rng.randbytes(2 * m * k) + bytes([1])
    body += bytes([1]) + rng.randbytes(2 * k * n) + bytes([1])
    body += bytes([1, 1]) + bytes([0, 4, 4])  # C: not shrunk, bound once; quant params given
    return head + body


def main():
    out.mkdir(parents=True, exist_ok=True)
    made = 0
    for t in TYPES:
        for b_layout in range(3):
            for ac_layout in range(2):
                (out / f"gen_t{t}_b{b_layout}_ac{ac_layout}").write_bytes(
                    seed(4, 64, 32, t, b_layout, 0, ac_layout, 0))
                made += 1
        if t in QUANT:
            for b_quant, group in ((1, 0), (2, 32), (2, 64)):
                (out / f"gen_t{t}_q{b_quant}_g{group}").write_bytes(
                    seed(3, 128, 16, t, 0, b_quant, 0, group))
                made += 1
    print(f"{made} seeds in {out}")


main()
