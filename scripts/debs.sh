#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages (debian/, docs/packaging.md) with dpkg-buildpackage, from a copy of the
# tree in build/deb-src/ARCH (dpkg-buildpackage writes beside the source tree, which must not
# be the checkout's parent):
#   bash scripts/debs.sh [amd64] [arm64]      (default: both; the .debs land in build/debs)
# amd64 builds every package (-b); arm64 is cross-built from amd64 (-a arm64 -B: the
# Architecture: all packages, data and Python, are the amd64 build's) and needs
# gcc-aarch64-linux-gnu, qemu-user (for the manual page) and the arm64 -dev packages. The ggml
# backend's package is built from the pinned ggml snapshot (NPUKIT_GGML_TARBALL, default
# ../shared/third_party/ggml-d99724f2.tar.xz); without it the pkg.npukit.noggml profile
# leaves that package out, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/build/debs
jobs=$(nproc 2>/dev/null || echo 2)
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)
# The changelog's version is the project's: a release bumps both.
version=$(dpkg-parsechangelog -SVersion)
project=$(sed -n 's/^project(npukit VERSION \([0-9.]*\) .*/\1/p' CMakeLists.txt)
[ "$version" = "$project" ] ||
  { echo "debs: debian/changelog says $version, CMakeLists.txt $project" >&2; exit 1; }
export NPUKIT_GGML_TARBALL=${NPUKIT_GGML_TARBALL:-$root/../shared/third_party/ggml-d99724f2.tar.xz}
profiles=()
if [ ! -f "$NPUKIT_GGML_TARBALL" ]; then
  echo "debs: $NPUKIT_GGML_TARBALL not found: ggml-backend-npukit is not built"
  profiles=(-Ppkg.npukit.noggml)
fi
export DEB_BUILD_OPTIONS="parallel=$jobs ${DEB_BUILD_OPTIONS:-}"
# Debian's tools first: the packages are built with the system's python3 (dh-python), not one a
# user put earlier on PATH; ccache's compiler links when installed (a rebuild of unchanged
# sources, at the same path, is then quick).
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
[ ! -d /usr/lib/ccache ] || PATH=/usr/lib/ccache:$PATH
export PATH CCACHE_NOHASHDIR=1
mkdir -p "$out"
host=$(dpkg --print-architecture)
for arch in "${archs[@]}"; do
  case $arch in
    "$host") opts=(-b) ;;
    arm64)
      if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
        echo "debs: arm64 skipped: aarch64-linux-gnu-gcc not installed" >&2
        continue
      fi
      opts=(-a arm64 -B) ;;
    *) echo "debs: unknown architecture '$arch' ($host, arm64)" >&2; exit 2 ;;
  esac
  work=$root/build/deb-src/$arch
  src=$work/npukit-$version
  rm -rf "$work"
  mkdir -p "$src"
  # the tree as it is (committed or not), without build products
  tar -C "$root" --exclude=./build --exclude=./.git --exclude='./obj-*' -cf - . | tar -C "$src" -xf -
  t=$SECONDS
  if ! (cd "$src" && dpkg-buildpackage -us -uc "${opts[@]}" "${profiles[@]}") > "$work/build.log" 2>&1; then
    tail -n 80 "$work/build.log"
    echo "debs: $arch: dpkg-buildpackage failed (the whole log: $work/build.log)" >&2
    exit 1
  fi
  echo "debs: $arch built in $((SECONDS - t)) s"
  mv "$work"/*.deb "$out"/
  rm -rf "$src"
done
ls -1 "$out"/*.deb
