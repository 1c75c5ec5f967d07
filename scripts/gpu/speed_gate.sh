#!/usr/bin/env bash
# One bounded GPU call (BUDGET seconds, default 235): compare's false-alarm and detection rates on the
# GPU, measured by scripts/speed_gate_rates.py with the CUDA paced-sum plugins
# (paced_sum_cuda_{0,10}.so, tests/plugins/paced_sum.cu): same-build pairs and pairs whose
# new side is 10 % slower (GATE_KINDS=0,10,5 adds 5 %), GATE_PAIRS of each kind (default 40; the ones
# finished when the time is up are the result: each base run serves one pair of each kind, three
# benches of about 3 s each at 2^24 on an H100 host (at 2^22 one took 2.2 s, most of it starting CUDA,
# making the data and its exact sum), so 20 or more of each in the budget), GATE_REPS repetitions per
# bench (default 40).
# n = GATE_N (default 2^24 doubles, 128 MiB: 2.5 times the 50 MiB L2 of an H100 or H200, so each
# repetition streams most of its input from memory; at 2^22 the input fits in L2 and a same-build
# pair's median ratio moved by up to 13 % between processes).
# Writes $OUT/speed_gate_<gpu>.json (the rates, every trial) and $OUT/speed_gate.log.
# Run from the repository root with the binaries built for sm_90 in $BIN (default build-gpu/bin).
set -uo pipefail
BUDGET=${BUDGET:-235}
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
begin_log speed_gate
# The plugins: $PLUGINS, else $B/plugins, else the build tree's plugins/ beside bin/.
P=${PLUGINS:-$B/plugins}
[ -d "$P" ] || P="$B/../plugins"
limit=$(cap "$BUDGET")
run_capped "speed gate" "$limit" python3 "$(dirname "$0")/../speed_gate_rates.py" --accsum "$A" --plugins "$P" \
  --plugin-stem paced_sum_cuda --algo paced-sum-cuda --backend cuda --n "${GATE_N:-2^24}" --reps "${GATE_REPS:-40}" \
  --pairs "${GATE_PAIRS:-40}" --kinds "${GATE_KINDS:-0,10}" --max-seconds "$(( limit - 20 ))" --conditions quiet \
  --out "$OUT/speed_gate_${GPU}.json" >> "$LOG" 2>&1
