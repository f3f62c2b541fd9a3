#!/usr/bin/env bash
# Session 52, call 1: prepared, not run (no device was lent in session 52). Binaries
# (bench/onnx/pack_device_binaries.sh): base = main at e37512c (the 64 x 64 FMA kernel's
# reduce-by-last-split behind its knob, off); vx = that main with ../staged_by_last_split.diff applied
# (the staged tensor-core kernel's version, N a multiple of 4, and both kernels' default of <= 8
# splits); test_parity of vx.
# Arms of vx by VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS: l0 (never: the reduce pass, vx's binary
# otherwise), l4, vx (8), l16, and c16: l16 with the split cost 16000 (more splits, now cheaper).
# fp32 (round32): the FMA kernels' version, vx against l0 and base.
# Last, torch.compile (fp16, 100 runs, per call and back to back) for the ratios against it.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx base test_parity
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx "$@"\n' "$2" > "/tmp/t/$1"; chmod +x "/tmp/t/$1"; }
arm l0 "VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS=0"
arm l4 "VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS=4"
arm l16 "VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS=16"
arm c16 "VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS=16 VOLVOX_VK_STAGED_SPLIT_COST=16000"
arm dprof "VOLVOX_VK_DISPATCH_PROFILE=1"
arm dprof0 "VOLVOX_VK_DISPATCH_PROFILE=1 VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS=0"
vx_parity 150 '*StagedCooperativeMatrix*:*VulkanGemm*Tiled64*:*VulkanGemm*AutomaticChoice*:*VulkanGemm*FusedMatMulResidual*'
vx_export resnet50,mobilenet_v3_large,transformer_encoder,deeplabv3_mobilenet_v3_large
vx_outputs "resnet50 transformer_encoder deeplabv3_mobilenet_v3_large" vx:vx l0:l0 l16:l16 base:base
vx_pack s52c1.tar.xz
# fp32 (the FMA kernels): the encoder and ResNet-50 by vx, l0 and base.
b32() { env VOLVOX_X=0 timeout 40 "/tmp/t/$2" bench "/tmp/m/$3.onnx" --device vulkan --precision fp32 --shape "${S[$3]}" \
  --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > "$R/$1.txt" 2>&1; }
round32() { local m a; for m in transformer_encoder resnet50; do for a in $2; do b32 "f$1_${m}_$a" "$a" "$m"; done; done; }
round() {
  vx_bench_round "$1" transformer_encoder "$2"
  vx_bench_round "$1" resnet50 "$2"
  vx_bench_round "$1" deeplabv3_mobilenet_v3_large "$2"
  vx_summary; vx_pack s52c1.tar.xz
}
round 1 "vx base l0 l4 l16 c16"
round32 1 "vx l0 base"
round 2 "c16 l16 l4 l0 base vx"
round32 2 "base l0 vx"
vx_profile dprof transformer_encoder; vx_profile dprof0 transformer_encoder; vx_profile dprof resnet50
vx_pack s52c1.tar.xz
round 3 "vx base l0 l4 l16 c16"
vx_torch resnet50,transformer_encoder 120 post --no-eager --precisions fp16 --runs 100
vx_pack s52c1.tar.xz
