#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# npukit rk synth / decode / diff / regs from the command line.
set -u
cli=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
has() { grep -q -- "$2" "$1"; }

# synth: 112 u64 lines (108 body + 4 trailer), the capture's first entry.
"$cli" rk synth --dtype fp16 -m 4 -k 32 -n 16 > "$tmp/f16.u64"
ok test "$(wc -l < "$tmp/f16.u64")" = 112
ok test "$(head -1 "$tmp/f16.u64")" = 0x0201000000b11040
ok test "$(tail -1 "$tmp/f16.u64")" = 0x00810000000d0008

# decode reads u64 text, binary, and RKDUMP-style u32 word pairs identically.
"$cli" rk synth --dtype fp16 -m 4 -k 32 -n 16 --format bin > "$tmp/f16.bin"
ok test "$(wc -c < "$tmp/f16.bin")" = 896
"$cli" rk decode "$tmp/f16.u64" > "$tmp/d1"
"$cli" rk decode "$tmp/f16.bin" > "$tmp/d2"
awk '{v=substr($0,3); lo=substr(v,9,8); hi=substr(v,1,8); printf "[%03d] %s %s // regcmd\n", NR-1, lo, hi}' \
    "$tmp/f16.u64" > "$tmp/f16.rkdump"
"$cli" rk decode - < "$tmp/f16.rkdump" > "$tmp/d3"
ok cmp -s "$tmp/d1" "$tmp/d2"
ok cmp -s "$tmp/d1" "$tmp/d3"
ok test "$(wc -l < "$tmp/d1")" = 112
ok has "$tmp/d1" "CNA_CBUF_CON0 .*0x000000b1  WEIGHT_REUSE=0 DATA_REUSE=0 FC_DATA_BANK=0 WEIGHT_BANK=11 DATA_BANK=1"
ok has "$tmp/d1" "DPU_DATA_FORMAT .*OUT_PRECISION=5 IN_PRECISION=2"
ok has "$tmp/d1" "PC_OP_ENABLE"
# Unknown registers and targets are shown, never dropped.
printf '0x0201000000001234\n0x0301000000050040\n' > "$tmp/unknown.u64"
"$cli" rk decode "$tmp/unknown.u64" > "$tmp/d4"
ok test "$(wc -l < "$tmp/d4")" = 2
ok has "$tmp/d4" "CNA .*0x1234 UNKNOWN"
ok has "$tmp/d4" "T0301"
# Bad input: a clear error, non-zero exit.
printf 'abc' > "$tmp/bad.txt"
ok bash -c "! '$cli' rk decode '$tmp/bad.txt' 2>/dev/null"
ok bash -c "'$cli' rk decode '$tmp/bad.txt' 2>&1 | grep -q 'no regcmd entries'"
ok bash -c "! '$cli' rk decode /nonexistent 2>/dev/null"
# Text vs binary: a byte-order mark or a non-ASCII byte in a comment keeps a capture text.
{ printf '\357\273\277'; cat "$tmp/f16.u64"; } > "$tmp/bom.u64"
"$cli" rk decode "$tmp/bom.u64" > "$tmp/d5"
ok cmp -s "$tmp/d1" "$tmp/d5"
{ printf '# capture of the fp16 task \342\200\224 caf\303\251\n'; cat "$tmp/f16.rkdump"; } > "$tmp/utf8.rkdump"
"$cli" rk decode "$tmp/utf8.rkdump" > "$tmp/d6"
ok cmp -s "$tmp/d1" "$tmp/d6"
ok "$cli" rk diff "$tmp/bom.u64" "$tmp/utf8.rkdump"
# A file that is neither text nor a program is refused (never exit 0), saying why.
printf '# caf\351 latin-1 text, not a program\n' > "$tmp/latin1.txt"
ok bash -c "'$cli' rk decode '$tmp/latin1.txt' 2>&1 | grep -q 'neither text (not UTF-8, or control bytes) nor a binary program'"
head -c 4096 /dev/urandom > "$tmp/random.bin"
ok bash -c "! '$cli' rk decode '$tmp/random.bin' >/dev/null 2>&1"
ok bash -c "! '$cli' rk diff '$tmp/random.bin' '$tmp/f16.bin' >/dev/null 2>&1"
head -c 800 /dev/zero > "$tmp/zeros.bin"
ok bash -c "'$cli' rk decode '$tmp/zeros.bin' 2>&1 | grep -q 'no regcmd entries: 800 bytes of zeros'"
# Unbounded input is capped, and a directory says why it cannot be read.
ok bash -c "timeout 20 '$cli' rk decode /dev/zero 2>&1 | grep -q 'larger than 16777216 bytes, the limit of a program file'"
ok bash -c "timeout 20 '$cli' rk diff '$tmp/f16.bin' /dev/zero 2>&1 | grep -q 'larger than 16777216 bytes'"
ok bash -c "'$cli' rk decode '$tmp' 2>&1 | grep -q 'cannot read: Is a directory'"

