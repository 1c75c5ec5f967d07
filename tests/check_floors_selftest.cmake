# The floors check (tests/check_floors.cmake) fails where it should: in a scratch tree it passes the
# allowed edges (datasets/ -> core/numerics/, base/) and fails on each upward edge, one at a time.
#   cmake -DCHECK=<tests/check_floors.cmake> -DSCRATCH=<empty folder> -P tests/check_floors_selftest.cmake
file(REMOVE_RECURSE "${SCRATCH}")

# Runs the check on a tree of the given files (path=include ...); EXPECT is PASS or FAIL.
function(expect_floors EXPECT)
  file(REMOVE_RECURSE "${SCRATCH}")
  foreach(entry IN LISTS ARGN)
    string(REPLACE "=" ";" parts "${entry}")
    list(GET parts 0 file)
    list(GET parts 1 include)
    file(WRITE "${SCRATCH}/${file}" "#include \"${include}\"\n")
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${SCRATCH} -P ${CHECK} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(EXPECT STREQUAL "PASS" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "the floors check rejected allowed edges: ${ARGN}")
  elseif(EXPECT STREQUAL "FAIL" AND rc EQUAL 0)
    message(FATAL_ERROR "the floors check let an upward edge through: ${ARGN}")
  endif()
endfunction()

set(allowed "datasets/gen.cpp=core/numerics/superacc.hpp" "datasets/rng.hpp=base/hd.hpp"
            "core/frame/r.cpp=core/oracle/oracle.hpp" "families/f.cpp=datasets/gen.hpp")
expect_floors(PASS ${allowed})
foreach(edge "datasets/gen.cpp=core/oracle/oracle.hpp" "datasets/gen.cpp=core/frame/registry.hpp"
             "datasets/gen.cpp=core/simd/eft_avx2.hpp" "datasets/gen.cpp=families/sum_dot/dpsum.hpp"
             "core/numerics/x.h=core/frame/registry.hpp" "core/numerics/x.h=datasets/rng.hpp"
             "core/oracle/o.cpp=core/frame/family.hpp" "base/b.hpp=core/numerics/numerics.h"
             "backends/cpu/k.cpp=backends/cuda/cuda_common.cuh" "families/f.cpp=backends/cpu/x.hpp")
  expect_floors(FAIL ${allowed} ${edge})
endforeach()
file(REMOVE_RECURSE "${SCRATCH}")
