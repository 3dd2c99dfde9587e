# insee_add_plugin(<kind> <name> SOURCES <src>... [LIBRARIES <lib>...])
#
# Builds an insee plugin as a MODULE library named <kind>-<name>.so, with
# hidden symbols (only the entry is exported) and the SDK headers, and installs
# it into the plugin directory. Used in-tree and, through find_package(InseeSDK),
# by third parties out of tree.
function(insee_add_plugin kind name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(valid topology router arbiter traffic placement bridge)
  if(NOT kind IN_LIST valid)
    message(FATAL_ERROR "insee_add_plugin: kind '${kind}' is not one of: ${valid}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "insee_add_plugin(${kind} ${name}): no SOURCES")
  endif()
  set(target "insee-${kind}-${name}")
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Insee::sdk m ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "${kind}-${name}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED INSEE_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${INSEE_PLUGIN_OUTPUT_DIR}")
  endif()
  if(DEFINED INSEE_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION "${INSEE_PLUGIN_INSTALL_DIR}")
  endif()
endfunction()
