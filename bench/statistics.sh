#!/usr/bin/env bash
# What the statistics cost: the 8x8 torus at 0.3 (the embedded default
# experiment, over a fixed window so every variant simulates the same
# cycles) with every statistic off, with the defaults ([stats]: series and
# latency histogram) and with every one on. Prints each variant's simulated
# cycles/s as insee reports it, best of REPEATS, and its ratio to "off".
#
#   bench/statistics.sh [BUILD_DIR] [REPEATS]   (defaults: build-bench, 5)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench}
repeats=${2:-5}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

window=(--set simulation.phases=fixed --set simulation.warmup=5000 --set simulation.cycles=300000)
off=(--set stats.interval=0 --set stats.latency_histogram=false)
every=(--set stats.distance_histograms=true --set stats.queue_histograms=true
       --set stats.port_map=true --set stats.node_map=true --set stats.pair_map=true)

# best LABEL ARGS...: the highest cycles/s of `repeats` runs
best() {
  local top=0 cps
  for _ in $(seq "$repeats"); do
    cps=$("$build/insee" run "${window[@]}" "$@" | awk '/^simulator speed/ { print $3 }')
    top=$(awk -v a="$top" -v b="$cps" 'BEGIN { print (b > a) ? b : a }')
  done
  echo "$top"
}

base=$(best "${off[@]}")
printf '%-10s %14s %8s\n' variant "cycles/s" "vs off"
printf '%-10s %14.0f %8.3f\n' off "$base" 1
for variant in defaults every; do
  case $variant in
    defaults) cps=$(best) ;;
    every) cps=$(best "${every[@]}") ;;
  esac
  printf '%-10s %14.0f %8.3f\n' "$variant" "$cps" "$(awk -v a="$cps" -v b="$base" 'BEGIN { print a / b }')"
done
