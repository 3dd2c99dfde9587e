# The router `source` and the path routing `native` on every server-centric
# topology with a routing of its own, at a small size each. The router
# suite runs saturation experiments with `vcs` hop-indexed VCs, the
# topology's path_hops() (the fewest source accepts), and checks that every
# run drains: the evidence that those routes are deadlock free on each
# family. The routing suite walks every pair's paths as the flow engines
# ask for them. A check the suite skips (no experiment run, no path walked)
# fails the test.
function(own_routes label vcs plugin)
  set(topology --set topology.plugin=\"${plugin}\")
  foreach(setting ${ARGN})
    list(APPEND topology --set topology.${setting})
  endforeach()
  add_test(NAME conform.own-routes.router-source.${label}
           COMMAND insee-conform ${topology} --set router.vcs=${vcs}
                   $<TARGET_FILE:insee-router-source>)
  set_tests_properties(conform.own-routes.router-source.${label} PROPERTIES
    FAIL_REGULAR_EXPRESSION "SKIP +router\\.(runs|delivers|drains|paths)")
  add_test(NAME conform.own-routes.routing-native.${label}
           COMMAND insee-conform ${topology} $<TARGET_FILE:insee-routing-native>)
  set_tests_properties(conform.own-routes.routing-native.${label} PROPERTIES
    FAIL_REGULAR_EXPRESSION "SKIP +routing\\.paths")
endfunction()

own_routes(bcube-digit 6 bcube n=4 k=2 routing=\"digit\")
own_routes(bcube-parallel 8 bcube n=4 k=2 routing=\"parallel\")
own_routes(dpillar-single 10 dpillar n=6 k=3 routing=\"single\")
own_routes(dpillar-both 10 dpillar n=6 k=3 routing=\"both\")
own_routes(dcell 11 dcell n=2 k=2)
own_routes(ficonn 11 ficonn n=4 k=2)
own_routes(gdcficonn-proxy 11 gdcficonn n=2 k=2 routing=\"proxy\")
own_routes(hcn 11 hcn a=4 b=1 h=2)
own_routes(bcn 11 bcn a=3 b=2 h=1 c=1)
own_routes(knkstar 8 knkstar k=2 n=4)
own_routes(swcube 9 swcube k=3 n=3)
