#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layers of the source tree, checked over the #include lines:
#   - a file under src/rk/hw, src/kt/hw or a simulator (src/rksim, src/ktsim) includes only
#     system headers, src/common and the public common headers, the hardware layer of its own
#     accelerator (src/<x>/hw and the public headers that describe that hardware) and, for a
#     simulator, its own files and public header: never a driver header;
#   - a public header of a hardware layer includes only common and hardware headers;
#   - nothing under src/ includes anything from tools/;
#   - the RK runtime's request, weights, layout and matmul files depend one way;
#   - a KohakuTPU unit type of the library is its instruction word under src/kt/hw/units, its
#     behaviour in src/ktsim/unit_KIND.c and a row of the unit table, and nothing else holds them;
#   - a SoC is one row: no RK3588 constant outside src/rk/hw (no identifier naming RK3588, no
#     per-SoC number written as a literal or a timing macro, none of the RK3588 row's numbers as
#     an array size, a comparison or the value of a per-SoC name), the CBUF geometry no macro,
#     the geometry and timing formulas (rk_cbuf.h, rk_timing.h) take the row, and test_rk_soc
#     runs them on rows with other geometry and clock.
# The KohakuTPU rules apply once src/kt/hw exists (until then its hardware description still
# lives in the driver and every ktsim file would be reported).
# Usage: test_layers.sh CLI SOURCE_DIR   (the CLI argument is unused)
set -u
src_dir=${2:-$(dirname "$0")/..}
cli_dir=$(cd "$(dirname "${1:-.}")" && pwd) # the build beside the CLI (the circle check)
cd "$src_dir" || exit 2

# Every public header's layer. A header a checked file includes must be listed here.
declare -A layer=(
    [status.h]=common [fp16.h]=common [version.h]=common [export.h]=common [install_dirs.h]=common
    [rk_regs.h]=rk-hw [rk_regs.def]=rk-hw [rk_types.h]=rk-hw [rk_soc.h]=rk-hw
    [rk_regcmd.h]=rk-hw [rk_outstage.h]=rk-hw [rknpu_uapi.h]=rk-hw [rocket_uapi.h]=rk-hw
    [rk_sdp_hw.h]=rk-hw [rk_act_hw.h]=rk-hw
    [rksim.h]=rk-sim
    [rk.h]=rk-driver [rk_decode.h]=rk-driver
    [rk_plan.h]=rk-driver
    [rk_reference.h]=rk-driver [rk_synth.h]=rk-driver
    [kt_flit.h]=kt-hw [kt_regs.h]=kt-hw [kt_transport.h]=kt-hw [kt_mover_hw.h]=kt-hw [kt_vec.h]=kt-hw
    [kt_saxpy.h]=kt-hw [kt_mat.h]=kt-hw [kt_test_unit.h]=kt-hw
    [kt_words.h]=kt-hw [kt_board.h]=kt-hw
    [ktsim.h]=kt-sim [ktsim_unit.h]=kt-sim
    [kt.h]=kt-driver [kt_hostprog.h]=kt-driver [kt_vec_job.h]=kt-driver
    [kt_mover.h]=kt-driver [kt_rv64_load.h]=kt-driver
    [kt_open.h]=kt-driver
)

# Known violations on their way out: "file include" pairs reported as pending, not failures.
pending=()
declare -A pending_seen=()

fail=0
report() {
    echo "layer violation: $1" >&2
    fail=1
}

