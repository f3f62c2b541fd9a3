#!/bin/bash
# Copies what one H200 call needs into <checkout>/.gl (git-ignored): the Vulkan loader .deb, the
# benchmark binary and the scripts. The device tool sends the checkout the session started in, so
# pass that checkout's root (default: this repository's root).
set -e
here=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$here}/.gl
mkdir -p "$dest/vkbench"
cp "$here"/.gl/*.deb "$dest/" 2>/dev/null || true
cp "$here/build/release/bench/vulkan/vulkan_unet_bench" "$here/bench/vulkan/torch_unet.py" \
   "$here/bench/vulkan/run_h200.sh" "$dest/vkbench/"
ls -la "$dest" "$dest/vkbench"
