# volvox_layer(name DIR folder [USES folder ...]): the sources of src/<folder> as an object library
# volvox_<name> that can include only its own headers and those of the folders it USES (the
# layers below it, docs/ARCHITECTURE.md). Each layer compiles against a view of src/ made of
# symbolic links to exactly those folders, so an include across the layering fails the build
# ("No such file or directory") instead of passing review unnoticed.
function(volvox_layer name)
  cmake_parse_arguments(LAYER "" "DIR" "USES" ${ARGN})
  set(view ${CMAKE_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${view})
  foreach(folder ${LAYER_DIR} ${LAYER_USES})
    get_filename_component(parent ${view}/${folder} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${folder} ${view}/${folder} SYMBOLIC)
  endforeach()
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${LAYER_DIR}/*.cpp)
  add_library(volvox_${name} OBJECT ${sources})
  target_include_directories(volvox_${name} PRIVATE ${view})
  target_link_libraries(volvox_${name} PRIVATE volvox_dependencies)
  set_property(GLOBAL APPEND PROPERTY VOLVOX_LAYERS volvox_${name})
endfunction()