# The layer of the file an include line names, seen from file $1: "tools" for anything in
# tools/, the table's entry for a public header, the directory's layer for a source header.
include_layer() {
    local from=$1 name=$2 path
    if [[ $name == npukit/* ]]; then
        echo "${layer[${name#npukit/}]:-unlisted}"
        return
    fi
    if [[ -e $(dirname "$from")/$name ]]; then
        path=$(realpath --relative-to=. "$(dirname "$from")/$name")
    elif [[ -e src/$name ]]; then
        path=src/$name
    elif [[ -e tools/$name || $name == tools/* ]]; then
        echo tools
        return
    else
        echo unknown
        return
    fi
    case $path in
    tools/*) echo tools ;;
    src/common/*) echo common ;;
    src/rk/hw/*) echo rk-hw ;;
    src/kt/hw/*) echo kt-hw ;;
    src/rksim/*) echo rk-sim ;;
    src/ktsim/*) echo kt-sim ;;
    src/rk/*) echo rk-driver ;;
    src/kt/*) echo kt-driver ;;
    *) echo unknown ;;
    esac
}

# The quoted includes of a file, one per line.
includes() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"; }

# check FILE ALLOWED_LAYER...: every quoted include of FILE is in one of the allowed layers.
check() {
    local file=$1 inc l ok a
    shift
    while read -r inc; do
        [[ -z $inc ]] && continue
        l=$(include_layer "$file" "$inc")
        if [[ $l == unlisted ]]; then
            report "$file includes $inc, a public header whose layer tests/test_layers.sh does not list"
            continue
        fi
        ok=0
        for a in "$@"; do [[ $l == "$a" ]] && ok=1; done
        ((ok)) && continue
        if [[ " ${pending[*]/%/|} " == *" $file $inc|"* ]]; then
            echo "pending: $file includes $inc (layer $l)"
            pending_seen["$file $inc"]=1
            continue
        fi
        report "$file includes $inc (layer $l; allowed here: $*)"
    done < <(includes "$file")
}

# Nothing in the library includes the command's files.
while read -r f; do
    while read -r inc; do
        [[ $(include_layer "$f" "$inc") == tools ]] && report "$f includes $inc from tools/"
    done < <(includes "$f")
done < <(find src -name '*.[ch]')

checked=0
for x in rk kt; do
    if [[ ! -d src/$x/hw ]]; then
        echo "$x: src/$x/hw does not exist yet: its layer rules are not checked"
        continue
    fi
    while read -r f; do
        check "$f" common $x-hw
        checked=$((checked + 1))
    done < <(find src/$x/hw -name '*.[ch]')
    while read -r f; do
        check "$f" common $x-hw $x-sim
        checked=$((checked + 1))
    done < <(find src/${x}sim -name '*.[ch]')
    for h in "${!layer[@]}"; do
        if [[ ${layer[$h]} == "$x-hw" && -e include/npukit/$h ]]; then
            check "include/npukit/$h" common $x-hw
            checked=$((checked + 1))
        fi
    done
done
# A SoC is one row (src/rk/hw/soc.c): no file outside src/rk/hw names an RK3588 constant (an
# identifier with RK3588 in it, outside comments and strings), no public header defines the
# CBUF's geometry as a macro, and the formulas that depend on that geometry take the row.
while read -r f; do
    # strip /* */ comments on one line, // comments and string literals, then look for the name
    hits=$(sed -e 's:/\*.*\*/::g' -e 's:/\*.*$::' -e 's://.*$::' -e 's/"\([^"\\]\|\\.\)*"//g' "$f" |
        grep -nE '\b[A-Za-z_0-9]*RK3588[A-Za-z_0-9]*\b' | grep -vE '^[0-9]+:[[:space:]]*\*')
    [[ -n $hits ]] && report "$f names an RK3588 constant outside src/rk/hw: $hits"
    checked=$((checked + 1))
done < <(find src tools -name '*.[ch]' -not -path 'src/rk/hw/*')
if grep -nE '#define[[:space:]]+NPK_RK_[A-Z_]*(BANK|CBUF)[A-Z_]*[[:space:]]+[0-9]' include/npukit/rk_*.h |
    grep -v 'NPK_RK_CBUF_TEMPLATE\|NPK_RK_CBUF_FLOOR'; then
    report "a public header defines the CBUF geometry as a macro (it is a field of the SoC row)"
fi
for fn in npk_rk_cbuf_con0_banks npk_rk_cbuf_split npk_rk_sched1_rows npk_rk_m_ceiling \
    npk_rk_bank_elems npk_rk_sched_choose npk_rk_tile_elems npk_rk_rows_per_tile \
    npk_rk_feature_grains; do
    grep -qE "\b$fn\(const npk_rk_soc \*soc," src/rk/hw/rk_cbuf.h src/rk/program/rk_sched.h ||
        report "$fn does not take the SoC row (const npk_rk_soc *soc) as its first parameter"
done
# Every function the CBUF and timing headers declare takes the row first, except the ones below
# that hold for any geometry: the spec's measured sched-1 fit and the register value it gives
# (0x1040 as measured on the 12-bank part), the schedule's validity rules and the batch rule's
# gate (per precision).
geometry_free=" npk_rk_sched_fit_base npk_rk_sched_fit_slope npk_rk_sched_fit_value npk_rk_cbuf_con0 \
npk_rk_sched_valid npk_rk_batch_gate "
for h in src/rk/hw/rk_cbuf.h src/rk/hw/rk_timing.h; do
    formulas=0
    while read -r decl; do
        fn=$(sed -E 's/.*\b(npk_rk_[a-z0-9_]+)\(.*/\1/' <<<"$decl")
        formulas=$((formulas + 1))
        [[ $geometry_free == *" $fn "* ]] && continue
        [[ $decl == *"$fn(const npk_rk_soc *soc"* ]] ||
            report "$h: $fn does not take the SoC row (const npk_rk_soc *soc) first"
    done < <(tr '\n' ' ' <"$h" | sed 's/;/;\n/g' | grep -oE '\b(uint32_t|int|bool|double) npk_rk_[a-z0-9_]+\([^)]*\)')
    ((formulas > 0)) || report "$h: no function declaration found (has the header moved?)"
    checked=$((checked + 1))
done
# Beyond the signatures, the formulas read the row: tests/test_rk_soc.c runs them on modified
# copies of the RK3588 row and checks the results move as the arithmetic says. Each geometry and
# clock field must be varied there, so a formula that ignored one would fail that test.
for field in cbuf_banks bank_bytes cbuf_entry_bytes clock_mhz; do
    grep -qE "^[[:space:]]*[a-z_0-9]+\.$field = [0-9]+;" tests/test_rk_soc.c ||
        report "tests/test_rk_soc.c runs no formula on a row with another $field"
done
# No per-SoC timing number is a macro: the clock, floors, DMA rate and efficiencies are fields of
# the row (rk_soc.h), so the planner and the simulator cannot read two different values.
if grep -nE '#define[[:space:]]+(NPK_RK_T_|RKSIM_T_)[A-Z_]*' include/npukit/rk_*.h src/rksim/*.h; then
    report "a header defines a per-SoC timing number as a macro (it is a field of the SoC row)"
fi
# ... nor a literal in the RK driver, simulator or commands: RK3588's hardware version, its model
# clock in Hz, its DMA rate, or a clock or frequency assigned a number.
while read -r f; do
    hits=$(sed -e 's:/\*.*\*/::g' -e 's:/\*.*$::' -e 's://.*$::' -e 's/"\([^"\\]\|\\.\)*"//g' "$f" |
        grep -nE '\b0x46495245u?\b|\b(600(\.0)?e6|8\.6e9)\b|(freq|clock)[a-z_]*[[:space:]]*=[[:space:]]*[0-9]' |
        grep -vE '^[0-9]+:[[:space:]]*\*')
    [[ -n $hits ]] && report "$f writes a per-SoC number outside src/rk/hw (read it from the SoC row): $hits"
    checked=$((checked + 1))
done < <(find src/rk src/rksim src/rknn -name '*.[ch]' -not -path 'src/rk/hw/*'; find tools -name 'rk_*.[ch]')
# ... nor one of the RK3588 row's numbers written where the code holds a per-SoC quantity: an
# array sized by it, a comparison with a name that says core, bank, CBUF, entry, clock, grain or
# limit, or such a name defined or assigned as it (enum, #define, initialiser). The numbers are
# read from the row itself, so a changed row changes what is looked for. Plain uses of the same
# numbers (an operand triple of 3, a 64-byte name buffer, a 64-row group) do not match; a line
# that must write one of them anyway says why with a "soc-literal:" comment (none does today;
# the check prints each one it lets through). Known ones on their way out, "file: line text",
# are reported as pending, not failures:
soc_literal_pending=()
declare -A soc_pending_seen=()
row=$(awk '/\.name = "rk3588"/ {on = 1} on && /\.sources/ {exit} on' src/rk/hw/soc.c)
row_value() { sed -nE "s/.*\.$1 = ([0-9a-fA-Fx]+)u?,.*/\1/p" <<<"$row" | head -n 1; }
soc_values=() arr_values=() # every form of each number: decimal and hex
for field in cores cbuf_banks bank_bytes cbuf_entry_bytes clock_mhz hw_version k_max_single \
    n_max m_max grains_max; do
    v=$(row_value "$field")
    if [[ -z $v ]]; then
        report "src/rk/hw/soc.c: the rk3588 row has no .$field (has the row moved?)"
        continue
    fi
    soc_values+=("$((v))" "$(printf '0x%x' "$((v))")")
    # the entry size (64) sizes too many plain buffers to count as an array size
    [[ $field == cbuf_entry_bytes ]] || arr_values+=("$((v))" "$(printf '0x%x' "$((v))")")
done
soc_alt=$(IFS='|'; echo "(${soc_values[*]})[uUlL]*")
arr_alt=$(IFS='|'; echo "(${arr_values[*]})[uUlL]*")
# a name that says it holds a per-SoC quantity (case-insensitive)
soc_name='[A-Za-z_0-9]*(core|bank|cbuf|entr(y|ies)|clock|freq|mhz|grain|hw_?ver|k_?max|max_?k|n_?max|max_?n|m_?max|max_?m|soc)[A-Za-z_0-9]*'
soc_name_ere="([A-Za-z_0-9]+(->|\.))*$soc_name"
# Every file's code in one pass (comments and strings stripped as above), each line as
# "file:line:code", then the three shapes; the few matches are then looked at one by one.
soc_literal_hits() {
    local at='^[^:]+:[0-9]+:'
    awk '{ l = $0; gsub(/\/\*.*\*\//, "", l); sub(/\/\*.*$/, "", l); sub(/\/\/.*$/, "", l)
           gsub(/"([^"\\]|\\.)*"/, "", l); print FILENAME ":" FNR ":" l }' "$@" |
        grep -iE "\b${soc_name_ere}[[:space:]]*([<>]=?|[=!]=)[[:space:]]*\(?[[:space:]]*$soc_alt\b|\b${soc_alt}[[:space:]]*([<>]=?|[=!]=)[[:space:]]*$soc_name_ere\b|\b${soc_name}[[:space:]]*=[[:space:]]*\(?[[:space:]]*$soc_alt\b|#[[:space:]]*define[[:space:]]+${soc_name}[[:space:]]+\(?$soc_alt\b|${at}[[:space:]]*((static|const|volatile|unsigned|signed|struct|enum)[[:space:]]+)*[A-Za-z_][A-Za-z_0-9]*[[:space:]*]+[A-Za-z_][A-Za-z_0-9]*[[:space:]]*\[[[:space:]]*${arr_alt}[[:space:]]*\]" |
        grep -vE "${at}[[:space:]]*\*" |
        # a char array is text; a return or case is no declaration
        grep -viE "${at}[[:space:]]*((static|const)[[:space:]]+)*char[[:space:]]" |
        grep -vE "${at}[[:space:]]*(return|case|else|goto)\b" |
        while IFS= read -r hit; do
            local f=${hit%%:*} rest=${hit#*:}
            local n=${rest%%:*} code=${rest#*:}
            # an array whose initialiser lists its elements is sized by the list, not the SoC,
            # unless its name says core or bank
            if [[ $code =~ ^[[:space:]]*((static|const|volatile|unsigned|signed|struct)[[:space:]]+)*[A-Za-z_][A-Za-z_0-9]*[[:space:]*]+[A-Za-z_][A-Za-z_0-9]*[[:space:]]*\[[^]]*\][^=]*=[[:space:]]*\{ ]] &&
                ! grep -qiE "${soc_name}[[:space:]]*\[" <<<"$code"; then
                continue
            fi
            if sed -n "${n}p" "$f" | grep -q 'soc-literal:'; then
                echo "allowed: $f:$n ($(sed -nE "${n}s/.*soc-literal:[[:space:]]*([^*]*).*/\1/p" "$f"))" >&2
                continue
            fi
            echo "$hit"
        done
}
soc_files=$(find src/rk src/rksim src/rknn ggml -name '*.[ch]' -not -path 'src/rk/hw/*'
    find tools -name '*.[ch]' -not -name 'kt_*' -not -name 'demo_kt.c')
# shellcheck disable=SC2086 # one path a word (the tree's paths hold no spaces)
all_hits=$(soc_literal_hits $soc_files)
for p in "${soc_literal_pending[@]}"; do
    f=${p%%: *} text=${p#*: } left=
    while IFS= read -r h; do
        if [[ -n $h && $h == "$f:"* && $h == *"$text"* ]]; then
            [[ -n ${soc_pending_seen[$p]:-} ]] || echo "pending: $p"
            soc_pending_seen[$p]=1
        elif [[ -n $h ]]; then
            left+=$h$'\n'
        fi
    done <<<"$all_hits"
    all_hits=${left%$'\n'}
done
while read -r f; do
    [[ -n $f ]] || continue
    report "$f writes a number of the rk3588 row outside src/rk/hw (read it from the SoC row or a bound in src/rk/hw; or say why with soc-literal:): $(grep "^$f:" <<<"$all_hits" | cut -d: -f2-)"
done < <(cut -d: -f1 <<<"$all_hits" | sort -u)
checked=$((checked + $(wc -w <<<"$soc_files")))
# A KohakuTPU unit type of the library is its two files and one table line: the instruction
# word as hardware (src/kt/hw/units/KIND.c: the layout the simulator names and the encoder the
# driver builds with) and its behaviour (src/ktsim/unit_KIND.c: datapath, faults, timing row),
# registered by a line of builtin[] in src/ktsim/unit_types.c. No unit's layout or encoder sits
# in the shared codec or the driver.
if [[ -d src/kt/hw/units ]]; then
    kinds=()
    for f in src/ktsim/unit_*.c; do
        k=${f#src/ktsim/unit_}
        k=${k%.c}
        [[ $k == types ]] || kinds+=("$k")
    done
    for f in src/kt/hw/units/*.c; do
        k=$(basename "$f" .c)
        [[ -e src/ktsim/unit_$k.c ]] || report "$f: a unit type's hardware without its simulator file src/ktsim/unit_$k.c"
    done
    for k in "${kinds[@]}"; do
        sim=src/ktsim/unit_$k.c hw=src/kt/hw/units/$k.c
        [[ -e $hw ]] || { report "$sim: its instruction word is not in $hw"; continue; }
        sed -n '/^static const ksim_unit_ops \*const builtin\[\] = {/,/};/p' src/ktsim/unit_types.c |
            grep -qE "&ksim_unit_$k\b" ||
            report "$sim: ksim_unit_$k is not a row of builtin[] in src/ktsim/unit_types.c"
        layout=$(sed -nE 's/^[[:space:]]*\.layout = (kt_layout_[a-z0-9_]+),.*/\1/p' "$sim")
        [[ -n $layout ]] || { report "$sim: the unit names no .layout"; continue; }
        grep -qE "^const kt_field $layout\[\] = " "$hw" || report "$sim: its layout $layout is not defined in $hw"
        # nowhere else: not in the codec, the driver or another unit's file
        while read -r other; do
            [[ $other == "$hw" ]] || report "$other defines $layout (it belongs in $hw)"
        done < <(grep -lE "^const kt_field $layout\[\] = " src/kt/*.c src/kt/hw/*.c src/kt/hw/units/*.c src/ktsim/*.c 2>/dev/null)
        checked=$((checked + 2))
    done
    while read -r other; do
        report "$other defines a unit instruction encoder (it belongs in its unit's file under src/kt/hw/units)"
    done < <(grep -lE '^npk_status kt_[a-z0-9]+_inst\(' src/kt/*.c src/kt/hw/*.c src/ktsim/*.c 2>/dev/null)
fi
# The RK runtime's files depend one way, each on the ones before it in this list (a file's
# functions are declared in its own header): the plan request, the submission form weighed by
# cost, the weights' placement, the weights, the layouts and bound weights, the matmul spine, the native-layout matmul.
# A file including the header of one after it would make two files need each other again.
runtime_order=(runtime_request runtime_form_choice runtime_placement runtime_weights runtime_layout runtime_matmul runtime_matmul_layout)
for ((i = 0; i < ${#runtime_order[@]}; i++)); do
    f=src/rk/runtime/${runtime_order[i]}.c
    [[ -e $f ]] || { report "$f (of the runtime's one-way order) is missing"; continue; }
    for ((j = i + 1; j < ${#runtime_order[@]}; j++)); do
        grep -qE "^#include \"${runtime_order[j]}\.h\"" "$f" &&
            report "$f includes ${runtime_order[j]}.h: the runtime's files depend one way (${runtime_order[*]})"
    done
    checked=$((checked + 1))
done
# The rooms of the RK driver (src/rk/*/README.md) depend one way: a room includes only rooms
# below it (program and check, then layout, plan, device, runtime), never one beside or above.
declare -A room_rank=([hw]=0 [program]=1 [check]=1 [layout]=2 [plan]=3 [device]=4 [runtime]=5)
for dir in src/rk/*/; do
    room=$(basename "$dir")
    [[ -n ${room_rank[$room]:-} ]] || { report "src/rk/$room is not a known room (add it to room_rank and give it a README.md)"; continue; }
    [[ $room == hw || -e $dir/README.md ]] || report "src/rk/$room has no README.md saying what lives there"
    for f in "$dir"*.[ch]; do
        [[ -e $f ]] || continue
        while read -r inc; do
            to=$(cut -d/ -f2 <<<"$inc")
            [[ $to == "$room" ]] && continue
            if [[ -z ${room_rank[$to]:-} ]] || ((room_rank[$to] >= room_rank[$room])); then
                report "$f includes $inc: the room $room may include only rooms below it"
            fi
        done < <(grep -oE '^#include "rk/[a-z]+/' "$f" | sed -E 's/^#include "//')
        checked=$((checked + 1))
    done
done
for p in "${pending[@]}"; do
    [[ -n ${pending_seen[$p]:-} ]] || echo "note: the pending exception '$p' no longer occurs: remove it"
done
for p in "${soc_literal_pending[@]}"; do
    [[ -n ${soc_pending_seen[$p]:-} ]] || echo "note: the pending SoC literal '$p' no longer occurs: remove it"
done
# ---- No circles ----
# No two parts of the library need each other, directly or round a longer loop: a part is a
# source file and its header, named without .c/.h (src/ktsim/sim). Two graphs, each must be a
# one-way order (tsort names the members of every loop it finds):
#   - the include graph under src/: part A -> part B when a file of A includes a header of B;
#   - the link graph of the library's objects in the build beside the CLI: A -> B when A's object
#     uses a symbol that B's defines. A header declaring several files' functions (ktsim.h) hides
#     such a pair from the include graph; the objects do not.
circle_edges_includes() {
    local f inc d
    while IFS= read -r f; do
        d=${f%/*}
        while IFS= read -r inc; do
            if [[ -f $d/$inc ]]; then
                inc=$d/$inc
                [[ $inc == *../* ]] && inc=$(realpath -m --relative-to=. "$inc")
            elif [[ -f src/$inc ]]; then
                inc=src/$inc
            else
                continue # a public or system header: no part of src/
            fi
            [[ ${f%.*} != "${inc%.*}" ]] && echo "${f%.*} ${inc%.*}"
        done < <(includes "$f")
    done < <(find src -name '*.[ch]' | sort)
}
circle_edges_objects() {
    local objs=$1 o
    (cd "$objs" && for o in $(find src -name '*.o' | sort); do
        nm --defined-only -g "$o" | awk -v f="$o" '$2 ~ /^[TDBRVW]$/ {print $3, f}'
    done) | sort -k1,1 > "$circle_tmp/defs"
    (cd "$objs" && for o in $(find src -name '*.o' | sort); do
        nm -u "$o" | awk -v f="$o" '{print $2, f}'
    done) | sort -k1,1 > "$circle_tmp/uses"
    join "$circle_tmp/uses" "$circle_tmp/defs" | awk '$2 != $3 {print $2, $3}' | sed 's/\.c\.o//g'
}
# Known circles on their way out, "partA partB" as tsort names a loop's members, reported as
# pending rather than failing (none today).
circle_pending=()
circle_check() { # circle_check GRAPH_NAME EDGE_FILE
    local loop members p
    [[ -s $2 ]] || { report "circles: the $1 graph has no edges"; return; }
    # one loop per block of tsort's report
    while IFS= read -r loop; do
        [[ -n $loop ]] || continue
        members=$(tr ' ' '\n' <<<"$loop" | sort | tr '\n' ' ')
        for p in "${circle_pending[@]}"; do
            if [[ $members == "$(tr ' ' '\n' <<<"$p" | sort | tr '\n' ' ')" ]]; then
                echo "pending: circle in the $1 graph: $loop"
                continue 2
            fi
        done
        report "circle in the $1 graph, these parts need each other: $loop"
    done < <(tsort "$2" 2>&1 >/dev/null | sed 's/^tsort: //' |
        awk '/input contains a loop/ { if (l != "") print l; l = ""; next } { l = l (l == "" ? "" : " ") $0 } END { if (l != "") print l }')
    checked=$((checked + 1))
}
# The KohakuTPU machine kinds are rows of backends (src/kt/machine_backend.h): machine.c picks a
# row from the spec and names no kind.
if grep -n 'KT_MACHINE_[A-Z]' src/kt/machine.c >&2; then
    report "src/kt/machine.c names a machine kind: what a kind does belongs in its backend row"
fi
checked=$((checked + 1))

circle_tmp=$(mktemp -d)
circle_edges_includes | sort -u > "$circle_tmp/includes"
circle_check include "$circle_tmp/includes"
circle_objs=$cli_dir/CMakeFiles/npukit_objs.dir
if [[ -d $circle_objs/src ]]; then
    circle_edges_objects "$circle_objs" | sort -u > "$circle_tmp/objects"
    circle_check "link (library objects)" "$circle_tmp/objects"
else
    report "circles: no library objects at $circle_objs (pass the CLI of a CMake build)"
fi
rm -rf "$circle_tmp"

# A check that looked at nothing proves nothing.
((checked > 0)) || report "no file was checked (run from the source tree?)"
((fail)) && exit 1
echo "layers hold ($checked files checked)"
