# Sourced by the scripts/gpu drivers. Sets B (the binaries, BIN overrides), A and T (accsum and
# accsum_tests there), OUT (made), GPU (h100, h200 or gpu, from the card's name, for result file
# names) and LD_LIBRARY_PATH; defines one time budget for a whole device call: the caller sets LOG
# (where each step's exit and elapsed time go) and may set BUDGET (seconds, default 540).
B=${BIN:-build-gpu/bin}
A="$B/accsum"
T="$B/accsum_tests"
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
case "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" in
  *H200*) GPU=h200 ;;
  *H100*) GPU=h100 ;;
  *) GPU=gpu ;;
esac
START=$(date +%s)
BUDGET=${BUDGET:-540}
step() { echo "$1 exit $2 after $(( $(date +%s) - START )) s" >> "$LOG"; }
cap() {  # the smaller of $1 and what is left of the budget
  local left=$(( BUDGET - ($(date +%s) - START) ))
  [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}
run_capped() {  # name, cap seconds, command...: skipped once fewer than 10 s are left
  local name=$1 c
  c=$(cap "$2")
  shift 2
  if [ "$c" -lt 10 ]; then echo "$name skipped: budget spent" >> "$LOG"; return; fi
  timeout "$c" "$@"
  step "$name" $?
}
# merge_reports DIR NAME: the accsum reports DIR/*.json (but NAME) as one document DIR/NAME.
merge_reports() { python3 "$(dirname "${BASH_SOURCE[0]}")/merge_reports.py" "$@"; }
# machine_header FILE: the card, the git revision of the tree and the binaries' commit ($B/COMMIT, written
# where they were built: the tree copied to the GPU machine may carry an older .git), the first lines of a
# driver's log.
machine_header() {
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    git rev-parse HEAD 2>/dev/null
    [ -f "$B/COMMIT" ] && echo "binaries of commit $(cat "$B/COMMIT")"
  } > "$1" 2>&1
}
# begin_log NAME: LOG=$OUT/NAME.log, opened with the machine header.
begin_log() {
  LOG="$OUT/$1.log"
  machine_header "$LOG"
}
# begin_work NAME PREFIX BUDGET_SECONDS: a work folder $W (made), LOG=$W/NAME.log, BUDGET from PREFIX_BUDGET
# (default BUDGET_SECONDS), REPS from PREFIX_REPS (default 10) and the machine header in $W/machine.txt.
begin_work() {
  local budget="${2}_BUDGET" reps="${2}_REPS"
  W=$(mktemp -d)
  LOG="$W/$1.log"
  BUDGET=${!budget:-$3}
  REPS=${!reps:-10}
  machine_header "$W/machine.txt"
}
# work_bench NAME CAP DIST OPTIONS...: accsum bench on DIST data, median of $REPS ($W/NAME.json, .md).
work_bench() {
  local name=$1 limit=$2 dist=$3
  shift 3
  run_capped "bench $name" "$limit" "$A" bench --dist="$dist" --reps="$REPS" --warmup=3 --no-repro-check "$@" \
    --json="$W/$name.json" --format=md > "$W/$name.md" 2>> "$LOG"
}
# The sum and dot drivers' steps (sum_speed.sh, sum_recheck.sh), writing into their work folder $W:
# sum_sanitize TOOL CAP: compute-sanitizer TOOL on the fpe-sum and superacc edge tests ($W/TOOL.log);
# sum_bench NAME CAP OPTIONS...: accsum bench on log-uniform data (SUM_DIST another), 20 repetitions ($W/NAME.json, .md).
sum_sanitize() {
  command -v compute-sanitizer > /dev/null || return
  run_capped "$1" "$2" compute-sanitizer --tool "$1" --print-limit 5 "$T" \
    --gtest_filter='FpeSumCuda.HandCasesAndAllR:SuperaccCuda.EdgeCases:SuperaccCuda.BoundedPassHandCases' > "$W/$1.log" 2>&1
}
sum_bench() {
  local name=$1 limit=$2
  shift 2
  REPS=20 work_bench "$name" "$limit" "${SUM_DIST:-loguniform}" "$@"
}
# dgemm_bench STEP NAME CAP ALGOS OPTIONS...: accsum bench of the ALGOS on the GPU with --bits=$BITS
# and --accuracy=dgemm,cr, median of $REPS, in one CSV-logged run ($OUT/dgemm_speed_NAME_$GPU.json).
dgemm_bench() {
  local step=$1 name=$2 limit=$3 algos=$4
  shift 4
  run_capped "$step $name" "$limit" "$A" bench --backend=cuda --algo="$algos" --bits="$BITS" --accuracy=dgemm,cr \
    --reps="$REPS" --warmup=1 --no-repro-check "$@" --json="$OUT/dgemm_speed_${name}_${GPU}.json" --format=csv >> "$LOG" 2>&1
}
