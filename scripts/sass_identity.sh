#!/usr/bin/env bash
# The device code of two builds of accsum, kernel by kernel (scripts/sass_compare.py on every cubin
# both binaries embed), and a last line counting identical, changed and unmatched kernels. Built
# with the same CUDA_ARCHITECTURES (real, e.g. 90) and the same CCCL; needs cuobjdump and nvdisasm
# (the CUDA toolkit, or PyPI's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm) on PATH.
#     scripts/sass_identity.sh OLD/accsum NEW/accsum > report.txt
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2")
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/old" "$w/new"
(cd "$w/old" && cuobjdump -xelf all "$old" > /dev/null)
(cd "$w/new" && cuobjdump -xelf all "$new" > /dev/null)
echo "# scripts/sass_identity.sh $1 $2, $(date -u +%F), cuobjdump $(cuobjdump --version | grep -o "V[0-9][0-9.]*" | head -1)"
echo "# old: $old ($(cat "$(dirname "$old")/COMMIT" 2>/dev/null || echo "commit not recorded"))"
echo "# new: $new ($(cat "$(dirname "$new")/COMMIT" 2>/dev/null || echo "commit not recorded"))"
for f in "$w"/new/*.cubin "$w"/old/*.cubin; do
  b=$(basename "$f")
  [ -f "$w/old/$b" ] && [ -f "$w/new/$b" ] || { echo "## $b only in $(basename "$(dirname "$f")")"; continue; }
  [ "$(dirname "$f")" = "$w/new" ] || continue
  echo "## $b"
  python3 "$(dirname "$0")/sass_compare.py" "$w/old/$b" "$f"
done | tee "$w/all.txt"
rows=$(grep -v '^#\|^kernel' "$w/all.txt" || true)
echo "# kernels: $(grep -c ' identical ' <<< "$rows" || true) identical SASS," \
  "$(grep -v ' identical \|only in' <<< "$rows" | grep -c . || true) changed," \
  "$(grep -c 'only in' <<< "$rows" || true) in one build only"