# diff: identical -> 0; a changed schedule -> 1 with the fields named.
"$cli" rk synth --dtype fp16 -m 4 -k 32 -n 16 --format bin > "$tmp/same.bin"
ok "$cli" rk diff "$tmp/f16.u64" "$tmp/same.bin"
"$cli" rk synth --dtype fp16 -m 200 -k 512 -n 16 > "$tmp/big.u64"
"$cli" rk diff "$tmp/f16.u64" "$tmp/big.u64" > "$tmp/diff"; rc=$?
ok test "$rc" = 1
ok has "$tmp/diff" "first divergence at entry 0"
ok has "$tmp/diff" "CNA_CBUF_CON0 .*A=0x000000b1  B=0x00000048"
ok has "$tmp/diff" "DATA_BANK: 1 (0x1) -> "
ok has "$tmp/diff" "DATAIN_HEIGHT: 4 (0x4) -> 200"

# Limits: clear errors naming value and limit; --unchecked emits anyway.
ok bash -c "'$cli' rk synth --dtype fp16 -m 1 -k 10784 -n 16 2>&1 | grep -q 'K=10784 exceeds the single-op limit 10752'"
ok bash -c "'$cli' rk synth --dtype fp16 -m 1 -k 10784 -n 16 --unchecked | wc -l | grep -q 112"
ok bash -c "'$cli' rk synth --dtype int8 --out int16 -m 4 -k 512 -n 32 2>&1 | grep -q 'never completes'"
ok bash -c "'$cli' rk synth --dtype int8 --out int16 -m 4 -k 512 -n 32 --unchecked >/dev/null"
ok bash -c "'$cli' rk synth --dtype int8 --out fp16 -m 4 -k 512 -n 32 2>&1 | grep -q 'int8->fp16 output never completes.*facts J.10'"
ok bash -c "'$cli' rk synth --dtype fp16 -m 4 -k 64 -n 16 --sched 1 2>&1 | grep -q 'K >= 96'"
ok bash -c "'$cli' rk synth --dtype fp16 -m x -k 64 -n 16 2>&1 | grep -q \"rk synth: -m 'x' is not a decimal number\""
ok bash -c "'$cli' rk synth --dtype fp8 -m 1 -k 64 -n 16 2>&1 | grep -q 'fp8'"
ok bash -c "'$cli' rk synth --dtype int4 -m 1 -k 64 -n 64 --a 0xFFFFD000 --b 0xFFFFC000 --c 0xFFFFB000 --format text | grep -q 'cube mode'"
ok bash -c "'$cli' rk synth --dtype int4 -m 1 -k 64 -n 64 --mode line --format text | grep -q 'GROUP_LINE_OFF=1'"

# regs
ok bash -c "'$cli' rk regs | grep -q 'CNA_CBUF_CON0'"
ok bash -c "'$cli' rk regs DPU_DATA_FORMAT | grep -q '\[31:29\] OUT_PRECISION'"
ok bash -c "! '$cli' rk regs NOPE 2>/dev/null"

