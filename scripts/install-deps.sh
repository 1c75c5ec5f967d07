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
  python3 python3-pip   # plots
  clang libclang-rt-dev llvm  # clang + its compiler-rt (libFuzzer, ASan, UBSan) + llvm-symbolizer: fuzzing, sanitizer build
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
echo "install-deps: all dependencies present"
