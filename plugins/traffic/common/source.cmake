# insee_add_source_plugin(<name> <sources>...): a traffic plugin whose tasks
# send at a load (source.h): its sources are compiled with the process and
# message lengths shared from this folder. Each such plugin's
# CMakeLists.txt includes this file.
function(insee_add_source_plugin name)
  set(common ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  insee_add_plugin(traffic ${name} SOURCES ${ARGN} ${common}/source.c ${common}/length.c
    ${common}/bernoulli.c)
  target_include_directories(insee-traffic-${name} PRIVATE ${common})
  # Each message crosses the plugin, source.c, length.c and bernoulli.c:
  # optimized at link time as the kernel is (where the compiler can), these
  # calls are inlined.
  foreach(config RELEASE RELWITHDEBINFO)
    get_target_property(ipo insee INTERPROCEDURAL_OPTIMIZATION_${config})
    set_property(TARGET insee-traffic-${name} PROPERTY INTERPROCEDURAL_OPTIMIZATION_${config} ${ipo})
  endforeach()
endfunction()
