#!/bin/sh
# Two QEMU guests ping each other through a simulated 2 x 2 torus
# (sdk/qemu/run-guests.sh). Exit 77 (ctest: skipped) without qemu, a kernel
# or busybox-static.
#   free BUILD OUT: free-running; every ping of both guests is answered.
#   lockstep BUILD OUT: lock-step at 250000:200 and 1000000:200; every ping
#     answered, and the mean RTT is between 3 and 4 slices of S ns, plus at
#     most 100 us of the guests' own processing (an
#     instruction is 1 ns): a request sent o ns into slice k enters the
#     network at the slice's end, reaches the peer well within the next
#     slice's 200 cycles and is handed to it at the start of slice k+2; the
#     prompt reply comes back likewise at the start of slice k+4: 4S - o,
#     with 0 <= o < S. So the RTT grows in proportion to the slice.
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
    { echo "FAIL: guest $2 lost pings:"; cat "$log"; exit 1; } >&2
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
  for s in 250000 1000000; do
    for g in 0 1; do
      r=$(rtt "$out/$s" $g 3)
      echo "lock-step $s:200, guest $g: mean RTT $r ms"
      awk -v r="$r" -v s="$s" 'BEGIN { exit !(r >= 3 * s / 1e6 && r <= 4 * s / 1e6 + 0.1) }' ||
        { echo "FAIL: the mean RTT is not between 3 and 4 slices of $s ns (+100 us)"; exit 1; }
    done
  done
  ;;
esac
