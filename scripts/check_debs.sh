#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages of scripts/debs.sh, checked: lintian over every .deb (each tag it still
# reports is explained in docs/packaging.md; any other tag, or output that is no tag, fails);
# the .pc files of both architectures read through a sysroot, as a cross build reads them; then
# the amd64 and Architecture: all packages unpacked into an empty root (dpkg -x), where
# examples/ are built against them with find_package and pkg-config and run, as
# scripts/check_install.sh does for an install, the Python package multiplies on the simulator
# against the unpacked library, and the ggml backend module is checked for its entry point.
#   bash scripts/check_debs.sh [DEBS_DIR]   (default build/debs)
set -euo pipefail
cd "$(dirname "$0")/.."
debs=${1:-build/debs}
ls "$debs"/*.deb > /dev/null
# The lintian tags the packages keep, each as SEVERITY:TAG, and why, are in docs/packaging.md
# ("lintian"). Any other tag of any severity fails, and so does a line that is neither a tag nor
# the notice lintian prints when run as root: a message of a check that broke must not pass.
allowed=''
if command -v lintian >/dev/null; then
  # --fail-on none: the tags are judged here; what is left of the exit status is lintian's own
  # failure (1, "run-time error" in lintian(1)), which fails this check as well.
  rc=0
  report=$(lintian --fail-on none --tag-display-limit 0 "$debs"/*.deb 2>&1) || rc=$?
  echo "$report"
  [ $rc = 0 ] || { echo "check_debs: lintian failed (exit status $rc)" >&2; exit 1; }
  bad=$(awk -v allowed="$allowed" '
    BEGIN { n = split(allowed, a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
    /^running with root privileges is not recommended!$/ { next }
    /^[EWIPXCO]: [^ :]+: [^ ]+/ { if (!((substr($1, 1, 1) ":" $3) in ok)) print; next }
    NF { print }' <<< "$report")
  [ -z "$bad" ] || { echo "check_debs: lintian output not explained in docs/packaging.md:" >&2; echo "$bad" >&2; exit 1; }
else
  echo "check_debs: lintian not installed: skipped"
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
for d in "$debs"/*_amd64.deb "$debs"/*_all.deb; do dpkg -x "$d" "$root"; done
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
# a manual that man renders
man -l "$root/usr/share/man/man1/npukit.1.gz" > /dev/null 2>&1 || { echo "check_debs: npukit.1" >&2; exit 1; }
# A program cross-built against an unpacked root (PKG_CONFIG_SYSROOT_DIR) finds headers and
# libraries in that root, while the rpath it carries is the packages' own path on the machine
# that runs it, with no build machine's directory in it.
sysroot_pc() {
  local arch=$1 t=$2 pcroot got want
  pcroot=$(mktemp -d -p "$root")
  for d in "$debs"/libnpukit-dev_*_"$arch".deb "$debs"/npukit-rknn_*_"$arch".deb; do
    dpkg -x "$d" "$pcroot"
  done
  export PKG_CONFIG_LIBDIR=$pcroot/usr/lib/$t/pkgconfig PKG_CONFIG_SYSROOT_DIR=/tmp/sr
  for q in "npukit-rknn|-I/tmp/sr/usr/include/npukit/rknn -L/tmp/sr/usr/lib/$t/npukit/rknn -Wl,-rpath,/usr/lib/$t/npukit/rknn -lrknnrt -lm" \
           "npukit|-I/tmp/sr/usr/include -L/tmp/sr/usr/lib/$t -lnpukit" \
           "npukit-static|-I/tmp/sr/usr/include -L/tmp/sr/usr/lib/$t -l:libnpukit.a -l"; do
    got=$(pkg-config --cflags --libs "${q%%|*}" | xargs)
    want=${q#*|}
    # (npukit-static: then the libraries libnpukit.a uses, which depend on the build)
    [[ "$got" = "$want" || ( $want = *-l && $got = "$want"* ) ]] ||
      { echo "check_debs: $arch ${q%%|*}.pc through a sysroot: '$got', not '$want'" >&2; exit 1; }
  done
  unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
  rm -rf "$pcroot"
}
sysroot_pc amd64 "$triplet"
if ls "$debs"/*_arm64.deb > /dev/null 2>&1; then sysroot_pc arm64 aarch64-linux-gnu; fi
# python3-npukit against the unpacked libnpukit0 (found by its soname, as when installed)
if /usr/bin/python3 -c 'import numpy' 2> /dev/null; then
  (cd / && LD_LIBRARY_PATH=$root/usr/lib/$triplet PYTHONPATH=$root/usr/lib/python3/dist-packages \
    NPUKIT_DATA_DIR=$root/usr/share/npukit /usr/bin/python3 -c '
import numpy as np, npukit, npukit.rk as rk
assert npukit.__file__.startswith("'"$root"'"), npukit.__file__
a = np.arange(12, dtype=np.float16).reshape(3, 4); b = np.ones((4, 5), dtype=np.float16)
with rk.Runtime("sim") as rt:
    assert (rt.matmul(a, b) == a.astype(np.float32) @ b.astype(np.float32)).all()
') || { echo "check_debs: python3-npukit does not multiply against libnpukit0" >&2; exit 1; }
else
  echo "check_debs: python3-numpy not installed: the Python package not tried"
fi
# the ggml backend module: ggml finds a dynamically loaded backend by ggml_backend_init
if ls "$debs"/ggml-backend-npukit_*_amd64.deb > /dev/null 2>&1; then
  syms=$(nm -D --defined-only "$root/usr/lib/$triplet/npukit/ggml/libggml-npukit.so")
  grep -qw ggml_backend_init <<< "$syms" ||
    { echo "check_debs: libggml-npukit.so exports no ggml_backend_init" >&2; exit 1; }
fi
NPUKIT_CHECK_ROOT=$root/usr NPUKIT_CHECK_LIBDIR=lib/$triplet NPUKIT_CHECK_SYSROOT=$root \
  bash scripts/check_install.sh
echo "check_debs: $(ls "$debs"/*.deb | wc -l) packages; the amd64 ones unpacked and used"
