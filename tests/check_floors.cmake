# The floors of the source tree (docs/architecture.md): base/ includes nothing of the project;
# core/ and datasets/ include base/ and themselves, never each other; inside core/, numerics ->
# simd -> oracle -> frame, never back up; families/ sits on core/ and datasets/ and below the
# backends; no backend includes another backend's folder; nothing below app/ includes app/ or lib/. Run by the `floors` ctest
# and by every build (the accsum_floors target):
#   cmake -DROOT=<source root> -P tests/check_floors.cmake
# Each rule: a folder (every file under it, recursively), "|", and the include prefixes it may not
# use, separated by commas.
set(backends cpu cpu_mt cuda opencl mpi)
set(rules
  "base|core/,datasets/,families/,backends/,app/,lib/"
  "core|datasets/,families/,backends/,app/,lib/"
  "core/numerics|core/simd/,core/oracle/,core/frame/"
  "core/simd|core/oracle/,core/frame/"
  "core/oracle|core/frame/"
  "datasets|core/,families/,backends/,app/,lib/"
  "families|backends/,app/,lib/")
foreach(backend IN LISTS backends)
  set(others "app/,lib/")
  foreach(other IN LISTS backends)
    if(NOT other STREQUAL backend)
      list(APPEND others "backends/${other}/")
    endif()
  endforeach()
  list(JOIN others "," others)
  list(APPEND rules "backends/${backend}|${others}")
endforeach()

set(violations "")
foreach(rule IN LISTS rules)
  string(REGEX REPLACE "[|,]" ";" parts "${rule}")
  list(GET parts 0 floor)
  list(SUBLIST parts 1 -1 forbidden)
  file(GLOB_RECURSE sources "${ROOT}/${floor}/*.hpp" "${ROOT}/${floor}/*.cpp" "${ROOT}/${floor}/*.h"
       "${ROOT}/${floor}/*.cuh" "${ROOT}/${floor}/*.cu" "${ROOT}/${floor}/*.cl" "${ROOT}/${floor}/*.clh")
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS includes)
      foreach(above IN LISTS forbidden)
        if(line MATCHES "\"${above}")
          file(RELATIVE_PATH where "${ROOT}" "${source}")
          list(APPEND violations "${where}: ${line}")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "includes that break the floors:\n  ${text}")
endif()
