# docs/architecture.md's "add a backend" recipe, exercised: the toy backend is a folder of two files
# (tests/toy_backend/backends/toy/: its BackendInfo registration and one algorithm). Copied into
# backends/toy/ of a scratch tree that is otherwise this one, it is found and built by CMake
# (cmake/backends.cmake) with no other edit, it compiles against the tree's headers, the floors
# apply to it, and no file outside this folder names it: the recipe's count of files holds.
#   cmake -DROOT=<source root> -DSCRATCH=<scratch folder> -DCXX=<C++ compiler> -P test_toy_backend.cmake
cmake_minimum_required(VERSION 3.24)
set(toy_dir "${ROOT}/tests/toy_backend/backends/toy")
file(GLOB toy_files RELATIVE "${toy_dir}" "${toy_dir}/*")
list(SORT toy_files)
if(NOT toy_files STREQUAL "backend_toy.cpp;sum_toy.cpp")
  message(FATAL_ERROR "the recipe names two files (the BackendInfo, the algorithms); the toy has: ${toy_files}")
endif()

# The scratch tree: this tree's top-level entries linked, backends/ a folder of the real backends
# (linked) and the toy (copied).
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}/backends")
file(GLOB top RELATIVE "${ROOT}" "${ROOT}/*")
foreach(entry IN LISTS top)
  if(NOT entry STREQUAL "backends" AND NOT entry MATCHES "^build")
    file(CREATE_LINK "${ROOT}/${entry}" "${SCRATCH}/${entry}" SYMBOLIC)
  endif()
endforeach()
file(GLOB real_backends RELATIVE "${ROOT}/backends" "${ROOT}/backends/*")
foreach(backend IN LISTS real_backends)
  file(CREATE_LINK "${ROOT}/backends/${backend}" "${SCRATCH}/backends/${backend}" SYMBOLIC)
endforeach()
file(COPY "${toy_dir}" DESTINATION "${SCRATCH}/backends")

# CMake finds it: the toy is in the backend list (after the known ones) with its two sources.
set(ACCSUM_CUDA OFF)
include("${ROOT}/cmake/backends.cmake")
accsum_backends("${SCRATCH}" names sources)
list(GET names -1 last)
if(NOT last STREQUAL "toy")
  message(FATAL_ERROR "the backend list of the scratch tree does not end with the toy: ${names}")
endif()
foreach(file IN LISTS toy_files)
  if(NOT "${SCRATCH}/backends/toy/${file}" IN_LIST sources)
    message(FATAL_ERROR "backends/toy/${file} is not among the sources CMake builds")
  endif()
endforeach()

# It compiles against the tree's headers.
foreach(file IN LISTS toy_files)
  execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -Wall -Werror -I "${SCRATCH}" "${SCRATCH}/backends/toy/${file}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "backends/toy/${file} does not compile:\n${err}")
  endif()
endforeach()

# The floors apply to it: the tree passes, and the toy including another backend's folder fails.
execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${SCRATCH} -P "${ROOT}/tests/check_floors.cmake" RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the scratch tree with the toy breaks the floors:\n${err}")
endif()
file(WRITE "${SCRATCH}/backends/toy/borrow.cpp" "#include \"backends/cpu/moddot_rz.hpp\"\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${SCRATCH} -P "${ROOT}/tests/check_floors.cmake" RESULT_VARIABLE rc
                OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "the floors let the toy backend include backends/cpu/")
endif()

# Nothing outside tests/toy_backend/ names it (the build, the docs' recipe aside).
file(GLOB_RECURSE tree_files LIST_DIRECTORIES false "${ROOT}/app/*" "${ROOT}/base/*" "${ROOT}/core/*" "${ROOT}/datasets/*"
     "${ROOT}/families/*" "${ROOT}/backends/*" "${ROOT}/lib/*" "${ROOT}/cmake/*" "${ROOT}/tests/*" "${ROOT}/CMakeLists.txt")
foreach(file IN LISTS tree_files)
  if(file MATCHES "/tests/toy_backend/" OR NOT file MATCHES "\\.(cpp|hpp|h|cu|cuh|cmake|txt)$")
    continue()
  endif()
  file(STRINGS "${file}" hits REGEX "\"toy\",|backends/toy|backend_toy|toy_backend")
  if(hits)
    message(FATAL_ERROR "${file} names the toy backend: ${hits}")
  endif()
endforeach()
file(REMOVE_RECURSE "${SCRATCH}")
