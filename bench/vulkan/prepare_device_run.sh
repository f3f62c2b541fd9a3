#!/bin/bash
# Copies what one H200 call needs into <checkout>/.gl (git-ignored): the Vulkan loader .deb, the
# benchmark binary and the scripts. The device tool sends the checkout the session started in, so
# pass that checkout's root (default: this repository's root) and optionally the folder name under
# .gl (default vkbench; another name keeps helpers that share a checkout apart).
set -e
here=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$here}/.gl
sub=${2:-vkbench}
mkdir -p "$dest/$sub"
cp "$here"/.gl/*.deb "$dest/" 2>/dev/null || true
cp "$here/build/release/bench/vulkan/vulkan_unet_bench" "$here/bench/vulkan/torch_unet.py" \
   "$here/bench/vulkan/run_h200.sh" "$dest/$sub/"
ls -la "$dest" "$dest/$sub"
