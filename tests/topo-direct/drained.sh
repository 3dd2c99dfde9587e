#!/bin/sh
# drained.sh INSEE ARGS... — run one experiment and check, from its report,
# that the network drained and lost nothing: over the whole run, generated
# = delivered + dropped, nothing in flight.
out=$("$@")
status=$?
printf '%s\n' "$out"
[ "$status" -eq 0 ] || { echo "drained.sh: exit status $status"; exit 1; }
printf '%s\n' "$out" | awk '
  /^packets \(whole run\)/ {
    seen = 1
    gsub(/,/, "")
    for (i = 1; i < NF; i++) {
      if ($i == "generated") g = $(i + 1)
      if ($i == "delivered") d = $(i + 1)
      if ($i == "dropped") x = $(i + 1)
    }
    if ($0 !~ /in flight 0 \(drained\)/) { print "drained.sh: not drained"; exit 1 }
    if (g != d + x) { print "drained.sh: generated " g " != delivered " d " + dropped " x; exit 1 }
    if (g == 0) { print "drained.sh: no packet generated"; exit 1 }
  }
  END { if (!seen) { print "drained.sh: no whole-run line in the report"; exit 1 } }'
