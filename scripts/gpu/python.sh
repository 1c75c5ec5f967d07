#!/usr/bin/env bash
# The Python package on the GPU machine: tests/python (torch tensors on a side stream, the same bits
# as NumPy on the host; the CPU tests too) and the GPU part of scripts/python_speed.py.
# The module is built on a development machine for that machine's Python 3.12 (cmake -B build-py-gpu
# -DCMAKE_CUDA_ARCHITECTURES=90 -DPython_EXECUTABLE=python3.12 ... --target _accsum) and travels as
# PKG/accsum (the package, the module stripped) with any shared library the machine lacks in PKG/lib
# (libfmt, libopenblas, libgfortran, libquadmath; the machine has MPFR, GMP and CUDA's).
# Usage (repo root on the GPU machine): PKG=build-py-gpu OUT=... scripts/gpu/python.sh
# When the tree there is not the one the module was built from, PKG can carry that tree's tests/python
# and scripts too: run this script from inside PKG with PKG=. (the results in results/ were run so).
set -uo pipefail
PKG=${PKG:-build-py-gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/$PKG${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$PWD/$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oE 'H100|H200|A100|L40S|[A-Z][0-9]+' | head -1 | tr 'A-Z' 'a-z')
gpu=${gpu:-gpu}
log="$OUT/python_tests_${gpu}.log"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; python3 --version;
  python3 -c "import torch, numpy; print('torch', torch.__version__, 'numpy', numpy.__version__)"; } > "$log" 2>&1
python3 -c "import accsum; print('accsum', accsum.__version__, 'has_cuda', accsum.has_cuda())" >> "$log" 2>&1
python3 -m pytest -q -p no:cacheprovider -rs tests/python >> "$log" 2>&1
echo "pytest exit $?" >> "$log"
python3 scripts/python_speed.py --machine "$gpu" --skip-host --reps "${REPS:-15}" \
  --out "$OUT/python_speed_${gpu}.json" > "$OUT/python_speed_${gpu}.log" 2>&1
echo "speed exit $?" >> "$log"
