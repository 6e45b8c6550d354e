#!/usr/bin/env bash
# A throwaway single-node Slurm (munged + slurmctld + slurmd) in a private
# directory, for tests: no systemd, no /etc changes, own key, socket, ports,
# state and logs. Source it, then:
#   local_slurm_start DIR   -> 0 up (exports SLURM_CONF), 77 cannot start here
#   local_slurm_stop DIR    -> stops exactly the daemons it started (pid files)
# Needs root (slurmd runs jobs as their user) and Debian's slurm-wlm + munge.

_ls_log() { echo "[local-slurm] $*" >&2; }

_ls_free_port() {  # a TCP port nothing listens on (the lead may run two tests at once)
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}

_ls_wait() {  # _ls_wait SECONDS CMD... : polls until CMD succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS >= deadline)) && return 1
    sleep 0.5
  done
}

local_slurm_start() {
  local dir=$1
  local tool
  for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo; do
    if ! command -v "$tool" >/dev/null; then
      _ls_log "SKIP: $tool not found (install Debian's slurm-wlm and munge, as scripts/setup does)"
      return 77
    fi
  done
  if [[ $(id -u) != 0 ]]; then
    _ls_log "SKIP: a local slurmd must run as root (it starts jobs as their user); this is uid $(id -u)"
    return 77
  fi
  mkdir -p "$dir"/{munge,state,spool,log}
  dir=$(cd "$dir" && pwd)
  chmod 700 "$dir/munge"
  # munged's own key, not the machine's: nothing outside this directory is used.
  if ! mungekey --create --keyfile="$dir/munge/munge.key" 2>"$dir/log/mungekey.log"; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
  fi
  chmod 400 "$dir/munge/munge.key"
  local sock="$dir/munge/munge.socket"
  if ! munged --force --socket="$sock" --key-file="$dir/munge/munge.key" \
      --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
      --seed-file="$dir/munge/munged.seed" 2>>"$dir/log/munged.log"; then
    _ls_log "SKIP: munged did not start (see $dir/log/munged.log):"
    tail -5 "$dir/log/munged.log" >&2
    return 77
  fi
  local host cpus ctl_port d_port
  host=$(hostname -s)
  cpus=$(nproc)
  ctl_port=$(_ls_free_port) && d_port=$(_ls_free_port) || { _ls_log "SKIP: no free port"; return 77; }
  # The node line as slurmd itself sees the hardware (else it drains the node).
  local node
  node=$(slurmd -C 2>/dev/null | head -1)
  [[ $node == NodeName=* ]] || node="NodeName=$host CPUs=$cpus"
  cat >"$dir/slurm.conf" <<CONF
ClusterName=moesweep-test
SlurmctldHost=$host
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
${node} State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$dir/slurm.conf"
  if ! slurmctld -c -f "$SLURM_CONF" 2>>"$dir/log/slurmctld.log"; then
    _ls_log "SKIP: slurmctld did not start:"; tail -5 "$dir/log/slurmctld.log" >&2; return 77
  fi
  if ! slurmd -f "$SLURM_CONF" 2>>"$dir/log/slurmd.log"; then
    _ls_log "SKIP: slurmd did not start:"; tail -5 "$dir/log/slurmd.log" >&2; return 77
  fi
  if ! _ls_wait 60 bash -c "sinfo -h -N -o %t | grep -qE '^(idle|mix|alloc)'"; then
    _ls_log "SKIP: the node did not come up within 60 s:"
    sinfo -N >&2 2>&1; tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2
    return 77
  fi
  _ls_log "up: $SLURM_CONF (node $host, $cpus CPUs, ports $ctl_port/$d_port)"
}

local_slurm_stop() {
  local dir=$1 f pid
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do
    [[ -s $dir/$f ]] || continue
    pid=$(<"$dir/$f")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
  done
}