# plan: JSON with half-open ranges over the user's shape.
"$cli" rk plan --dtype int8 -m 1 -k 10784 -n 4096 --cores 3 --json > "$tmp/plan.json"
ok has "$tmp/plan.json" '^{"tasks":\[{"m0":0,"m1":1,"k0":0,"k1":10752,"n0":0,"n1":1344,"core":0,"sched":0,"cbuf_con0":177}'
ok has "$tmp/plan.json" '"k0":10752,"k1":10784'
ok test "$(grep -o '"core":2' "$tmp/plan.json" | wc -l)" = 2
ok bash -c "'$cli' rk plan --dtype fp16 -m 704 -k 256 -n 64 | grep -q '1 tasks, 1 K slice'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 1 -k 64 -n 16 --cores 9 2>&1 | grep -q -- '--cores=9 is outside 1..3'"
# An unvalidated SoC row says so on stderr; the JSON on stdout is unchanged.
"$cli" rk plan --dtype fp16 -m 4 -k 64 -n 64 --soc rk3576 --json > "$tmp/p3576" 2> "$tmp/e3576"
ok has "$tmp/e3576" "warning: rk3576 is not validated on a board (facts E.1 (cores); other numbers assumed from rk3588)"
ok has "$tmp/p3576" '^{"tasks":\[{"m0":0,"m1":4,'
ok bash -c "'$cli' rk plan --dtype fp16 -m 4 -k 64 -n 64 --soc rk3588 2>&1 >/dev/null | wc -c | grep -qx 0"
# --explain lists every axis of the candidates; a narrow N splits the rows over the cores; the
# chain and form enter the cost (submits of the busiest core).
"$cli" rk plan --dtype fp16 -m 1000 -k 1024 -n 32 --cores 3 --explain > "$tmp/explain"
ok has "$tmp/explain" '^  K slice last slice  split cores M tiles   tasks submits    NPU ms submit ms   host ms  total ms$'
ok has "$tmp/explain" '^candidates .* modelled (the timing model and the host model, not a measurement)'
ok has "$tmp/explain" '^  host task .* ns per task'
ok has "$tmp/explain" '^     1024 as it is        N     1 ceiling       6       6 '
ok has "$tmp/explain" '^     1024 as it is        M     3 even          6       2 '
ok has "$tmp/explain" 'cores split M; ceiling M tiles; .* in 2 submits'
ok bash -c "'$cli' rk plan --dtype int8 -m 1000 -k 600 -n 32 --cores 3 --submit rowoffset --chain 8 --explain | grep -q '^candidates at 8 tasks per submit'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 300 -k 5000 -n 9000 --cores 3 --chain 8 | grep -q 'in 2 submits'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 300 -k 5000 -n 9000 --submit fast 2>&1 | grep -q 'submission form fast is not one of'"
# The host model: counted, 300x5000x9000 slices K at 1024 (5 partials per output to add); a
# host that costs nothing takes the 512 slice the NPU alone prefers; rates by name; --cold costs
# the warm-ups of a fresh runtime; bad rates name themselves.
ok bash -c "'$cli' rk plan --dtype fp16 -m 300 -k 5000 -n 9000 --cores 3 | grep -q '^K slice 1024, the last zero-padded'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 300 -k 5000 -n 9000 --cores 3 --host-scale 0 | grep -q '^K slice 512, the last zero-padded.* host 0.000 ms'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 300 -k 5000 -n 9000 --cores 3 --host-ns task=0,pack=0,out=0,core=0 | grep -q '^K slice 512,'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 300 -k 5000 -n 9000 --cores 3 --host-ns task=1234 --explain | grep -q '^  host task   1234.000 ns per task'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 300 -k 5000 -n 9000 --cores 3 | grep -q 'warm-ups 0.000 ms'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 300 -k 5000 -n 9000 --cores 3 --cold | grep -Eq 'warm-ups [1-9][0-9.]* ms'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 4 -k 64 -n 16 --host-ns tsk=1 2>&1 | grep -q \"host rate 'tsk=1' is not name=value\""
ok bash -c "'$cli' rk plan --dtype fp16 -m 4 -k 64 -n 16 --host-ns out=-1 2>&1 | grep -q \"host rate 'out=-1': the value must be\""
ok bash -c "'$cli' rk plan --dtype fp16 -m 4 -k 64 -n 16 --host-scale x 2>&1 | grep -q \"host-scale 'x' is not a number\""
# repeated scales multiply; their product is bounded like one rate
ok bash -c "'$cli' rk plan --dtype fp16 -m 4 -k 64 -n 16 --host-scale 1e6 --host-scale 1e6 2>&1 | grep -q \"host-scale '1e6': host rate task 8e+09 ns times 1e+06 is more than 1e+12 ns\""
# --k-slice caps the K per task, rounded down to the 32-element K-tile.
ok bash -c "'$cli' rk plan --dtype fp16 -m 4 -k 4096 -n 16 --k-slice 1000 | grep -q '5 tasks, 5 K slices'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 4 -k 4096 -n 16 --k-slice 16 2>&1 | grep -q 'K slice limit 16 is below the 32-element K-tile'"
# rk regs: a name in any case, or an offset (every register there).
ok bash -c "'$cli' rk regs cna_cbuf_con0 | grep -q '^CNA       0x0201 0x1040 CNA_CBUF_CON0'"
ok bash -c "'$cli' rk regs 0x1040 | grep -q '\\[3:0\\] DATA_BANK'"
ok test "$("$cli" rk regs 0x0008 | grep -c '^PC')" = 2
ok bash -c "'$cli' rk regs 0x9999 2>&1 | grep -q \"no register at offset '0x9999'\""
ok bash -c "'$cli' rk regs NOPE 2>&1 | grep -q \"no register named 'NOPE'\""
# --scale/--shift: refused where they would be ignored or cut to the field.
ok bash -c "'$cli' rk synth --dtype fp16 -m 4 -k 32 -n 16 --scale 5 2>&1 | grep -q 'applies only to int8->int8 and int8->int16 outputs'"
ok bash -c "'$cli' rk synth --dtype int8 --out int8 -m 4 -k 512 -n 32 --unchecked --scale 3 --shift 4096 2>&1 | grep -q 'at most 4095'"
# Every rk command's --help prints its usage on stdout and succeeds.
for c in decode diff synth regs plan exec matmul bench info; do
  ok bash -c "'$cli' rk $c --help 2>/dev/null | grep -q '^usage: npukit rk $c'"
