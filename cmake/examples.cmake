# examples/plugins: the example plugins (include/accsum/plugin.h), built as the docs say
# (docs/plugins.md), into <build>/plugins; tests/plugins: the misbehaving ones the tests load.
# ACCSUM_EXAMPLE_PLUGINS lists the targets (the test binary depends on them).
enable_language(C)
set(plugin_dir ${CMAKE_BINARY_DIR}/plugins)
set(ACCSUM_EXAMPLE_PLUGINS "")
function(accsum_plugin name source)
  add_library(${name} MODULE ${source})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/include)
  # Error-free transforms need IEEE semantics: no contraction into FMA (GCC contracts by default in C).
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:C>:-ffp-contract=off -std=c99>
                                         $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false>)
  set_target_properties(${name} PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${plugin_dir}
                                           C_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden)
  target_link_libraries(${name} PRIVATE m)
  set(ACCSUM_EXAMPLE_PLUGINS ${ACCSUM_EXAMPLE_PLUGINS} ${name} PARENT_SCOPE)
endfunction()

accsum_plugin(kahan_sum examples/plugins/kahan_sum.c)
accsum_plugin(false_claim_sum examples/plugins/false_claim_sum.c)
accsum_plugin(dot2 examples/plugins/dot2.c)
accsum_plugin(small_gemm examples/plugins/small_gemm.c)
if(ACCSUM_CUDA)
  accsum_plugin(atomic_sum examples/plugins/atomic_sum.cu)
  set_target_properties(atomic_sum PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
endif()
foreach(case RANGE 1 10)
  accsum_plugin(hostile_${case} tests/plugins/hostile.c)
  target_compile_definitions(hostile_${case} PRIVATE HOSTILE_CASE=${case})
endforeach()
