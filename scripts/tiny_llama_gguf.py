#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a small LLaMA-architecture model as GGUF, for running llama.cpp's own tools
(llama-completion, llama-perplexity) with the npukit backend and without it.

The weights are seeded random numbers: the model says nothing sensible, but every token it
produces depends on every matmul, so the CPU's and the NPU's runs can be compared token for token
and by perplexity. The vocabulary is SentencePiece-style byte fallback only (<unk>, <s>, </s> and
the 256 byte tokens), so no tokenizer file is needed and any text tokenizes.

gguf-py (llama.cpp's GGUF writer) comes from the llama.cpp tree the tests build against:
    PYTHONPATH=LLAMA_SRC/gguf-py python3 tiny_llama_gguf.py OUT.gguf [--type f16|q8_0|q4_0]
"""
import argparse
import sys

import numpy as np

try:
    import gguf
except ImportError:
    sys.exit("tiny_llama_gguf: gguf-py not found: put a llama.cpp tree's gguf-py on PYTHONPATH")

# Shapes: every projection's K is a multiple of 32 (the Q8_0/Q4_0 block) and large enough that
# the backend's cost model puts it on the NPU when asked; the vocabulary (259) is not aligned,
# so the output projection exercises a ragged N.
N_EMBD, N_HEAD, N_FF, N_LAYER, N_CTX = 256, 4, 512, 2, 256
VOCAB = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
TOKEN_TYPES = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + \
    [gguf.TokenType.BYTE] * 256

QTYPES = {
    "f16": (gguf.GGMLQuantizationType.F16, gguf.LlamaFileType.MOSTLY_F16),
    "q8_0": (gguf.GGMLQuantizationType.Q8_0, gguf.LlamaFileType.MOSTLY_Q8_0),
    "q4_0": (gguf.GGMLQuantizationType.Q4_0, gguf.LlamaFileType.MOSTLY_Q4_0),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--type", choices=sorted(QTYPES), default="f16",
                    help="the matrices' type (norms stay f32)")
    ap.add_argument("--seed", type=int, default=20261205)
    # larger shapes for timing runs (bench/llama_decode.sh); the tests keep the defaults
    ap.add_argument("--embd", type=int, default=N_EMBD, help="embedding width (heads of 64)")
    ap.add_argument("--ff", type=int, default=N_FF, help="feed-forward width")
    ap.add_argument("--layers", type=int, default=N_LAYER)
    args = ap.parse_args()
    if args.embd % 64 or args.ff % 32 or args.layers < 1:
        sys.exit("tiny_llama_gguf: --embd must be a multiple of 64, --ff of 32, --layers >= 1")
    n_embd, n_ff, n_layer = args.embd, args.ff, args.layers
    n_head = N_HEAD if n_embd == N_EMBD else n_embd // 64
    qtype, ftype = QTYPES[args.type]
    rng = np.random.default_rng(args.seed)

    w = gguf.GGUFWriter(args.out, "llama")
    w.add_context_length(N_CTX)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(len(VOCAB))
    w.add_file_type(ftype)
    w.add_tokenizer_model("llama")
    w.add_token_list(VOCAB)
    w.add_token_scores([0.0] * len(VOCAB))
    w.add_token_types(TOKEN_TYPES)
    w.add_unk_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)

    def matrix(name, rows, cols):
        # scaled so that activations stay O(1) through the layers (1/sqrt(fan-in))
        m = (rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)
        data = gguf.quants.quantize(m, qtype)
        w.add_tensor(name, data, raw_dtype=qtype)

    def norm(name):
        w.add_tensor(name, (1.0 + 0.1 * rng.standard_normal(n_embd)).astype(np.float32))

    # the embedding is read by row (GET_ROWS), never multiplied: f32 keeps it exact on both sides
    w.add_tensor("token_embd.weight", rng.standard_normal((len(VOCAB), n_embd)).astype(np.float32))
    for i in range(n_layer):
        p = "blk.%d." % i
        norm(p + "attn_norm.weight")
        for proj in ("attn_q", "attn_k", "attn_v", "attn_output"):
            matrix(p + proj + ".weight", n_embd, n_embd)
        norm(p + "ffn_norm.weight")
        matrix(p + "ffn_gate.weight", n_ff, n_embd)
        matrix(p + "ffn_up.weight", n_ff, n_embd)
        matrix(p + "ffn_down.weight", n_embd, n_ff)
    norm("output_norm.weight")
    matrix("output.weight", len(VOCAB), n_embd)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
