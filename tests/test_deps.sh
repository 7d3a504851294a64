#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/deps.sh decides whether OpenBLAS is present by what the build needs (a program that
# includes cblas.h and links -lopenblas), not by a header: a machine with the header but not the
# library must be told to install it.
set -u
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }

# A compiler whose headers are all there but that cannot find libopenblas.
cat > "$tmp/cc-nolib" <<'CC'
#!/usr/bin/env bash
for a in "$@"; do [ "$a" = -lopenblas ] && { echo "cannot find -lopenblas" >&2; exit 1; }; done
exec cc "$@"
CC
chmod +x "$tmp/cc-nolib"
out=$(CC="$tmp/cc-nolib" NPUKIT_DEPS_REPORT=1 bash "$src/scripts/deps.sh")
ok grep -q 'optional missing: libopenblas-dev' <<< "$out"
# No compiler at all: both the compiler and the library are asked for.
out=$(CC=/nonexistent/cc NPUKIT_DEPS_REPORT=1 bash "$src/scripts/deps.sh")
ok grep -q 'optional missing: libopenblas-dev' <<< "$out"
# When the library links, it is not reported missing.
arch=$(cc -print-multiarch 2>/dev/null || true)
if printf '#include <cblas.h>\nint main(void){return 0;}\n' | cc -x c - -I/usr/include/openblas \
   ${arch:+-I/usr/include/$arch/openblas-pthread} -o "$tmp/t" -lopenblas 2>/dev/null; then
  out=$(NPUKIT_DEPS_REPORT=1 bash "$src/scripts/deps.sh")
  ok grep -q 'optional missing: none' <<< "$out"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
