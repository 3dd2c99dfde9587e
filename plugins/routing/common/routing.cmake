# insee_routing_plugin(<name> <sources>...): a path routing built with the
# shared graph and distance tables (shortest.c) and path lists (paths.c),
# compiled into its .so.
function(insee_routing_plugin name)
  set(common ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  insee_add_plugin(routing ${name} SOURCES ${ARGN} ${common}/shortest.c ${common}/paths.c)
  target_include_directories(insee-routing-${name} PRIVATE ${common})
endfunction()
