// RNN, GRU and LSTM in float with the reference's ONNX semantics (reference/recurrent.cpp):
// forward, reverse or bidirectional, layout 0 or 1, optional bias, sequence_lens, initial states,
// peepholes (LSTM) and linear_before_reset (GRU), activations Sigmoid, Tanh or Relu.
//
// Per run: X·W^T for every time step and direction in one sgemm (oneDNN's dnnl_sgemm) with the
// folded biases added later, then per time step h·R^T as one small sgemm per direction (and batch
// chunk) and the gate math in vectorised loops over the hidden units (sigmoid and tanh within
// 1e-7 of exact, below). A GRU without linear_before_reset needs a second product per step,
// (r ⊙ h)·R_h^T. Constant W and R are transposed once per kernel instance (oneDNN's gemv ran 1.6x
// faster on them so at batch 1, hidden 128); runtime ones are read as they are, transposed by
// sgemm. The work memory (X·W^T of the whole sequence, the states, per-task gates) is the
// instance's, kept between runs: a warm run allocates nothing itself (dnnl_sgemm allocates a
// packing buffer for some shapes at batch > 1). Against the reference's double: within 5e-7 of
// each output's peak on the op table's cases.
//
// Threads: the recurrences of the directions and of the batch elements are independent, so a run
// big enough to pay for the pool's fork/join splits into (direction, batch chunk) tasks that each
// step through the whole sequence alone; smaller runs (Silero VAD: batch 1, one step, hidden 128)
// stay on the calling thread, as do their sgemms.
//
// Declines (the reference runs): clip, input_forget, other activations, other dtypes. What the
// graph cannot tell (unknown shapes) is checked per run; a run the kernel cannot take goes to the
// reference kernel, which also reports malformed nodes.
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

enum class Cell { rnn, gru, lstm };
enum class Act : uint8_t { sigmoid, tanh, relu };

int64_t gate_count(Cell cell) { return cell == Cell::rnn ? 1 : cell == Cell::gru ? 3 : 4; }
size_t acts_per_direction(Cell cell) { return cell == Cell::rnn ? 1 : cell == Cell::gru ? 2 : 3; }
size_t output_count(Cell cell) { return cell == Cell::lstm ? 3 : 2; }

// What the node's attributes ask for.
struct Config {
  Cell cell = Cell::lstm;
  int64_t dirs = 1;
  bool reverse = false;  // direction "reverse": the only direction runs backwards
  bool batch_major = false;
  bool linear_before_reset = false;
  std::vector<Act> acts;  // per direction: f (gates), g (candidate), h (LSTM cell output)
};

