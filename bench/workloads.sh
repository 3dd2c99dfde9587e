#!/usr/bin/env bash
# Workload benchmark: how the cost of a causal run grows with message length
# and with the number of tasks, and the speed of trace replay. Runs the
# butterfly kernel (INSEE's Fig. 14d experiment: 4096 tasks on a 64x64 torus,
# messages of 1 to 64 packets, then the same lengths as one long packet),
# all-to-all with growing task counts, and a generated FSIN trace. Prints simulated cycles, wall time, cycles/s,
# packet-hops/s and peak RSS as insee reports them; compare as ratios.
#
#   bench/workloads.sh [BUILD_DIR]        (default: build-bench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

# row LABEL ARGS...: one run of insee, one line of figures
row() {
  local label=$1 out
  shift
  out=$("$build/insee" run "$root/bench/workload.toml" "$@")
  awk -v label="$label" '
    /^packets \(whole run\)/ { delivered = $7; sub(",", "", delivered) }
    /^workload/            { done = $NF }
    /^wall time/           { wall = $3 }
    /^simulator speed/     { cps = $3; hops = $6 }
    /^peak memory/         { rss = $3 }
    END { printf "%-34s %12s %10s %8.2f %12.0f %14.0f %8.1f\n",
                 label, done, delivered, wall, cps, hops, rss }' <<<"$out"
}

header() {
  printf "%-34s %12s %10s %8s %12s %14s %8s\n" \
    "$1" completion packets wall_s "cycles/s" "packet-hops/s" RSS_MiB
}

header "butterfly 4096 tasks, 64x64"
for packets in 1 2 4 8 16 32 64; do
  row "message of $packets packets" --set traffic.plugin=butterfly \
      --set "traffic.bytes=$((packets * 64))"
done

echo
# The same messages as one packet each: a packet costs the engine the same
# whatever its length (packet-granular timing), so only the cycles grow.
header "butterfly, one packet per message"
for packets in 1 4 16 64; do
  row "message of $((packets * 16)) phits" --set traffic.plugin=butterfly \
      --set "traffic.bytes=$((packets * 64))" --set "simulation.packet_phits=$((packets * 16))"
done

echo
header "all-to-all, 1-packet messages"
for tasks in 64 256 1024; do
  row "$tasks tasks on 64x64" --set traffic.plugin=alltoall \
      --set "traffic.tasks=$tasks"
done

echo
# A ring trace: every task sends to the next and receives from the previous,
# computing between rounds (FSIN format, generated here).
awk -v n=4096 -v rounds=20 'BEGIN {
  for (r = 0; r < rounds; r++)
    for (t = 0; t < n; t++) {
      printf "c %d 100\n", t
      printf "s %d %d %d 1024\n", t, (t + 1) % n, r
      printf "r %d %d %d 1024\n", (t + n - 1) % n, t, r
    } }' >"$tmp/ring.fsin"
header "trace replay, 64x64"
row "ring trace, 4096 tasks, 20 rounds" --set traffic.plugin=trace \
    --set "traffic.file=\"$tmp/ring.fsin\""
