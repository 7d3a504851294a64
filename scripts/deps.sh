#!/usr/bin/env bash
# Checks what the build needs. As root it installs what is missing with apt-get (and says so);
# otherwise it names the command to run. OpenBLAS is optional: without it the simulator uses
# its portable arithmetic.
set -u
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
# build-essential brings the compiler, the C library headers and make together.
{ command -v cc >/dev/null 2>&1 && [ -e /usr/include/stdio.h ]; } || need+=(build-essential)
optional=()
if [ ! -e /usr/include/x86_64-linux-gnu/cblas.h ] && [ ! -e /usr/include/cblas.h ] \
   && ! ls /usr/include/*/cblas.h >/dev/null 2>&1; then
  optional+=(libopenblas-dev)
fi
[ ${#need[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "npukit: installing ${need[*]} ${optional[*]} with apt-get (running as root)"
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq && apt-get install -y -qq "${need[@]}" "${optional[@]}" >/dev/null; then
    exit 0
  fi
  # The optional library may be unavailable; the required tools may not.
  [ ${#need[@]} -eq 0 ] && { echo "npukit: OpenBLAS unavailable, using the portable fallback"; exit 0; }
  apt-get install -y -qq "${need[@]}" >/dev/null && exit 0
  echo "npukit: could not install ${need[*]}" >&2
  exit 1
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "npukit: missing ${need[*]}; run as root: apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "npukit: OpenBLAS not installed (apt-get install -y libopenblas-dev); using the portable fallback"
exit 0
