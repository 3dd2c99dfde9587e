# BCube(n, k): closed forms, BFS, digit and parallel paths (test_bcube.c),
# and conformance from one level to three, n from 2 to 8.
servers_test(bcube insee-topology-bcube)
servers_conform(bcube n2-k0 --set n=2 --set k=0)
servers_conform(bcube n2-k3 --set n=2 --set k=3)
servers_conform(bcube n3-k2 --set n=3 --set k=2)
servers_conform(bcube n4-k1-parallel --set n=4 --set k=1 --set routing="parallel")
servers_conform(bcube n4-k2-hash --set n=4 --set k=2 --set routing="parallel" --set split="hash")
servers_conform(bcube n8-k2 --set n=8 --set k=2)

# All-to-all in the static flow engine: 12 flows on each of the 64
# server-switch channels and 15 on each of the 32 node links (the figures
# worked out in bcube-all-to-all.toml), 96 pairs 2 hops apart (one
# differing digit: 16 x 2 x 3) and 144 pairs 4 hops apart (16 x 3 x 3).
add_test(NAME topo-servers.bcube-all-to-all
         COMMAND insee-cli run ${CMAKE_CURRENT_SOURCE_DIR}/bcube-all-to-all.toml)
set_tests_properties(topo-servers.bcube-all-to-all PROPERTIES
  PASS_REGULAR_EXPRESSION "links by flows crossing +12:64 15:32\nflows by router hops +2:96 4:144")