done
# Shapes near 2^32 once wrapped the padding: K divided by zero (SIGFPE), N planned 0 tasks.
ok bash -c "'$cli' rk plan --dtype fp16 -m 1 -k 4294967295 -n 16 2>&1 | grep -q -- '-k=4294967295 is outside 1..16777216'"
ok bash -c "'$cli' rk plan --dtype fp16 -m 1 -k 32 -n 4294967295 2>&1 | grep -q -- '-n=4294967295 is outside 1..16777216'"
# Row pitches beyond their register fields are refused, not cut to the low bits.
ok bash -c "'$cli' rk synth --dtype fp16 -m 4 -k 32 -n 16 --c-pitch 32772 2>&1 | grep -q \"beyond NOTCH_ADDR_1's 13 bits\""
ok bash -c "'$cli' rk synth --dtype fp16 -m 4 -k 32 -n 16 --a-pitch 4294967288 2>&1 | grep -q \"beyond LINE_STRIDE's 28 bits\""

# SDP stages: relu6 (BS ReLU + RELUX 6), batchnorm (BS MUL, BN ALU), immediates; the EW
# register operand and converter only unchecked; a bad --imm named.
"$cli" rk synth --ew relu6 --dtype fp16 -m 4 -n 8 --format text > "$tmp/relu6.txt"
ok has "$tmp/relu6.txt" "DPU_BS_CFG .*0x00000092"
ok has "$tmp/relu6.txt" "DPU_BS_RELUX_CMP_VALUE .*0x40c00000"
"$cli" rk synth --ew batchnorm --imm 2,-1 --dtype fp16 -m 4 -n 8 --format text > "$tmp/bn.txt"
ok has "$tmp/bn.txt" "DPU_BN_CFG .*0x00020050"
ok has "$tmp/bn.txt" "DPU_BN_ALU_CFG .*0xbf800000"
ok has "$tmp/bn.txt" "DPU_BS_MUL_CFG .*0x40000000"
ok bash -c "'$cli' rk synth --ew add --imm 3 --dtype int16 -m 4 -n 8 --format text | grep -q 'DPU_BS_ALU_CFG .*0x00000003'"
ok bash -c "'$cli' rk synth --ew add --imm 1.5 --ew-register --dtype fp16 -m 4 -n 8 2>&1 | grep -q 'unchecked only'"
ok bash -c "'$cli' rk synth --ew add --imm 1.5 --ew-register --dtype fp16 -m 4 -n 8 --unchecked --format text | grep -q 'DPU_EW_OP_VALUE_0 .*0x3fc00000'"
ok bash -c "'$cli' rk synth --ew mul --ew-cvt -3,5,2 --dtype int16 -m 4 -n 8 --unchecked --format text | grep -q 'DPU_EW_CVT_OFFSET_VALUE .*0xfffffffd'"
ok bash -c "'$cli' rk synth --ew add --imm x --dtype fp16 -m 4 -n 8 2>&1 | grep -q \"imm 'x' is not V or V,V2\""
ok bash -c "'$cli' rk synth --ew eql --dtype fp16 -m 4 -n 8 2>&1 | grep -q 'no source gives its output'"

