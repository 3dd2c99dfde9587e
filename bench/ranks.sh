#!/usr/bin/env bash
# One run split over mpirun's ranks (docs/engine.md, "Many machines in one
# run"), or over threads of one process as parts of the network (docs/
# engine.md, "Threads"), against the same run in one process on one
# thread: the time loop's wall time on 1, 2 and 4 ranks (or threads), the
# median of REPS runs each, taken in turn so that a busy moment of the
# machine falls on all of them alike, and part 0's time per exchange
# (waiting for the others included): one a cycle, or one per window of
# cycles when links have latencies. The reports are checked to
# agree before any time is printed.
#
#   bench/ranks.sh [--threads] [BUILD_DIR [REPS]]
#
# BUILD_DIR defaults to build-bench (a Release build, with Open MPI unless
# --threads), REPS to 3. Ranks or threads beyond the machine's cores share
# them (mpirun --oversubscribe): the 4-part row on a 2-core machine shows
# what waiting for a descheduled part costs, not what 4 cores would give.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
threads=0
if [[ ${1:-} == --threads ]]; then
  threads=1
  shift
fi
build=${1:-$root/build-bench}
reps=${2:-3}
((threads)) || command -v mpirun >/dev/null ||
  { echo "bench/ranks.sh: needs mpirun (apt install openmpi-bin libopenmpi-dev), or --threads" >&2; exit 1; }

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/torus.toml" <<'EOF'
[simulation]
phases = "fixed"
warmup = 1000
cycles = 4000
threads = 1
[topology]
plugin = "torus"
[router]
plugin = "dally"
vcs = 2
[traffic]
plugin = "uniform"
[stats]
interval = 0
EOF
root_ok=()
[[ $(id -u) -eq 0 ]] && root_ok=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader,tcp

# run PARTS LABEL SETS...: one run, its report in $scratch/LABEL-PARTS.txt
# (its standard error, rank 0's notices included, shown only if it fails)
run() {
  local n=$1 label=$2
  shift 2
  trap 'cat "$scratch/$label-$n.err" >&2' ERR
  if ((n == 1 || threads)); then
    "$build/insee" run "$scratch/torus.toml" --set "simulation.threads=$n" "$@" \
      >"$scratch/$label-$n.txt" </dev/null 2>"$scratch/$label-$n.err"
  else
    mpirun -n "$n" --oversubscribe "${root_ok[@]}" "$build/insee" run "$scratch/torus.toml" "$@" \
      >"$scratch/$label-$n.txt" </dev/null 2>"$scratch/$label-$n.err" # (mpirun reads stdin)
  fi
}

# field FILE PREFIX: the number after a report line's label
field() { awk -v p="$2" 'index($0, p) == 1 { sub(p, ""); print $1 + 0; exit }' "$1"; }

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

unit=ranks
((threads == 0)) || unit=threads
printf '%-34s %9s %9s %9s %8s %8s %10s\n' experiment "1 part s" "2 $unit" "4 $unit" "1/2" "1/4" "us/exch 2"
while IFS='|' read -r label sets; do
  read -ra args <<<"$sets"
  declare -A times=()
  for ((i = 0; i < reps; i++)); do
    for n in 1 2 4; do
      run "$n" "$label" "${args[@]}"
      times[$n]+="$(field "$scratch/$label-$n.txt" "wall time") "
    done
    for n in 2 4; do
      # the results, not the echo above them (it names the threads)
      if ! cmp -s <(sed -n '/^# results/,/^# speed/p' "$scratch/$label-1.txt") \
                  <(sed -n '/^# results/,/^# speed/p' "$scratch/$label-$n.txt"); then
        echo "bench/ranks.sh: $label: the report of $n $unit differs from one thread's" >&2
        exit 1
      fi
    done
  done
  t1=$(tr ' ' '\n' <<<"${times[1]}" | grep . | median)
  t2=$(tr ' ' '\n' <<<"${times[2]}" | grep . | median)
  t4=$(tr ' ' '\n' <<<"${times[4]}" | grep . | median)
  us=$(awk '/^(mpirun ranks|threads, as parts)/ { for (i = 1; i <= NF; i++) if ($i == "us") print $(i - 1) }' \
         "$scratch/$label-2.txt")
  printf '%-34s %9.3f %9.3f %9.3f %8.2f %8.2f %10s\n' "$label" "$t1" "$t2" "$t4" \
    "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print a / b }')" \
    "$(awk -v a="$t1" -v b="$t4" 'BEGIN { print a / b }')" "$us"
  unset times
done <<'EOF'
32x32 torus dally 0.3|--set topology.dims=[32,32] --set traffic.load=0.3 --set simulation.cycles=10000
64x64 torus dally 0.3|--set topology.dims=[64,64] --set traffic.load=0.3
16x16x16 torus dally 0.1|--set topology.dims=[16,16,16] --set traffic.load=0.1
128x128 torus dally 0.05|--set topology.dims=[128,128] --set traffic.load=0.05 --set simulation.cycles=2000
16-ary 3-tree updown room 0.3|--set topology.plugin="kary-ntree" --set topology.k=16 --set topology.n=3 --set router.plugin="updown" --set router.select="room" --set traffic.load=0.3 --set simulation.cycles=2000
64x64 torus bubble smart 0.3|--set topology.dims=[64,64] --set router.plugin="bubble" --set router.vcs=3 --set traffic.load=0.3
32x32 torus dally 0.02, 10 ns cables|--set topology.dims=[32,32] --set traffic.load=0.02 --set simulation.cycles=60000 --set network.link_bandwidth="4GB/s" --set network.cable_ns=10 --set network.router_ns=94
32x32 torus wormhole (BookSim2's router) 0.2|--set topology.dims=[32,32] --set router.mode="partition" --set network.flow_control="wormhole" --set network.vc_buffer_bytes=256 --set network.credit_cycles=2 --set network.cable_cycles=1 --set traffic.load=0.2 --set simulation.cycles=2000
64x64 torus stencil (an MPI program)|--set topology.dims=[64,64] --set traffic.plugin="stencil" --set traffic.dims=2 --set traffic.bytes=1024 --set traffic.iterations=6 --set traffic.compute=100 --set network.recv_overhead_cycles=20
EOF