// The node's configuration, or nullopt where this kernel declines it.
std::optional<Config> config_of(const Node& node, Cell cell) {
  const Attributes& a = node.attrs;
  if (a.has("clip") || (cell == Cell::lstm && a.get_int("input_forget", 0) != 0)) return std::nullopt;
  Config c;
  c.cell = cell;
  const std::string direction = a.get_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") return std::nullopt;
  c.dirs = direction == "bidirectional" ? 2 : 1;
  c.reverse = direction == "reverse";
  c.batch_major = a.get_int("layout", 0) != 0;
  c.linear_before_reset = cell == Cell::gru && a.get_int("linear_before_reset", 0) != 0;
  std::vector<std::string> names = a.get_strings("activations", {});
  if (names.empty()) {
    const std::vector<std::string> defaults = cell == Cell::rnn   ? std::vector<std::string>{"Tanh"}
                                              : cell == Cell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                  : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < c.dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  if (names.size() != acts_per_direction(cell) * size_t(c.dirs)) return std::nullopt;
  for (const std::string& name : names) {
    if (name == "Sigmoid") c.acts.push_back(Act::sigmoid);
    else if (name == "Tanh") c.acts.push_back(Act::tanh);
    else if (name == "Relu") c.acts.push_back(Act::relu);
    else return std::nullopt;
  }
  return c;
}

Config checked_config(const Node& node, Cell cell) {
  std::optional<Config> c = config_of(node, cell);
  VX_CHECK(c.has_value(), Unsupported, node.op, " '", node.name, "': not a node the fast kernel takes");
  return *c;
}

// The activations in float, written so that the compiler vectorises their loops (SSE at our
// x86-64-v2 baseline): no libm calls, and selects through bit masks (with ?: or std::min / max for
// the clamps GCC 12 left these loops scalar). Against the exact values over [-100, 100]:
// sigmoid within 9e-8 absolute (1.5e-7 relative), tanh within 9e-8 absolute (2.5e-7 relative),
// as close as float std::exp / std::tanh, which take 2-12 ns an element here against 1-2 ns.
inline float select(bool take_a, float a, float b) {
  const uint32_t mask = take_a ? ~0u : 0u;
  return std::bit_cast<float>((std::bit_cast<uint32_t>(a) & mask) | (std::bit_cast<uint32_t>(b) & ~mask));
}

// e^x as Cephes' expf: x = n ln 2 + r with |r| <= ln 2 / 2, a degree-7 polynomial in r, 2^n
// through the exponent bits; x clamped to [-87, 88] (e^-87 is still a normal float; sigmoid and
// tanh need no more range). NaN gives NaN.
inline float exp_approx(float x) {
  const float upper = select(x > 88.0f, 88.0f, x);
  x = select(upper < -87.0f, -87.0f, upper);
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest (1.5 * 2^23)
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;              // ln 2 in two parts
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * r * r + r + 1.0f;
  return y * std::bit_cast<float>((int32_t(n) + 127) << 23);
}

inline float sigmoid(float x) { return 1.0f / (1.0f + exp_approx(-x)); }

// (1 - e) / (1 + e) with e = e^(-2|x|) and x's sign; near 0, where 1 - e cancels, the odd Taylor
// series to x^7 (its next term is below 2e-9 relative at |x| = 1/8).
inline float tanh_approx(float x) {
  const float a = std::fabs(x), e = exp_approx(-2.0f * a);
  const float far = std::copysign((1.0f - e) / (1.0f + e), x);
  const float x2 = x * x;
  const float near = x * (1.0f + x2 * (-1.0f / 3.0f + x2 * (2.0f / 15.0f + x2 * (-17.0f / 315.0f))));
  return select(a < 0.125f, near, far);
}

// v[0, n) = act(v[0, n)); the switch stays outside the loops.
void activate(Act act, float* v, int64_t n) {
  switch (act) {
    case Act::sigmoid:
      for (int64_t i = 0; i < n; ++i) v[i] = sigmoid(v[i]);
      break;
    case Act::tanh:
      for (int64_t i = 0; i < n; ++i) v[i] = tanh_approx(v[i]);
      break;
    case Act::relu:
      for (int64_t i = 0; i < n; ++i) v[i] = v[i] > 0.0f ? v[i] : 0.0f;
      break;
  }
}

// A right-hand operand of row-major sgemm: stored as [K, N] (trans false) or as [N, K] (trans
// true, as W and R are), row stride ld.
struct Operand {
  const float* p = nullptr;
  bool trans = false;
  int64_t ld = 0;
  // Columns n0 onwards of the product's B.
  Operand columns_from(int64_t n0) const { return {trans ? p + n0 * ld : p + n0, trans, ld}; }
};

// C[m, n] (row stride ldc) = A[m, k] (row stride lda) · B.
void sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const Operand& b, float* c, int64_t ldc) {
  const dnnl_status_t status =
      dnnl_sgemm('N', b.trans ? 'T' : 'N', m, n, k, 1.0f, a, lda, b.p, b.ld, 0.0f, c, ldc);
  VX_CHECK(status == dnnl_success, Internal, "dnnl_sgemm failed (status ", int(status), ")");
}

// Extents of one run.
struct Dims {
  int64_t seq = 0, batch = 0, in = 0, hidden = 0, dirs = 0, gates = 0;
  int64_t gh() const { return gates * hidden; }  // rows of W and R per direction
  bool operator==(const Dims&) const = default;
};

bool is_f32(const Tensor& t) { return t.dtype() == DType::f32; }

// Multiply-adds per run (a unit's gate math counted as 16) from which the recurrence is split over
// the pool, and X·W^T handed to oneDNN's threads: at 1-2 M (50-90 us on one thread) two threads
// were no faster on the 2-core machine; at 4 M fork/join is a small share.
constexpr double kParallelWork = double(1 << 22);

