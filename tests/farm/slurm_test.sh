#!/usr/bin/env bash
# tools/slurm/ on a real Slurm: a one-node cluster on localhost (munged, slurmctld, slurmd started
# here as plain background processes, everything in one temporary folder: key, socket, slurm.conf,
# state, spool, logs), a rendered sequence denoised on the CPU as a job array (3 chunks of 4 frames),
# one array task cancelled halfway through its chunk, the same submission run again, and then:
#   - every output equals, byte for byte, a single-process `volvox denoise --sequence` of all frames;
#   - no frame is missing and no temporary file is left;
#   - no frame was written twice: each output's "-> path" line appears once over both jobs' logs,
#     the second job logs "output exists, skipped" for exactly the frames that existed before it,
#     and those files' inodes and mtimes are unchanged by it.
# Every process it starts is ended and the folder removed on every exit path; every wait is bounded,
# and a watchdog ends the whole test after $SLURM_TEST_BUDGET_S seconds (default 150).
#
#   VOLVOX_CLI=build/release/volvox tests/farm/slurm_test.sh [WEIGHTS.tza]
# (ctest runs it through tests/farm/slurm_test.cpp, which writes random weights so that the test
# needs no real ones.) Needs Debian's slurmctld, slurmd, slurm-client and munge
# (scripts/install-deps.sh); fails, saying so, without them.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
volvox="${VOLVOX_CLI:-$root/build/release/volvox}"
weights="${1:-}"
budget="${SLURM_TEST_BUDGET_S:-150}"
# Array task 1 (frames 16-31) is the one cancelled halfway. Its chunk must outlast the cancel's way
# from scancel through slurmctld and slurmd to the process, plus the frames in flight it still
# writes on SIGTERM: with 4 frames of 0.2 s a loaded CI machine once finished the chunk first, and
# with 8 frames of 0.12-0.19 s (OpenMP's long spin on an idle machine) the signal once arrived
# after the fifth frame following scancel.
frames=48 chunk=16 victim=1
width=384 height=256        # about 0.15-0.2 s per frame on one CPU thread

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

missing=()
for cmd in mungekey munged munge slurmctld slurmd sbatch squeue sinfo scancel scontrol python3; do
  command -v "$cmd" >/dev/null || missing+=("$cmd")
