#!/usr/bin/env bash
# The whole denoiser on the H200, end to end on device buffers: denoise_device_bench (color, albedo,
# normal and output in device-local buffers; GPU timestamps around each execute's device work:
# autoexposure, input processing, the U-Net, output processing). HDR with albedo and normal
# (rt_hdr_alb_nrm), the 512x512 crops of ../shared/images tiled to 1920x1088 and 3840x2160, fp16 and
# fp32, median and minimum of RUNS executes (default 20) after 1 s of warm-up. Writes $OUT/e2e.{md,json}.
# Needs .gl/onnx/vxlib.tar.xz (bench/onnx/prepare_device_run.sh), .gl/denoise (real_weights_check.py
# prepare) and the binary in $BIN (default .gl/e2e/denoise_device_bench).
# Device command (carry .gl): bash bench/vulkan/e2e_device.sh
set -euo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/vxlib && tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
D=.gl/denoise
"${BIN:-.gl/e2e/denoise_device_bench}" --weights $D/rt_hdr_alb_nrm.tza --color $D/hdr_color.pfm \
  --albedo $D/albedo.pfm --normal $D/normal.pfm --runs "${RUNS:-20}" --md "$OUT/e2e.md" --json "$OUT/e2e.json"
