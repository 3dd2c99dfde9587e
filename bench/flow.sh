#!/usr/bin/env bash
# The flow engines' cost (docs/flow.md §6 and §8): builds insee in Release
# and routes uniform flows on the static engine's scale cases, printing per run
# the servers, the flows, the CPU seconds (user + system), the wall seconds
# (the static engine walks flows on every core, [simulation] threads), the
# peak RSS, and the RSS per directed link. When INRFLOW names an INRFlow binary that
# you built yourself (this script never builds it), the same case runs on
# it too, in an empty folder, with the ratios. Compare rows side by side on
# one machine, as ratios.
#
#   bench/flow.sh [BUILD_DIR] [small|scale|huge|dynamic]   (default: build-bench, small)
#
#   small: seconds; 16-ary 3-tree, 8x8x8 torus, 16-ary 4-tree
#   scale: 64-ary 3-tree (262 144 servers) with 1 048 576 flows; torus 64^3
#          with 1 M flows; 32-ary 4-tree (1 048 576 servers, 16.8 M flows),
#          on one thread and on every core
#   huge:  16 M endpoints, one flow each: 64-ary 4-tree and torus 256^3
#          (about 16 GB and many minutes each)
#   dynamic: the dynamic engine (cycle_ns = 0, INRFlow's model) on
#          all-to-all over a 10-ary 3-tree (999 000 messages of 8 KiB) and
#          random groups of 16 all-to-all on a 25^3 torus (234 000); INRFlow
#          runs its dynamic mode on the same workloads (all2all_1,
#          manyall2allrnd_1_16), equal link capacities, all flows at once;
#          insee's figure is the median of 3 runs. Then a ping-pong of
#          4 000 messages on a 64^3 torus (insee only): one flow at a time
#          in a large network, where an instant must cost the flow, not
#          the network
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bench}
mode=${2:-small}
inrflow=${INRFLOW:-}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

# measure OUT -- COMMAND...: run it, its output to OUT; echo "cpu_s rss_kB wall_s"
measure() {
  local out=$1 stats
  shift 2
  stats=$(mktemp)
  /usr/bin/time -f '%U %S %M %e' -o "$stats" "$@" >"$out"
  awk '{ printf "%.2f %s %.2f\n", $1 + $2, $3, $4 }' "$stats"
  rm -f "$stats"
}

# run LABEL INRFLOW_ARGS|- --set ...: one row, and INRFlow's beside it
run() {
  local label=$1 inr=$2 out cpu rss wall
  shift 2
  out=$(mktemp)
  read -r cpu rss wall < <(measure "$out" -- "$build/insee" run \
    --set simulation.engine=static --set traffic.plugin=uniform "$@")
  awk -v label="$label" -v cpu="$cpu" -v rss="$rss" -v wall="$wall" '
    /^network/ { nodes = $2; links = $6 }
    /^flows +[0-9]/ { flows = $2 }
    END { printf "%-30s %9s %10s %9.2f %8.2f %9.1f %7.1f", label, nodes, flows, cpu, wall,
                 rss / 1024, rss * 1024 / links }' "$out"
  rm -f "$out"
  if [[ -n $inrflow && $inr != - ]]; then
    local dir icpu irss
    dir=$(mktemp -d) # INRFlow reads ./inrflow.conf and writes its files here
    read -r icpu irss _ < <(cd "$dir" && measure /dev/null -- "$inrflow" $inr mode=static 2>/dev/null)
    rm -rf "$dir"
    awk -v c="$cpu" -v r="$rss" -v ic="$icpu" -v ir="$irss" 'BEGIN {
      printf " %9.2f %9.1f %7.1fx %7.1fx", ic, ir / 1024, ic / (c > 0.01 ? c : 0.01), ir / r }'
  fi
  echo
}

