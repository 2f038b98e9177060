#!/usr/bin/env bash
# Starts a one-node Slurm on localhost in a folder of its own (its own munged on its own socket, slurmctld and slurmd
# with every state, spool and log file in that folder, no accounting), runs a sweep on it the way the README says
# (scripts/roofsim-sweep.sbatch as a 3-task array, then the dependent `sweep merge`), waits for it with a timeout and
# always stops the daemons it started.
#
#   tests/cli/slurm_localhost.sh WORK_DIR ROOFSIM SBATCH_SCRIPT SWEEP_FILE OUT_DIR
#
# Exit 0: OUT_DIR/sweep.csv was merged; 77: skipped (no Slurm or munge installed, or not root: slurmd launches jobs
# as their user); anything else: failed (the daemons' logs are printed). WORK_DIR must be empty or absent.
set -euo pipefail

if [ $# -ne 5 ]; then
  echo "usage: $0 WORK_DIR ROOFSIM SBATCH_SCRIPT SWEEP_FILE OUT_DIR" >&2
  exit 2
fi
work=$(realpath -m "$1")
roofsim=$(realpath "$2")
sbatch_script=$(realpath "$3")
sweep_file=$(realpath "$4")
out_dir=$(realpath -m "$5")

for tool in slurmctld slurmd munged sbatch squeue scontrol; do
  if ! command -v "$tool" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$tool" ]; then
    echo "skipped: $tool is not installed (Debian packages slurm-wlm and munge)"
    exit 77
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: slurmd must run as root to start jobs"
  exit 77
fi
export PATH="$PATH:/usr/sbin:/sbin"

# Every wait below is bounded, so the whole run is too (under CTest's 300 s).
readonly start_timeout_s=60 job_timeout_s=180
mkdir -p "$work"/{state,spool,log,jobs}
# The sockets and pid files go to a short folder of their own: a Unix socket's path is at most 107 bytes.
run=$(mktemp -d /tmp/roofsim-slurm.XXXXXX)
chmod 755 "$work" "$run"
pids=()

stop_daemons() {
  local status=$?
  trap - EXIT INT TERM
  # Jobs first (their slurmstepd), then the daemons this script started, by their process ids.
  if [ -f "$work/slurm.conf" ] && [ ${#pids[@]} -gt 0 ]; then
    SLURM_CONF="$work/slurm.conf" timeout 10 scancel --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  # slurmstepd processes of this cluster (they name its spool folder) that outlived slurmd.
  for pid in $(pgrep -f "slurmstepd" 2>/dev/null || true); do
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$work"; then kill -KILL "$pid" 2>/dev/null || true; fi
    if [ -r "/proc/$pid/environ" ] && tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qF "SLURM_CONF=$work/"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$run"
  if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
    for log in "$work"/log/* "$work"/jobs/*.log; do
      [ -f "$log" ] || continue
      echo "==== $log"
      tail -n 40 "$log"
    done
  fi
  exit "$status"
}
trap stop_daemons EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free TCP port on localhost (the first of `from`.. that nothing listens on).
free_port() {
  local port=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

# Polls `check` (a command) every 0.2 s until it succeeds or `seconds` pass.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "$0: timed out after ${seconds} s waiting for $what" >&2
      return 1
    fi
    sleep 0.2
  done
}

# munge: a fresh key and a daemon on a socket in the work folder.
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge.key"
munged --foreground --force --socket="$run/munge.socket" --key-file="$work/munge.key" \
  --pid-file="$run/munged.pid" --log-file="$work/log/munged.log" --seed-file="$run/munged.seed" \
  >"$work/log/munged.out" 2>&1 &
pids+=($!)
wait_for "$start_timeout_s" munged munge --socket="$run/munge.socket" --no-input

# Slurm: one node, localhost, with the CPUs slurmd finds.
base_port=$(( 20000 + ($$ % 2000) * 10 ))
ctld_port=$(free_port "$base_port")
slurmd_port=$(free_port $((ctld_port + 1)))
node=$(slurmd -C | head -n 1 | sed -e 's/^NodeName=[^ ]*/NodeName=localhost NodeAddr=127.0.0.1/' -e 's/ RealMemory=[0-9]*//')
user=$(id -un)
cat >"$work/slurm.conf" <<CONF
ClusterName=roofsim-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$run/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
# Batch jobs are scheduled as they are submitted or freed, not in rounds up to 3 s apart.
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=300
$node State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { sinfo --noheader --nodes=localhost --format=%t | grep -qx 'idle'; }
wait_for "$start_timeout_s" "the node to be idle" node_idle

# The sweep as the README submits it: a 3-task array of the sbatch script and the merge after it. One CPU per task
# (the script asks for 4; the command line wins) so that the tasks fit this node.
cd "$work/jobs"
export ROOFSIM="$roofsim"
job=$(timeout 30 sbatch --parsable --array=0-2 --cpus-per-task=1 --time=00:05:00 "$sbatch_script" "$sweep_file" "$out_dir")
echo "array job $job"
merge=$(timeout 30 sbatch --parsable --dependency=afterany:"$job" --cpus-per-task=1 --time=00:05:00 \
  --output="$work/jobs/merge-%j.log" --wrap "\"$roofsim\" sweep merge \"$out_dir\"")
echo "merge job $merge"
# Polled every 0.2 s: `sbatch --wait` polls after 2 s, then 8 s more, which was most of this test's time.
merge_state() { timeout 30 scontrol show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*'; }
merge_ended() { merge_state | grep -qvE 'JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING)'; }
merge_status=0
wait_for "$job_timeout_s" "the merge job" merge_ended || merge_status=$?
if [ "$merge_status" -eq 0 ] && [ "$(merge_state)" != "JobState=COMPLETED" ]; then merge_status=1; fi
for log in "$work"/jobs/*.log; do
  echo "==== $(basename "$log")"
  cat "$log"
done
if [ "$merge_status" -ne 0 ]; then
  echo "$0: the merge job failed or timed out (status $merge_status)" >&2
  exit 1
fi
# Every array task ended well (afterany runs the merge whatever they did).
states=$(timeout 30 scontrol show job "$job" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c)
echo "array tasks: $(echo "$states" | tr '\n' ' ')"
if echo "$states" | grep -v 'JobState=COMPLETED' | grep -q 'JobState'; then
  echo "$0: an array task did not complete" >&2
  exit 1
fi
echo "merged $out_dir/sweep.csv"
