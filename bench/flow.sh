#!/usr/bin/env bash
# The static flow engine's cost (docs/flow.md §6): builds insee in Release
# and routes uniform flows (INRFlow's random_F: `rounds` flows per server)
# on k-ary 3-trees with multistage static routing and with the bfs path
# routing. Prints, per run, the servers, the flows, the CPU seconds and the
# peak RSS, and the RSS per directed link. Compare rows side by side on one
# machine, as ratios.
#
#   bench/flow.sh [BUILD_DIR] [K...]     (default: build-bench, k = 16 32 48)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench}
shift || true
arities=${*:-16 32 48}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

# run LABEL K PATHS...: one row; PATHS are --set options choosing the paths
run() {
  local label=$1 k=$2 stats out
  shift 2
  stats=$(mktemp)
  out=$(/usr/bin/time -f '%U %S %M' -o "$stats" "$build/insee" run \
        --set simulation.engine=static --set topology.plugin=kary-ntree \
        --set "topology.k=$k" --set topology.n=3 --set traffic.plugin=uniform \
        --set flow.rounds=4 "$@")
  read -r user sys rss <"$stats"
  rm -f "$stats"
  awk -v label="$label" -v k="$k" -v cpu="$(echo "$user + $sys" | bc)" -v rss="$rss" '
    /^network/ { nodes = $2; links = $6 }
    /^flows /  { flows = $2 }
    END { printf "%-18s %4s %9s %10s %9.2f %9.1f %9.1f\n", label, k, nodes, flows, cpu,
                 rss / 1024, rss * 1024 / links }' <<<"$out"
}

printf "%-18s %4s %9s %10s %9s %9s %9s\n" paths k servers flows cpu_s rss_MiB B/link
for k in $arities; do
  run "multistage static" "$k" --set router.plugin=multistage --set router.mode=static
  run "bfs routing" "$k" --set routing.plugin=bfs
done
