#!/usr/bin/env bash
# Session 41, call 2: global loads two K steps ahead, in the probe and in the executor.
#  1. bench/vulkan/gemm_step_probe (e2e5cbe's plus loads two steps ahead, B streamed from memory:
#     a K x 64 slab a workgroup, and chains of dependent two-step dispatches).
#  2. The staged GEMM with session 36's switches (bench/onnx/results/session36_2026-12-06/call1/
#     staged_prefetch2_epilogue.diff applied to main, binary vx_pf): VOLVOX_VK_STAGED_PREFETCH=1
#     against 2, both with VOLVOX_VK_STAGED_EPILOGUE=0 (main's epilogue); ResNet-50 and the
#     transformer encoder, outputs against the CPU at fp32, a profile of each arm, three interleaved rounds.
# Packed with
#   rm -f .gl/t/*; cp build/release/bench/vulkan/gemm_step_probe.spv .gl/t/
#   bash bench/onnx/pack_device_binaries.sh probe=build/release/bench/vulkan/gemm_step_probe vx_pf=<main + the diff>/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup probe vx_pf
cp .gl/t/gemm_step_probe.spv /tmp/t/
timeout 200 /tmp/t/probe --runs 15 --warmup-ms 200 > "$R/probe.txt" 2>&1
echo "probe rc $?" >> "$R/probe.txt"
cat "$R/probe.txt"
vx_pack s41c2.tar.xz
MODELS="resnet50 transformer_encoder"
vx_export resnet50,transformer_encoder
mkdir -p /tmp/o
for m in $MODELS; do
  spec=${S[$m]}; name=${spec%%=*}; dims=${spec#*=}
  python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/o/x_$m.npy', n.random.rand(*[int(d) for d in '$dims'.split('x')]).astype(n.float32))"
  timeout 120 /tmp/t/vx_pf run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_cpu > /dev/null 2>&1
  for pf in 1 2; do
    VOLVOX_VK_STAGED_PREFETCH=$pf VOLVOX_VK_STAGED_EPILOGUE=0 timeout 60 /tmp/t/vx_pf run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy \
      -o /tmp/o/${m}_pf$pf --device vulkan --precision fp16 > /dev/null 2>&1
    VOLVOX_VK_STAGED_PREFETCH=$pf VOLVOX_VK_STAGED_EPILOGUE=0 timeout 60 /tmp/t/vx_pf bench /tmp/m/$m.onnx --device vulkan \
      --precision fp16 --shape "${S[$m]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_${m}_pf$pf.txt" 2>&1
  done
done
python3 - > "$R/outputs.txt" 2>&1 <<'PY'
import glob, os
import numpy as n
for m in ("resnet50", "transformer_encoder"):
    for f in sorted(glob.glob(f"/tmp/o/{m}_cpu/*.npy")):
        ref = n.load(f).astype(n.float64)
        for arm in ("pf1", "pf2"):
            g = f.replace("_cpu/", f"_{arm}/")
            if not os.path.exists(g):
                print(m, arm, "no output"); continue
            got = n.load(g).astype(n.float64)
            print(m, arm, os.path.basename(f), "max|diff|/peak", float(n.abs(got - ref).max() / max(1.0, n.abs(ref).max())))
PY
cat "$R/outputs.txt"
for round in 1 2 3; do
  for m in $MODELS; do
    vx_bench r${round}_${m}_pf1 vx_pf $m VOLVOX_VK_STAGED_PREFETCH=1 VOLVOX_VK_STAGED_EPILOGUE=0
    vx_bench r${round}_${m}_pf2 vx_pf $m VOLVOX_VK_STAGED_PREFETCH=2 VOLVOX_VK_STAGED_EPILOGUE=0
  done
done
vx_summary
vx_pack s41c2.tar.xz
