#!/usr/bin/env bash
# Checks every C, C++, CUDA and OpenCL C file of the tree against .clang-format; with --fix,
# rewrites them in place instead. Usage: check_format.sh [--fix] [CLANG_FORMAT]
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
[ "${1:-}" = --fix ] && { fix=1; shift; }
cf=${1:-clang-format}
mapfile -t files < <(find app base core datasets families backends include tests examples python \
  \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cl' -o -name '*.c' \) \
  -not -path '*/corpus/*' 2>/dev/null | sort)
(( ${#files[@]} > 0 )) || { echo "no source files found" >&2; exit 1; }
if (( fix )); then
  "$cf" -i "${files[@]}"
  echo "formatted ${#files[@]} files"
else
  "$cf" --dry-run -Werror "${files[@]}"
  echo "${#files[@]} files follow .clang-format"
fi
