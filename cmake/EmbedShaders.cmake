# volvox_embed_shaders(target dir): compiles each dir/*.comp with glslc into SPIR-V and embeds all
# of them in `target` as a generated C++ table (shaders_embedded.cpp), looked up by file stem:
#   vx::vk::embedded_shader("conv3x3") -> span of uint32_t words.
# A shader may declare variants on its first lines as
#   // VARIANT name -DDEFINE=1 -DOTHER
# each compiled separately and embedded as "stem.name"; the plain stem is always compiled too unless
# the file says "// NO_DEFAULT_VARIANT".
function(volvox_embed_shaders target dir)
  file(GLOB shader_sources CONFIGURE_DEPENDS ${dir}/*.comp)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/shaders)
  file(MAKE_DIRECTORY ${out_dir})
  set(spv_files "")
  set(spv_list "")
  foreach(src ${shader_sources})
    get_filename_component(stem ${src} NAME_WE)
    # Variant lines are read at configure time: re-configure when a shader changes.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
    file(STRINGS ${src} variant_lines REGEX "^// VARIANT ")
    file(STRINGS ${src} no_default REGEX "^// NO_DEFAULT_VARIANT")
    set(variants "")
    if(NOT no_default)
      list(APPEND variants "${stem}|")
    endif()
    foreach(line ${variant_lines})
      string(REGEX REPLACE "^// VARIANT ([A-Za-z0-9_]+) ?(.*)$" "\\1" vname "${line}")
      string(REGEX REPLACE "^// VARIANT ([A-Za-z0-9_]+) ?(.*)$" "\\2" vdefs "${line}")
      list(APPEND variants "${stem}.${vname}|${vdefs}")
    endforeach()
    foreach(v ${variants})
      string(REPLACE "|" ";" parts "${v}")
      list(GET parts 0 name)
      list(LENGTH parts nparts)
      set(defs "")
      if(nparts GREATER 1)
        list(GET parts 1 defs)
        separate_arguments(defs UNIX_COMMAND "${defs}")
      endif()
      set(spv ${out_dir}/${name}.spv)
      # glslc lists the headers this variant includes (under its defines) in a depfile, so that a
      # header change recompiles only the variants that include it.
      set(dep ${out_dir}/${name}.d)
      add_custom_command(OUTPUT ${spv}
        COMMAND ${GLSLC} --target-env=vulkan1.2 -O ${defs} -I ${dir} -MD -MF ${dep} -o ${spv} ${src}
        DEPENDS ${src}
        DEPFILE ${dep}
        COMMENT "glslc ${name}")
      list(APPEND spv_files ${spv})
      string(APPEND spv_list "${name}\t${spv}\n")
    endforeach()
  endforeach()
  # A host tool built here writes the table in well under a second; a cmake -P script took ~30 s.
  if(NOT TARGET embed_spirv)
    add_executable(embed_spirv ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_spirv.cpp)
  endif()
  # file(GENERATE) rewrites the list only when it changes (a shader or variant added or removed).
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/shaders_embedded.list)
  file(GENERATE OUTPUT ${list_file} CONTENT "${spv_list}")
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/shaders_embedded.cpp)
  add_custom_command(OUTPUT ${gen}
    COMMAND embed_spirv ${list_file} ${gen}
    DEPENDS embed_spirv ${list_file} ${spv_files}
    COMMENT "embedding SPIR-V" VERBATIM)
  target_sources(${target} PRIVATE ${gen})
  # Its own object: a changed table then recompiles ~3 s, not a unity batch of eight sources.
  set_source_files_properties(${gen} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()
