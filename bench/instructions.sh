#!/usr/bin/env bash
# Instructions per packet-hop of the packet engine, counted by callgrind
# (valgrind) on the reference experiments: the whole process run twice,
# measuring C and 2C cycles after the same warm-up; the difference in
# instructions over the difference in packet-hops measured is what one more
# packet-hop costs, with set-up, warm-up and drain cancelled out. The count
# does not depend on the machine or its load, so two builds compare exactly.
#
#   bench/instructions.sh [--cache] [BUILD_DIR [SOURCE_DIR]]
#
# --cache: L1 data-cache misses per packet-hop instead (cachegrind's model
# of this machine's caches), on 4 k- and 32 k-node tori where the engine
# is memory-bound; slower.
#
# Runs are on one thread ([simulation] threads = 1, a key builds before
# the static engine's threads do not know): a waiting thread's spinning
# would count as work.
#
# BUILD_DIR defaults to build-bench, SOURCE_DIR (the tree built there) to
# this one; the experiments are always this tree's (bench/compare.sh counts
# an older commit's build on them).
#
# Prints one row per experiment: instructions per packet-hop, and the
# packet-hops the longer run measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=0
if [[ ${1:-} == --cache ]]; then
  cache=1
  shift
fi
build=${1:-$root/build-bench}
src=${2:-$root}
command -v valgrind >/dev/null || { echo "bench/instructions.sh: needs valgrind (apt install valgrind)" >&2; exit 1; }

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# count CYCLES ARGS...: "events packet_hops" of one run: instructions under
# callgrind, or L1 data misses under cachegrind (--cache)
count() {
  local cycles=$1 ir hops tool=(--tool=callgrind)
  shift
  [[ $cache == 0 ]] || tool=(--tool=cachegrind --cache-sim=yes)
  valgrind "${tool[@]}" --"${tool[0]#--tool=}"-out-file="$scratch/cg" \
    "$build/insee" run --set simulation.phases=fixed --set simulation.warmup=1000 --set simulation.threads=1 \
    --set "simulation.cycles=$cycles" --set "stats.json=$scratch/run.json" "$@" >/dev/null 2>"$scratch/log" ||
    { cat "$scratch/log" >&2; exit 1; }
  # callgrind's summary is Ir alone; cachegrind's lists Ir I1mr ILmr Dr D1mr
  # DLmr Dw D1mw DLmw: the data misses are D1mr + D1mw.
  ir=$(awk -v cache="$cache" '/^summary:/ { print cache ? $6 + $9 : $2 }' "$scratch/cg")
  hops=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["packet_hops"])' \
           "$scratch/run.json")
  echo "$ir $hops"
}

# row LABEL CYCLES ARGS...: instructions per packet-hop between CYCLES and 2 CYCLES
row() {
  local label=$1 cycles=$2 a b
  shift 2
  a=$(count "$cycles" "$@")
  b=$(count $((2 * cycles)) "$@")
  awk -v label="$label" -v a="$a" -v b="$b" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    printf "%-34s %10.0f %12d\n", label, (y[1] - x[1]) / (y[2] - x[2]), y[2] }'
}

ref=$root/bench/reference.toml
tree=$root/examples/fat-tree-4ary3-updown.toml
if [[ $cache == 1 ]]; then
  printf '%-34s %10s %12s\n' experiment "L1 miss/hop" "packet-hops"
  row "16x16x16 dally basic 0.1" 150 "$ref" --set 'topology.dims=[16,16,16]' --set traffic.load=0.1 \
    --set simulation.warmup=150
  row "32x32x32 dally basic 0.1" 60 "$ref" --set 'topology.dims=[32,32,32]' --set traffic.load=0.1 \
    --set simulation.warmup=150
  exit 0
fi
printf '%-34s %10s %12s\n' experiment "instr/hop" "packet-hops"
row "8x8 dally basic 0.3"          4000 "$ref"
row "8x8 bubble smart 0.3"         4000 "$ref" --set router.plugin=bubble --set router.mode=smart
row "8x8 bubble smart 1.0 (saturated)" 1000 "$ref" --set router.plugin=bubble --set router.mode=smart \
  --set traffic.load=1.0
row "8x8 dally basic 1.0 (saturated)" 1000 "$ref" --set traffic.load=1.0
row "32x32 bubble smart 0.1"        1000 "$ref" --set 'topology.dims=[32,32]' --set traffic.load=0.1 \
  --set router.plugin=bubble --set router.mode=smart
# Past saturation INSEE's router's blocked heads sleep on its bound (ABI 1.16)
row "32x32 bubble smart 0.4 (saturated)" 300 "$ref" --set 'topology.dims=[32,32]' --set traffic.load=0.4 \
  --set router.plugin=bubble --set router.mode=smart --set simulation.warmup=2000
row "32x32 dally basic 0.075"      1000 "$ref" --set 'topology.dims=[32,32]' --set traffic.load=0.075
row "32x32 dally basic 0.4 (saturated)" 500 "$ref" --set 'topology.dims=[32,32]' --set traffic.load=0.4 \
  --set simulation.warmup=3000
row "4-ary 3-tree updown room 0.3" 4000 "$tree" --set traffic.load=0.3 --set simulation.packet_phits=16
row "4-ary 3-tree updown room saturated" 1000 "$tree" --set traffic.load=1.0 \
  --set simulation.packet_phits=16
# A large radix: 768 switches of 32 ports, 16 candidates per VC on the way up
row "16-ary 3-tree updown room 0.3" 200 "$tree" --set topology.k=16 --set traffic.load=0.3 \
  --set simulation.packet_phits=16
row "16-ary 3-tree updown room 1.0" 100 "$tree" --set topology.k=16 --set traffic.load=1.0 \
  --set simulation.packet_phits=16
row "dragonfly ugal 0.1"             4000 "$root/examples/dragonfly-ugal.toml" --set traffic.load=0.1
row "dragonfly ugal saturated"       1000 "$root/examples/dragonfly-ugal.toml" --set traffic.load=1.0
