// The Vulkan RNN / GRU / LSTM against the CPU reference kernels on lavapipe with validation on:
// forward, reverse and bidirectional, bias, initial states, sequence_lens shorter than the
// sequence, peepholes, clip, linear_before_reset, non-default activations, batch-major layout.
// Tolerances: fp32 |d| <= 1e-5 + 1e-5 |ref| (f32 dot products against the CPU's double); fp16
// storage |d| <= 1e-2 + 1e-2 |ref| (outputs are stored in fp16; the state stays f32).
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanRecurrent : public VulkanOpTest {};

struct RecurrentCase {
  const char* op;
  const char* direction;
  bool bias, initial, lens, peepholes, batch_major;
  Attributes extra;
};

TEST_F(VulkanRecurrent, CellsDirectionsAndOptions) {
  const int64_t seq = 5, batch = 3, in = 4, hidden = 6;
  auto attr = [](const char* name, auto v) {
    Attributes a;
    a.set(name, v);
    return a;
  };
  const std::vector<RecurrentCase> cases = {
      {"RNN", "forward", false, false, false, false, false, {}},
      {"RNN", "bidirectional", true, true, true, false, false, {}},
      {"RNN", "reverse", true, false, false, false, true, attr("activations", std::vector<std::string>{"Relu"})},
      {"GRU", "forward", true, true, false, false, false, {}},
      {"GRU", "bidirectional", true, false, true, false, false, attr("linear_before_reset", int64_t(1))},
      {"GRU", "reverse", false, false, false, false, true, attr("clip", 0.5f)},
      {"LSTM", "forward", true, true, false, true, false, {}},
      {"LSTM", "bidirectional", true, true, true, true, false, {}},
      {"LSTM", "forward", false, false, false, false, true, {}},
      // batch-major initial states are [batch, dirs, hidden] (the CPU reference once read them seq-major)
      {"LSTM", "bidirectional", true, true, false, true, true, {}},
      {"GRU", "reverse", false, true, true, false, true, {}},
  };
  uint64_t seed = 1;
  for (const RecurrentCase& c : cases) {
    const std::string op = c.op;
    const int64_t gates = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
    const int64_t dirs = std::string(c.direction) == "bidirectional" ? 2 : 1;
    Attributes a = c.extra;
    a.set("direction", std::string(c.direction));
    a.set("hidden_size", hidden);
    if (c.batch_major) a.set("layout", int64_t(1));
    std::vector<NodeInput> inputs = {
        input(random_tensor(c.batch_major ? Shape{batch, seq, in} : Shape{seq, batch, in}, seed++)),
        input(random_tensor(Shape{dirs, gates * hidden, in}, seed++, -0.6f, 0.6f)),
        input(random_tensor(Shape{dirs, gates * hidden, hidden}, seed++, -0.6f, 0.6f))};
    inputs.push_back(c.bias ? input(random_tensor(Shape{dirs, 2 * gates * hidden}, seed++, -0.3f, 0.3f)) : omitted());
    inputs.push_back(c.lens ? input(Tensor::from<int32_t>({batch}, {5, 2, 0})) : omitted());
    const Shape state = c.batch_major ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
    inputs.push_back(c.initial ? input(random_tensor(state, seed++)) : omitted());
    if (op == "LSTM") {
      inputs.push_back(c.initial ? input(random_tensor(state, seed++)) : omitted());
      inputs.push_back(c.peepholes ? input(random_tensor(Shape{dirs, 3 * hidden}, seed++, -0.5f, 0.5f)) : omitted());
    }
    while (!inputs.empty() && !inputs.back().value.defined()) inputs.pop_back();
    auto sc = single_node(op, inputs, op == "LSTM" ? 3 : 2, a, 14);
    const std::string what = cat(op, " ", c.direction, c.bias ? " bias" : "", c.initial ? " initial" : "",
                                 c.lens ? " lens" : "", c.peepholes ? " peepholes" : "", c.batch_major ? " batch-major" : "");
    expect_matches_cpu(sc, Precision::fp32, {1e-5, 1e-5}, false, what);
    expect_matches_cpu(sc, Precision::fp16, {1e-2, 1e-2}, false, what);
  }
}

}  // namespace
}  // namespace vx::test