class RecurrentKernel {
 public:
  RecurrentKernel(const Node& node, const Graph& g, Cell cell)
      : cfg_(checked_config(node, cell)), reference_(find_reference_kernel(node.op)) {
    VX_CHECK(reference_ != nullptr, Internal, node.op, ": no reference kernel to fall back to");
    const int64_t gates = gate_count(cell);
    // Constant weights transposed once: W^T [in, dirs * G * H] for one X·W^T over both directions,
    // R^T [dirs][H, G * H].
    const ValueId w_id = node.input(1), r_id = node.input(2);
    if (w_id != kNoValue && g.value(w_id).is_constant()) {
      const Tensor& w = g.value(w_id).constant;
      if (is_f32(w) && w.rank() == 3) {
        w_shape_ = w.shape();
        const int64_t rows = w.dim(0) * w.dim(1), in = w.dim(2);
        wt_.resize(size_t(rows * in));
        const float* src = w.data<float>();
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t i = 0; i < in; ++i) wt_[size_t(i * rows + r)] = src[r * in + i];
      }
    }
    if (r_id != kNoValue && g.value(r_id).is_constant()) {
      const Tensor& r = g.value(r_id).constant;
      if (is_f32(r) && r.rank() == 3 && r.dim(1) == gates * r.dim(2)) {
        r_shape_ = r.shape();
        const int64_t dirs = r.dim(0), gh = r.dim(1), h = r.dim(2);
        rt_.resize(size_t(dirs * gh * h));
        const float* src = r.data<float>();
        for (int64_t d = 0; d < dirs; ++d)
          for (int64_t k = 0; k < gh; ++k)
            for (int64_t i = 0; i < h; ++i) rt_[size_t((d * h + i) * gh + k)] = src[(d * gh + k) * h + i];
      }
    }
    const ValueId b_id = node.input(3);
    bias_constant_ = b_id != kNoValue && g.value(b_id).is_constant();
    if (bias_constant_) bias_source_ = g.value(b_id).constant;
  }

  void run(KernelContext& ctx) {
    Dims d;
    if (!fits(ctx, d)) return reference_->run(ctx);
    const Cell cell = cfg_.cell;
    const int64_t H = d.hidden, GH = d.gh(), rows = d.seq * d.batch;

    lens_.assign(size_t(d.batch), d.seq);
    if (ctx.has_input(4)) {
      const Tensor& lens = ctx.input(4);
      for (int64_t b = 0; b < d.batch; ++b) {
        const int64_t len = lens.dtype() == DType::i32 ? lens.data<int32_t>()[b] : lens.data<int64_t>()[b];
        if (len < 0 || len > d.seq) return reference_->run(ctx);  // which reports it
        lens_[size_t(b)] = len;
      }
    }
    fold_biases(ctx, d);

    // X·W^T: row (t, b) of layout 0 or (b, t) of layout 1, columns [dirs][G * H].
    gx_.resize(size_t(rows * d.dirs * GH));
    const double recurrence_work = double(rows) * double(d.dirs * GH) * double(H + 16);
    const bool big_input = double(rows) * double(d.dirs * GH) * double(d.in) >= kParallelWork;
    set_onednn_threads(big_input ? ctx.pool().size() : 1);
    const Operand w = wt_.empty() ? Operand{ctx.input(1).data<float>(), true, d.in}
                                  : Operand{wt_.data(), false, d.dirs * GH};
    sgemm(rows, d.dirs * GH, d.in, ctx.input(0).data<float>(), d.in, w, gx_.data(), d.dirs * GH);

    // The states: [dirs][batch][H], from the initial ones ([dirs, batch, H] or, batch-major,
    // [batch, dirs, H]) or zero.
    auto state_at = [&](int64_t dir, int64_t b) {
      return cfg_.batch_major ? (b * d.dirs + dir) * H : (dir * d.batch + b) * H;
    };
    const size_t states = size_t(d.dirs * d.batch * H);
    h_.resize(states);
    c_.resize(cell == Cell::lstm ? states : 0);
    const bool initial_h = ctx.has_input(5), initial_c = cell == Cell::lstm && ctx.has_input(6);
    for (int64_t dir = 0; dir < d.dirs; ++dir)
      for (int64_t b = 0; b < d.batch; ++b) {
        float* h = h_.data() + (dir * d.batch + b) * H;
        if (initial_h) std::memcpy(h, ctx.input(5).data<float>() + state_at(dir, b), size_t(H) * sizeof(float));
        else std::fill_n(h, H, 0.0f);
        if (cell != Cell::lstm) continue;
        float* c = c_.data() + (dir * d.batch + b) * H;
        if (initial_c) std::memcpy(c, ctx.input(6).data<float>() + state_at(dir, b), size_t(H) * sizeof(float));
        else std::fill_n(c, H, 0.0f);
      }

    const Node& node = ctx.node();
    auto present = [&](size_t i) { return i < node.outputs.size() && node.outputs[i] != kNoValue; };
    if (!(d == shaped_for_)) {  // the output shapes, made again only when the extents change
      shaped_for_ = d;
      y_shape_ = cfg_.batch_major ? Shape({d.batch, d.seq, d.dirs, H}) : Shape({d.seq, d.dirs, d.batch, H});
      s_shape_ = cfg_.batch_major ? Shape({d.batch, d.dirs, H}) : Shape({d.dirs, d.batch, H});
    }
    Pass p;
    p.d = d;
    p.y = present(0) ? ctx.output(0, DType::f32, y_shape_).data<float>() : nullptr;
    p.initial_h = initial_h;
    p.peepholes = cell == Cell::lstm && ctx.has_input(7) ? ctx.input(7).data<float>() : nullptr;
    for (int64_t dir = 0; dir < d.dirs; ++dir)
      p.r[dir] = rt_.empty() ? Operand{ctx.input(2).data<float>() + dir * GH * H, true, H}
                             : Operand{rt_.data() + dir * H * GH, false, GH};

    // Tasks: (direction, batch chunk); chunks only where the pool has threads to spare.
    const int threads = ctx.pool().size();
    const bool parallel = threads > 1 && recurrence_work >= kParallelWork;
    const int64_t chunks = parallel ? std::clamp<int64_t>((threads + d.dirs - 1) / d.dirs, 1, d.batch) : 1;
    p.chunk = (d.batch + chunks - 1) / chunks;
    p.task_floats = (p.chunk * (GH + H) + H + 15) / 16 * 16;
    const int64_t tasks = d.dirs * chunks;
    work_.resize(size_t(tasks * p.task_floats));
    auto task = [&](int64_t t) {
      const int64_t dir = t / chunks, b0 = (t % chunks) * p.chunk, b1 = std::min(d.batch, b0 + p.chunk);
      if (b0 < b1) run_task(p, dir, b0, b1, work_.data() + t * p.task_floats);
    };
    if (parallel && tasks > 1) {
      ctx.pool().parallel_for(tasks, [&](int64_t begin, int64_t end) {
        set_onednn_threads(1);
        for (int64_t t = begin; t < end; ++t) task(t);
      });
    } else {
      set_onednn_threads(1);
      for (int64_t t = 0; t < tasks; ++t) task(t);
    }

    for (size_t i = 1; i < output_count(cell); ++i) {
      if (!present(i)) continue;
      float* out = ctx.output(i, DType::f32, s_shape_).data<float>();
      const float* from = (i == 1 ? h_ : c_).data();
      for (int64_t dir = 0; dir < d.dirs; ++dir)
        for (int64_t b = 0; b < d.batch; ++b)
          std::memcpy(out + state_at(dir, b), from + (dir * d.batch + b) * H, size_t(H) * sizeof(float));
    }
  }

 private:
  // What the tasks of one run share.
  struct Pass {
    Dims d;
    float* y = nullptr;  // null when Y is omitted
    bool initial_h = false;
    const float* peepholes = nullptr;  // [dirs][3 * H] (i, o, f), or null
    Operand r[2];                      // R per direction
    int64_t chunk = 1, task_floats = 0;
  };

  // Whether this run is one the kernel takes (dtypes, extents, optional inputs); sets `d`.
  bool fits(const KernelContext& ctx, Dims& d) const {
    const Cell cell = cfg_.cell;
    if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2) || ctx.num_outputs() > output_count(cell))
      return false;
    const Tensor &x = ctx.input(0), &w = ctx.input(1), &r = ctx.input(2);
    if (!is_f32(x) || !is_f32(w) || !is_f32(r) || x.rank() != 3 || w.rank() != 3 || r.rank() != 3) return false;
    d.seq = cfg_.batch_major ? x.dim(1) : x.dim(0);
    d.batch = cfg_.batch_major ? x.dim(0) : x.dim(1);
    d.in = x.dim(2);
    d.dirs = w.dim(0);
    d.hidden = r.dim(2);
    d.gates = gate_count(cell);
    const int64_t H = d.hidden, GH = d.gh();
    if (d.seq < 1 || d.batch < 1 || d.in < 1 || H < 1 || d.dirs != cfg_.dirs) return false;
    if (w.dim(1) != GH || w.dim(2) != d.in || r.dim(0) != d.dirs || r.dim(1) != GH) return false;
    if (!wt_.empty() && w.shape() != w_shape_) return false;
    if (!rt_.empty() && r.shape() != r_shape_) return false;
    auto fits_f32 = [&](size_t i, int64_t numel) {
      return !ctx.has_input(i) || (is_f32(ctx.input(i)) && ctx.input(i).numel() == numel);
    };
    if (!fits_f32(3, d.dirs * 2 * GH) || !fits_f32(5, d.dirs * d.batch * H)) return false;
    if (cell == Cell::lstm && (!fits_f32(6, d.dirs * d.batch * H) || !fits_f32(7, d.dirs * 3 * H))) return false;
    if (ctx.has_input(4)) {
      const Tensor& lens = ctx.input(4);
      if ((lens.dtype() != DType::i32 && lens.dtype() != DType::i64) || lens.numel() != d.batch) return false;
    }
    return true;
  }

  // bias_ per direction: [G * H] added to X·W^T (Wb + Rb, where the gate allows), then, for a GRU
  // with linear_before_reset, Rb of its h gate [H] (inside r ⊙ (h·R_h^T + Rb_h)).
  void fold_biases(const KernelContext& ctx, const Dims& d) {
    const int64_t H = d.hidden, GH = d.gh(), per_dir = GH + H;
    const Tensor* b = bias_constant_ ? &bias_source_ : ctx.has_input(3) ? &ctx.input(3) : nullptr;
    if (bias_constant_ && int64_t(bias_.size()) == d.dirs * per_dir) return;  // folded by an earlier run
    bias_.assign(size_t(d.dirs * per_dir), 0.0f);
    if (!b) return;
    const float* src = b->data<float>();
    for (int64_t dir = 0; dir < d.dirs; ++dir) {
      const float *wb = src + dir * 2 * GH, *rb = wb + GH;
      float* to = bias_.data() + dir * per_dir;
      for (int64_t k = 0; k < GH; ++k) to[k] = wb[k] + rb[k];
      if (cfg_.linear_before_reset)
        for (int64_t j = 0; j < H; ++j) {
          to[2 * H + j] = wb[2 * H + j];
          to[GH + j] = rb[2 * H + j];
        }
    }
  }

  // Direction `dir`, batch elements [b0, b1), every time step. `work`: task_floats floats.
  void run_task(const Pass& p, int64_t dir, int64_t b0, int64_t b1, float* work) {
    const Dims& d = p.d;
    const Cell cell = cfg_.cell;
    const int64_t H = d.hidden, GH = d.gh(), n = b1 - b0, ld_x = d.dirs * GH;
    const bool reverse = cfg_.reverse || dir == 1;
    const size_t per_dir = acts_per_direction(cell);
    const Act f = cfg_.acts[size_t(dir) * per_dir];
    const Act g = cfg_.acts[size_t(dir) * per_dir + (per_dir > 1 ? 1 : 0)];
    const Act h_act = cfg_.acts[size_t(dir) * per_dir + (per_dir > 2 ? 2 : 0)];
    const float* bias = bias_.data() + dir * (GH + H);
    const float* bias_hn = bias + GH;  // GRU with linear_before_reset
    const float* peep = p.peepholes ? p.peepholes + dir * 3 * H : nullptr;
    float* gh = work;         // [n][G * H]: h·R^T, then the gates in place
    float* rh = gh + n * GH;  // [n][H]: r ⊙ h (GRU without linear_before_reset)
    float* tmp = rh + n * H;  // [H]
    float* hs = h_.data() + (dir * d.batch + b0) * H;
    float* cs = cell == Cell::lstm ? c_.data() + (dir * d.batch + b0) * H : nullptr;
    auto y_row = [&](int64_t t, int64_t b) {
      return p.y + (cfg_.batch_major ? ((b * d.seq + t) * d.dirs + dir) * H : ((t * d.dirs + dir) * d.batch + b) * H);
    };
    int64_t steps = 0;
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t len = lens_[size_t(b)];
      steps = std::max(steps, len);
      if (p.y)  // Y is zero past a sequence's end
        for (int64_t t = len; t < d.seq; ++t) std::fill_n(y_row(t, b), H, 0.0f);
    }
    const bool gru_two_products = cell == Cell::gru && !cfg_.linear_before_reset;
    for (int64_t s = 0; s < steps; ++s) {
      // h·R^T for every row of the chunk (rows past their sequence's end are computed and unused).
      const bool h_zero = s == 0 && !p.initial_h;
      const int64_t cols = gru_two_products ? 2 * H : GH;
      if (h_zero) {
        for (int64_t i = 0; i < n; ++i) std::fill_n(gh + i * GH, GH, 0.0f);
      } else {
        sgemm(n, cols, H, hs, H, p.r[dir], gh, GH);
      }
      // Calls row(i, xg, pre, h) for each row of the chunk still inside its sequence, with its X·W^T
      // row, its gates and its state, then copies h into Y where row says it advanced.
      auto each_row = [&](auto&& row) {
        for (int64_t i = 0; i < n; ++i) {
          const int64_t b = b0 + i, len = lens_[size_t(b)];
          if (s >= len) continue;
          const int64_t t = reverse ? len - 1 - s : s;
          const float* xg = gx_.data() + (cfg_.batch_major ? b * d.seq + t : t * d.batch + b) * ld_x + dir * GH;
          float* h = hs + i * H;
          if (row(i, xg, gh + i * GH, h) && p.y) std::copy_n(h, H, y_row(t, b));
        }
      };
      // GRU: h = (1 - z) ⊙ g(candidate) + z ⊙ h, the candidate's pre-activation in pre[2H, 3H).
      auto gru_output = [&](float* pre, float* h) {
        activate(g, pre + 2 * H, H);
        for (int64_t j = 0; j < H; ++j) h[j] = (1.0f - pre[j]) * pre[2 * H + j] + pre[j] * h[j];
      };
      each_row([&](int64_t i, const float* xg, float* pre, float* h) {
        if (cell == Cell::rnn) {
          for (int64_t k = 0; k < H; ++k) pre[k] += xg[k] + bias[k];
          activate(f, pre, H);
          std::copy_n(pre, H, h);
        } else if (cell == Cell::lstm) {  // gates i, o, f, c
          float* c = cs + i * H;
          for (int64_t k = 0; k < GH; ++k) pre[k] += xg[k] + bias[k];
          if (peep) {
            for (int64_t j = 0; j < H; ++j) {
              pre[j] += peep[j] * c[j];
              pre[2 * H + j] += peep[2 * H + j] * c[j];
            }
            activate(f, pre, H);
            activate(f, pre + 2 * H, H);
          } else {
            activate(f, pre, 3 * H);
          }
          activate(g, pre + 3 * H, H);
          for (int64_t j = 0; j < H; ++j) c[j] = pre[2 * H + j] * c[j] + pre[j] * pre[3 * H + j];
          if (peep) {
            for (int64_t j = 0; j < H; ++j) pre[H + j] += peep[H + j] * c[j];
            activate(f, pre + H, H);
          }
          std::copy_n(c, H, tmp);
          activate(h_act, tmp, H);
          for (int64_t j = 0; j < H; ++j) h[j] = pre[H + j] * tmp[j];
        } else {  // GRU, gates z, r, h
          for (int64_t k = 0; k < 2 * H; ++k) pre[k] += xg[k] + bias[k];
          activate(f, pre, 2 * H);
          if (gru_two_products) {
            for (int64_t j = 0; j < H; ++j) rh[i * H + j] = pre[H + j] * h[j];
            return false;  // the candidate needs (r ⊙ h)·R_h^T, below
          }
          for (int64_t j = 0; j < H; ++j)
            pre[2 * H + j] = xg[2 * H + j] + bias[2 * H + j] + pre[H + j] * (pre[2 * H + j] + bias_hn[j]);
          gru_output(pre, h);
        }
        return true;
      });
      if (!gru_two_products) continue;
      if (h_zero) {
        for (int64_t i = 0; i < n; ++i) std::fill_n(gh + i * GH + 2 * H, H, 0.0f);
      } else {
        sgemm(n, H, H, rh, H, p.r[dir].columns_from(2 * H), gh + 2 * H, GH);
      }
      each_row([&](int64_t, const float* xg, float* pre, float* h) {
        for (int64_t j = 0; j < H; ++j) pre[2 * H + j] += xg[2 * H + j] + bias[2 * H + j];
        gru_output(pre, h);
        return true;
      });
    }
  }

  Config cfg_;
  const KernelEntry* reference_;
  Shape w_shape_, r_shape_;
  std::vector<float> wt_, rt_;  // W^T and R^T of constant weights (empty otherwise)
  bool bias_constant_ = false;
  Tensor bias_source_;
  // Per-run memory, kept between runs (runs of one executable are serialised).
  std::vector<float> bias_, gx_, h_, c_, work_;
  std::vector<int64_t> lens_;
  Dims shaped_for_;
  Shape y_shape_, s_shape_;
};

