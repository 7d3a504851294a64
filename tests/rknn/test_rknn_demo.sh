#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The compatible demo on the simulator: every type x B layout x A/C layout, then the edge
# shapes (M = 1, K at 32 and 10240, N at the alignment, K above 8192 with a segmented native
# B), then the refusals the documented API makes. Each run checks itself against its CPU
# reference and prints "... matmul result is correct".
demo="$1"
fail=0
run() { # expect(0|255) args...
    local want=$1; shift
    local out rc
    out=$("$demo" "$@" 2>&1); rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL ($rc, wanted $want): $*"; echo "$out" | tail -3; fail=1
    elif [ "$want" = 0 ] && ! grep -q "matmul result is correct" <<<"$out"; then
        echo "FAIL (no verdict): $*"; fail=1
    fi
}
align() { case $1 in 1|4) echo 16;; 2|3|9) echo 32;; 10) echo 64;; esac; }
for t in 1 2 3 4 9 10; do
    n=$(( $(align $t) * 3 ))
    for bl in 0 1 2; do
        for al in 0 1; do
            run 0 $t 5,96,$n $bl $al 1 0 0
        done
    done
    a=$(align $t)
    run 0 $t 1,32,$a 0 0 1 0 0          # the smallest shape
    run 0 $t 1,10240,$a 1 0 1 0 0       # K at its limit, segmented native B, M = 1
    run 0 $t 3,8224,$a 1 1 1 0 0        # just above one segment, native A and C
    run 0 $t 2,10240,$a 2 0 1 0 0       # transposed B at the K limit
    run 0 $t 17,64,$a 0 0 2 4 0         # pinned to core 2, two runs
    run 255 $t 4,10272,$a 0 0 1 0 0     # K above 10240
    run 255 $t 4,48,$a 0 0 1 0 0        # K not a multiple of 32
    run 255 $t 4,64,$(( a / 2 )) 0 0 1 0 0 # N below the alignment
done
# The same programs on the mainline rocket kernel interface (the simulator's rocket front end):
# the layer runs unchanged on either kernel.
for t in 1 2 3 4 9 10; do
    NPUKIT_RK_DEVICE=sim-rocket run 0 $t 5,96,$(( $(align $t) * 3 )) 1 0 1 0 0
done
for t in 5 6 7 8 11 12; do
    out=$("$demo" $t 4,64,128 2>&1)
    grep -q "unsupported matmul dtype .* in this platform" <<<"$out" && grep -q "ret=-5" <<<"$out" \
        || { echo "FAIL: type $t not refused with -5: $out"; fail=1; }
done
[ $fail = 0 ] && echo "ok"
exit $fail
