# libOpenImageDenoise.so.2: Intel Open Image Denoise 2.4's C API (include/OpenImageDenoise/,
# implemented in src/oidn/) over the engine, so that a renderer built against OIDN switches to
# Volvox by linking (or loading) this library instead. Like libvolvox.so it is the engine's objects
# plus the built-in weights, and exports only its API (install/oidn.map: oidn*).
# `cmake --install` adds the headers and OIDN's CMake package: find_package(OpenImageDenoise) with
# the imported target OpenImageDenoise, as OIDN's own package provides.
set(VOLVOX_OIDN_VERSION 2.4.1)  # the OIDN API version implemented (include/OpenImageDenoise/config.h)

volvox_layer(oidn DIR oidn USES core ops formats passes plan runtime backends/cpu session denoise)
target_compile_definitions(volvox_oidn PRIVATE OpenImageDenoise_EXPORTS)

add_library(OpenImageDenoise SHARED $<TARGET_OBJECTS:volvox_oidn>)
foreach(layer ${VOLVOX_LAYERS} volvox_builtin_weights)
  target_sources(OpenImageDenoise PRIVATE $<TARGET_OBJECTS:${layer}>)
endforeach()
target_link_libraries(OpenImageDenoise PRIVATE volvox_dependencies)
target_include_directories(OpenImageDenoise INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                                                      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set(oidn_map ${CMAKE_SOURCE_DIR}/cmake/install/oidn.map)
target_link_options(OpenImageDenoise PRIVATE -Wl,--version-script=${oidn_map} -Wl,--no-undefined)
set_target_properties(OpenImageDenoise PROPERTIES VERSION ${VOLVOX_OIDN_VERSION} SOVERSION 2 LINK_DEPENDS ${oidn_map})

set(oidn_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/OpenImageDenoise-${VOLVOX_OIDN_VERSION})
install(TARGETS OpenImageDenoise EXPORT OpenImageDenoiseTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/OpenImageDenoise DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT OpenImageDenoiseTargets DESTINATION ${oidn_cmake_dir})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/install/OpenImageDenoiseConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/install/OpenImageDenoiseConfig.cmake INSTALL_DESTINATION ${oidn_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/OpenImageDenoiseConfigVersion.cmake
                                 VERSION ${VOLVOX_OIDN_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/OpenImageDenoiseConfig.cmake
              ${CMAKE_BINARY_DIR}/install/OpenImageDenoiseConfigVersion.cmake DESTINATION ${oidn_cmake_dir})
