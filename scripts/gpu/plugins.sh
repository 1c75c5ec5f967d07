#!/usr/bin/env bash
# Plugins and the library on the GPU: the CUDA example plugin (examples/plugins/atomic_sum.cu, an
# atomicAdd sum that claims reproducibility) through bench beside the built-ins and CUB, and
# through verify, which must catch it (exit 1, a counter-example); the cpu example plugins too;
# the installed library's device API (accsum_*_cuda) against the host's bits.
# Run from the repo root on the GPU machine with the built tree in build-gpu (bin/, plugins/, lib/
# and examples: cmake --build build-gpu). Writes logs and JSON into $OUT; about 2 minutes.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
P=${PLUGINS:-build-gpu/plugins}
export LD_LIBRARY_PATH="$PWD/build-gpu/lib:$PWD/$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oE 'H100|H200|A100|L40S|[A-Z][0-9]+' | head -1 | tr 'A-Z' 'a-z')
gpu=${gpu:-gpu}
log="$OUT/plugins_${gpu}.log"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; git rev-parse HEAD 2>/dev/null; } > "$log" 2>&1
"$A" list --plugin="$P/atomic_sum.so,$P/kahan_sum.so,$P/dot2.so" >> "$log" 2>&1

# bench: the plugin row beside CUB (the baseline), superacc and cub-sum-repro, n = 2^26, every block count.
algos=atomic-sum-plugin,superacc
"$A" list | grep -q '^cub-sum-repro ' && algos=$algos,cub-sum-repro
"$A" bench --plugin="$P/atomic_sum.so" --backend=cuda --algo=$algos \
  --param blocks=120,1024,4096 --n=2^26 --range=1,1e50 --reps=20 \
  --format=md --out="$OUT/plugins_${gpu}.md" --json="$OUT/plugins_${gpu}.json"
echo "bench exit $? (1 expected: the plugin's reproducibility claim fails)" >> "$log"

# verify: must exit 1 with a counter-example of the false reproducibility claim, next to the report.
mkdir -p "$OUT/verify"
"$A" verify --plugin="$P/atomic_sum.so" --backend=cuda --algo=atomic-sum-plugin --seeds=1 \
  --json="$OUT/verify/plugins_verify_${gpu}.json" > "$OUT/verify/plugins_verify_${gpu}.txt" 2>&1
echo "verify cuda exit $? (1 expected)" >> "$log"
cmd=$(grep -m1 'reproduce: ' "$OUT/verify/plugins_verify_${gpu}.txt" | sed 's/^ *reproduce: accsum //')
if [ -n "$cmd" ]; then
  eval "\"$A\" $cmd --reps=10 --format=json" > "$OUT/verify/reproduce_${gpu}.json" 2>> "$log"
  echo "reproduce exit $? (1 expected)" >> "$log"
fi

# The cpu example plugins on this host.
"$A" verify --plugin="$P/kahan_sum.so,$P/dot2.so,$P/small_gemm.so" --backend=cpu \
  --algo=kahan-plugin,dot2-plugin,gemm-plugin --seeds=1 >> "$log" 2>&1
echo "verify cpu plugins exit $? (0 expected)" >> "$log"

# The library's device API: the same bits as the host API (examples/use-the-library/sum_device).
if [ -x build-gpu/use-the-library/sum_device ] && [ -x build-gpu/use-the-library/sum_file ]; then
  "$A" gen --dist=loguniform --range=1e30 --n=1000003 --seed=3 -o "$OUT/lib_data.bin" >> "$log" 2>&1
  build-gpu/use-the-library/sum_file "$OUT/lib_data.bin" > "$OUT/lib_host_${gpu}.txt" 2>&1
  build-gpu/use-the-library/sum_device "$OUT/lib_data.bin" > "$OUT/lib_device_${gpu}.txt" 2>&1
  echo "sum_device exit $?" >> "$log"
  for k in sum dot "dpsumk K=2" "dpdotk K=2"; do
    h=$(grep -m1 "^$k " "$OUT/lib_host_${gpu}.txt"); d=$(grep -m1 "^$k " "$OUT/lib_device_${gpu}.txt")
    [ "$h" = "$d" ] && echo "library $k: host and device bits equal ($h)" >> "$log" \
                    || echo "library $k: DIFFER host '$h' device '$d'" >> "$log"
  done
fi
rm -f "$OUT/lib_data.bin"
ls -la "$OUT" "$OUT/verify" >> "$log"
