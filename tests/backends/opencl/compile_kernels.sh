#!/usr/bin/env bash
# Compiles every OpenCL kernel file offline with clang (OpenCL C 1.2, SPIR 64-bit, fp64), once per
# configuration its "// offline-check: <options>" lines name (once with no options if it names
# none), so a kernel that does not compile fails here rather than at run time on some device.
# Usage: compile_kernels.sh CLANG SOURCE_ROOT
set -euo pipefail
clang=$1 root=$2
shopt -s nullglob
kernels=("$root"/backends/opencl/kernels/*.cl)
(( ${#kernels[@]} > 0 )) || { echo "no kernel files under $root/backends/opencl/kernels" >&2; exit 1; }
checked=0
for k in "${kernels[@]}"; do
  mapfile -t configs < <(sed -n 's#^// offline-check:##p' "$k")
  (( ${#configs[@]} > 0 )) || configs=("")
  for opts in "${configs[@]}"; do
    # shellcheck disable=SC2086  # the options are words
    "$clang" -x cl -cl-std=CL1.2 -target spir64 -Xclang -finclude-default-header -fsyntax-only \
      -Werror=implicit-function-declaration -I "$root" $opts "$k" ||
      { echo "FAILED: ${k#$root/} $opts" >&2; exit 1; }
    checked=$((checked + 1))
  done
done
echo "compiled $checked configurations of ${#kernels[@]} kernel files"
