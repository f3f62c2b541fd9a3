#!/usr/bin/env bash
# Session 41, call 1:
#  1. Session 40's call 4: VulkanExternalDevice.* of test_denoise with DeviceBuffer::import_opaque_fd
#     trying memory types and dedicated-ness, each on a dup of the fd (never yet run on NVIDIA).
#  2. bench/vulkan/gemm_step_probe: what a K step of the staged tensor-core GEMM's 32 x 64 tile costs,
#     with its parts (global loads, shared stores, barrier, fragment loads, MMAs) switched off in turn.
#  3. The staged GEMM's step barrier without memory semantics (VOLVOX_VK_STAGED_BARRIER=execution)
#     against barrier(): ResNet-50 and the transformer encoder, outputs against the CPU at fp32, three
#     interleaved rounds.
# Built from main at 63f4014 plus the probe and the switch; packed with
#   rm -f .gl/t/*; cp build/release/bench/vulkan/gemm_step_probe.spv .gl/t/
#   bash bench/onnx/pack_device_binaries.sh probe=build/release/bench/vulkan/gemm_step_probe test_denoise=build/release/tests/test_denoise vx_new=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup probe test_denoise vx_new
cp .gl/t/gemm_step_probe.spv /tmp/t/
timeout 60 /tmp/t/test_denoise --gtest_filter='VulkanExternalDevice.*' > "$R/external.txt" 2>&1
echo "test_denoise rc $?" >> "$R/external.txt"; tail -3 "$R/external.txt"; grep -E "^\[  FAILED|Failure" "$R/external.txt"
vx_pack s41c1.tar.xz
timeout 200 /tmp/t/probe --runs 15 --warmup-ms 200 > "$R/probe.txt" 2>&1
echo "probe rc $?" >> "$R/probe.txt"
cat "$R/probe.txt"
vx_pack s41c1.tar.xz
MODELS="resnet50 transformer_encoder"
vx_export resnet50,transformer_encoder
mkdir -p /tmp/o
for m in $MODELS; do
  spec=${S[$m]}; name=${spec%%=*}; dims=${spec#*=}
  python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/o/x_$m.npy', n.random.rand(*[int(d) for d in '$dims'.split('x')]).astype(n.float32))"
  timeout 120 /tmp/t/vx_new run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_cpu > /dev/null 2>&1
  for arm in memory execution; do
    VOLVOX_VK_STAGED_BARRIER=$arm timeout 60 /tmp/t/vx_new run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_$arm \
      --device vulkan --precision fp16 > /dev/null 2>&1
  done
done
python3 - > "$R/outputs.txt" 2>&1 <<'PY'
import glob, os
import numpy as n
for m in ("resnet50", "transformer_encoder"):
    for f in sorted(glob.glob(f"/tmp/o/{m}_cpu/*.npy")):
        ref = n.load(f).astype(n.float64)
        for arm in ("memory", "execution"):
            g = f.replace("_cpu/", f"_{arm}/")
            if not os.path.exists(g):
                print(m, arm, "no output"); continue
            got = n.load(g).astype(n.float64)
            print(m, arm, os.path.basename(f), "max|diff|/peak", float(n.abs(got - ref).max() / max(1.0, n.abs(ref).max())))
PY
cat "$R/outputs.txt"
for round in 1 2 3; do
  for m in $MODELS; do
    vx_bench r${round}_${m}_memory vx_new $m VOLVOX_VK_STAGED_BARRIER=memory
    vx_bench r${round}_${m}_execution vx_new $m VOLVOX_VK_STAGED_BARRIER=execution
  done
done
vx_summary
vx_pack s41c1.tar.xz
