#!/usr/bin/env bash
# What `insee sweep` gains from parallel runs: 40 short runs (an 8x8 torus,
# bubble oblivious and smart, loads 0.1 to 0.4, 5 seeds, 1000 + 4000
# cycles each) run by a shell loop of `insee run`, by `insee sweep -j 1`, by
# `insee sweep -j 2` and, when mpirun is there, by `mpirun -n 4 insee sweep`
# on the same cores (its ranks talking through a socket, as on one machine,
# and through Open MPI, as across machines). Prints each one's wall time, best of REPEATS, and its
# ratio to the loop; then what a run costs before its first cycle
# against one of those runs, whole processes each.
#
#   bench/sweep.sh [BUILD_DIR] [REPEATS]   (defaults: build-bench, 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench}
repeats=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

config=$root/examples/torus-8x8-bubble-smart.toml
window=(--set simulation.phases=fixed --set simulation.warmup=1000 --set simulation.cycles=4000)
modes=(oblivious smart)
loads=(0.1 0.2 0.3 0.4)

loop() {
  for mode in "${modes[@]}"; do
    for load in "${loads[@]}"; do
      for seed in 1 2 3 4 5; do
        "$build/insee" run "$config" "${window[@]}" --set "router.mode=$mode" \
          --set "traffic.load=$load" --set "simulation.seed=$seed" >/dev/null
      done
    done
  done
}

# sweep JOBS [LAUNCHER...]: the 40 runs as one sweep, -j JOBS per process
sweep() {
  local jobs=$1
  shift
  rm -f "$tmp"/runs*.csv
  "$@" "$build/insee" sweep "$config" "${window[@]}" --vary router.mode=oblivious,smart \
    --vary traffic.load=0.1:0.4:0.1 --seeds 5 -j "$jobs" -o "$tmp/runs.csv" >/dev/null 2>&1
}

# best COMMAND...: the shortest wall time of `repeats` runs, in seconds
best() {
  local top=inf start end
  for _ in $(seq "$repeats"); do
    start=$(date +%s.%N)
    "$@"
    end=$(date +%s.%N)
    top=$(awk -v a="$top" -v s="$start" -v e="$end" 'BEGIN { t = e - s; print (a == "inf" || t < a) ? t : a }')
  done
  echo "$top"
}

base=$(best loop)
printf '%-26s %8s %8s\n' "40 runs" wall_s "vs loop"
printf '%-26s %8.2f %8.3f\n' "insee run, one by one" "$base" 1
for jobs in 1 2; do
  t=$(best sweep "$jobs")
  printf '%-26s %8.2f %8.3f\n' "insee sweep -j $jobs" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN { print a / b }')"
done
# Open MPI's ranks, oversubscribed on the same cores, when mpirun is there.
if command -v mpirun >/dev/null; then
  as_root=()
  [ "$(id -u)" -ne 0 ] || as_root=(--allow-run-as-root)
  t=$(best sweep 1 mpirun -n 4 --oversubscribe "${as_root[@]}")
  printf '%-26s %8.2f %8.3f\n' "mpirun -n 4 insee sweep" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN { print a / b }')"
  # The ranks through Open MPI, as across machines, rather than the socket.
  t=$(best sweep 1 env INSEE_SWEEP_RANKS=mpi mpirun -n 4 --oversubscribe "${as_root[@]}")
  printf '%-26s %8.2f %8.3f\n' "  the same through MPI" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN { print a / b }')"
fi

# What a run costs before its first cycle (starting insee, finding and
# loading the plugins, building the network): a run of one cycle, against
# one of the sweep's runs.
one() {
  "$build/insee" run "$config" "$@" >/dev/null
}
start=$(best one --set simulation.phases=fixed --set simulation.warmup=0 --set simulation.cycles=1)
whole=$(best one "${window[@]}" --set traffic.load=0.4)
echo
printf 'start-up %.3f s of a %.3f s run (%.0f %%)\n' "$start" "$whole" \
  "$(awk -v a="$start" -v b="$whole" 'BEGIN { print 100 * a / b }')"
