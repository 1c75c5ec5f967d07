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
# The speed gate's candidates (scripts/speed_gate_rates.py): one algorithm, slowed by 0, 5 or 10 %.
foreach(percent 0 5 10)
  accsum_plugin(paced_sum_${percent} tests/plugins/paced_sum.c)
  target_compile_definitions(paced_sum_${percent} PRIVATE SLOWDOWN_PERCENT=${percent})
  if(ACCSUM_CUDA)
    accsum_plugin(paced_sum_cuda_${percent} tests/plugins/paced_sum.cu)
    target_compile_definitions(paced_sum_cuda_${percent} PRIVATE SLOWDOWN_PERCENT=${percent})
    set_target_properties(paced_sum_cuda_${percent} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  endif()
endforeach()
foreach(case RANGE 1 15)
  accsum_plugin(hostile_${case} tests/plugins/hostile.c)
  target_compile_definitions(hostile_${case} PRIVATE HOSTILE_CASE=${case})
endforeach()
foreach(case RANGE 1 12)
  accsum_plugin(escaping_${case} tests/plugins/escaping.c)
  target_compile_definitions(escaping_${case} PRIVATE ESCAPING_CASE=${case})
endforeach()
accsum_plugin(hostile_text tests/plugins/hostile_text.cpp)

# examples/use-the-library, built here against the in-tree library too (the GPU scripts run it);
# tests/frame/test_plugins_library.cpp builds the same sources against the installed package.
if(ACCSUM_LIBRARY)
  add_executable(sum_file examples/use-the-library/sum_file.c)
  target_link_libraries(sum_file PRIVATE accsum_lib)
  set_target_properties(sum_file PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/use-the-library)
  if(ACCSUM_CUDA)
    add_executable(sum_device examples/use-the-library/sum_device.c)
    target_link_libraries(sum_device PRIVATE accsum_lib CUDA::cudart)
    set_target_properties(sum_device PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/use-the-library)
  endif()
endif()
