# insee_add_flows_plugin(<name> <sources>...): a traffic plugin built on
# destination sets (flows.h), compiled with them and with the process and
# message lengths they send with (source.cmake). Each such plugin's
# CMakeLists.txt includes this file.
include(${CMAKE_CURRENT_LIST_DIR}/source.cmake)
function(insee_add_flows_plugin name)
  insee_add_source_plugin(${name} ${ARGN} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/flows.c)
endfunction()
