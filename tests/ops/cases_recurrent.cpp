// Recurrent layers: RNN, GRU, LSTM in every direction, with and without bias, initial states,
// sequence lengths, peepholes, batch-major layout, activations, linear_before_reset and clip.
#include "ops/op_table.h"

namespace vx::optable {

namespace {
struct RecurrentOptions {
  const char* direction;
  bool bias, initial, lens, peepholes, batch_major;
  const char* extra;  // "relu", "linear_before_reset", "clip" or ""
};

Variant recurrent_variant(const std::string& op, const RecurrentOptions& o) {
  const std::string label = cat(o.direction, o.bias ? "_bias" : "", o.initial ? "_initial" : "", o.lens ? "_lens" : "",
                                o.peepholes ? "_peepholes" : "", o.batch_major ? "_batch_major" : "",
                                *o.extra ? std::string("_") + o.extra : "");
  return {label, [op, o](OpCase& v) {
            const int64_t seq = 5, batch = 3, in = 4, hidden = 6;
            const int64_t gates = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
            const int64_t dirs = std::string(o.direction) == "bidirectional" ? 2 : 1;
            v.attr("direction", std::string(o.direction)).attr("hidden_size", hidden);
            if (o.batch_major) v.attr("layout", int64_t(1));
            if (std::string(o.extra) == "relu") v.attr("activations", std::vector<std::string>{"Relu"});
            if (std::string(o.extra) == "linear_before_reset") v.attr("linear_before_reset", int64_t(1));
            if (std::string(o.extra) == "clip") v.attr("clip", 0.5f);
            std::vector<InputSpec> ins = {f32(o.batch_major ? Shape{batch, seq, in} : Shape{seq, batch, in}),
                                          f32({dirs, gates * hidden, in}, -0.6f, 0.6f), f32({dirs, gates * hidden, hidden}, -0.6f, 0.6f)};
            ins.push_back(o.bias ? f32({dirs, 2 * gates * hidden}, -0.3f, 0.3f) : omitted());
            ins.push_back(o.lens ? values({batch}, {5, 2, 0}, DType::i32) : omitted());
            // Batch-major initial states are [batch, dirs, hidden].
            const Shape state = o.batch_major ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
            ins.push_back(o.initial ? f32(state) : omitted());
            if (op == "LSTM") {
              ins.push_back(o.initial ? f32(state) : omitted());
              ins.push_back(o.peepholes ? f32({dirs, 3 * hidden}, -0.5f, 0.5f) : omitted());
            }
            while (!ins.empty() && ins.back().kind == InputSpec::Kind::omitted) ins.pop_back();
            v.with_inputs(ins);
          }};
}

OpCase recurrent_case(const std::string& op, const std::vector<RecurrentOptions>& options) {
  std::vector<Variant> variants;
  for (const RecurrentOptions& o : options) variants.push_back(recurrent_variant(op, o));
  return OpCase(op, "directions_and_options")
      .opset(14)
      .outputs(op == "LSTM" ? 3 : 2)
      .tol_f32({1e-5, 1e-5})
      .tol_f16({1e-2, 1e-2})
      .variants(std::move(variants));
}
}  // namespace

VX_OP_CASES(recurrent) {
  cases.add(recurrent_case("RNN", {{"forward", false, false, false, false, false, ""},
                                   {"bidirectional", true, true, true, false, false, ""},
                                   {"reverse", true, false, false, false, true, "relu"}}));
  cases.add(recurrent_case("GRU", {{"forward", true, true, false, false, false, ""},
                                   {"bidirectional", true, false, true, false, false, "linear_before_reset"},
                                   {"reverse", false, false, false, false, true, "clip"},
                                   {"reverse", false, true, true, false, true, ""}}));
  cases.add(recurrent_case("LSTM", {{"forward", true, true, false, true, false, ""},
                                    {"bidirectional", true, true, true, true, false, ""},
                                    {"forward", false, false, false, false, true, ""},
                                    {"bidirectional", true, true, false, true, true, ""}}));
}

}  // namespace vx::optable
