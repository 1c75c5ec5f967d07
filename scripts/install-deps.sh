#!/usr/bin/env bash
# Installs every dependency accsum needs to build, test and plot; idempotent (only what is missing).
set -euo pipefail
PKGS=(
  cmake make g++ pkg-config git
  libcli11-dev          # CLI11: command-line parsing
  libfmt-dev            # fmt: formatting of tables and hex floats
  nlohmann-json3-dev    # nlohmann/json: the accsum-report/1 JSON documents
  libmpfr-dev libgmp-dev  # MPFR/GMP: the exact oracle
  libflint-dev          # FLINT: the _nmod_vec_dot baseline of the moddot family
  libqd-dev             # QD: dd_real / qd_real baselines of the fpe family
  libopenblas-dev       # OpenBLAS cblas_sgemm: the gemm family's host baseline
  libgtest-dev          # GoogleTest: unit, property and CLI tests
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo  # OpenCL ICD loader + PoCL CPU device
  libopenmpi-dev openmpi-bin  # MPI backend
  python3 python3-pip python3-dev  # plots; the headers build the Python package's module
  libeigen3-dev         # Eigen headers: building the accupy wheel (scripts/peers.py)
  clang libclang-rt-dev llvm clang-format  # clang + its compiler-rt (libFuzzer, ASan, UBSan) + llvm-symbolizer: fuzzing, sanitizer build, the offline OpenCL compile test; clang-format: the format check
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# matplotlib + numpy for scripts/plot_*.py (pip, since the Python in PATH may not be Debian's)
if ! python3 -c "import matplotlib, numpy" 2>/dev/null; then
  python3 -m pip install -q matplotlib numpy 2>/dev/null || python3 -m pip install -q --break-system-packages matplotlib numpy
fi
# The Python peers of scripts/peers.py: xsum (Neal's superaccumulators) and accupy (built from source
# against Eigen; optional: peers.py leaves its rows out with a note when it is missing).
pip_install() { python3 -m pip install -q "$@" 2>/dev/null || python3 -m pip install -q --break-system-packages "$@"; }
python3 -c "import xsum" 2>/dev/null || pip_install xsum || echo "install-deps: xsum not installed; the peers_py test is left out"
python3 -c "import accupy" 2>/dev/null || pip_install accupy || echo "install-deps: accupy did not build; scripts/peers.py runs without it"
# The Python package (pyproject.toml, docs/python.md): nanobind builds its module, scikit-build-core
# drives CMake for `pip install .`, pytest + hypothesis run tests/python (the python_pytest test).
for mod in nanobind scikit_build_core pytest hypothesis; do
  python3 -c "import $mod" 2>/dev/null || pip_install "${mod//_/-}" || echo "install-deps: $mod not installed; the Python package or its tests are left out"
done
# jsonschema: tests/test_reports.py validates every report against docs/accsum-report-1.schema.json.
python3 -c "import jsonschema" 2>/dev/null || pip_install jsonschema || echo "install-deps: jsonschema not installed; the reports_py test is left out"
python3 -c "import yaml" 2>/dev/null || pip_install pyyaml || echo "install-deps: PyYAML not installed; the ci_recipes_py test is left out"
# CCCL >= 3.1 headers (the nvidia-cuda-cccl wheel) for CUB's reproducible reduction (cub-sum-repro,
# cub-dot-repro): installed into .deps/cccl, where CMake looks first; without it the CUDA toolkit's CCCL is used.
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# Pinned: the version built and run here (CCCL 3.5 with nvcc 13.0).
if { command -v nvcc || [ -x /usr/local/cuda/bin/nvcc ]; } >/dev/null && [ ! -d "$ROOT/.deps/cccl/nvidia" ]; then
  python3 -m pip install -q --no-deps --target "$ROOT/.deps/cccl" nvidia-cuda-cccl==13.3.5.0.6 \
    || echo "install-deps: nvidia-cuda-cccl not installed; cub-sum-repro / cub-dot-repro will be absent"
fi
echo "install-deps: all dependencies present"
