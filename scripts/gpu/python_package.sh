#!/usr/bin/env bash
# Builds, on a development machine, what scripts/gpu/python_gpu.sh runs on the GPU machine: the Python
# package for that machine's Python 3.12 (its venv has torch, numpy, pytest; no compiler is needed there)
# with device code for sm_90 (H100, H200), as one archive build-py-gpu/pkg.tar.gz (about 40 MB) holding
# accsum/ (the module stripped), lib/ (the shared libraries that machine lacks: it has MPFR, GMP and
# CUDA's) and the tree's tests/python and scripts the run uses.
# Usage (repo root): scripts/gpu/python_package.sh [PYTHON3.12]; then carry build-py-gpu/pkg.tar.gz.
set -euo pipefail
is_312() { "$1" -c "import sys, nanobind; assert sys.version_info[:2] == (3, 12)" 2> /dev/null; }
PY=${1:-}
if [ -z "$PY" ]; then  # python3.12 on PATH, else a pyenv one (a pyenv shim on PATH may not run)
  for c in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
    if is_312 "$c"; then PY=$c; break; fi
  done
fi
is_312 "${PY:-none}" || { echo "python_package.sh: no Python 3.12 with nanobind (pass one)" >&2; exit 2; }
export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache} \
  CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache} \
  CMAKE_CUDA_COMPILER_LAUNCHER=${CMAKE_CUDA_COMPILER_LAUNCHER:-ccache}
mkdir -p build-py-gpu
cmake -S . -B build-py-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPython_EXECUTABLE="$PY" \
  -DACCSUM_TESTS=OFF > build-py-gpu/configure.log
cmake --build build-py-gpu -j2 --target _accsum accsum_py_files
stage=build-py-gpu/pkg
rm -rf "$stage" && mkdir -p "$stage/lib" "$stage/tests" "$stage/scripts"
cp -r build-py-gpu/python/accsum "$stage/"
strip --strip-unneeded "$stage"/accsum/_accsum*.so
for lib in libfmt libopenblas libgfortran libquadmath; do
  ldd "$stage"/accsum/_accsum*.so | awk -v l="$lib" '$1 ~ "^"l {print $3}' | xargs -r -I{} cp -L {} "$stage/lib/"
done
cp -r tests/python "$stage/tests/" && cp -r scripts/python_speed.py scripts/gpu "$stage/scripts/"
git rev-parse --short HEAD > "$stage/COMMIT" 2>/dev/null || true
tar czf build-py-gpu/pkg.tar.gz -C "$stage" .
echo "build-py-gpu/pkg.tar.gz: $(du -h build-py-gpu/pkg.tar.gz | cut -f1), commit $(cat "$stage/COMMIT" 2>/dev/null)"
