#!/bin/sh
# The speed/accuracy trade-off of lock-step slices (docs/bridge.md): the same
# workload (2 guests booting, then 20 pings each way, 50 ms apart) at
# several slice ratios S:200 (S guest instructions = 200 network cycles).
# Usage: measure.sh BUILD_DIR OUT_DIR S...   Prints one table row per S:
# S, slices, simulated ms (guest instructions / 1e6, at 1 ns each), wall s,
# slices/s, mean ping RTT (ms) seen by guest 0.
set -eu
build=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
echo "# S F slices simulated_ms wall_s slices_per_s rtt_ms"
for s in "$@"; do
  "$here/run-guests.sh" "$build" "$here/../../tests/qemu/torus.toml" "$out/$s" lockstep 20 0.05 \
    --set bridge.client_units="$s" --set bridge.network_cycles=200 >/dev/null
  sed -n 's/.* \([0-9]*\) slices in \([0-9.]*\) s (\([0-9]*\) slices\/s).*simulated \([0-9]*\) client units/\1 \2 \3 \4/p' \
    "$out/$s/tm.log" | {
    read -r slices wall rate units
    rtt=$(sed -n 's|round-trip min/avg/max = [0-9.]*/\([0-9.]*\)/.*|\1|p' "$out/$s/guest-0.log")
    echo "$s 200 $slices $((units / 1000000)) $wall $rate $rtt"
  }
done
