#!/bin/bash
# Alternating rounds of two volvox binaries on one model: the ratio of their medians per pair (session 28:
# volvox_head = the binary of aadeb7b, volvox_new = after the change), e.g.
#   binpair.sh 8 2000 /tmp/volvox_head build/release/volvox bench/models/zoo/silero_vad_v5.onnx -i input=X.npy -i state=S.npy -i sr=SR.npy
# usage: binpair.sh ROUNDS RUNS A_BIN B_BIN MODEL [volvox bench args]: alternating rounds, ratio B/A of medians
R=$1; N=$2; A=$3; B=$4; M=$5; shift 5
for r in $(seq $R); do
  a=$($A bench $M --threads 2 --runs $N --warmup 20 "$@" | head -1 | sed -E 's/.*median ([0-9.]+) ms.*/\1/')
  b=$($B bench $M --threads 2 --runs $N --warmup 20 "$@" | head -1 | sed -E 's/.*median ([0-9.]+) ms.*/\1/')
  echo "$a $b"
done | python3 -c "
import sys, statistics
p = [tuple(map(float, l.split())) for l in sys.stdin]
r = sorted(b / a for a, b in p)
print(f'A median {statistics.median(a for a, b in p):.4f}  B median {statistics.median(b for a, b in p):.4f}  B/A per pair: median {statistics.median(r):.3f}, quartiles {r[len(r)//4]:.3f}-{r[3*len(r)//4]:.3f} ({len(r)} pairs)')
"
