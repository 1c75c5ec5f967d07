#!/usr/bin/env bash
# The Python package on the GPU machine, in under 4 minutes: tests/python (torch tensors on side streams;
# accsum.matmul of CUDA tensors against exact rationals and the cpu Ozaki entry's bits; float32 CUDA
# sums; the CPU tests too) and the GPU part of scripts/python_speed.py (sum of 2^28 float64, axis sums of
# 2^14 x 2^14, matmul cr of 8192^2 float32 against torch.matmul with TF32 off, its entries checked).
# The package comes from scripts/gpu/python_package.sh (run on a development machine): carry
# build-py-gpu/pkg.tar.gz, which this script unpacks into build-py-gpu/pkg unless PKG names a folder
# that holds accsum/ already. The machine's Python with torch is /opt/torch/.venv (PYTHON overrides).
# Where build-gpu/bin/accsum was carried too (BIN overrides), the tests comparing with the CLI run.
# Writes $OUT/python_gpu_<gpu>.log (each step's exit and time), python_tests_<gpu>.log and .xml,
# python_speed_<gpu>.json and .log.
# Usage (repo root on the GPU machine): OUT=... scripts/gpu/python_gpu.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
BUDGET=${BUDGET:-225}
source scripts/gpu/common.sh
LOG="$OUT/python_gpu_${GPU}.log"
PKG=${PKG:-build-py-gpu/pkg}
if [ ! -d "$PKG/accsum" ] && [ -f build-py-gpu/pkg.tar.gz ]; then
  mkdir -p "$PKG" && tar xzf build-py-gpu/pkg.tar.gz -C "$PKG"
fi
machine_header "$LOG"
if [ ! -d "$PKG/accsum" ]; then
  echo "no package: neither $PKG/accsum nor build-py-gpu/pkg.tar.gz (scripts/gpu/python_package.sh makes it)" >> "$LOG"
  exit 1
fi
PY=${PYTHON:-python3}
[ -z "${PYTHON:-}" ] && [ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
export PYTHONPATH="$PWD/$PKG${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$PWD/$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$A" ] && export ACCSUM_BIN="$PWD/$A"
export ACCSUM_GIT=$(cat "$PKG/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
  echo "package of commit $ACCSUM_GIT, python $PY"
  "$PY" -c "import sys, torch, numpy; print(sys.version.split()[0], 'torch', torch.__version__, 'numpy', numpy.__version__)"
  "$PY" -c "import accsum; print('accsum', accsum.__version__, 'has_cuda', accsum.has_cuda(), accsum.__file__)"
} >> "$LOG" 2>&1
step "import" $?
run_capped pytest 110 "$PY" -m pytest -q -p no:cacheprovider -rs --junitxml="$OUT/python_tests_${GPU}.xml" \
  tests/python > "$OUT/python_tests_${GPU}.log" 2>&1
tail -3 "$OUT/python_tests_${GPU}.log" >> "$LOG"
"$PY" - "$OUT/python_tests_${GPU}.xml" >> "$LOG" 2>&1 <<'PYEOF'
import sys, xml.etree.ElementTree as ET
cases = [c for c in ET.parse(sys.argv[1]).iter("testcase") if "test_gpu" in c.get("classname", "")]
skipped = sum(1 for c in cases if c.find("skipped") is not None)
failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
print(f"GPU test cases: {len(cases)}, skipped {skipped}, failed {failed}")
PYEOF
run_capped speed 150 "$PY" scripts/python_speed.py --machine "$GPU" --skip-host --reps "${REPS:-15}" \
  --out "$OUT/python_speed_${GPU}.json" > "$OUT/python_speed_${GPU}.log" 2>&1
step total 0
