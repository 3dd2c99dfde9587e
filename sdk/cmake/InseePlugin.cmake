# insee_add_plugin(<kind> <name> SOURCES <src>... [LIBRARIES <lib>...])
#
# Builds an insee plugin as a MODULE library named <kind>-<name>.so, with
# hidden symbols (only the entry is exported) and the SDK headers. Used
# in-tree and, through find_package(InseeSDK), by third parties out of tree.
#
# Where it goes:
#  - built into INSEE_PLUGIN_OUTPUT_DIR when set (in-tree: build/plugins/),
#    else into the current binary directory (out of tree: `insee --plugin-dir
#    build` finds it there);
#  - installed into INSEE_PLUGIN_INSTALL_DIR only when that is set (in-tree:
#    the kernel's default plugin directory). Out of tree it is unset unless
#    the project sets it, so a third-party plugin is built, never installed
#    into the system by surprise; InseeSDKConfig.cmake gives the system
#    directory as INSEE_SDK_PLUGIN_DIR for projects that want to install there.
#
# Every target made here is recorded in the global property
# INSEE_PLUGIN_TARGETS (in-tree: conformance tests run on each).
function(insee_add_plugin kind name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(valid topology router arbiter traffic placement bridge routing selection allocation)
  if(NOT kind IN_LIST valid)
    message(FATAL_ERROR "insee_add_plugin: kind '${kind}' is not one of: ${valid}")
  endif()
  if(NOT name MATCHES "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
    message(FATAL_ERROR "insee_add_plugin: name '${name}' must be made of [a-z0-9-] "
                        "(it is what configs write after plugin =)")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "insee_add_plugin(${kind} ${name}): no SOURCES")
  endif()
  if(NOT TARGET Insee::sdk)
    message(FATAL_ERROR "insee_add_plugin: no Insee::sdk target; call find_package(InseeSDK) first")
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
  set_property(GLOBAL APPEND PROPERTY INSEE_PLUGIN_TARGETS ${target})
endfunction()
