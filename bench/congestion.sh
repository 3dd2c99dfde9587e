#!/usr/bin/env bash
# Congestion control past saturation (INSEE §2.2.5): accepted load against
# offered load on tori under uniform traffic, without congestion control,
# with in-transit priority (IPR), with the local buffer restriction (LBR,
# bubble only) and with global congestion control (GCC). Writes the figures
# as CSV and, when gnuplot is installed, docs/congestion-control.svg.
#
#   bench/congestion.sh [BUILD_DIR]        (default: build-bench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench}
csv=$root/docs/congestion-control.csv

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

# sweep LABEL DIMS ROUTER-SETTINGS... : one row per offered load
sweep() {
  local label=$1 dims=$2
  shift 2
  for load in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0; do
    "$build/insee" run --set "topology.dims=$dims" --set "traffic.load=$load" \
      --set simulation.warmup=10000 --set simulation.cycles=40000 "$@" |
      awk -v label="$label" -v load="$load" '/^accepted load/ { print label "," load "," $3 }'
  done
}

tmp=$(mktemp "$csv.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
  echo "configuration,offered,accepted"
  sweep "8x8 bubble smart" "[8,8]"
  sweep "8x8 bubble smart + IPR" "[8,8]" --set router.ipr=1
  sweep "8x8 bubble smart + LBR 2" "[8,8]" --set router.lbr=2
  sweep "8x8 bubble smart + GCC 15 %" "[8,8]" --set router.gcc=0.15
  sweep "16x16 dally basic" "[16,16]" --set router.plugin=dally
  sweep "16x16 dally basic + IPR" "[16,16]" --set router.plugin=dally --set router.ipr=1
  sweep "16x16 dally basic + GCC 15 %" "[16,16]" --set router.plugin=dally --set router.gcc=0.15
} >"$tmp"
mv "$tmp" "$csv"
trap - EXIT
echo "wrote $csv"

command -v gnuplot >/dev/null || { echo "gnuplot not installed: no plot"; exit 0; }
gnuplot <<GP
set terminal svg size 900,420 font "sans,11" background "white"
set output "$root/docs/congestion-control.svg"
set datafile separator ","
set multiplot layout 1,2
set xlabel "offered load (phits/node/cycle)"
set ylabel "accepted load (phits/node/cycle)"
set key right bottom
set grid
set xrange [0:1]
set title "8x8 torus, bubble smart"
plot for [c in "'8x8 bubble smart' '8x8 bubble smart + IPR' '8x8 bubble smart + LBR 2' '8x8 bubble smart + GCC 15 %'"] \
  "$csv" using 2:(strcol(1) eq c ? \$3 : 1/0) with linespoints title c
set title "16x16 torus, dally basic"
plot for [c in "'16x16 dally basic' '16x16 dally basic + IPR' '16x16 dally basic + GCC 15 %'"] \
  "$csv" using 2:(strcol(1) eq c ? \$3 : 1/0) with linespoints title c
unset multiplot
GP
echo "wrote $root/docs/congestion-control.svg"
