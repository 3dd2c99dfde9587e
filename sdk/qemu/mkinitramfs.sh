#!/bin/sh
# Builds the guest initramfs of the QEMU coupling from what Debian installed:
# busybox-static for the userland, e1000.ko from the installed kernel's
# modules. The init configures eth0 from the kernel command line and pings a
# peer, printing ping's output to the console:
#   insee.ip=10.0.0.1 insee.peer=10.0.0.2 insee.count=5
#   [insee.interval=1] [insee.linger=2] [insee.spin=1]
# It first waits for the link and for a first answer from the peer (which
# may still be booting: up to 60 one-second tries), then runs
# `ping -c COUNT` (none with COUNT 0: the guest only answers), waits
# insee.linger seconds (so that the peer's pings still get answers) and
# powers off. insee.spin=1 (lock-step) keeps a nice-19
# busy loop running meanwhile: QEMU's -icount sleep=off skips the time a
# halted CPU idles, so only a CPU that never idles has a clock that is its
# instruction count, the slices' unit.
# Usage: mkinitramfs.sh OUTPUT.cpio.gz [KERNEL_RELEASE]
# Exit 77 when busybox-static or the kernel's modules are missing.
set -eu
out=$1
kver=${2:-$(ls /lib/modules 2>/dev/null | sort -V | tail -n 1)}
busybox=/bin/busybox
[ -x "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || {
  # No file(1)? Trust the package that ships a static busybox.
  dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed' ||
    { echo "mkinitramfs: busybox-static is not installed" >&2; exit 77; }
}
e1000=$(find "/lib/modules/$kver" -name 'e1000.ko*' 2>/dev/null | head -n 1)
[ -n "$e1000" ] || { echo "mkinitramfs: no e1000 module under /lib/modules/$kver" >&2; exit 77; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/lib"
cp "$busybox" "$root/bin/busybox"
cp "$e1000" "$root/lib/"
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
ip=; peer=; count=5; interval=1; linger=2; spin=0
for a in $(cat /proc/cmdline); do
  case $a in
    insee.ip=*) ip=${a#insee.ip=} ;;
    insee.peer=*) peer=${a#insee.peer=} ;;
    insee.count=*) count=${a#insee.count=} ;;
    insee.linger=*) linger=${a#insee.linger=} ;;
    insee.interval=*) interval=${a#insee.interval=} ;;
    insee.spin=*) spin=${a#insee.spin=} ;;
  esac
done
insmod /lib/e1000.ko*
ifconfig lo 127.0.0.1 up
ifconfig eth0 "$ip" netmask 255.255.255.0 up
n=0
while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $n -lt 100 ]; do
  sleep 0.1; n=$((n + 1))
done
echo "insee-guest: $ip up, pinging $peer"
spinner=
if [ "$spin" = 1 ]; then
  (while :; do :; done) &
  spinner=$!
  renice -n 19 -p "$spinner" >/dev/null
fi
if [ -n "$peer" ]; then
  n=0
  until ping -c 1 -W 1 "$peer" >/dev/null || [ $n -ge 60 ]; do n=$((n + 1)); done
  [ "$count" = 0 ] || ping -c "$count" -i "$interval" -W 5 "$peer"
fi
echo "insee-guest: done"
sleep "$linger"
[ -z "$spinner" ] || kill "$spinner"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