# run_dynamic LABEL INRFLOW_TOPO INRFLOW_WORKLOAD --set ...: one dynamic row
# (messages between nodes in the flows column), and INRFlow's beside it
# unless INRFLOW_TOPO is -.
# insee's runs take a second or two, so a busy machine moves them by tens
# of percent: the row gives the median of 3 runs (by CPU time).
run_dynamic() {
  local label=$1 topo=$2 workload=$3 out cpu rss wall
  shift 3
  out=$(mktemp)
  read -r cpu rss wall < <(for _ in 1 2 3; do
    measure "$out" -- "$build/insee" run --set simulation.engine=dynamic \
      --set flow.cycle_ns=0 "$@"
  done | sort -n | sed -n 2p)
  awk -v label="$label" -v cpu="$cpu" -v rss="$rss" -v wall="$wall" '
    /^network/ { nodes = $2 }
    /^messages/ { flows = $2 }
    END { printf "%-30s %9s %10s %9.2f %8.2f %9.1f %7s", label, nodes, flows, cpu, wall,
                 rss / 1024, "-" }' "$out"
  rm -f "$out"
  if [[ -n $inrflow && $topo != - ]]; then
    local dir icpu irss
    dir=$(mktemp -d)
    echo "$workload" >"$dir/workload"
    read -r icpu irss _ < <(cd "$dir" && measure /dev/null -- "$inrflow" "$topo" mode=dynamic \
      injmode=0 capacity=1_1 workload=file_workload compile_latex=false 2>/dev/null)
    rm -rf "$dir"
    awk -v c="$cpu" -v r="$rss" -v ic="$icpu" -v ir="$irss" 'BEGIN {
      printf " %9.2f %9.1f %7.1fx %7.1fx", ic, ir / 1024, ic / (c > 0.01 ? c : 0.01), ir / r }'
  fi
  echo
}

printf "%-30s %9s %10s %9s %8s %9s %7s" case servers flows cpu_s wall_s rss_MiB B/link
[[ -n $inrflow ]] && printf " %9s %9s %8s %8s" inr_cpu_s inr_MiB cpu_x rss_x
echo
tree() { echo --set topology.plugin=kary-ntree --set "topology.k=$1" --set "topology.n=$2" \
  --set topology.nic=false --set router.plugin=multistage --set router.mode=static \
  --set "flow.rounds=$3"; }
torus() { echo --set topology.plugin=torus --set "topology.dims=[$1,$1,$1]" \
  --set router.plugin=dally --set router.mode=basic --set "flow.rounds=$2"; }
# INRFlow's random_F is F flows in all, each from a random server (INSEE:
# rounds flows from every server); fattree_K_N is our K-ary N-tree.
case $mode in
  small)
    run "16-ary 3-tree, 4/server" "topo=fattree_16_3 tpattern=random_16384" $(tree 16 3 4)
    run "torus 8^3, 4/server" "topo=torus_8_8_8 tpattern=random_2048" $(torus 8 4)
    run "16-ary 4-tree, 4/server" "topo=fattree_16_4 tpattern=random_262144" $(tree 16 4 4)
    ;;
  scale)
    run "64-ary 3-tree, 4/server" "topo=fattree_64_3 tpattern=random_1048576" $(tree 64 3 4)
    run "torus 64^3, 4/server" "topo=torus_64_64_64 tpattern=random_1048576" $(torus 64 4)
    # INRFlow's 8 KB per port would need 68 GB here: not run on it.
    run "32-ary 4-tree, 16/server, 1 th" - $(tree 32 4 16) --set simulation.threads=1
    run "32-ary 4-tree, 16/server" - $(tree 32 4 16)
    ;;
  huge)
    run "64-ary 4-tree, 1/server" - $(tree 64 4 1)
    run "torus 256^3, 1/server" - $(torus 256 1)
    ;;
  dynamic)
    run_dynamic "10-ary 3-tree, all-to-all" topo=fattree_10_3 "0 all2all_1 1000 sequential" \
      $(tree 10 3 1) --set traffic.plugin=all-to-all --set traffic.message_bytes=8192
    run_dynamic "torus 25^3, groups of 16" topo=torus_25_25_25 \
      "0 manyall2allrnd_1_16 15625 sequential" $(torus 25 1) \
      --set traffic.plugin=many-all-to-all --set traffic.group=16 \
      --set traffic.message_bytes=8192
    pingpong=$(mktemp)
    for _ in $(seq 2000); do
      printf 's 0 1 0 8192\nr 0 1 0 8192\ns 1 0 0 8192\nr 1 0 0 8192\n'
    done >"$pingpong"
    run_dynamic "torus 64^3, ping-pong" - - $(torus 64 1) --set traffic.plugin=trace \
      --set "traffic.file=$pingpong"
    rm -f "$pingpong"
    ;;
  *) echo "bench/flow.sh: mode '$mode' is not small, scale, huge or dynamic" >&2; exit 2 ;;
esac
