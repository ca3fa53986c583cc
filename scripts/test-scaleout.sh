#!/usr/bin/env bash
# A single-node Slurm cluster for the scale-out test (cli/tests/slurm.rs):
#
#   scripts/test-scaleout.sh COMMAND [ARGS...]
#
# installs Slurm and MUNGE (Debian packages) if they are missing, writes a
# slurm.conf for this host (its CPU count and memory read from the machine),
# starts munged, slurmctld and slurmd on free local ports with all their
# state in a temporary directory, exports PACOZERO_TEST_SLURM=1 and SLURM_CONF,
# runs COMMAND, and stops the daemons when it exits. scripts/test.sh runs
# `cargo test` through it. If a daemon does not start, it names the daemon
# and prints its log. The jobs the test submits run as the calling user on
# this machine; the daemons run as root (so run this as root, as CI does).
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]  (runs COMMAND with a local Slurm cluster up)" >&2
    exit 2
fi

# Without root (the daemons need it) the command runs without a cluster, and
# the Slurm test fails saying so.
if [ "$(id -u)" != 0 ]; then
    echo "warning: not root: no Slurm cluster for the scale-out test (cli/tests/slurm.rs fails); run scripts/test.sh as root, as CI does" >&2
    exec "$@"
fi
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 \
    || ! command -v sbatch >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "installing Slurm and MUNGE (Debian packages slurmctld slurmd slurm-client munge) for the scale-out test ..."
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
    else
        echo "error: the scale-out test needs slurmctld, slurmd, sbatch (Slurm) and munged (MUNGE); install them (Debian: slurmctld slurmd slurm-client munge)" >&2
        exit 1
    fi
fi

SLURM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pacozero-slurm.XXXXXX")
chmod 755 "$SLURM_DIR"
PIDS=()
stop_cluster() {
    local pid
    # Jobs left running (a failed test) end with the cluster: the partition is
    # this run's own.
    if [ -n "${UP:-}" ]; then
        scancel --partition=test 2>/dev/null || true
        for _ in $(seq 100); do
            [ -z "$(squeue -h -p test -o %A 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$SLURM_DIR"
}
trap stop_cluster EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Prints the log of a daemon that did not come up and exits.
daemon_failed() {
    echo "error: $1 did not start for the scale-out test ($2); its log, $3:" >&2
    cat "$3" >&2 2>/dev/null || echo "(no log)" >&2
    exit 1
}

# MUNGE authenticates the Slurm daemons and clients to each other: a fresh key
# and a private socket.
mkdir -p "$SLURM_DIR/munge"
chmod 700 "$SLURM_DIR/munge"
dd if=/dev/urandom of="$SLURM_DIR/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$SLURM_DIR/munge/munge.key"
MUNGE_SOCKET="$SLURM_DIR/munge/munge.socket"
MUNGE_LOG="$SLURM_DIR/munged.log"
munged --force --foreground --key-file="$SLURM_DIR/munge/munge.key" --socket="$MUNGE_SOCKET" \
    --pid-file="$SLURM_DIR/munge/munged.pid" --log-file="$MUNGE_LOG" --seed-file="$SLURM_DIR/munge/munged.seed" \
    >>"$MUNGE_LOG" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do
    [ -S "$MUNGE_SOCKET" ] && break
    kill -0 "${PIDS[-1]}" 2>/dev/null || break
    sleep 0.1
done
[ -S "$MUNGE_SOCKET" ] || daemon_failed munged "no socket at $MUNGE_SOCKET" "$MUNGE_LOG"

# slurm.conf: this host as the controller and the one compute node.
NODE=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
CTLD_PORT=$(free_port)
SLURMD_PORT=$(free_port)
export SLURM_CONF="$SLURM_DIR/slurm.conf"
mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool/$NODE"
cat >"$SLURM_CONF" <<EOF
# Written by scripts/test-scaleout.sh for one test run.
ClusterName=pacozero-test
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET,cred_expire=5
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobRequeue=1
KillWait=5
MinJobAge=600
InactiveLimit=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF

CTLD_LOG="$SLURM_DIR/slurmctld.log"
slurmctld -D -i -f "$SLURM_CONF" >>"$CTLD_LOG" 2>&1 &
PIDS+=($!)
SLURMD_LOG="$SLURM_DIR/slurmd.log"
slurmd -D -f "$SLURM_CONF" -N "$NODE" >>"$SLURMD_LOG" 2>&1 &
PIDS+=($!)

# Up when the controller answers and the node is idle.
UP=
for _ in $(seq 300); do
    kill -0 "${PIDS[1]}" 2>/dev/null || daemon_failed slurmctld "it exited" "$CTLD_LOG"
    kill -0 "${PIDS[2]}" 2>/dev/null || daemon_failed slurmd "it exited" "$SLURMD_LOG"
    state=$(sinfo -h -N -n "$NODE" -o '%T' 2>/dev/null || true)
    case "$state" in
        idle*|mixed*|allocated*) UP=1; break ;;
    esac
    sleep 0.2
done
if [ -z "$UP" ]; then
    if ! scontrol ping >/dev/null 2>&1; then
        daemon_failed slurmctld "it does not answer on port $CTLD_PORT" "$CTLD_LOG"
    fi
    daemon_failed slurmd "node $NODE is ${state:-unknown} to the controller, not idle" "$SLURMD_LOG"
fi
echo "Slurm $(sinfo -V | awk '{print $2}') up for the scale-out test: node $NODE, $CPUS CPUs, controller on port $CTLD_PORT, state in $SLURM_DIR"

export PACOZERO_TEST_SLURM=1
# The test names these logs when a job misbehaves.
export PACOZERO_TEST_SLURM_LOGS="$CTLD_LOG $SLURMD_LOG"
"$@"
