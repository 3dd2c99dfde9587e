#!/bin/sh
# Two QEMU guests ping each other through a simulated 2 x 2 torus
# (sdk/qemu/run-guests.sh). Exit 77 (ctest: skipped) without qemu, a kernel
# or busybox-static.
#   free BUILD OUT: free-running; every ping of both guests is answered.
#   lockstep BUILD OUT: lock-step at 250000:200 and 1000000:200; every ping
#     answered, and the mean RTT grows with the slice: a frame waits for
#     slice boundaries, so 4 times longer slices give RTTs over twice as long.
set -eu
mode=$1 build=$2 out=$3
run=$(dirname "$0")/../../sdk/qemu/run-guests.sh
config=$(dirname "$0")/torus.toml
rm -rf "$out"

# The mean RTT guest $2 of run $1 reported, after checking that none of its
# $3 pings was lost.
rtt() {
  log=$1/guest-$2.log
  grep -q "^$3 packets transmitted, $3 packets received, 0% packet loss" "$log" ||
    { echo "FAIL: guest $2 lost pings:"; cat "$log"; exit 1; }
  sed -n 's|round-trip min/avg/max = [0-9.]*/\([0-9.]*\)/.*|\1|p' "$log"
}

rc=0
case $mode in
free)
  "$run" "$build" "$config" "$out" free 3 0.2 || rc=$?
  [ $rc -eq 0 ] || exit $rc
  echo "free-running RTT: guest 0 $(rtt "$out" 0 3) ms, guest 1 $(rtt "$out" 1 3) ms"
  ;;
lockstep)
  for s in 250000 1000000; do
    "$run" "$build" "$config" "$out/$s" lockstep 3 0.05 --set bridge.client_units=$s || rc=$?
    [ $rc -eq 0 ] || exit $rc
  done
  short=$(rtt "$out/250000" 0 3) long=$(rtt "$out/1000000" 0 3)
  rtt "$out/250000" 1 3 >/dev/null
  rtt "$out/1000000" 1 3 >/dev/null
  echo "lock-step mean RTT: $short ms at 250000:200, $long ms at 1000000:200"
  awk -v a="$short" -v b="$long" 'BEGIN { exit !(b > 2 * a) }' ||
    { echo "FAIL: the RTT did not grow with the slice"; exit 1; }
  ;;
esac
