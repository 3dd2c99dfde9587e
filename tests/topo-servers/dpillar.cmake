# DPillar(n, k): closed forms, BFS, helix-and-ring paths (test_dpillar.c),
# and conformance with 4 to 10 switch ports, 2 to 4 columns.
servers_test(dpillar insee-topology-dpillar)
servers_conform(dpillar n4-k2 --set n=4 --set k=2)
servers_conform(dpillar n4-k3 --set n=4 --set k=3)
servers_conform(dpillar n6-k2-both --set n=6 --set k=2 --set routing="both")
servers_conform(dpillar n6-k3-hash --set n=6 --set k=3 --set routing="both" --set split="hash")
servers_conform(dpillar n10-k3 --set n=10 --set k=3)
servers_conform(dpillar n4-k4 --set n=4 --set k=4)
