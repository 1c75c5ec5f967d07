# OpenCL kernels are real .cl files (backends/opencl/kernels/); the binary carries their text.
# accsum_embed_opencl() writes, for each kernel file K.cl, generated/opencl/K.cl.inc: one C++ raw
# string literal holding K.cl with every `#include "path"` that names a file of this source tree
# replaced by that file's text (each file once, recursively), so that the program the host hands to
# clCreateProgramWithSource needs no include path at run time. The same .cl files compile offline
# with `-I <source root>` (the opencl_kernels_compile test). Done at configure time: CMake re-runs
# whenever a kernel or an included header changes.

# Sets OUT_VAR to FILE's text with its in-tree includes inlined; SEEN_VAR lists the files already
# inlined (a header guard would do the same for a compiler; here the text simply appears once).
function(accsum_inline_includes FILE OUT_VAR SEEN_VAR)
  file(READ "${FILE}" text)
  set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${FILE}")
  set(seen ${${SEEN_VAR}} "${FILE}")
  string(REGEX MATCHALL "#include \"[^\"]+\"" directives "${text}")
  foreach(directive IN LISTS directives)
    string(REGEX REPLACE "#include \"([^\"]+)\"" "\\1" path "${directive}")
    set(target "${CMAKE_SOURCE_DIR}/${path}")
    if(NOT EXISTS "${target}")
      continue()  # a generated or system header: left to the compiler
    endif()
    if(target IN_LIST seen)
      set(body "")
    else()
      accsum_inline_includes("${target}" body seen)
      set(body "/* ---- ${path} ---- */\n${body}")
    endif()
    string(REPLACE "${directive}" "${body}" text "${text}")
  endforeach()
  set(${OUT_VAR} "${text}" PARENT_SCOPE)
  set(${SEEN_VAR} ${seen} PARENT_SCOPE)
endfunction()

function(accsum_embed_opencl)
  file(GLOB kernels CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/backends/opencl/kernels/*.cl")
  foreach(kernel IN LISTS kernels)
    get_filename_component(name "${kernel}" NAME)
    set(seen "")
    accsum_inline_includes("${kernel}" text seen)
    file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/generated/opencl/${name}.inc"
         CONTENT "R\"accsum_embed(@text@)accsum_embed\"\n" @ONLY)
  endforeach()
  set(ACCSUM_OPENCL_KERNELS ${kernels} PARENT_SCOPE)
endfunction()
