#!/usr/bin/env bash
# One array task of tools/slurm/submit_denoise.sh (sbatch runs it; docs/FARM.md): denoises its chunk
# of the sequence with `volvox denoise --sequence --range A-B`, where
#   A = FIRST + SLURM_ARRAY_TASK_ID * CHUNK,  B = min(LAST, A + CHUNK - 1).
#
#   denoise_task.sh FIRST LAST CHUNK VOLVOX VOLVOX-DENOISE-FLAGS...
#
# Idempotent and restartable: volvox skips every frame whose output exists and validates ("frame N:
# output exists, skipped") and writes each output atomically (a temporary file beside it, renamed
# over it), so a task killed at any point and run again computes only the frames it had not
# finished. Before it starts, the task removes what a killed run of its own chunk can leave: the
# temporary files (.NAME.*.tmp beside the outputs) of its frames; it creates the outputs' folders. Outside Slurm, set
# SLURM_ARRAY_TASK_ID yourself to run one chunk by hand.
set -euo pipefail

die() {
  echo "denoise_task.sh: $*" >&2
  exit 2
}
(($# >= 5)) || die "usage: denoise_task.sh FIRST LAST CHUNK VOLVOX VOLVOX-DENOISE-FLAGS..."
first="$1" last="$2" chunk="$3" volvox="$4"
shift 4
task="${SLURM_ARRAY_TASK_ID:?not an array task: set SLURM_ARRAY_TASK_ID}"
for n in "$first" "$last" "$chunk" "$task"; do
  [[ "$n" =~ ^[0-9]+$ ]] || die "'$n' is not a number"
done
a=$((10#$first + 10#$task * 10#$chunk))
b=$((a + 10#$chunk - 1))
((b <= 10#$last)) || b=$((10#$last))
((a <= b)) || die "task $task starts at frame $a, after the last frame $last"

# The output pattern (-o / --output), for the stale temporary files of this chunk's frames.
output=""
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  case "${args[i]}" in
    -o | --output) output="${args[i + 1]:-}" ;;
    --output=*) output="${args[i]#*=}" ;;
  esac
done
if [[ -n "$output" ]]; then
  for ((f = a; f <= b; ++f)); do
    # The pattern has one printf integer field (and %% for a percent sign), as volvox requires.
    # shellcheck disable=SC2059
    path="$(printf -- "$output" "$f")"
    mkdir -p -- "$(dirname -- "$path")"
    rm -f -- "$(dirname -- "$path")/.$(basename -- "$path")".*.tmp
  done
fi

echo "task ${SLURM_ARRAY_JOB_ID:-?}_$task on $(hostname): frames $a-$b"
exec "$volvox" denoise --sequence --range "$a-$b" "$@"
