#!/usr/bin/env bash
# Session 40, call 1: dependent dispatches ordered by counters in memory instead of pipeline barriers.
#  1. bench/vulkan/dispatch_chain_probe: a chain of 200 dispatches (1-4224 workgroups, with and
#     without 40 KB of shared memory held) ordered by a barrier, by a counter, or not at all (the
#     floor); whether the chain's result held and whether any bounded wait ran out.
#  2. The executor's experiment (VOLVOX_VK_DISPATCH_CHAIN=counters, shaders/dispatch_chain.glsl):
#     each model's fp16 outputs on the GPU with and without it against the CPU at fp32; the runner
#     parity suites with it; ResNet-50, MobileNetV3, DeepLabV3 and the transformer encoder both ways,
#     three interleaved rounds; torch.compile on ResNet-50 and the encoder in the same call.
#  3. VulkanExternalDevice.* of test_denoise: an opaque fd of host-visible memory imported by trying
#     the buffer's memory types in turn (it failed on NVIDIA, which refuses a device-local import).
# Built from commit 7de35e9 (branch s40-dispatch-chain: the chain and the import loop were reverted
# on main by 49b1874; the probe stays). Packed with
#   cp build/release/bench/vulkan/dispatch_chain_probe*.spv .gl/t/
#   bash bench/onnx/pack_device_binaries.sh probe=build/release/bench/vulkan/dispatch_chain_probe vx_new=build/release/volvox test_parity=build/release/tests/test_parity test_denoise=build/release/tests/test_denoise
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup probe vx_new test_parity test_denoise
cp .gl/t/dispatch_chain_probe*.spv /tmp/t/
timeout 150 /tmp/t/probe --steps 200 --runs 15 --warmup-ms 300 > "$R/probe.txt" 2>&1
echo "probe rc $?" >> "$R/probe.txt"
cat "$R/probe.txt"
timeout 60 /tmp/t/test_denoise --gtest_filter='VulkanExternalDevice.*' > "$R/external.txt" 2>&1
echo "test_denoise rc $?" >> "$R/external.txt"; tail -3 "$R/external.txt"; grep -E "^\[  FAILED" "$R/external.txt"
vx_pack s40c1.tar.xz
MODELS="resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
mkdir -p /tmp/o
for m in $MODELS; do
  spec=${S[$m]}; name=${spec%%=*}; dims=${spec#*=}
  python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/o/x_$m.npy', n.random.rand(*[int(d) for d in '$dims'.split('x')]).astype(n.float32))"
  timeout 120 /tmp/t/vx_new run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_cpu > /dev/null 2>&1
  for mode in none counters; do
    VOLVOX_VK_DISPATCH_CHAIN=$mode timeout 60 /tmp/t/vx_new run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_$mode \
      --device vulkan --precision fp16 > /dev/null 2>&1
    VOLVOX_VK_DISPATCH_CHAIN=$mode timeout 60 /tmp/t/vx_new bench /tmp/m/$m.onnx --device vulkan --precision fp16 \
      --shape "${S[$m]}" --runs 1 --warmup 0 --json 2>/dev/null | grep -o '"dispatches":[0-9]*\|"barriers":[0-9]*' | tr '\n' ' ' \
      | sed "s/^/$m $mode: /" >> "$R/counts.txt"
    echo >> "$R/counts.txt"
  done
done
cat "$R/counts.txt"
python3 - > "$R/outputs.txt" 2>&1 <<'PY'
import glob, os
import numpy as n
for m in ("resnet50", "mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "transformer_encoder"):
    for f in sorted(glob.glob(f"/tmp/o/{m}_cpu/*.npy")):
        ref = n.load(f).astype(n.float64)
        for mode in ("none", "counters"):
            g = f.replace("_cpu/", f"_{mode}/")
            if not os.path.exists(g):
                print(m, mode, "no output"); continue
            got = n.load(g).astype(n.float64)
            print(m, mode, os.path.basename(f), "max|diff|/peak", float(n.abs(got - ref).max() / max(1.0, n.abs(ref).max())))
        a, b = f.replace("_cpu/", "_none/"), f.replace("_cpu/", "_counters/")
        if os.path.exists(a) and os.path.exists(b):
            print(m, "none vs counters identical:", bool((n.load(a) == n.load(b)).all()))
PY
cat "$R/outputs.txt"
vx_pack s40c1.tar.xz
for round in 1 2 3; do
  for m in $MODELS; do
    vx_bench r${round}_${m}_none vx_new $m VOLVOX_VK_DISPATCH_CHAIN=none
    vx_bench r${round}_${m}_counters vx_new $m VOLVOX_VK_DISPATCH_CHAIN=counters
  done
done
vx_summary
vx_pack s40c1.tar.xz
vx_torch resnet50,transformer_encoder 120
vx_pack s40c1.tar.xz
VOLVOX_VK_DISPATCH_CHAIN=counters vx_parity 120 '*VulkanRunner*:*VulkanGemm*:*VulkanDispatchChain*'
vx_pack s40c1.tar.xz
