#!/usr/bin/env bash
# A real one-node Slurm cluster on localhost, for testing sweeps against Slurm itself.
#   scripts/slurm.sh test     (make test-slurm) install Debian's slurm-wlm and munge when missing, start
#                             the cluster, run TestSlurmCluster (tour and m3apg at smoke scale, 4 seeds
#                             each, as job arrays; one task cancelled mid-run and resubmitted; merged
#                             results equal to the local runner's), stop the cluster
#   scripts/slurm.sh start DIR   start a cluster with its state in DIR and print the SLURM_CONF to export
#   scripts/slurm.sh stop DIR    stop it
# The cluster: munged with its own key and socket, slurmctld and slurmd as this user, a generated
# slurm.conf without cgroups (proctrack/linuxproc, task/none, no accounting), one node with this
# machine's cores, one partition; ports PAPERLAB_SLURM_PORT and the next (default 16817).
set -euo pipefail
cd "$(dirname "$0")/.."
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

install() {
  if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    echo "slurm: installing Debian's slurm-wlm and munge"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
  fi
}

start() {
  local d="$1" port="${PAPERLAB_SLURM_PORT:-16817}" host user
  host=$(hostname -s)
  user=$(id -un)
  mkdir -p "$d/state" "$d/spool" "$d/munge"
  chmod 700 "$d" "$d/munge"
  head -c 1024 /dev/urandom > "$d/munge/munge.key"
  chmod 400 "$d/munge/munge.key"
  munged --force --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" --pid-file="$d/munge/munged.pid" \
    --log-file="$d/munge/munged.log" --seed-file="$d/munge/munged.seed"
  cat > "$d/slurm.conf" <<CONF
ClusterName=paperlab
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=${user}
SlurmdUser=${user}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
SlurmctldPort=${port}
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MpiDefault=none
NodeName=${host} NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=${host} Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$d/slurm.conf"
  slurmctld
  slurmd
  for _ in $(seq 60); do
    if [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; then
      echo "slurm: one-node cluster up ($(nproc) CPUs); export SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.5
  done
  echo "slurm: the node did not come up; logs:" >&2
  tail -20 "$d"/slurmctld.log "$d"/slurmd.log >&2 || true
  return 1
}

stop() {
  local d="$1"
  for pid in "$d/slurmd.pid" "$d/slurmctld.pid" "$d/munge/munged.pid"; do
    [ -s "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  sleep 1
}

case "${1:-test}" in
  start) install; start "${2:?slurm.sh start DIR}" ;;
  stop) stop "${2:?slurm.sh stop DIR}" ;;
  test)
    install
    d=$(mktemp -d /tmp/paperlab-slurm.XXXXXX)
    trap 'stop "$d"; rm -rf "$d"' EXIT
    start "$d"
    export SLURM_CONF="$d/slurm.conf"
    go build -o "$d/paperlab" ./toolkit/cmd/paperlab
    mkdir -p "$d/work"
    t0=$(date +%s)
    PAPERLAB_SLURM_BIN="$d/paperlab" PAPERLAB_SLURM_WORK="$d/work" go test -count=1 -run 'TestSlurmCluster$' -v ./toolkit/exp/sweep
    echo "slurm: TestSlurmCluster passed in $(( $(date +%s) - t0 ))s"
    ;;
  *) echo "usage: scripts/slurm.sh test | start DIR | stop DIR" >&2; exit 2 ;;
esac
