// Recurrent layers: RNN, GRU, LSTM in every direction, with and without bias, initial states,
// sequence lengths (shorter than the sequence, and 0), peepholes, batch-major layout,
// linear_before_reset and explicit activations, weights as runtime inputs or constants, at small
// shapes, a hidden size that is no multiple of 8, Silero VAD's (hidden 128, input 128, batch 1, one
// step) and shapes big enough for the fast kernel to split over threads.
//
// On `cpu` the fast kernels (backends/cpu/fast/recurrent.cpp) must take every variant but clip and
// activations other than Sigmoid / Tanh / Relu, which they decline (the reference runs and must
// be chosen). Tolerance: 1e-5 of each output's peak, float (sgemm, float gate math) against the
// reference's double.
#include <algorithm>
#include <cmath>

#include "ops/op_table.h"

namespace vx::optable {

namespace {
struct RecurrentOptions {
  const char* direction = "forward";
  bool bias = false, initial = false, lens = false, peepholes = false, batch_major = false;
  // "relu" (Relu given explicitly), "linear_before_reset", or what the fast kernel declines:
  // "clip", "softsign" (an activation it does not have).
  const char* extra = "";
  bool constant = false;  // W, R, B and P as initializers (the fast kernel transposes them once)
  int64_t seq = 5, batch = 3, in = 4, hidden = 6;
};

bool declined(const RecurrentOptions& o) {
  const std::string e = o.extra;
  return e == "clip" || e == "softsign";
}

// The activations attribute per direction for "relu" / "softsign".
std::vector<std::string> activations(const std::string& op, const std::string& extra, int64_t dirs) {
  const std::string other = extra == "relu" ? "Relu" : "Softsign";
  std::vector<std::string> one = op == "RNN"   ? std::vector<std::string>{other}
                                 : op == "GRU" ? std::vector<std::string>{"Sigmoid", other}
                                               : std::vector<std::string>{"Sigmoid", "Tanh", other};
  std::vector<std::string> all;
  for (int64_t d = 0; d < dirs; ++d) all.insert(all.end(), one.begin(), one.end());
  return all;
}

// Sequence lengths: full, about half, 0, one short, ...
std::vector<double> lengths(int64_t seq, int64_t batch) {
  std::vector<double> v;
  for (int64_t b = 0; b < batch; ++b)
    v.push_back(double(b % 3 == 0 ? std::max<int64_t>(seq - b / 3, 0) : b % 3 == 1 ? (seq + 1) / 2 : 0));
  return v;
}

Variant recurrent_variant(const std::string& op, const RecurrentOptions& o) {
  const bool default_shape = o.seq == 5 && o.batch == 3 && o.in == 4 && o.hidden == 6;
  const std::string label = cat(o.direction, o.bias ? "_bias" : "", o.initial ? "_initial" : "", o.lens ? "_lens" : "",
                                o.peepholes ? "_peepholes" : "", o.batch_major ? "_batch_major" : "",
                                *o.extra ? std::string("_") + o.extra : "", o.constant ? "_constant" : "",
                                default_shape ? "" : cat("_s", o.seq, "b", o.batch, "i", o.in, "h", o.hidden));
  return {label, [op, o](OpCase& v) {
            const int64_t seq = o.seq, batch = o.batch, in = o.in, hidden = o.hidden;
            const int64_t gates = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
            const int64_t dirs = std::string(o.direction) == "bidirectional" ? 2 : 1;
            const std::string extra = o.extra;
            v.attr("direction", std::string(o.direction)).attr("hidden_size", hidden);
            if (o.batch_major) v.attr("layout", int64_t(1));
            if (extra == "relu" || extra == "softsign") v.attr("activations", activations(op, extra, dirs));
            if (extra == "linear_before_reset") v.attr("linear_before_reset", int64_t(1));
            if (extra == "clip") v.attr("clip", 0.5f);
            if (declined(o)) v.may_fall_back(Backend::cpu).expect_variant(Backend::cpu, "reference");
            // Weights of about 2 / sqrt(fan-in) at most: wide layers keep their gates out of saturation.
            const float w_range = std::min(0.6f, 2.0f / std::sqrt(float(in)));
            const float r_range = std::min(0.6f, 2.0f / std::sqrt(float(hidden)));
            auto weight = [&](InputSpec s) { return o.constant ? s.constant() : s; };
            std::vector<InputSpec> ins = {f32(o.batch_major ? Shape{batch, seq, in} : Shape{seq, batch, in}),
                                          weight(f32({dirs, gates * hidden, in}, -w_range, w_range)),
                                          weight(f32({dirs, gates * hidden, hidden}, -r_range, r_range))};
            ins.push_back(o.bias ? weight(f32({dirs, 2 * gates * hidden}, -0.3f, 0.3f)) : omitted());
            ins.push_back(o.lens ? values({batch}, lengths(seq, batch), DType::i32) : omitted());
            // Batch-major initial states are [batch, dirs, hidden].
            const Shape state = o.batch_major ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
            ins.push_back(o.initial ? f32(state) : omitted());
            if (op == "LSTM") {
              ins.push_back(o.initial ? f32(state) : omitted());
              ins.push_back(o.peepholes ? weight(f32({dirs, 3 * hidden}, -0.5f, 0.5f)) : omitted());
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
      .expect_variant(Backend::cpu, "fast")
      .tol_cpu({0, 0, 1e-5})
      .tol_f32({1e-5, 1e-5})
      .tol_f16({1e-2, 1e-2})
      .variants(std::move(variants));
}
}  // namespace

// Shapes: odd (hidden 13, no multiple of 8 or 16); larger (seq 16-32, batch 8), of which the GRU and
// LSTM ones with hidden 64 give the fast kernel enough work to split into (direction, batch chunk)
// tasks on a pool of 2 or more threads.
VX_OP_CASES(recurrent) {
  cases.add(recurrent_case(
      "RNN", {{.direction = "forward"},
              {.direction = "bidirectional", .bias = true, .initial = true, .lens = true},
              {.direction = "reverse", .bias = true, .batch_major = true, .extra = "relu"},
              {.bias = true, .initial = true, .constant = true, .seq = 7, .batch = 2, .in = 12, .hidden = 13},
              {.direction = "bidirectional", .lens = true, .batch_major = true, .seq = 16, .batch = 8, .in = 16,
               .hidden = 64},
              {.bias = true, .extra = "clip"}}));
  cases.add(recurrent_case(
      "GRU", {{.bias = true, .initial = true},
              {.direction = "bidirectional", .bias = true, .lens = true, .extra = "linear_before_reset"},
              {.direction = "reverse", .batch_major = true, .extra = "clip"},
              {.direction = "reverse", .initial = true, .lens = true, .batch_major = true},
              {.bias = true, .initial = true, .lens = true, .extra = "linear_before_reset", .constant = true, .seq = 7,
               .batch = 2, .in = 12, .hidden = 13},
              {.direction = "bidirectional", .bias = true, .lens = true, .constant = true, .seq = 24, .batch = 8,
               .in = 16, .hidden = 64},
              {.bias = true, .initial = true, .lens = true, .batch_major = true, .extra = "linear_before_reset",
               .seq = 16, .batch = 8, .in = 16, .hidden = 48},
              {.direction = "bidirectional", .bias = true, .extra = "relu"},
              {.bias = true, .extra = "softsign"}}));
  cases.add(recurrent_case(
      "LSTM", {{.bias = true, .initial = true, .peepholes = true},
               {.direction = "bidirectional", .bias = true, .initial = true, .lens = true, .peepholes = true},
               {.batch_major = true},
               {.direction = "bidirectional", .bias = true, .initial = true, .peepholes = true, .batch_major = true},
               // Silero VAD v5's LSTM.
               {.bias = true, .initial = true, .constant = true, .seq = 1, .batch = 1, .in = 128, .hidden = 128},
               {.direction = "reverse", .bias = true, .lens = true, .peepholes = true, .constant = true, .seq = 7,
                .batch = 2, .in = 12, .hidden = 13},
               {.direction = "bidirectional", .bias = true, .initial = true, .lens = true, .peepholes = true,
                .constant = true, .seq = 24, .batch = 8, .in = 16, .hidden = 64},
               {.bias = true, .lens = true, .batch_major = true, .seq = 32, .batch = 8, .in = 16, .hidden = 64},
               {.direction = "bidirectional", .bias = true, .initial = true, .extra = "relu"},
               {.direction = "bidirectional", .bias = true, .extra = "clip"},
               {.bias = true, .initial = true, .extra = "softsign"}}));
}

}  // namespace vx::optable