# The PC-chained M-tile schedule: the spec's K=1024 values (R 48, 0x1040 0x48), the later tile's
# 0x2000, and a K without a capture named.
ok bash -c "'$cli' rk synth --dtype int8 -m 48 -k 1024 -n 64 --sched chain --format text | grep -q 'CNA_CBUF_CON0 .*0x00000048'"
ok bash -c "'$cli' rk synth --dtype int8 -m 48 -k 1024 -n 64 --sched chain --next-m-tile --format text | grep -q 'CNA_CBUF_CON0 .*0x00002048  WEIGHT_REUSE=1'"
ok bash -c "'$cli' rk synth --dtype int8 -m 48 -k 3072 -n 64 --sched chain 2>&1 | grep -q 'captured at K = 512'"
ok bash -c "'$cli' rk synth --dtype int8 -m 48 -k 1024 -n 64 --sched x 2>&1 | grep -q 'not auto, 0, 1 or chain'"

# --help on every command prints its usage and succeeds.
for c in synth decode diff regs plan; do
  ok bash -c "'$cli' rk $c --help | grep -q '^usage: npukit rk $c'"
done

# SDP programs: synth --ew, decode naming the EW/RDMA fields, diff between the two operand modes.
"$cli" rk synth --ew mul --dtype fp16 -m 64 -n 256 > "$tmp/sdp_pe.u64"
ok test "$(wc -l < "$tmp/sdp_pe.u64")" = 53
ok test "$(tail -1 "$tmp/sdp_pe.u64")" = 0x0081000000180008
"$cli" rk decode "$tmp/sdp_pe.u64" > "$tmp/sdp_pe.txt"
ok has "$tmp/sdp_pe.txt" "DPU_EW_CFG .*0x20800384  EW_CVT_TYPE=0 EW_CVT_ROUND=0 EW_DATA_MODE=2(per-element) EDATA_SIZE=2(two-byte)"
ok has "$tmp/sdp_pe.txt" "EW_OP_SRC=0(memory) EW_MUL_PRELU=0 EW_OP_TYPE=1(mul) EW_OP_BYPASS=0 EW_BYPASS=0"
ok has "$tmp/sdp_pe.txt" "DPU_RDMA_ERDMA_CFG .*0x8000000a  ERDMA_DATA_MODE=2(per-element) ERDMA_DATA_SIZE=2(two-byte) OV4K_BYPASS=1 ERDMA_DISABLE=0"
ok has "$tmp/sdp_pe.txt" "DPU_RDMA_FEATURE_MODE_CFG .*0x00017849  IN_PRECISION=2 BURST_LEN=15"
ok has "$tmp/sdp_pe.txt" "DPU_RDMA_SRC_DMA_CFG .*LINE_NOTCH_ADDR=0"
"$cli" rk synth --ew add --dtype fp16 -m 64 -n 256 --per-channel --format text > "$tmp/sdp_add.txt"
ok has "$tmp/sdp_add.txt" "EW_DATA_MODE=0(per-channel) .*EW_ALU_ALGO=2(sum) .*EW_OP_TYPE=0(alu)"
"$cli" rk synth --ew mul --dtype fp16 -m 64 -n 256 --per-channel > "$tmp/sdp_pc.u64"
"$cli" rk diff "$tmp/sdp_pe.u64" "$tmp/sdp_pc.u64" > "$tmp/sdp_diff"; rc=$?
ok test "$rc" = 1
ok has "$tmp/sdp_diff" "DPU_EW_CFG"
ok has "$tmp/sdp_diff" "DPU_RDMA_ERDMA_CFG"
"$cli" rk synth --ew relu --dtype int16 -m 4 -n 8 --notch 56 --format text > "$tmp/relu.txt"
ok has "$tmp/relu.txt" "DPU_RDMA_SRC_DMA_CFG .*LINE_NOTCH_ADDR=56"
ok has "$tmp/relu.txt" "DPU_RDMA_ERDMA_CFG .*ERDMA_DISABLE=1"
"$cli" rk synth --ew add --dtype fp32 -m 4 -n 8 2> "$tmp/err"; rc=$?
ok test "$rc" != 0
ok has "$tmp/err" "not an SDP precision"
"$cli" rk synth --ew relu --dtype int16 -m 1 -n 64 --feature int32 --rdma-channels 128 2> "$tmp/err"; rc=$?
ok test "$rc" != 0
ok has "$tmp/err" "under-fetch"
ok bash -c "'$cli' rk synth --ew relu --dtype int16 -m 1 -n 64 --feature int32 --rdma-channels 128 --unchecked > /dev/null"
"$cli" rk synth --ew nand --dtype fp16 -m 1 -n 8 2> "$tmp/err"; rc=$?
ok test "$rc" = 2

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
