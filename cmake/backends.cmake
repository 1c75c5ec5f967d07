# The backends are the folders of backends/ (docs/architecture.md, "How to add a backend"): the
# folder backends/<dir>/ is the backend <dir> with '_' written '-' (cpu_mt: cpu-mt), built from the
# folder's *.cpp (and *.cu when CUDA is enabled). cpu and cpu-mt are always built; every other
# backend has an option ACCSUM_<DIR> (ON unless CMakeLists.txt declared it, e.g. to find a toolkit,
# and turned it off). The order `list`, `info`, --help and --backend=all show: the folders of
# ACCSUM_BACKEND_ORDER first in that order, then any other folder alphabetically.
set(ACCSUM_BACKEND_ORDER cpu cpu_mt cuda opencl mpi)

# The toolkit of a backend whose option OPTION_NAME is on: find_package(PACKAGE ARGN); when found
# (FOUND_VAR), PACKAGE and its version (VERSION_VAR) join the list `found`, else the option goes off.
# A macro: the package's variables (e.g. MPIEXEC_EXECUTABLE) stay visible to the caller.
macro(accsum_backend_toolkit OPTION_NAME PACKAGE FOUND_VAR VERSION_VAR)
  if(${OPTION_NAME})
    find_package(${PACKAGE} ${ARGN})
    if(${FOUND_VAR})
      list(APPEND found "${PACKAGE} ${${VERSION_VAR}}")
    else()
      set(${OPTION_NAME} OFF)
    endif()
  endif()
endmacro()

# Sets OUT_VAR to the folders of ROOT/backends/, sorted (the floors check reads them too).
function(accsum_backend_folders ROOT OUT_VAR)
  file(GLOB entries LIST_DIRECTORIES true RELATIVE "${ROOT}/backends" "${ROOT}/backends/*")
  set(dirs "")
  foreach(entry IN LISTS entries)
    if(IS_DIRECTORY "${ROOT}/backends/${entry}")
      list(APPEND dirs "${entry}")
    endif()
  endforeach()
  list(SORT dirs)
  set(${OUT_VAR} ${dirs} PARENT_SCOPE)
endfunction()

# Sets NAMES_VAR to the backends built (their names) and SOURCES_VAR to their source files, for the
# tree at ROOT (also any scratch tree laid out like it).
function(accsum_backends ROOT NAMES_VAR SOURCES_VAR)
  accsum_backend_folders("${ROOT}" dirs)
  set(ordered "")
  foreach(dir IN LISTS ACCSUM_BACKEND_ORDER dirs)
    if(dir IN_LIST dirs AND NOT dir IN_LIST ordered)
      list(APPEND ordered "${dir}")
    endif()
  endforeach()
  set(names "")
  set(sources "")
  foreach(dir IN LISTS ordered)
    string(TOUPPER "ACCSUM_${dir}" option_name)
    if(NOT dir MATCHES "^(cpu|cpu_mt)$")
      if(NOT DEFINED ${option_name})
        option(${option_name} "Build the ${dir} backend (backends/${dir}/)" ON)
      endif()
      if(NOT ${option_name})
        continue()
      endif()
    endif()
    set(patterns "${ROOT}/backends/${dir}/*.cpp")
    if(CMAKE_CUDA_COMPILER AND ACCSUM_CUDA)
      list(APPEND patterns "${ROOT}/backends/${dir}/*.cu")
    endif()
    if(CMAKE_SCRIPT_MODE_FILE)  # cmake -P: no build to re-run
      file(GLOB folder_sources ${patterns})
    else()
      file(GLOB folder_sources CONFIGURE_DEPENDS ${patterns})
    endif()
    list(APPEND sources ${folder_sources})
    string(REPLACE "_" "-" name "${dir}")
    list(APPEND names "${name}")
  endforeach()
  set(${NAMES_VAR} ${names} PARENT_SCOPE)
  set(${SOURCES_VAR} ${sources} PARENT_SCOPE)
endfunction()
