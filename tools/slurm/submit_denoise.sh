#!/usr/bin/env bash
# Submits `volvox denoise --sequence` over frames FIRST..LAST to Slurm as one job array: array task i
# denoises the chunk FIRST + i*CHUNK .. min(LAST, FIRST + (i+1)*CHUNK - 1) (tools/slurm/denoise_task.sh,
# through `volvox denoise --sequence --range A-B`). docs/FARM.md describes the pattern.
#
#   tools/slurm/submit_denoise.sh --frames FIRST-LAST --chunk C [--gpus N] [--volvox PATH]
#       [--tasks LIST] [--max-running M] [--logs DIR] [--job-name NAME] [--sbatch ARG]... [--dry-run] -- VOLVOX-DENOISE-FLAGS...
#
#   --frames FIRST-LAST  inclusive frame numbers of the sequence
#   --chunk C            frames per array task (default 10)
#   --gpus N             request N GPUs per task (sbatch --gres=gpu:N) and denoise with --device vulkan
#                        (N > 1: --device vulkan:all, which needs ConstrainDevices=yes, docs/FARM.md);
#                        without it the tasks run on the CPU (give --device cpu and --threads in the flags)
#   --tasks LIST         only these array tasks (sbatch --array syntax: 3,17,250-260), e.g. the ones that
#                        failed; by default all of them, 0..ceil((LAST-FIRST+1)/C)-1
#   --max-running M      at most M tasks at once (sbatch --array=0-N%M)
#   --volvox PATH        the volvox executable as the compute nodes see it (default: `volvox` on PATH)
#   --logs DIR           one log per task, DIR/<job>_<task>.out (default: slurm-logs); must be on a
#                        filesystem the nodes share, like the frames
#   --job-name NAME      (default: volvox-denoise)
#   --sbatch ARG         one more sbatch option, as is (repeatable): --sbatch=--partition=gpu,
#                        --sbatch=--time=00:30:00, --sbatch=--cpus-per-task=8 ...
#   --dry-run            print the sbatch command line instead of running it
#   after --              the flags of `volvox denoise --sequence` (--color/--albedo/--normal/--motion/
#                        --depth frame patterns, -o pattern, --hdr, --temporal, --warmup ...), passed
#                        through unchanged; --range and --sequence are the task's
#
# Prints the job id. Resubmitting is running the same command again: every task skips the frames
# whose output exists and validates, so only what is missing (a cancelled task's rest, a failed
# node's chunk) is computed again; no frame is written twice. Example:
#   tools/slurm/submit_denoise.sh --frames 1-1000 --chunk 25 --gpus 1 --logs /farm/logs -- \
#     --color '/farm/in/shot_%04d_color.exr' --albedo '/farm/in/shot_%04d_albedo.exr' \
#     --normal '/farm/in/shot_%04d_normal.exr' --hdr -o '/farm/out/shot_%04d.exr'
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() {
  echo "submit_denoise.sh: $*" >&2
  exit 2
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
frames="" chunk=10 gpus=0 max_running="" tasks="" volvox="volvox" logs="slurm-logs" job_name="volvox-denoise" dry_run=0
sbatch_args=()
while (($#)); do
  case "$1" in
    --frames) frames="${2:?--frames needs FIRST-LAST}"; shift 2 ;;
    --frames=*) frames="${1#*=}"; shift ;;
    --chunk) chunk="${2:?--chunk needs a number}"; shift 2 ;;
    --chunk=*) chunk="${1#*=}"; shift ;;
    --gpus) gpus="${2:?--gpus needs a number}"; shift 2 ;;
    --gpus=*) gpus="${1#*=}"; shift ;;
    --tasks) tasks="${2:?--tasks needs a list}"; shift 2 ;;
    --tasks=*) tasks="${1#*=}"; shift ;;
    --max-running) max_running="${2:?--max-running needs a number}"; shift 2 ;;
    --max-running=*) max_running="${1#*=}"; shift ;;
    --volvox) volvox="${2:?--volvox needs a path}"; shift 2 ;;
    --volvox=*) volvox="${1#*=}"; shift ;;
    --logs) logs="${2:?--logs needs a folder}"; shift 2 ;;
    --logs=*) logs="${1#*=}"; shift ;;
    --job-name) job_name="${2:?--job-name needs a name}"; shift 2 ;;
    --job-name=*) job_name="${1#*=}"; shift ;;
    --sbatch) sbatch_args+=("${2:?--sbatch needs an option}"); shift 2 ;;
    --sbatch=*) sbatch_args+=("${1#*=}"); shift ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) usage ;;
    --) shift; break ;;
    *) die "unknown option '$1' (the volvox denoise flags go after --; --help)" ;;
  esac
done
(($#)) || die "no volvox denoise flags after -- (--color PATTERN ... -o PATTERN)"

[[ "$frames" =~ ^([0-9]+)-([0-9]+)$ ]] || die "--frames '$frames' must be FIRST-LAST, e.g. 1-240"
first=$((10#${BASH_REMATCH[1]}))
last=$((10#${BASH_REMATCH[2]}))
((first <= last)) || die "--frames $frames: FIRST is after LAST"
if ! [[ "$chunk" =~ ^[0-9]+$ ]] || ((10#$chunk < 1)); then
  die "--chunk '$chunk' must be a positive number"
fi
chunk=$((10#$chunk))
[[ "$gpus" =~ ^[0-9]+$ ]] || die "--gpus '$gpus' must be a number"
gpus=$((10#$gpus))
count=$(((last - first + chunk) / chunk))
array="0-$((count - 1))"
if [[ -n "$tasks" ]]; then
  [[ "$tasks" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] || die "--tasks '$tasks' must be a list such as 3,17,250-260"
  for n in ${tasks//[,-]/ }; do
    ((10#$n < count)) || die "--tasks $tasks: task $n does not exist (the frames make tasks 0-$((count - 1)))"
  done
  array="$tasks"
fi
if [[ -n "$max_running" ]]; then
  if ! [[ "$max_running" =~ ^[0-9]+$ ]] || ((10#$max_running < 1)); then
    die "--max-running '$max_running' must be a positive number"
  fi
  array+="%$((10#$max_running))"
fi
for arg in "$@"; do
  case "$arg" in
    --range | --range=* | --sequence | --first-frame | --first-frame=*)
      die "'$arg' is set per task by denoise_task.sh; leave it out of the flags" ;;
  esac
done

denoise_flags=("$@")
if ((gpus > 0)); then
  sbatch_args+=("--gres=gpu:$gpus")
  if ((gpus > 1)); then denoise_flags+=(--device vulkan:all); else denoise_flags+=(--device vulkan); fi
fi
if ((dry_run == 0)); then
  mkdir -p "$logs"
fi
cmd=(sbatch --parsable --job-name="$job_name" --array="$array" --output="$logs/%A_%a.out"
  "${sbatch_args[@]}" "$here/denoise_task.sh" "$first" "$last" "$chunk" "$volvox" "${denoise_flags[@]}")
if ((dry_run)); then
  printf '%q ' "${cmd[@]}"
  printf '\n'
  exit 0
fi
job=$("${cmd[@]}")
job="${job%%;*}"  # --parsable prints "id" or "id;cluster"
echo "$job"
