#!/usr/bin/env bash
# sweep.slurm: the script of `insee sweep --slurm` run by a real Slurm.
# As root, with Debian's slurmctld, slurmd and munge installed (.ci/deps
# installs them where it can), it starts munged, slurmctld and slurmd of a
# one-node cluster in a temporary directory on free ports, submits the
# script with `bash FILE` (the job array, then the merge), waits for the
# queue to empty and compares the merged results and summary with a -j 2
# sweep's, byte for byte. It stops the daemons it started and removes the
# directory. Exit 77 (skip) without root or without Slurm.
#
#   slurm.sh INSEE WORKDIR
set -euo pipefail
insee=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
for tool in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: starting Slurm's daemons needs root"; exit 77; }

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
etc=$(mktemp -d)
chmod 700 "$etc"
stop() {
  local pidfile
  for pidfile in "$etc"/slurmd.pid "$etc"/slurmctld.pid "$etc"/munged.pid; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 1
  rm -rf "$etc"
}
trap stop EXIT

ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
read -r ctld_port slurmd_port <<<"$ports"
host=$(hostname -s)
head -c 1024 /dev/urandom >"$etc/munge.key"
chmod 400 "$etc/munge.key"
munged -f --key-file="$etc/munge.key" --socket="$etc/munge.sock" --pid-file="$etc/munged.pid" \
  --log-file="$etc/munged.log" --seed-file="$etc/munged.seed"
mkdir -p "$etc/state" "$etc/spool"
cat >"$etc/slurm.conf" <<CONF
ClusterName=inseesweep
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$etc/munge.sock
CredType=cred/munge
StateSaveLocation=$etc/state
SlurmdSpoolDir=$etc/spool
SlurmctldPidFile=$etc/slurmctld.pid
SlurmdPidFile=$etc/slurmd.pid
SlurmctldLogFile=$etc/slurmctld.log
SlurmdLogFile=$etc/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmUser=root
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$host CPUs=2 State=UNKNOWN
PartitionName=sweep Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$etc/slurm.conf
slurmctld
slurmd
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -o %t | grep -q idle || { echo "FAIL: the node never became idle"; cat "$etc"/*.log; exit 1; }

cd "$work"
grid=(--vary arbiter.plugin=round-robin,random --vary traffic.load=0.1:0.3:0.1 --seeds 2)
"$insee" sweep "$here/tiny.toml" "${grid[@]}" -j 2 -o ref.csv >/dev/null 2>&1
"$insee" sweep "$here/tiny.toml" "${grid[@]}" --slurm job.sh --array 3 -o all.csv >/dev/null
bash job.sh >/dev/null
for _ in $(seq 240); do
  [ -z "$(squeue -h)" ] && [ -f all-summary.csv ] && break
  sleep 0.5
done
[ -z "$(squeue -h)" ] || { echo "FAIL: jobs still queued after 2 minutes"; squeue; exit 1; }
for i in 1 2 3; do
  [ -f "all-shard-$i.csv" ] || { echo "FAIL: array task $i wrote no results"; cat ./*.log; exit 1; }
done
cmp all.csv ref.csv || { echo "FAIL: the merged results differ from -j 2"; exit 1; }
cmp all-summary.csv ref-summary.csv || { echo "FAIL: the merged summary differs"; exit 1; }
echo "the Slurm job array and its merge equal the -j 2 sweep"
