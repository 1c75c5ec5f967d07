# The floors of the source tree (docs/architecture.md): base/ includes nothing of the project;
# core/ and datasets/ include base/ and themselves, never each other, but for datasets/ including
# core/numerics/ (pure functions that include only base/); inside core/, numerics -> simd -> oracle
# -> frame, never back up; families/ sits on core/ and datasets/ and below the backends; a backend
# includes no other backend's folder; nothing below app/ includes app/ or lib/. Run by the `floors`
# ctest and by every build (the accsum_floors target); tests/check_floors_selftest.cmake checks that
# it catches each kind of upward edge:
#   cmake -DROOT=<source root> -P tests/check_floors.cmake
# Each rule: a folder (every file under it, recursively), "|", the include prefixes it may not use,
# separated by commas, and optionally "|" and the prefixes it may use all the same (an opening in a
# floor: datasets/ may include core/numerics/; a backend, its own folder).
cmake_minimum_required(VERSION 3.24)
# Every folder of backends/ is a backend (cmake/backends.cmake, read from this script's own tree).
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/backends.cmake")
accsum_backend_folders("${ROOT}" backends)
set(rules
  "base|core/,datasets/,families/,backends/,app/,lib/"
  "core|datasets/,families/,backends/,app/,lib/"
  "core/numerics|core/simd/,core/oracle/,core/frame/"
  "core/simd|core/oracle/,core/frame/"
  "core/oracle|core/frame/"
  "datasets|core/,families/,backends/,app/,lib/|core/numerics/"
  "families|backends/,app/,lib/")
foreach(backend IN LISTS backends)
  list(APPEND rules "backends/${backend}|backends/,app/,lib/|backends/${backend}/")
endforeach()

set(violations "")
foreach(rule IN LISTS rules)
  string(REPLACE "|" ";" fields "${rule}")
  list(GET fields 0 floor)
  list(GET fields 1 forbidden)
  string(REPLACE "," ";" forbidden "${forbidden}")
  set(allowed "")
  list(LENGTH fields field_count)
  if(field_count GREATER 2)
    list(GET fields 2 allowed)
    string(REPLACE "," ";" allowed "${allowed}")
  endif()
  file(GLOB_RECURSE sources "${ROOT}/${floor}/*.hpp" "${ROOT}/${floor}/*.cpp" "${ROOT}/${floor}/*.h"
       "${ROOT}/${floor}/*.cuh" "${ROOT}/${floor}/*.cu" "${ROOT}/${floor}/*.cl" "${ROOT}/${floor}/*.clh")
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS includes)
      set(opening FALSE)
      foreach(open_prefix IN LISTS allowed)
        if(line MATCHES "\"${open_prefix}")
          set(opening TRUE)
        endif()
      endforeach()
      if(opening)
        continue()
      endif()
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
