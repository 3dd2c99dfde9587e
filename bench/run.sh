#!/usr/bin/env bash
# The benchmark: builds insee in Release and runs the reference experiments
# (tori at 30 % of their capacity 8/k under uniform traffic) plus a BlueGene/L-sized 64x32x32 torus for memory, on one thread,
# then a 32x32x32 torus on one thread and on every core, and the results of
# a 64x64x64 torus written as JSON. Prints,
# for each, simulated cycles/s, packet-hops/s and peak RSS as reported by
# insee itself. Compare figures side by side on one machine, as ratios.
#
#   bench/run.sh [BUILD_DIR]        (default: build-bench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

# setup LABEL --set ...: time to build a topology (insee topology), and its size
setup() {
  local label=$1 out
  shift
  out=$("$build/insee" topology "$@")
  awk -v label="$label" '
    /^routers/      { routers = $2 }
    /^nodes/        { nodes = $2 }
    /^set-up time/  { setup = $3 }
    END { printf "%-22s %9s %9s %10s\n", label, routers, nodes, setup }' <<<"$out"
}

# run LABEL DIMS LOAD WARMUP CYCLES [--set router...]: one row
run() {
  local label=$1 dims=$2 load=$3 warmup=$4 cycles=$5 out router
  shift 5
  router=$(printf '%s' "${*:-dally basic}" | sed 's/--set router\.//g; s/--set network\.//g; s/plugin=//; s/mode=//')
  out=$("$build/insee" run "$root/bench/reference.toml" --set "simulation.threads=${threads:-1}" \
        --set "topology.dims=$dims" --set "traffic.load=$load" \
        --set "simulation.warmup=$warmup" --set "simulation.cycles=$cycles" "$@")
  awk -v label="$label" -v load="$load" -v router="$router" '
    /^simulated cycles/ { cycles = $3 }
    /^accepted load/    { accepted = $3 }
    /^set-up time/      { setup = $3 }
    /^wall time/        { wall = $3 }
    /^simulator speed/  { cps = $3; hops = $6 }
    /^peak memory/      { rss = $3 }
    END { printf "%-10s %-24s %7s %9s %10s %8.3f %8.2f %14.0f %16.0f %10.1f\n",
                 label, router, load, accepted, cycles, setup, wall, cps, hops, rss }' <<<"$out"
}

printf "%-10s %-24s %7s %9s %10s %8s %8s %14s %16s %10s\n" \
  torus router load accepted cycles setup_s wall_s "cycles/s" "packet-hops/s" "RSS_MiB"
run 8x8      "[8,8]"      0.3    1000 2000000
run 16x16    "[16,16]"    0.15   1000 400000
run 32x32    "[32,32]"    0.075  1000 100000
run 64x64    "[64,64]"    0.0375 1000 30000
run 64x32x32 "[64,32,32]" 0.1    500  2000
# INSEE's default router, and the adaptive Dally, on the same experiments
smart=(--set router.plugin=bubble --set router.mode=smart)
adaptive=(--set router.plugin=dally --set router.mode=adaptive --set router.vcs=3)
run 8x8      "[8,8]"      0.3    1000 2000000 "${smart[@]}"
run 8x8      "[8,8]"      0.3    1000 2000000 "${adaptive[@]}"
run 32x32    "[32,32]"    0.075  1000 100000  "${smart[@]}"
run 32x32    "[32,32]"    0.075  1000 100000  "${adaptive[@]}"
run 64x64    "[64,64]"    0.0375 1000 30000   "${smart[@]}"
run 64x64    "[64,64]"    0.0375 1000 30000   "${adaptive[@]}"

# Flow control: the same 8x8 experiment with a 5-cycle router, moved as
# packets (virtual cut-through), then flit by flit (wormhole, 64-flit
# buffers: BookSim2's router as examples/booksim-torus-8x8-wormhole.toml
# sets it up). Their ratio is what wormhole costs.
echo
echo "flow control: virtual cut-through, then wormhole (8x8, a 5-cycle router)"
run 8x8 "[8,8]" 0.3 1000 200000 --set network.router_cycles=4 --set network.node_cable_cycles=1
run 8x8 "[8,8]" 0.3 1000 200000 --set 'network.flow_control="wormhole"' \
  --set network.vc_buffer_bytes=256 --set network.node_cable_cycles=1

# The same large torus on every core ([simulation] threads = 0): the
# routing decisions of each cycle shared, the results the same
echo
echo "threads: 1, then every core (wall time; the results are the same)"
run 32x32x32 "[32,32,32]" 0.1    500  1000
threads=0 run 32x32x32 "[32,32,32]" 0.1    500  1000

echo
printf "%-22s %9s %9s %10s\n" "topology set-up" routers nodes seconds
setup "torus 64x32x32" --set topology.plugin=torus --set "topology.dims=[64,32,32]"
setup "16-ary 3-tree" --set topology.plugin=kary-ntree --set topology.k=16 --set topology.n=3

# The results of a large network: a 64x64x64 torus (262 144 routers, its
# 1.5 M ports listed in the JSON document) for 20 cycles, the whole
# process timed, writing the document included, and its peak memory
echo
echo "results at scale: 64x64x64 torus, 20 cycles, with the JSON document"
json=$(mktemp --suffix=.json)
python3 - "$build/insee" "$root/bench/reference.toml" "$json" <<'PY'
import os, resource, subprocess, sys, time
insee, ref, json = sys.argv[1:]
start = time.monotonic()
subprocess.run([insee, "run", ref, "--set", "topology.dims=[64,64,64]", "--set",
                "traffic.load=0.05", "--set", "simulation.warmup=20", "--set",
                "simulation.cycles=20", "--set", "simulation.threads=1", "--set",
                f'stats.json="{json}"'], check=True, stdout=subprocess.DEVNULL)
wall = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{'wall_s':>10} {'RSS_MiB':>10} {'json_MB':>10}")
print(f"{wall:10.2f} {rss:10.1f} {os.path.getsize(json) / 1e6:10.1f}")
PY
rm -f "$json"
