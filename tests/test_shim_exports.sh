#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The LD_PRELOAD shim exports only the libc entry points it interposes: exactly the functions
# marked EXPORT in src/rksim/shim/*.c, and none of the npukit library built into it. Were the
# library's symbols visible, a program using npukit's own library under the shim would bind
# some calls to the shim's copy: its npk_last_error would read the shim's empty error state.
# Then, where a Python with numpy and an unsanitized libnpukit.so are at hand, that a library
# error under the shim still carries its message.
set -u
cli=$1 src=$2
dir=$(dirname "$cli")
shim=$dir/librksim_shim.so
[ -f "$shim" ] || { echo "SKIP: $shim not built"; exit 77; }
command -v nm >/dev/null || { echo "SKIP: nm not installed"; exit 77; }
fail=0
want=$(grep -ho '^EXPORT [^(]*(' "$src"/src/rksim/shim/*.c | sed -E 's/.*[ *]([A-Za-z_0-9]+)\($/\1/' | sort)
have=$(nm -D --defined-only "$shim" | awk '{print $3}' | sed 's/@.*//' | sort)
if [ "$want" != "$have" ]; then
  echo "the shim's exports differ from its EXPORT functions (< marked only, > exported only):"
  diff <(echo "$want") <(echo "$have") | grep '^[<>]' | head -20
  fail=1
fi
map=$(sed -n 's/^    \([A-Za-z_0-9]*\);$/\1/p' "$src/src/rksim/shim/shim.map" | sort)
[ "$map" = "$want" ] || { echo "src/rksim/shim/shim.map does not list exactly the EXPORT functions"; fail=1; }
echo "shim exports $(wc -l <<< "$have") symbols"

lib=$dir/libnpukit.so
py=""
for cand in "${NPUKIT_PYTHON:-}" python3 /usr/bin/python3; do
  [ -n "$cand" ] && "$cand" -c 'import numpy' >/dev/null 2>&1 && { py=$cand; break; }
done
if [ -n "$py" ] && [ -f "$lib" ] && ! ldd "$lib" | grep -q 'libasan\|libtsan'; then
  out=$(LD_PRELOAD=$shim NPUKIT_LIB=$lib PYTHONPATH=$src/python "$py" -c '
import npukit.rk as rk
from npukit import _lib
with rk.Runtime("sim") as rt:  # a refused setting: the library records why
    print("status", _lib.npk_rk_set_chain(rt._h, 0), _lib.npk_last_error().decode())
' 2>&1)
  case $out in
    *"status "*" "?*) echo "under the shim: $out" ;;
    *) echo "under the shim, the library's error has no message: $out"; fail=1 ;;
  esac
else
  echo "(no Python with numpy, or a sanitized library: the check under the shim is skipped)"
fi
exit $fail
