#!/usr/bin/env bash
# Copies the shared libraries of $1/accsum and $1/accsum_tests that are not part of a bare CUDA
# image (MPFR, GMP, fmt) into $1/lib, so the binaries run on the lent GPU machine.
set -euo pipefail
D=$1
mkdir -p "$D/lib"
for b in "$D/accsum" "$D/accsum_tests"; do
  ldd "$b" | awk '/=>/ {print $3}' | grep -E 'libmpfr|libgmp|libfmt' | while read -r l; do cp -L "$l" "$D/lib/"; done
done
ls -la "$D/lib"
