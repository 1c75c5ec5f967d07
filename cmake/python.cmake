# The Python package `accsum` (python/accsum, docs/python.md): the nanobind module _accsum, linked
# from the tool's own objects (accsum_objs: the same kernels, none copied). Built when nanobind is
# found (scripts/install-deps.sh installs it); `pip install .` builds it through scikit-build-core.
find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
if(Python_FOUND AND NOT nanobind_DIR)
  execute_process(COMMAND ${Python_EXECUTABLE} -m nanobind --cmake_dir OUTPUT_VARIABLE nanobind_cmake_dir
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE nanobind_rc)
  if(nanobind_rc EQUAL 0)
    set(nanobind_DIR ${nanobind_cmake_dir})
  endif()
endif()
if(Python_FOUND)
  find_package(nanobind CONFIG QUIET)
endif()
if(NOT nanobind_FOUND)
  message(STATUS "Python package left out: nanobind not found (scripts/install-deps.sh installs it)")
  return()
endif()
message(STATUS "Python package: nanobind ${nanobind_VERSION}, Python ${Python_VERSION}")

nanobind_add_module(_accsum NB_STATIC
  python/src/module.cpp python/src/reductions.cpp python/src/verify_support.cpp python/src/cuda_bridge.cpp)
target_link_libraries(_accsum PRIVATE accsum_objs)
# The package as it is imported: the module beside the pure-Python files, in the build tree.
set(ACCSUM_PY_STAGE ${CMAKE_BINARY_DIR}/python/accsum)
set_target_properties(_accsum PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ACCSUM_PY_STAGE})
file(GLOB ACCSUM_PY_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/accsum/*)
add_custom_target(accsum_py_files ALL
  COMMAND ${CMAKE_COMMAND} -E make_directory ${ACCSUM_PY_STAGE}
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${ACCSUM_PY_FILES} ${ACCSUM_PY_STAGE}/)
add_dependencies(_accsum accsum_py_files)
if(SKBUILD)  # pip install .: the module goes into the wheel's accsum/ beside the Python files
  install(TARGETS _accsum LIBRARY DESTINATION accsum COMPONENT python)
endif()

if(ACCSUM_TESTS)
  # tests/python: pytest + hypothesis (bounded, derandomized); the CLI compares its bits.
  execute_process(COMMAND ${Python_EXECUTABLE} -c "import pytest, hypothesis, numpy" RESULT_VARIABLE pytest_rc
                  OUTPUT_QUIET ERROR_QUIET)
  if(pytest_rc EQUAL 0)
    add_test(NAME python_pytest COMMAND ${Python_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/tests/python)
    set_tests_properties(python_pytest PROPERTIES TIMEOUT 300 ENVIRONMENT
      "PYTHONPATH=${CMAKE_BINARY_DIR}/python;ACCSUM_BIN=$<TARGET_FILE:accsum>;ACCSUM_THREADS=2")
  else()
    message(WARNING "python_pytest left out: pytest, hypothesis or numpy not found (scripts/install-deps.sh installs them)")
  endif()
endif()
