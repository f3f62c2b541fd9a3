#!/usr/bin/env bash
# Session 46, call 3: the transformer encoder's products (M 128, d 512) and the classifier heads,
# one MatMul each (make_gemm_models.py), on main as chosen and with K split 1 / 2 / 4 / 8
# (VOLVOX_VK_SPLITK), beside torch.matmul replayed in CUDA graphs (torch_gemm_probe.py): where
# the encoder's 1.49x of torch.compile comes from, product by product.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox
# Device command as in session 41, carry .gl; it needs ~150 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx
NAMES="qkv512 out512 ffn1_512 ffn2_512 head2048 head1280 head960"
python3 bench/onnx/make_gemm_models.py /tmp/g $NAMES > "$R/gemm_models.txt" 2>&1
timeout 120 python3 bench/onnx/torch_gemm_probe.py $NAMES > "$R/torch_gemm.txt" 2>&1
cat "$R/torch_gemm.txt"
for name in $NAMES; do
  for split in auto 1 2 4 8; do
    if [[ $split == auto ]]; then envs=VOLVOX_X=0; else envs=VOLVOX_VK_SPLITK=$split; fi
    env $envs timeout 30 /tmp/t/vx bench "/tmp/g/gemm_$name.onnx" --device vulkan --precision fp16 --runs 30 \
      --warmup 5 --warmup-seconds 0.5 --io-binding > "$R/g_${name}_$split.txt" 2>&1
    echo "$name $split $(sed -n 2p "$R/g_${name}_$split.txt" | sed 's/.*: //')"
  done
done | tee "$R/gemm_summary.txt"
vx_pack s46c3.tar.xz
