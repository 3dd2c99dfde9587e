# insee_add_kernel(<name> <source>): the traffic plugin of an application
# kernel (kernel_common.h). Its one source is compiled with what every
# kernel shares from this folder: the kernel glue, the script builder and
# the runner. Each kernel folder's CMakeLists.txt includes this file.
function(insee_add_kernel name source)
  set(common ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  insee_add_plugin(traffic ${name} SOURCES ${source} ${common}/kernel_common.c ${common}/script.c
    ${common}/script_runner.c)
  target_include_directories(insee-traffic-${name} PRIVATE ${common})
endfunction()
