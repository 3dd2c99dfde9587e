#!/bin/sh
# Runs 2 QEMU guests that ping each other through insee's simulated network.
# Usage: run-guests.sh BUILD_DIR CONFIG.toml OUT_DIR free|lockstep COUNT INTERVAL [--set K=V ...]
# COUNT pings each way, or C0/C1: guest 0 sends C0, guest 1 C1 (0: it only
# answers, and stays up while the other pings).
# BUILD_DIR holds insee, insee-qemu-tm and insee-icount.so; OUT_DIR receives
# guest-0.log, guest-1.log (the consoles), tm.log and insee.log. In
# lock-step the guest's slice is [bridge] client_units instructions (pass it
# with --set bridge.client_units=N to change it). Exit 77 when qemu, the
# kernel or busybox are missing.
set -eu
build=$1 config=$2 out=$3 mode=$4 count=$5 interval=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
qemu=$(command -v qemu-system-x86_64 || true)
kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$qemu" ] || { echo "SKIP: qemu-system-x86_64 is not installed (apt install qemu-system-x86)"; exit 77; }
[ -n "$kernel" ] && [ -r "$kernel" ] ||
  { echo "SKIP: no readable /boot/vmlinuz-* (apt install linux-image-amd64)"; exit 77; }
kver=${kernel#/boot/vmlinuz-}
mkdir -p "$out"
rc=0
"$here/mkinitramfs.sh" "$out/initramfs.gz" "$kver" || rc=$?
[ $rc -eq 0 ] || { [ $rc -eq 77 ] && echo "SKIP: cannot build the guest initramfs"; exit $rc; }

dir=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
slice=$(sed -n 's/^client_units *= *\([0-9]*\).*/\1/p' "$config")
for a in "$@"; do case $a in bridge.client_units=*) slice=${a#bridge.client_units=} ;; esac; done

"$build/insee" run "$config" "$@" --set "bridge.socket=\"$dir/bridge.sock\"" \
  --set bridge.clients=1 --set bridge.nodes=2 > "$out/insee.log" 2>&1 &
insee=$!; pids="$insee"
while [ ! -S "$dir/bridge.sock" ]; do kill -0 "$insee" || { cat "$out/insee.log"; exit 1; }; sleep 0.05; done
tmflag=""; [ "$mode" = lockstep ] && tmflag=--lockstep
"$build/insee-qemu-tm" --insee "unix:$dir/bridge.sock" --dir "$dir" --guests 2 $tmflag > "$out/tm.log" 2>&1 &
tm=$!; pids="$pids $tm"
while [ ! -S "$dir/guest-1.sock" ]; do kill -0 "$tm" || { cat "$out/tm.log"; exit 1; }; sleep 0.05; done

# A guest stays up after its pings so the peer's still get answers. In
# lock-step both boot in step; free-running, one may start pinging up to a
# second (its first ping's timeout) after the other.
linger=0.5
[ "$mode" = lockstep ] || linger=2
guests=""
for i in 0 1; do
  n=$count
  case $count in */*) [ $i = 0 ] && n=${count%/*} || n=${count#*/} ;; esac
  stay=$linger
  if [ "$n" = 0 ]; then
    most=$(echo "$count" | tr / '\n' | sort -n | tail -n 1)
    stay=$(awk -v c="$most" -v i="$interval" -v l="$linger" 'BEGIN { print c * i + l + 1 }')
  fi
  peer=$((2 - i))
  append="console=ttyS0 quiet ipv6.disable=1 insee.ip=10.0.0.$((i + 1)) insee.peer=10.0.0.$peer insee.count=$n insee.interval=$interval insee.linger=$stay"
  [ "$mode" = lockstep ] && append="$append insee.spin=1"
  set -- -append "$append" -m 128M -display none -nodefaults -no-reboot -serial "file:$out/guest-$i.log" \
    -kernel "$kernel" -initrd "$out/initramfs.gz" \
    -netdev "stream,id=n0,server=off,addr.type=unix,addr.path=$dir/guest-$i.sock" \
    -device "e1000,netdev=n0,mac=52:54:00:12:34:$((i + 10)),romfile="
  if [ "$mode" = lockstep ]; then
    set -- "$@" -icount shift=0,sleep=off -plugin "$build/insee-icount.so,sock=$dir/guest-$i.clock,slice=$slice"
  fi
  "$qemu" "$@" > "$out/qemu-$i.log" 2>&1 &
  guests="$guests $!"; pids="$pids $!"
done
for g in $guests; do wait "$g" || rc=1; done
wait "$tm" || rc=1
wait "$insee" || rc=1
pids=""
[ $rc -eq 0 ] || { tail -n 5 "$out"/*.log; exit 1; }
