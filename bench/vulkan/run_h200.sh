#!/bin/bash
# One device call on the H200 machine: Vulkan U-Net benchmark (correctness checks + timings), then
# the PyTorch peer anchor. Expects the layout that `prepare_device_run.sh` makes in the checkout
# that travels: .gl/*.deb (the Vulkan loader) and .gl/vkbench/ (binary, scripts).
#   bash .gl/vkbench/run_h200.sh [compile]      results under $OUT
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$VK_DRIVER_FILES" ] || export VK_DRIVER_FILES=$(find /usr/local/nvidia /usr/share/vulkan /etc/vulkan -name 'nvidia_icd*.json' 2>/dev/null | head -1)
echo "VK_DRIVER_FILES=$VK_DRIVER_FILES"; cat "$VK_DRIVER_FILES"
export PYTHONUNBUFFERED=1
B=$(dirname "$0")  # the folder this script was copied to (.gl/vkbench by default)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee $OUT/gpu.txt
$B/vulkan_unet_bench ${VK_BENCH_ARGS:-} --runs 20 --json $OUT/vulkan.json --md $OUT/vulkan.md 2>&1 | tee $OUT/vulkan.log
if grep -q "no Vulkan" $OUT/vulkan.log; then
  ls -la /usr/local/nvidia/lib* 2>&1 | head -30; ldconfig -p | grep -Ei "vulkan|GLX|GLdispatch"
  VK_LOADER_DEBUG=error,warn,driver $B/vulkan_unet_bench --sizes 64x64 --runs 1 --no-check 2>&1 | tail -30
fi
if [ "${SKIP_TORCH:-0}" != 1 ]; then
  python3 $B/torch_unet.py --json $OUT/torch.json 2>&1 | tee $OUT/torch.log
fi
if [ "$1" = compile ]; then
  timeout ${COMPILE_TIMEOUT:-400} python3 $B/torch_unet.py --compile --json $OUT/torch_compile.json 2>&1 | grep -v Warning | tail -20 | tee $OUT/torch_compile.log
fi