done
((${#missing[@]} == 0)) || fail "Slurm and munge are not installed (missing: ${missing[*]}): install Debian's" \
  "slurmctld, slurmd, slurm-client and munge (scripts/install-deps.sh)"
[[ -x "$volvox" ]] || fail "no volvox executable at '$volvox' (set VOLVOX_CLI)"
[[ -z "$weights" || -f "$weights" ]] || fail "no weights file '$weights'"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/volvox-slurm.XXXXXX")"
chmod 755 "$tmp"  # munged wants its socket's folder searchable by everyone
pids=()           # daemons started here, ended in this order's reverse
watchdog=""
start=$SECONDS

# Every process of this cluster carries SLURM_CONF=$tmp/slurm.conf in its environment (the daemons,
# the slurmstepd they start, the tasks): the ones still alive after the daemons are ended.
cluster_processes() {
  local p
  for p in /proc/[0-9]*; do
    [[ "${p#/proc/}" != "$$" ]] || continue
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$tmp/slurm.conf" && echo "${p#/proc/}"
  done
  return 0
}

stop_pid() {  # TERM, up to 5 s, then KILL
  local pid="$1" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; ++i)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$? i pid
  set +e
  trap - EXIT INT TERM
  if [[ -n "${SLURM_CONF:-}" && -f "$SLURM_CONF" ]]; then
    # Jobs first, so that slurmd ends their steps itself; bounded.
    mapfile -t jobs < <(timeout 5 squeue -h -o %A 2>/dev/null | sort -u)
    ((${#jobs[@]})) && timeout 5 scancel "${jobs[@]}" 2>/dev/null
    for ((i = 0; i < 50; ++i)); do
      [[ -z "$(timeout 5 squeue -h 2>/dev/null)" ]] && break
      sleep 0.2
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; --i)); do stop_pid "${pids[i]}"; done
  for pid in $(cluster_processes); do stop_pid "$pid"; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  if ((status != 0)); then
    echo "--- logs ($tmp) ---" >&2
    for f in "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/logs/*.out; do
      [[ -f "$f" ]] && { echo "--- $f"; tail -n 30 "$f"; } >&2
    done
  fi
  [[ -n "$watchdog" ]] && kill "$watchdog" 2>/dev/null && wait "$watchdog" 2>/dev/null
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'echo "FAIL: interrupted or over the ${budget} s budget" >&2; exit 124' TERM
(
  trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  sleep "$budget" &
  sleeper=$!
  wait "$sleeper"
  kill -TERM $$
) &
watchdog=$!

# wait_until SECONDS WHAT COMMAND...: polls COMMAND every 0.2 s, fails after SECONDS.
wait_until() {
  local limit="$1" what="$2" deadline
  shift 2
  deadline=$((SECONDS + limit))
  until "$@"; do
    ((SECONDS < deadline)) || fail "$what: not within $limit s"
    sleep 0.2
  done
}

# 1. munged with its own key and socket.
mungekey --create --keyfile="$tmp/munge.key"
munged --foreground --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)
munge_ok() { munge --socket="$tmp/munge.sock" --no-input 2>/dev/null | unmunge --socket="$tmp/munge.sock" >/dev/null 2>&1; }
wait_until 10 "munged answering on $tmp/munge.sock" munge_ok

# 2. slurm.conf: this machine as the one node, free ports, all state in $tmp, no accounting.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/logs"
user="$(id -un)"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=volvoxtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
KillWait=2
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=volvox Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"

# 3. slurmctld and slurmd in the foreground of their own background processes (no systemd).
slurmctld -D -c >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [[ "$(sinfo -h -N -n localhost -o %t 2>/dev/null)" == idle ]]; }
wait_until 30 "the node localhost idle in sinfo" node_idle
echo "cluster up in $((SECONDS - start)) s (slurmctld :$ctld_port, slurmd :$slurmd_port, $tmp)"

# 4. The sequence and the single-process reference.
mkdir -p "$tmp/in" "$tmp/ref"
"$volvox" render --scene room --width "$width" --height "$height" --spp 2 --frames "$frames" --camera pan \
  -o "$tmp/in/r" >/dev/null 2>&1 || fail "volvox render failed"
# LDR (no --hdr): random weights' HDR outputs can overflow to inf, which volvox does not accept as a
# valid existing output (it would recompute the frame instead of skipping it).
flags=(--color "$tmp/in/r_%04d_color.exr" --albedo "$tmp/in/r_%04d_albedo.exr"
  --normal "$tmp/in/r_%04d_normal.exr" --temporal none --device cpu --threads 1)
[[ -n "$weights" ]] && flags+=(--weights "$weights")
"$volvox" denoise --sequence "${flags[@]}" -o "$tmp/ref/%04d.exr" >"$tmp/ref.log" 2>&1 ||
  { cat "$tmp/ref.log" >&2; fail "the single-process run failed"; }
grep -q "denoised $frames frames" "$tmp/ref.log" || { cat "$tmp/ref.log" >&2; fail "the single-process run did not denoise $frames frames"; }
echo "rendered and denoised $frames frames in one process at $((SECONDS - start)) s"

# The submission: --gpus asks sbatch for --gres and the tasks for Vulkan (checked without running).
submit=("$root/tools/slurm/submit_denoise.sh" --frames "0-$((frames - 1))" --chunk "$chunk" --volvox "$volvox"
  --logs "$tmp/logs" --job-name volvox-test -- "${flags[@]}" -o "$tmp/out/%04d.exr")
dry="$("$root/tools/slurm/submit_denoise.sh" --frames 0-99 --chunk 25 --gpus 2 --dry-run -- --color 'c_%04d.exr' -o 'o_%04d.exr')"
[[ "$dry" == *"--array=0-3 "* && "$dry" == *"--gres=gpu:2 "* && "$dry" == *"--device vulkan:all"* ]] ||
  fail "submit_denoise.sh --gpus 2 --dry-run: $dry"
dry="$("$root/tools/slurm/submit_denoise.sh" --frames 1-100 --chunk 30 --tasks 1,3 --max-running 2 --dry-run -- -o 'o_%04d.exr')"
[[ "$dry" == *'--array=1\,3%2 '* && "$dry" != *"--gres"* && "$dry" != *"vulkan"* ]] || fail "submit_denoise.sh --tasks 1,3 --dry-run: $dry"
if "$root/tools/slurm/submit_denoise.sh" --frames 1-100 --chunk 30 --tasks 4 --dry-run -- -o 'o_%04d.exr' 2>/dev/null; then
  fail "submit_denoise.sh accepted task 4 of 4 tasks (0-3)"
fi

# 5. The job array; task $victim cancelled once it has written some but not all of its frames.
job1="$("${submit[@]}")" || fail "submit_denoise.sh failed"
echo "submitted job $job1 ($((frames / chunk)) tasks)"
victim_frames=()
for ((f = victim * chunk; f < (victim + 1) * chunk; ++f)); do victim_frames+=("$(printf '%s/out/%04d.exr' "$tmp" "$f")"); done
victim_done() {
  local n=0 p
  for p in "${victim_frames[@]}"; do [[ -f "$p" ]] && n=$((n + 1)); done
  echo "$n"
}
caught=0
deadline=$((SECONDS + 60))
while ((SECONDS < deadline)); do
  n="$(victim_done)"
  state="$(squeue -h -j "${job1}_$victim" -o %T 2>/dev/null || true)"
  if [[ "$state" == RUNNING ]] && ((n >= 1 && n < chunk)); then
    scancel "${job1}_$victim"
    caught=1
    break
  fi
  ((n < chunk)) || fail "task $victim finished its $chunk frames before it could be cancelled (frames too fast?)"
  sleep 0.05
done
((caught)) || fail "task $victim was never seen running with part of its chunk done within 60 s"
echo "cancelled task ${job1}_$victim after $n of its $chunk frames"
job_gone() { [[ -z "$(squeue -h -j "$1" 2>/dev/null)" ]]; }
wait_until 60 "job $job1 to end" job_gone "$job1"
task_state() { scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | head -1; }
for ((t = 0; t < frames / chunk; ++t)); do
  want=JobState=COMPLETED
  ((t == victim)) && want=JobState=CANCELLED
  got="$(task_state "${job1}_$t")"
  [[ "$got" == "$want" ]] || fail "task ${job1}_$t ended with $got, expected $want"
done
n="$(victim_done)"
((n >= 1 && n < chunk)) || fail "task $victim had $n of $chunk frames after the cancel: not halfway"
# What exists now must not be touched again: name, inode, mtime to the nanosecond.
(cd "$tmp/out" && stat -c '%n %i %.9Y' [0-9]*.exr | sort) >"$tmp/before.txt"
before=$(wc -l <"$tmp/before.txt")
((before == frames - chunk + n)) || fail "$before outputs after the first job, expected $((frames - chunk + n))"

# 6. The same submission again: only the cancelled task's missing frames are computed.
job2="$("${submit[@]}")" || fail "the second submit_denoise.sh failed"
echo "resubmitted as job $job2"
wait_until 60 "job $job2 to end" job_gone "$job2"
for ((t = 0; t < frames / chunk; ++t)); do
  got="$(task_state "${job2}_$t")"
  [[ "$got" == JobState=COMPLETED ]] || fail "task ${job2}_$t of the resubmission ended with $got"
done

# 7. The checks.
for ((f = 0; f < frames; ++f)); do
  name="$(printf '%04d.exr' "$f")"
  [[ -f "$tmp/out/$name" ]] || fail "frame $f is missing"
  cmp -s "$tmp/out/$name" "$tmp/ref/$name" || fail "frame $f differs from the single-process run"
done
extra="$(cd "$tmp/out" && find . -mindepth 1 ! -name '[0-9][0-9][0-9][0-9].exr' | sort)"
[[ -z "$extra" ]] || fail "files left beside the outputs: $extra"
mapfile -t kept < <(cut -d' ' -f1 "$tmp/before.txt")
(cd "$tmp/out" && stat -c '%n %i %.9Y' "${kept[@]}" | sort) >"$tmp/after.txt"
diff "$tmp/before.txt" "$tmp/after.txt" >&2 || fail "the resubmission rewrote frames that existed before it"
# Every frame's "-> path" line at most once over both jobs (the cancelled task's log ends where it was
# killed); a frame without one was renamed into place just before the kill, and must be one of the
# frames the second job skipped.
cat "$tmp"/logs/"${job1}"_*.out "$tmp"/logs/"${job2}"_*.out | grep -E "^frame [0-9]+: .*-> $tmp/out/[0-9]+\.exr\$" |
  sed 's/.*-> //' | sort | uniq -d >"$tmp/twice.txt" || true
[[ ! -s "$tmp/twice.txt" ]] || fail "frames written twice: $(cat "$tmp/twice.txt")"
skipped="$(cat "$tmp"/logs/"${job2}"_*.out | sed -n 's/^frame \([0-9]*\): output exists, skipped$/\1/p' | sort -n | tr '\n' ' ')"
expected="$(cut -d' ' -f1 "$tmp/before.txt" | sed 's/\.exr$//; s/^0*\([0-9]\)/\1/' | sort -n | tr '\n' ' ')"
[[ "$skipped" == "$expected" ]] || fail "the resubmission skipped frames '$skipped', expected '$expected'"
for ((f = 0; f < frames; ++f)); do
  written="$(cat "$tmp"/logs/*.out | grep -cE "^frame $f: .*-> $(printf '%s/out/%04d.exr' "$tmp" "$f")\$" || true)"
  [[ "$written" == 1 || " $skipped " == *" $f "* ]] || fail "frame $f: no log says it was written"
done
echo "slurm test passed in $((SECONDS - start)) s: $frames frames, task $victim ended with $n of its $chunk frames written," \
  "$((frames - before)) frames computed by the resubmission, $before skipped"
