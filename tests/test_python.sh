#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package (python/): its pytest suite against the library this build made, then
# `pip install` of the package into a scratch directory and one call through the installed copy,
# and the installed package finding a staged `cmake --install` prefix by itself (pkg-config,
# then the soname), with NPUKIT_LIB unset.
# A sanitized library is loaded with its sanitizer runtimes preloaded, so the calls Python makes
# are checked like every other test's. Skips (77), saying why, without a Python 3 that has numpy
# and pytest.
set -u
cli=$1 src=$2
bin=$(cd "$(dirname "$cli")" && pwd)
lib=$bin/libnpukit.so
[ -e "$lib" ] || { echo "no $lib: build the shared library first" >&2; exit 1; }
py=
for cand in "${NPUKIT_PYTHON:-}" python3 /usr/bin/python3; do
  [ -n "$cand" ] || continue
  if "$cand" -c 'import numpy, pytest' >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -z "$py" ]; then
  echo "skipped: no Python 3 with numpy and pytest (apt-get install python3-numpy python3-pytest)"
  exit 77
fi
preload=$(ldd "$lib" | grep -oE '/[^ ]*lib(asan|ubsan)\.so[^ ]*' | tr '\n' ' ')
export NPUKIT_LIB=$lib NPUKIT_CLI=$cli NPUKIT_INCLUDE=$src/include NPUKIT_GEN_INCLUDE=$bin/include
# Python's own allocations are not ours to leak-check; a small quarantine keeps RSS figures real.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=4}
export PYTHONDONTWRITEBYTECODE=1
LD_PRELOAD="$preload" "$py" -m pytest -q -p no:cacheprovider "$src/python/tests" || exit 1

# The package as python/README.md says to install it: `make`, then `pip install ./python`
# (offline, Debian's setuptools: --no-build-isolation --no-index), in a scratch copy of the
# checkout whose build/libnpukit.so is this build's library. The installed copy must find that
# library by itself (NPUKIT_LIB unset), and the install must leave nothing in the checkout.
if "$py" -m pip --version >/dev/null 2>&1; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  co=$work/checkout
  mkdir -p "$co/build"
  cp -r "$src/python" "$co/python"
  rm -rf "$co/python/build" "$co/python/npukit.egg-info"
  cp "$src/CMakeLists.txt" "$co/"
  ln -s "$lib" "$co/build/libnpukit.so"
  if ! (cd "$co" && "$py" -m pip install -q --no-build-isolation --no-index --no-deps \
          --target "$work/site" ./python) > "$work/pip.log" 2>&1; then
    cat "$work/pip.log" >&2; echo "pip install ./python failed" >&2; exit 1
  fi
  left=$(cd "$co/python" && ls -d build *.egg-info 2>/dev/null)
  [ -z "$left" ] || { echo "pip install ./python left $left in the checkout" >&2; exit 1; }
  (cd "$work" && env -u NPUKIT_LIB LD_PRELOAD="$preload" PYTHONPATH="$work/site" "$py" -c '
import os, numpy as np, npukit
from npukit import _lib
assert npukit.__file__.startswith("'"$work"'/site"), npukit.__file__
assert _lib.lib_path() == os.path.realpath("'"$lib"'"), _lib.lib_path()
a = np.arange(6, dtype=np.int8).reshape(2, 3); b = np.ones((3, 4), np.int8)
assert (npukit.rk.matmul(a, b, device="sim") == a.astype(np.int32) @ b).all()
print("installed package:", npukit.__version__, "found", _lib.lib_path(), "ok")') || exit 1

  # The checkout's build comes first in the search: gone now, so the prefix below is found.
  rm -f "$co/build/libnpukit.so"

  # An installed prefix, found without NPUKIT_LIB: the library through pkg-config, then through
  # the dynamic linker's search for its soname, and the npukit command in the prefix's bin/.
  if [ -f "$bin/cmake_install.cmake" ] && command -v cmake >/dev/null &&
     command -v pkg-config >/dev/null; then
    stage=$work/stage
    for comp in lib dev cli; do
      cmake --install "$bin" --prefix "$stage" --component $comp > "$work/install.log" 2>&1 || {
        cat "$work/install.log" >&2; echo "cmake --install --component $comp failed" >&2; exit 1
      }
    done
    pcdir=$(dirname "$(find "$stage" -name npukit.pc | head -n 1)")
    libdir=$(dirname "$(find "$stage" -name 'libnpukit.so.0' | head -n 1)")
    # PATH keeps pkg-config but not the build's npukit; PKG_CONFIG_LIBDIR replaces the system's
    # .pc directories, so only the staged prefix (or, empty, nothing) can answer.
    tools=$(dirname "$(command -v pkg-config)"):/usr/bin:/bin
    # A package build's .pc names its final prefix (/usr), not where it was staged: there only
    # the soname route can reach the staged copy (scripts/check_debs.sh checks those .pc files).
    routes="pkg-config soname"
    if grep -qE '^prefix=/' "$pcdir/npukit.pc"; then
      echo "the .pc files name $(sed -n 's/^prefix=//p' "$pcdir/npukit.pc") (a package build):" \
           "the pkg-config route to a staged prefix is skipped"
      routes=soname
    fi
    for how in $routes; do
      if [ $how = pkg-config ]; then pcl=$pcdir lpath=; else pcl=$work/empty lpath=$libdir; fi
      (cd "$work" && env -u NPUKIT_LIB -u NPUKIT_CLI PATH="$tools" PKG_CONFIG_LIBDIR="$pcl" \
         PKG_CONFIG_PATH= LD_LIBRARY_PATH="$lpath" LD_PRELOAD="$preload" \
         PYTHONPATH="$work/site" "$py" -c '
import numpy as np, npukit, npukit.rk as rk, npukit.kt as kt
from npukit import _lib
stage = "'"$stage"'"
assert _lib.lib_path().startswith(stage + "/"), _lib.lib_path()
assert kt.cli_path() == stage + "/bin/npukit", kt.cli_path()
a = np.arange(6, dtype=np.int8).reshape(2, 3); b = np.ones((3, 4), np.int8)
assert (rk.matmul(a, b, device="sim") == a.astype(np.int32) @ b).all()
print("installed prefix through '$how':", _lib.lib_path(), "ok")') || exit 1
    done
  else
    echo "no cmake install rules or pkg-config: the installed-prefix check is skipped"
  fi
else
  echo "pip not found: the install check is skipped (apt-get install python3-pip)"
fi
