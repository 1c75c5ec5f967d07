# Writes OUT with the current git revision (+ "-dirty" for uncommitted changes), the compiler
# (COMPILER) and the CUDA architectures (CUDA_ARCH, empty without CUDA), only when they changed, so
# every build's report names the code it ran and how it was built.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT rev)
  set(rev "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD WORKING_DIRECTORY ${SRC} RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty)
    set(rev "${rev}-dirty")
  endif()
endif()
set(content "#pragma once\n#define ACCSUM_GIT_REV \"${rev}\"\n#define ACCSUM_COMPILER \"${COMPILER}\"\n#define ACCSUM_CUDA_ARCH \"${CUDA_ARCH}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
