servers_test(knkstar insee-topology-knkstar)
servers_conform(knkstar k2n4 --set k=2 --set n=4)
servers_conform(knkstar k3n3 --set k=3 --set n=3)
servers_conform(knkstar k4n2 --set k=4 --set n=2)
