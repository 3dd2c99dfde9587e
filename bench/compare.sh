#!/usr/bin/env bash
# Two builds of the packet engine side by side: BASE (a commit) against NEW
# (a commit, or the working tree when omitted). For every later change to
# the engine:
#
#   bench/compare.sh BASE [NEW] [PAIRS]     (PAIRS default 3)
#
# 1. Both are built in Release in a scratch directory (git worktrees).
# 2. Each reference experiment runs once per build and their reports are
#    compared without the speed lines: a change meant to be faster must not
#    change a result (it prints "results identical" or the difference).
# 3. Simulated cycles/s, PAIRS interleaved pairs of runs, and the median of
#    NEW/BASE: above 1 is faster. Wall-clock ratios move with the machine's
#    load; the instruction counts of step 4 do not.
# 4. bench/instructions.sh on both builds, and the ratio NEW/BASE of
#    instructions per packet-hop: below 1 is fewer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 ]] || { sed -n '2,16p' "$0" >&2; exit 2; }
base=$1 new=${2:-} pairs=${3:-3}
scratch=$(mktemp -d)
cleanup() {
  git -C "$root" worktree remove --force "$scratch/base" 2>/dev/null || true
  [[ -z $new ]] || git -C "$root" worktree remove --force "$scratch/new" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT

git -C "$root" worktree add --detach --quiet "$scratch/base" "$base"
if [[ -n $new ]]; then
  git -C "$root" worktree add --detach --quiet "$scratch/new" "$new"
  new_src=$scratch/new
else
  new_src=$root
fi
for side in base new; do
  src=$scratch/base
  [[ $side == base ]] || src=$new_src
  cmake -S "$src" -B "$scratch/build-$side" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$scratch/build-$side" -j"$(nproc)" >/dev/null
done

ref=$root/bench/reference.toml
experiments=(
  "8x8 0.3|--set simulation.cycles=200000"
  "8x8 saturated|--set simulation.cycles=50000 --set traffic.load=1.0"
  "32x32 0.075|--set topology.dims=[32,32] --set traffic.load=0.075 --set simulation.cycles=20000"
  "8x8 bubble smart|--set simulation.cycles=200000 --set router.plugin=bubble --set router.mode=smart"
)

# report SIDE ARGS...: the run's report, on one thread: the engines are
# compared, not how a build splits a run over the cores
report() {
  local side=$1
  shift
  "$scratch/build-$side/insee" run "$ref" --set simulation.phases=fixed --set simulation.threads=1 \
    "$@" 2>&1
}

# strip REPORT: the report less what may differ between builds (speed,
# times, memory)
strip() { grep -vE '^(simulator speed|wall time|set-up time|peak memory|# speed)' <<<"$1"; }

printf '%-20s %10s %10s %8s  %s\n' experiment "base c/s" "new c/s" "new/base" results
for e in "${experiments[@]}"; do
  label=${e%%|*}
  read -r -a args <<<"${e#*|}"
  ratios=() last_b=0 last_n=0
  for _ in $(seq "$pairs"); do
    rb=$(report base "${args[@]}")
    rn=$(report new "${args[@]}")
    last_b=$(awk '/^simulator speed/ { print $3 }' <<<"$rb")
    last_n=$(awk '/^simulator speed/ { print $3 }' <<<"$rn")
    ratios+=("$(awk -v a="$last_n" -v b="$last_b" 'BEGIN { printf "%.4f", a / b }')")
  done
  if diff <(strip "$rb") <(strip "$rn") >"$scratch/diff"; then same="results identical"; else same="RESULTS DIFFER:"; fi
  median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  printf '%-20s %10s %10s %8s  %s\n' "$label" "$last_b" "$last_n" "$median" "$same"
  [[ $same == "results identical" ]] || head -20 "$scratch/diff"
done

echo
"$root/bench/instructions.sh" "$scratch/build-base" "$scratch/base" >"$scratch/ib"
"$root/bench/instructions.sh" "$scratch/build-new" "$new_src" >"$scratch/in"
paste -d'|' "$scratch/ib" "$scratch/in" | awk -F'|' '
  NR == 1 { printf "%-34s %10s %10s %8s\n", "experiment", "base i/hop", "new i/hop", "new/base"; next }
  { b = substr($1, 35) + 0; split(substr($2, 35), n, " ")
    printf "%-34s %10.0f %10.0f %8.3f\n", substr($1, 1, 34), b, n[1], n[1] / b }'
