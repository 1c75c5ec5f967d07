# libaccsum.so and its package: `make install` (or cmake --install) puts the library, the C API
# (include/accsum/accsum.h) and the plugin ABI header under the prefix, with a CMake package
# (find_package(accsum) -> accsum::accsum) and a pkg-config file (accsum.pc). The library is the
# tool's own objects (accsum_objs), so it runs the very kernels the tool measures.
include(CMakePackageConfigHelpers)

add_library(accsum_lib SHARED)
target_link_libraries(accsum_lib PRIVATE accsum_objs)
target_include_directories(accsum_lib INTERFACE
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(accsum_lib PROPERTIES
  OUTPUT_NAME accsum EXPORT_NAME accsum
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  INSTALL_RPATH_USE_LINK_PATH ON)  # installed, it still finds CUDA and the other non-system libraries
add_library(accsum::accsum ALIAS accsum_lib)

install(TARGETS accsum_lib EXPORT accsumTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/accsum/accsum.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/accsum)
set(accsum_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/accsum)
install(EXPORT accsumTargets NAMESPACE accsum:: DESTINATION ${accsum_cmake_dir})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/accsumConfig.cmake.in
  ${CMAKE_BINARY_DIR}/generated/accsumConfig.cmake INSTALL_DESTINATION ${accsum_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/accsumConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/accsumConfig.cmake ${CMAKE_BINARY_DIR}/generated/accsumConfigVersion.cmake
  DESTINATION ${accsum_cmake_dir})
# The .pc file finds the prefix from its own place, so `cmake --install --prefix` anywhere works.
file(RELATIVE_PATH ACCSUM_PC_UP "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${CMAKE_SOURCE_DIR}/cmake/accsum.pc.in ${CMAKE_BINARY_DIR}/generated/accsum.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/generated/accsum.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
