#!/usr/bin/env bash
# Session 36, call 4: the gemv kernel (shaders/gemm_gemv.comp: products of <= 4 rows whose B rows
# load as 16-byte words, 8 outputs a workgroup, K over 256 threads) against the rows / split-K tiled
# kernels it replaces (VOLVOX_VK_GEMV=0, same binary): classifier heads as one-MatMul probes, and
# ResNet-50 / MobileNetV3 whole, interleaved in 3 rounds; torch.compile in the same call. Checks
# first: the GEMM parity suites of the few-row kernels on the GPU. Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity
vx_parity 60 '*VulkanGemm.Gemv*:*VulkanGemm.Rows*:*VulkanGemm.AutomaticChoice*'
OFF="VOLVOX_VK_GEMV=0"
python3 bench/onnx/make_gemm_models.py /tmp/m head2048 head1280 head960 > "$R/gemm_models.txt"
for round in 1 2 3; do
  for g in head2048 head1280 head960; do
    for arm in base gemv; do
      e=VOLVOX_X=0; [[ $arm == base ]] && e=$OFF
      env $e timeout 30 /tmp/t/vx_new bench /tmp/m/gemm_$g.onnx --device vulkan --precision fp16 --runs 30 --warmup 5 \
        --warmup-seconds 0.3 --io-binding --profile > "$R/gemm${round}_${g}_$arm.txt" 2>&1
    done
  done
done
(cd "$R" && for f in gemm?_*.txt; do echo "$f $(sed -n 2p "$f" | sed 's/.*transfers)://') $(grep -m1 MatMul "$f" | awk '{print $(NF-2)}')"; done) > "$R/gemm_summary.txt"
cat "$R/gemm_summary.txt"; vx_pack s36c4.tar.xz
vx_export resnet50,mobilenet_v3_large
for round in 1 2 3; do
  for model in resnet50 mobilenet_v3_large; do
    vx_bench r${round}_${model}_base vx_new $model $OFF
    vx_bench r${round}_${model}_gemv vx_new $model VOLVOX_X=0
  done
done
vx_summary; vx_pack s36c4.tar.xz
for arm in base gemv; do
  e=VOLVOX_X=0; [[ $arm == base ]] && e=$OFF
  env $e timeout 40 /tmp/t/vx_new bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 --shape "${S[resnet50]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_resnet50_$arm.txt" 2>&1
done
grep -h "/fc/Gemm" "$R"/prof_resnet50_*.txt; vx_pack s36c4.tar.xz
vx_torch resnet50,mobilenet_v3_large 170
vx_pack s36c4.tar.xz
