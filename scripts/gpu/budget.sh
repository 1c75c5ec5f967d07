# Sourced by the scripts/gpu drivers: one time budget for a whole device call. The caller sets LOG
# (where each step's exit and elapsed time go) and may set BUDGET (seconds, default 540).
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
