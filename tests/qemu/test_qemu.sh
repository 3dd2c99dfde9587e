#!/bin/sh
# Two QEMU guests ping each other through a simulated torus, 2 x 2 (8 x 8 in
# load mode; sdk/qemu/run-guests.sh). Exit 77 (ctest: skipped) without qemu,
# a kernel or busybox-static.
#   free BUILD OUT: free-running; every ping of both guests is answered.
#   lockstep BUILD OUT: lock-step at 250000:200; every ping
#     answered, and the mean RTT is between 3 and 4 slices of S ns, plus at
#     most 100 us of the guests' own processing (an
#     instruction is 1 ns): a request sent o ns into slice k enters the
#     network at the slice's end, reaches the peer well within the next
#     slice's 200 cycles and is handed to it at the start of slice k+2; the
#     prompt reply comes back likewise at the start of slice k+4: 4S - o,
#     with 0 <= o < S. So the RTT grows in proportion to the slice: load's
#     idle run checks the same bounds with slices four times as long.
#   load BUILD OUT: lock-step on an 8 x 8 torus (torus-load.toml) at
#     1000000:32, idle (background load 0) and beside uniform background
#     traffic on the other 62 nodes at load 1 (above saturation); guest 0
#     pings, guest 1 only answers, so that no node ever has two frames of
#     one slice to send (the second would wait for the first and miss the
#     boundary, idle or not); every ping answered in both runs. Generally a frame of l cycles' latency, read at the
#     end of slice k (entering at its last cycle), is handed over at the
#     start of slice k + 1 + ceil(l / F), so RTT = (2 + ceil(l1 / F) +
#     ceil(l2 / F)) S - o + p. A ping frame is 2 packets of L = 16 phits and
#     crosses the one hop from node 0 to 1 in 2L cycles on an idle network:
#     with F = 2L it arrives just in time, the idle RTT is 3 to 4 slices as
#     above (checked), and any cycle of delay costs a whole slice. Under load
#     a frame is delayed whenever background packets hold its link or the
#     queue it enters, which on a network whose links are busy more than
#     half the time (accepted load x mean hops / 4 links per node, from
#     insee's report: checked) happens on more than half of the trips. So
#     the loaded mean RTT exceeds the idle one by more than 2 x 1/2 slices:
#     at least S. The 50.4 ms between pings (50.4 slices) move o by 0.4 S
#     from one ping to the next, so that o averages about S/2 in both runs.
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

# Fails unless the mean RTT $1 (ms) is between 3 and 4 slices of $2 ns,
# plus 100 us of the guests' processing.
three_to_four_slices() {
  awk -v r="$1" -v s="$2" 'BEGIN { exit !(r >= 3 * s / 1e6 && r <= 4 * s / 1e6 + 0.1) }' ||
    { echo "FAIL: the mean RTT $1 ms is not between 3 and 4 slices of $2 ns (+100 us)"; exit 1; }
}

rc=0
case $mode in
free)
  "$run" "$build" "$config" "$out" free 3 0.2 || rc=$?
  [ $rc -eq 0 ] || exit $rc
  r0=$(rtt "$out" 0 3)
  r1=$(rtt "$out" 1 3)
  echo "free-running RTT: guest 0 $r0 ms, guest 1 $r1 ms"
  ;;
lockstep)
  s=250000
  "$run" "$build" "$config" "$out" lockstep 3 0.05 --set bridge.client_units=$s || rc=$?
  [ $rc -eq 0 ] || exit $rc
  for g in 0 1; do
    r=$(rtt "$out" $g 3)
    echo "lock-step $s:200, guest $g: mean RTT $r ms"
    three_to_four_slices "$r" $s
  done
  ;;
load)
  s=1000000 count=24
  config=$(dirname "$0")/torus-load.toml
  for load in 0 1; do
    "$run" "$build" "$config" "$out/$load" lockstep $count/0 0.0504 \
      --set bridge.client_units=$s --set background.load=$load || rc=$?
    [ $rc -eq 0 ] || exit $rc
  done
  idle=$(rtt "$out/0" 0 $count)
  loaded=$(rtt "$out/1" 0 $count)
  echo "guest 0's mean RTT: idle $idle ms, loaded $loaded ms"
  three_to_four_slices "$idle" $s
  u=$(awk '/^accepted load/ { a = $3 } /^average hops/ { h = $3 } END { print a * h / 4 }' "$out/1/insee.log")
  echo "loaded: mean link utilisation $u"
  awk -v u="$u" 'BEGIN { exit !(u > 0.5) }' ||
    { echo "FAIL: the background kept the links busy only $u of the cycles, not more than half"; exit 1; }
  awk -v i="$idle" -v l="$loaded" -v s=$s 'BEGIN { exit !(l >= i + s / 1e6) }' ||
    { echo "FAIL: the loaded mean RTT is not at least one slice ($s ns) above the idle one"; exit 1; }
  ;;
esac
