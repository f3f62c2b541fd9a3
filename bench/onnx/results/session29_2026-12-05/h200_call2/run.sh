#!/usr/bin/env bash
# Session 29, call 2 on the H200 machine: the new tree's GPU suites in full (call 1's test_parity
# run stopped at its 150 s limit) and every Vulkan case of the op table; then the npm models
# (PaddleOCR v4 detector and v2 classifier, openWakeWord embedding and mel-spectrogram) at fp16 and
# fp32 on the new binary, `volvox bench --device vulkan --io-binding`, two rounds after a ramp.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_new,test_parity,test_ops}.xz, .gl/zoo/npm_small.tar.xz.
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session29_2026-12-05/h200_call2/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s29b.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
declare -A S=([ch_PP-OCRv4_det_infer]=x=1x3x640x640 [ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192
              [oww_embedding_model]=input_1=1x76x32x1 [oww_melspectrogram]=input=1x16000)
b() { local tag=$1 m=$2 p=$3; shift 3
  timeout 60 /tmp/t/vx_new bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" --runs 30 --warmup 5 \
    --warmup-seconds 1 --io-binding "$@" > $R/${tag}.txt 2>&1; }
# The GPU clock ramps under this first load (it read 345 MHz as call 1 began).
b ramp ch_PP-OCRv4_det_infer fp16 --warmup-seconds 4
timeout 330 /tmp/t/test_parity --gtest_filter='*Coopmat*:*CooperativeMatrix*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*' > $R/parity.txt 2>&1
echo "test_parity exit $?" >> $R/parity.txt
timeout 120 /tmp/t/test_ops --gtest_filter='*vulkan*' > $R/ops.txt 2>&1
echo "test_ops exit $?" >> $R/ops.txt
tail -n 4 $R/parity.txt $R/ops.txt; pack
for round in 1 2; do for m in ch_PP-OCRv4_det_infer ch_ppocr_mobile_v2.0_cls_infer oww_embedding_model oww_melspectrogram; do
  for p in fp16 fp32; do b r${round}_${m}_$p $m $p; done; done; done
(cd $R && for f in r2_*.txt; do echo "$f $(head -3 $f | grep -E 'median|recorded' | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done)
pack
