# Session 40, call 1: what a dependent dispatch costs ordered by a pipeline barrier and by a counter
# the dispatches' workgroups increment and wait on (bench/vulkan/dispatch_chain_probe.{cpp,comp},
# built from the commit that adds them). Packed with
#   cp build/release/bench/vulkan/dispatch_chain_probe*.spv .gl/t/
#   bash bench/onnx/pack_device_binaries.sh probe=build/release/bench/vulkan/dispatch_chain_probe
source bench/onnx/device_lib.sh
vx_setup probe
cp .gl/t/dispatch_chain_probe*.spv /tmp/t/
timeout 240 /tmp/t/probe --steps 200 --runs 15 --warmup-ms 300 > "$R/probe.txt" 2>&1
echo "probe rc $?" >> "$R/probe.txt"
cat "$R/probe.txt"