// Attributes and dtypes; extents only where the graph knows them (each run checks them again).
bool recurrent_supports_unchecked(const Node& node, const Graph& g, Cell cell) {
  const std::optional<Config> cfg = config_of(node, cell);
  if (!cfg || node.outputs.size() > output_count(cell)) return false;
  for (size_t i = 0; i < 3; ++i)
    if (node.input(i) == kNoValue) return false;
  const size_t inputs = cell == Cell::lstm ? 8 : 6;
  for (size_t i = 0; i < std::max(inputs, node.inputs.size()); ++i) {
    const ValueId id = node.input(i);
    if (id == kNoValue) continue;
    if (i >= inputs) return false;
    const DType dt = g.value(id).dtype;
    if (i == 4 ? dt != DType::i32 && dt != DType::i64 : dt != DType::f32) return false;
  }
  for (ValueId id : node.outputs)
    if (id != kNoValue && g.value(id).dtype != DType::f32) return false;
  const Shape &x = g.value(node.input(0)).shape, &w = g.value(node.input(1)).shape, &r = g.value(node.input(2)).shape;
  if (x.rank() == 3 && w.rank() == 3 && r.rank() == 3 && x.is_known() && w.is_known() && r.is_known()) {
    const int64_t in = x[2], hidden = r[2];
    if (x[0] < 1 || x[1] < 1 || in < 1 || hidden < 1)
      return false;  // empty: the reference writes the outputs
    if (w[0] != cfg->dirs || r[0] != cfg->dirs || w[1] != gate_count(cell) * hidden || r[1] != w[1] || w[2] != in)
      return false;
  }
  return true;
}

template <Cell cell>
bool recurrent_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return recurrent_supports_unchecked(node, g, cell); });
}

template <Cell cell>
KernelFn make_recurrent(const Node& node, const Graph& g) {
  auto kernel = std::make_shared<RecurrentKernel>(node, g, cell);
  return [kernel](KernelContext& ctx) { kernel->run(ctx); };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(rnn_fast, {"RNN", kFastVariant, 10, recurrent_supports<Cell::rnn>, nullptr,
                                  make_recurrent<Cell::rnn>});
VX_REGISTER_CPU_KERNEL(gru_fast, {"GRU", kFastVariant, 10, recurrent_supports<Cell::gru>, nullptr,
                                  make_recurrent<Cell::gru>});
VX_REGISTER_CPU_KERNEL(lstm_fast, {"LSTM", kFastVariant, 10, recurrent_supports<Cell::lstm>, nullptr,
                                   make_recurrent<Cell::lstm>});

}  // namespace vx::cpu::fast
