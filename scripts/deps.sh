#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks what the build needs. As root it installs what is missing with apt-get (and says so);
# otherwise it names the command to run. cJSON and xxHash are required; OpenBLAS is optional: without it the
# simulator uses its portable arithmetic.
set -u
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
# build-essential brings the compiler, the C library headers and make together.
{ command -v cc >/dev/null 2>&1 && [ -e /usr/include/stdio.h ]; } || need+=(build-essential)
# cJSON reads and writes the card daemon protocol's JSON frames.
[ -e /usr/include/cjson/cJSON.h ] || need+=(libcjson-dev)
# xxHash's XXH3 checks weights bound to a buffer for changes at every call.
[ -e /usr/include/xxhash.h ] || need+=(libxxhash-dev)
optional=()
# OpenBLAS counts as present only when a program that includes cblas.h and calls cblas_sgemm
# compiles and links against -lopenblas, as the build does: a cblas.h header without the library
# (or the runtime .so.0 without the -dev link) is not enough.
have_openblas() {
  local cc=${CC:-cc} dir rc arch
  command -v "$cc" >/dev/null 2>&1 || return 1
  arch=$("$cc" -print-multiarch 2>/dev/null || true)
  dir=$(mktemp -d) || return 1
  printf '%s\n' '#include <cblas.h>' \
    'int main(void) { float x = 1; cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,' \
    '  1, 1, 1, 1.0f, &x, 1, &x, 1, 0.0f, &x, 1); return x == 1 ? 0 : 1; }' > "$dir/t.c"
  "$cc" -I/usr/include/openblas ${arch:+-I/usr/include/$arch/openblas-pthread} "$dir/t.c" \
    -o "$dir/t" -lopenblas >/dev/null 2>&1
  rc=$?
  rm -rf "$dir"
  return $rc
}
# Without a compiler the check cannot run: ask for the library with the compiler.
if [ ${#need[@]} -gt 0 ] || ! have_openblas; then optional+=(libopenblas-dev); fi
# The RV64 programs and their QEMU cross-check; without them those tests skip and say so.
command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 || optional+=(gcc-riscv64-unknown-elf)
[ -e /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] || optional+=(picolibc-riscv64-unknown-elf)
command -v riscv64-linux-gnu-gcc >/dev/null 2>&1 || optional+=(gcc-riscv64-linux-gnu)
command -v qemu-riscv64 >/dev/null 2>&1 || optional+=(qemu-user)
# The Python package's tests (python/): numpy and pytest for Debian's python3, pip for the
# install check; without them those tests skip and say so.
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || optional+=(python3-numpy)
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || optional+=(python3-pytest)
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || optional+=(python3-pip)
# The Debian packages (scripts/debs.sh, debian/control's Build-Depends): debhelper and the
# Python packaging tools; without them debs.sh stops with dpkg-checkbuilddeps's list.
command -v dh > /dev/null 2>&1 || optional+=(debhelper)
[ -e /usr/share/perl5/Debian/Debhelper/Buildsystem/pybuild.pm ] || optional+=(dh-python)
dpkg-query -W -f='${db:Status-Status}' pybuild-plugin-pyproject 2>/dev/null | grep -qx installed ||
  optional+=(pybuild-plugin-pyproject python3-all python3-setuptools)
# The ONNX runner's tests: python3-onnx reads the models, libonnx-testdata is ONNX's own tests.
/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1 || optional+=(python3-onnx)
[ -d /usr/share/libonnx-testdata/data/node ] || optional+=(libonnx-testdata)
# NPUKIT_DEPS_REPORT=1: say what is missing, install nothing.
if [ "${NPUKIT_DEPS_REPORT:-0}" = 1 ]; then
  echo "npukit: missing: ${need[*]:-none}; optional missing: ${optional[*]:-none}"
  exit 0
fi
[ ${#need[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "npukit: installing ${need[*]} ${optional[*]} with apt-get (running as root)"
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq && apt-get install -y -qq "${need[@]}" "${optional[@]}" >/dev/null; then
    exit 0
  fi
  # Optional packages may be unavailable; the required ones may not. Install what exists.
  for p in "${optional[@]}"; do
    apt-get install -y -qq "$p" >/dev/null 2>&1 || echo "npukit: optional $p unavailable; continuing without"
  done
  [ ${#need[@]} -eq 0 ] && exit 0
  apt-get install -y -qq "${need[@]}" >/dev/null && exit 0
  echo "npukit: could not install ${need[*]}" >&2
  exit 1
fi
# Nothing can be installed from here: say why, and the command that would.
if [ "$(id -u)" != 0 ]; then
  why="not running as root, so nothing was installed"
else
  why="apt-get not found, so nothing was installed"
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "npukit: missing ${need[*]} ($why); as root run: apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "npukit: optional ${optional[*]} not installed ($why; as root: apt-get install -y ${optional[*]}); continuing without"
exit 0
