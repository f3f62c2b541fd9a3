// libFuzzer target: arbitrary bytes as an ONNX model and as a TensorProto. Every failure must be a
// vx::Error (any other exception, a crash or a sanitizer report is a bug).
#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "formats/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    // No support check: the fuzzer should reach past the op list into tensors and attributes.
    vx::Graph graph = vx::import_onnx_buffer(data, size, {}, {.check_support = false});
    (void)vx::unsupported_onnx_nodes(graph);
  } catch (const vx::Error&) {
  }
  try {
    (void)vx::read_onnx_tensor_buffer(data, size);
  } catch (const vx::Error&) {
  }
  return 0;
}
