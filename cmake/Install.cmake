# The installable library: `cmake --install` puts into the prefix
#   lib/libvolvox.so.<version> (SONAME libvolvox.so.<major>) and the libvolvox.so link,
#   include/volvox/*.h{,pp}, bin/volvox (the CLI),
#   lib/cmake/Volvox/ (find_package(Volvox): the imported target Volvox::volvox), lib/pkgconfig/volvox.pc.
# The shared library is the same objects as the static `volvox` archive the tests and the CLI link;
# it exports only the public API (install/volvox.map).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(volvox_shared SHARED)
foreach(layer ${VOLVOX_LAYERS} volvox_builtin_weights)
  target_sources(volvox_shared PRIVATE $<TARGET_OBJECTS:${layer}>)
endforeach()
target_link_libraries(volvox_shared PRIVATE volvox_dependencies)
target_include_directories(volvox_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                                                   $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set(volvox_map ${CMAKE_SOURCE_DIR}/cmake/install/volvox.map)
target_link_options(volvox_shared PRIVATE -Wl,--version-script=${volvox_map} -Wl,--no-undefined)
set_target_properties(volvox_shared PROPERTIES OUTPUT_NAME volvox VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR} EXPORT_NAME volvox LINK_DEPENDS ${volvox_map})

install(TARGETS volvox_shared EXPORT VolvoxTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS volvox_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/volvox DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(volvox_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Volvox)
install(EXPORT VolvoxTargets NAMESPACE Volvox:: DESTINATION ${volvox_cmake_dir})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/install/VolvoxConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/install/VolvoxConfig.cmake INSTALL_DESTINATION ${volvox_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/VolvoxConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/VolvoxConfig.cmake ${CMAKE_BINARY_DIR}/install/VolvoxConfigVersion.cmake
        DESTINATION ${volvox_cmake_dir})
# Relocatable: the prefix is found from the .pc file's own folder (cmake --install --prefix <any>).
file(RELATIVE_PATH volvox_pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_SOURCE_DIR}/cmake/install/volvox.pc.in ${CMAKE_BINARY_DIR}/install/volvox.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/install/volvox.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
