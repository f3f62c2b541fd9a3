// RNN, GRU and LSTM (opset 7 / 14) with ONNX semantics: forward, reverse or bidirectional,
// layout 0 (sequence-major) or 1 (batch-major), optional bias, sequence_lens, initial states,
// peepholes (LSTM), clip, linear_before_reset (GRU) and the activation functions by name.
// Plain loops in double precision over float32 tensors.
#include <algorithm>
#include <cmath>
#include <functional>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::ref {
namespace {

using Activation = std::function<double(double)>;

Activation activation(const std::string& name, float alpha, float beta, const std::string& what) {
  if (name == "Sigmoid") return [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  if (name == "Tanh") return [](double x) { return std::tanh(x); };
  if (name == "Relu") return [](double x) { return x > 0 ? x : 0.0; };
  if (name == "Affine") return [alpha, beta](double x) { return alpha * x + beta; };
  if (name == "LeakyRelu") return [alpha](double x) { return x >= 0 ? x : alpha * x; };
  if (name == "ThresholdedRelu") return [alpha](double x) { return x > alpha ? x : 0.0; };
  if (name == "ScaledTanh") return [alpha, beta](double x) { return alpha * std::tanh(beta * x); };
  if (name == "HardSigmoid") return [alpha, beta](double x) { return std::clamp(alpha * x + beta, 0.0, 1.0); };
  if (name == "Elu") return [alpha](double x) { return x >= 0 ? x : alpha * (std::exp(x) - 1.0); };
  if (name == "Softsign") return [](double x) { return x / (1.0 + std::fabs(x)); };
  if (name == "Softplus") return [](double x) { return std::log1p(std::exp(x)); };
  fail(ErrorCode::Unsupported, cat(what, ": activation '", name, "' is not supported"));
}

enum class Cell { rnn, gru, lstm };

void recurrent_kernel(KernelContext& ctx, Cell cell) {
  const Node& node = ctx.node();
  const std::string what = node.op + " '" + node.name + "'";
  const int64_t gates = cell == Cell::rnn ? 1 : cell == Cell::gru ? 3 : 4;
  VX_CHECK(ctx.has_input(0) && ctx.has_input(1) && ctx.has_input(2), InvalidArgument, what, ": needs X, W and R");
  const Tensor &x = ctx.input(0), &w = ctx.input(1), &r = ctx.input(2);
  const bool batch_major = node.attrs.get_int("layout", 0) != 0;
  VX_CHECK(x.rank() == 3 && w.rank() == 3 && r.rank() == 3, InvalidArgument, what, ": X, W and R must be 3-D");
  const int64_t seq = batch_major ? x.dim(1) : x.dim(0), batch = batch_major ? x.dim(0) : x.dim(1);
  const int64_t in = x.dim(2), dirs = w.dim(0), hidden = r.dim(2);
  const std::string direction = node.attrs.get_string("direction", "forward");
  VX_CHECK((direction == "bidirectional") == (dirs == 2) && dirs >= 1 && dirs <= 2, InvalidArgument, what,
           ": W has ", dirs, " directions for direction '", direction, "'");
  VX_CHECK(w.dim(1) == gates * hidden && w.dim(2) == in && r.dim(0) == dirs && r.dim(1) == gates * hidden,
           InvalidArgument, what, ": W ", w.shape().str(), " / R ", r.shape().str(), " do not fit X ", x.shape().str());
  const Tensor* bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  VX_CHECK(!bias || bias->numel() == dirs * 2 * gates * hidden, InvalidArgument, what, ": B has ", bias->numel(),
           " values");
  const Tensor* lens = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  VX_CHECK(!lens || lens->numel() == batch, InvalidArgument, what, ": sequence_lens needs ", batch, " values");
  const Tensor* h0 = ctx.has_input(5) ? &ctx.input(5) : nullptr;
  const Tensor* c0 = cell == Cell::lstm && ctx.has_input(6) ? &ctx.input(6) : nullptr;
  const Tensor* peep = cell == Cell::lstm && ctx.has_input(7) ? &ctx.input(7) : nullptr;
  for (const Tensor* s : {h0, c0})
    VX_CHECK(!s || s->numel() == dirs * batch * hidden, InvalidArgument, what, ": an initial state has ", s->numel(),
             " values, expected ", dirs * batch * hidden);
  VX_CHECK(!peep || peep->numel() == dirs * 3 * hidden, InvalidArgument, what, ": P has ", peep->numel(), " values");
  const bool clip = node.attrs.has("clip");
  const double clip_at = node.attrs.get_float("clip", 0);
  const bool linear_before_reset = node.attrs.get_int("linear_before_reset", 0) != 0;

  // Activations per direction: f (gates), g (candidate), h (LSTM cell output).
  const size_t per_dir = cell == Cell::rnn ? 1 : cell == Cell::gru ? 2 : 3;
  std::vector<std::string> names = node.attrs.get_strings("activations", {});
  const std::vector<float> alphas = node.attrs.get_floats("activation_alpha", {});
  const std::vector<float> betas = node.attrs.get_floats("activation_beta", {});
  if (names.empty()) {
    const std::vector<std::string> defaults = cell == Cell::rnn   ? std::vector<std::string>{"Tanh"}
                                              : cell == Cell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                  : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  VX_CHECK(names.size() == per_dir * size_t(dirs), InvalidArgument, what, ": ", names.size(), " activations for ",
           dirs, " direction(s)");
  std::vector<Activation> acts;
  for (size_t i = 0; i < names.size(); ++i)
    acts.push_back(activation(names[i], i < alphas.size() ? alphas[i] : (names[i] == "LeakyRelu" ? 0.01f : 1.0f),
                              i < betas.size() ? betas[i] : 0.0f, what));

  const int64_t H = hidden;
  std::vector<int64_t> y_dims = batch_major ? std::vector<int64_t>{batch, seq, dirs, H}
                                            : std::vector<int64_t>{seq, dirs, batch, H};
  std::vector<int64_t> s_dims = batch_major ? std::vector<int64_t>{batch, dirs, H} : std::vector<int64_t>{dirs, batch, H};
  Tensor y(DType::f32, Shape(y_dims)), yh(DType::f32, Shape(s_dims)), yc(DType::f32, Shape(s_dims));
  auto y_at = [&](int64_t t, int64_t d, int64_t b) {
    return batch_major ? ((b * seq + t) * dirs + d) * H : ((t * dirs + d) * batch + b) * H;
  };
  auto s_at = [&](int64_t d, int64_t b) { return batch_major ? (b * dirs + d) * H : (d * batch + b) * H; };
  auto x_at = [&](int64_t t, int64_t b) { return batch_major ? (b * seq + t) * in : (t * batch + b) * in; };
  float* yp = y.data<float>();
  std::fill_n(yp, y.numel(), 0.0f);

  auto zeros = [](int64_t n) { return std::vector<double>(static_cast<size_t>(n), 0.0); };
  std::vector<double> gx = zeros(gates * H), gh = zeros(gates * H), h = zeros(H), c = zeros(H), hn = zeros(H);
  auto clipped = [&](double v) { return clip ? std::clamp(v, -clip_at, clip_at) : v; };
  for (int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == "reverse" || d == 1;
    const Activation& f = acts[size_t(d) * per_dir];
    const Activation& g = acts[size_t(d) * per_dir + (per_dir > 1 ? 1 : 0)];
    const Activation& hact = acts[size_t(d) * per_dir + (per_dir > 2 ? 2 : 0)];
    auto wb = [&](int64_t k) { return bias ? bias->get(d * 2 * gates * H + k) : 0.0; };
    auto rb = [&](int64_t k) { return bias ? bias->get(d * 2 * gates * H + gates * H + k) : 0.0; };
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t len = lens ? int64_t(lens->get(b)) : seq;
      VX_CHECK(len >= 0 && len <= seq, InvalidArgument, what, ": sequence length ", len, " of batch ", b,
               " is out of range");
      for (int64_t j = 0; j < H; ++j) {
        h[size_t(j)] = h0 ? h0->get(s_at(d, b) + j) : 0.0;  // layout 1: [batch, dirs, H]
        c[size_t(j)] = c0 ? c0->get(s_at(d, b) + j) : 0.0;
      }
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        for (int64_t k = 0; k < gates * H; ++k) {
          double ax = wb(k), ah = rb(k);
          for (int64_t i = 0; i < in; ++i) ax += w.get((d * gates * H + k) * in + i) * x.get(x_at(t, b) + i);
          for (int64_t i = 0; i < H; ++i) ah += r.get((d * gates * H + k) * H + i) * h[size_t(i)];
          gx[size_t(k)] = ax;
          gh[size_t(k)] = ah;
        }
        if (cell == Cell::rnn) {
          for (int64_t j = 0; j < H; ++j) hn[size_t(j)] = f(clipped(gx[size_t(j)] + gh[size_t(j)]));
        } else if (cell == Cell::gru) {  // gates z, r, h
          std::vector<double> z = zeros(H), reset_h = zeros(H), rr = zeros(H);
          for (int64_t j = 0; j < H; ++j) {
            z[size_t(j)] = f(clipped(gx[size_t(j)] + gh[size_t(j)]));
            rr[size_t(j)] = f(clipped(gx[size_t(H + j)] + gh[size_t(H + j)]));
            reset_h[size_t(j)] = rr[size_t(j)] * h[size_t(j)];
          }
          for (int64_t j = 0; j < H; ++j) {
            double cand;
            if (linear_before_reset) {
              cand = gx[size_t(2 * H + j)] + rr[size_t(j)] * gh[size_t(2 * H + j)];
            } else {
              double rh = rb(2 * H + j);
              for (int64_t i = 0; i < H; ++i) rh += r.get((d * gates * H + 2 * H + j) * H + i) * reset_h[size_t(i)];
              cand = gx[size_t(2 * H + j)] + rh;
            }
            hn[size_t(j)] = (1 - z[size_t(j)]) * g(clipped(cand)) + z[size_t(j)] * h[size_t(j)];
          }
        }
        if (cell == Cell::lstm) {
          auto p = [&](int64_t k) { return peep ? peep->get(d * 3 * H + k) : 0.0; };
          for (int64_t j = 0; j < H; ++j) {
            const size_t J = size_t(j);
            const double i_gate = f(clipped(gx[J] + gh[J] + p(j) * c[J]));
            const double f_gate = f(clipped(gx[size_t(2 * H + j)] + gh[size_t(2 * H + j)] + p(2 * H + j) * c[J]));
            const double cand = g(clipped(gx[size_t(3 * H + j)] + gh[size_t(3 * H + j)]));
            c[J] = f_gate * c[J] + i_gate * cand;
            const double o_gate = f(clipped(gx[size_t(H + j)] + gh[size_t(H + j)] + p(H + j) * c[J]));
            hn[J] = o_gate * hact(c[J]);
          }
        }
        h = hn;
        for (int64_t j = 0; j < H; ++j) yp[y_at(t, d, b) + j] = float(h[size_t(j)]);
      }
      for (int64_t j = 0; j < H; ++j) {
        yh.data<float>()[s_at(d, b) + j] = float(h[size_t(j)]);
        yc.data<float>()[s_at(d, b) + j] = float(c[size_t(j)]);
      }
    }
  }
  auto emit = [&](size_t i, const Tensor& t) {
    if (ctx.num_outputs() <= i) return;
    Tensor& out = ctx.output(i, DType::f32, t.shape());
    std::copy_n(t.data<float>(), t.numel(), out.data<float>());
  };
  emit(0, y);
  emit(1, yh);
  if (cell == Cell::lstm) emit(2, yc);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(rnn_reference, {"RNN", "reference", 0, nullptr,
                                       [](KernelContext& ctx) { recurrent_kernel(ctx, Cell::rnn); }});
VX_REGISTER_CPU_KERNEL(gru_reference, {"GRU", "reference", 0, nullptr,
                                       [](KernelContext& ctx) { recurrent_kernel(ctx, Cell::gru); }});
VX_REGISTER_CPU_KERNEL(lstm_reference, {"LSTM", "reference", 0, nullptr,
                                        [](KernelContext& ctx) { recurrent_kernel(ctx, Cell::lstm); }});

}  // namespace vx::cpu::ref
