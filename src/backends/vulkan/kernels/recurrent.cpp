// RNN, GRU and LSTM on Vulkan: recurrent_io.comp loads the initial state (and zeroes Y), then one
// recurrent_step.comp dispatch per time step (two for GRU without linear_before_reset) advances every
// direction, batch and hidden unit, and recurrent_io.comp writes Y_h / Y_c. The state lives in an f32
// scratch buffer. Forward, reverse, bidirectional, layout 0 / 1, bias, sequence_lens, initial
// states, peepholes, clip, linear_before_reset and the ONNX activation functions by name.
// Initial states and Y_h / Y_c follow the layout attribute as the ONNX spec says ([batch, dirs,
// hidden] when layout = 1).
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct RnnStepPush {
  uint32_t count = 0;
  int32_t step = 0, seq = 0, batch = 0, hidden = 0, input_size = 0, dirs = 1, cell = 0, phase = 0, flags = 0;
  float clip_at = 0;
  int32_t act_codes = 0;
  float alpha[6]{}, beta[6]{};
};
static_assert(sizeof(RnnStepPush) <= kOpPushConstantBytes);
struct RnnIoPush {
  uint32_t count = 0, state_count = 0, y_count = 0;
  int32_t phase = 0, flags = 0, batch = 0, dirs = 1, hidden = 0;
  uint32_t final_buffer = 0;
};

enum class Cell { rnn = 0, gru = 1, lstm = 2 };

int activation_code(const OpInfo& info, const std::string& name) {
  static const char* kNames[] = {"Sigmoid",     "Tanh",     "Relu", "Affine",   "LeakyRelu", "ThresholdedRelu",
                                 "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"};
  for (int i = 0; i < 11; ++i)
    if (name == kNames[i]) return i;
  VX_CHECK(false, Unsupported, label(info), ": activation '", name, "'");
  return 0;
}

bool present_output(const OpInfo& info, size_t i) {
  return i < info.node.outputs.size() && info.node.outputs[i] != kNoValue;
}

OpPlan plan_recurrent(const OpInfo& info, Cell cell) {
  for (size_t i = 0; i < 3; ++i)  // outputs are all optional (Y is often omitted)
    VX_CHECK(info.has_input(i), InvalidArgument, label(info), ": input ", i, " is missing");
  const OpTensor &x = info.inputs[0], &w = info.inputs[1], &r = info.inputs[2];
  VX_CHECK(is_float(x.dtype), Unsupported, label(info), ": floats only");
  const Attributes& at = info.node.attrs;
  const int64_t gates = cell == Cell::rnn ? 1 : cell == Cell::gru ? 3 : 4;
  const bool batch_major = at.get_int("layout", 0) != 0;
  VX_CHECK(x.shape.rank() == 3 && w.shape.rank() == 3 && r.shape.rank() == 3, InvalidArgument, label(info),
           ": X, W and R must be 3-D");
  const int64_t seq = batch_major ? x.shape[1] : x.shape[0], batch = batch_major ? x.shape[0] : x.shape[1];
  const int64_t in = x.shape[2], dirs = w.shape[0], hidden = r.shape[2];
  const std::string direction = at.get_string("direction", "forward");
  VX_CHECK(direction == "forward" || direction == "reverse" || direction == "bidirectional", InvalidArgument,
           label(info), ": direction '", direction, "'");
  VX_CHECK((direction == "bidirectional") == (dirs == 2) && dirs >= 1 && dirs <= 2, InvalidArgument, label(info),
           ": W has ", dirs, " directions for direction '", direction, "'");
  VX_CHECK(w.shape[1] == gates * hidden && w.shape[2] == in && r.shape[0] == dirs && r.shape[1] == gates * hidden,
           InvalidArgument, label(info), ": W ", w.shape.str(), " / R ", r.shape.str(), " do not fit X ",
           x.shape.str());
  auto float_input = [&](size_t i, int64_t numel, const char* what) {
    if (!info.has_input(i)) return false;
    VX_CHECK(info.inputs[i].device == x.device && info.inputs[i].shape.numel() == numel, InvalidArgument,
             label(info), ": ", what, " has ", info.inputs[i].shape.numel(), " values, expected ", numel);
    return true;
  };
  const bool has_bias = float_input(3, dirs * 2 * gates * hidden, "B");
  const bool has_lens = info.has_input(4);
  if (has_lens)
    VX_CHECK(info.inputs[4].shape.numel() == batch && info.inputs[4].device == DeviceType::i32, InvalidArgument,
             label(info), ": sequence_lens needs ", batch, " integers");
  const bool has_h0 = float_input(5, dirs * batch * hidden, "initial_h");
  const bool has_c0 = cell == Cell::lstm && float_input(6, dirs * batch * hidden, "initial_c");
  const bool has_peep = cell == Cell::lstm && float_input(7, dirs * 3 * hidden, "P");
  VX_CHECK(cell != Cell::lstm || at.get_int("input_forget", 0) == 0, Unsupported, label(info), ": input_forget");

  RnnStepPush step;
  const size_t per_dir = cell == Cell::rnn ? 1 : cell == Cell::gru ? 2 : 3;
  std::vector<std::string> names = at.get_strings("activations", {});
  const std::vector<float> alphas = at.get_floats("activation_alpha", {});
  const std::vector<float> betas = at.get_floats("activation_beta", {});
  if (names.empty()) {
    const std::vector<std::string> defaults = cell == Cell::rnn   ? std::vector<std::string>{"Tanh"}
                                              : cell == Cell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                  : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  VX_CHECK(names.size() == per_dir * size_t(dirs), InvalidArgument, label(info), ": ", names.size(),
           " activations for ", dirs, " direction(s)");
  for (int64_t d = 0; d < dirs; ++d)
    for (size_t k = 0; k < per_dir; ++k) {
      const size_t i = size_t(d) * per_dir + k;
      // Slots: direction d's f, g, h at 3d + 0, 1, 2 (a cell without g / h reuses f's slot).
      const int slot = int(d) * 3 + int(k);
      step.act_codes |= activation_code(info, names[i]) << (4 * slot);
      step.alpha[slot] = i < alphas.size() ? alphas[i] : (names[i] == "LeakyRelu" ? 0.01f : 1.0f);
      step.beta[slot] = i < betas.size() ? betas[i] : 0.0f;
    }
  const int64_t state_count = dirs * batch * hidden;
  const bool has_y = present_output(info, 0), has_yh = present_output(info, 1);
  const bool has_yc = cell == Cell::lstm && present_output(info, 2);
  checked_count32(info, x.shape.numel());
  checked_count32(info, w.shape.numel());
  checked_count32(info, 5 * state_count);
  const int64_t y_count = seq * dirs * batch * hidden;
  checked_count32(info, y_count);

  step.count = uint32_t(state_count);
  step.seq = int32_t(seq);
  step.batch = int32_t(batch);
  step.hidden = int32_t(hidden);
  step.input_size = int32_t(in);
  step.dirs = int32_t(dirs);
  step.cell = int32_t(cell);
  step.flags = (has_bias ? 1 : 0) | (has_lens ? 2 : 0) | (has_peep ? 4 : 0) | (has_y ? 8 : 0) |
               (batch_major ? 16 : 0) | (direction == "reverse" ? 32 : 0) | (at.has("clip") ? 64 : 0) |
               (at.get_int("linear_before_reset", 0) != 0 ? 128 : 0);
  step.clip_at = at.get_float("clip", 0.0f);

  OpPlan plan;
  plan.scratch_bytes.push_back(uint64_t(std::max<int64_t>(5 * state_count, 1)) * 4);
  const Binding state = Binding::scratch_buffer(0);
  const std::string io_shader = shader_variant("recurrent_io", {x.device});
  const std::string step_shader = shader_variant("recurrent_step", {x.device});
  const Binding any_out = has_y ? Binding::out(0) : has_yh ? Binding::out(1) : Binding::out(2);
  VX_CHECK(has_y || has_yh || has_yc, InvalidArgument, label(info), " has no output");

  RnnIoPush io;
  io.state_count = uint32_t(state_count);
  io.y_count = has_y ? uint32_t(y_count) : 0;
  io.count = std::max(io.state_count, io.y_count);
  io.flags = (has_h0 ? 1 : 0) | (has_c0 ? 2 : 0) | (has_y ? 4 : 0) | (has_yh ? 8 : 0) | (has_yc ? 16 : 0) |
             (batch_major ? 32 : 0);
  io.batch = int32_t(batch);
  io.dirs = int32_t(dirs);
  io.hidden = int32_t(hidden);
  io.final_buffer = uint32_t(seq % 2);
  const std::vector<Binding> io_bindings = {has_h0 ? Binding::in(5) : Binding::in(0),
                                            has_c0 ? Binding::in(6) : Binding::in(0),
                                            state,
                                            has_y ? Binding::out(0) : any_out,
                                            has_yh ? Binding::out(1) : any_out,
                                            has_yc ? Binding::out(2) : any_out};
  io.phase = 0;
  plan.dispatches.push_back(make_dispatch(io_shader, io_bindings, io, io.count));

  const std::vector<Binding> step_bindings = {Binding::in(0),
                                              Binding::in(1),
                                              Binding::in(2),
                                              has_bias ? Binding::in(3) : Binding::in(0),
                                              has_lens ? Binding::in(4) : state,
                                              has_peep ? Binding::in(7) : Binding::in(0),
                                              state,
                                              any_out};
  const bool two_phase = cell == Cell::gru && !(step.flags & 128);
  for (int64_t s = 0; s < seq; ++s) {
    step.step = int32_t(s);
    if (two_phase) {
      step.phase = 1;
      plan.dispatches.push_back(make_dispatch(step_shader, step_bindings, step, step.count));
    }
    step.phase = 0;
    plan.dispatches.push_back(make_dispatch(step_shader, step_bindings, step, step.count));
  }
  if (has_yh || has_yc) {
    io.phase = 1;
    io.count = io.state_count;
    plan.dispatches.push_back(make_dispatch(io_shader, io_bindings, io, io.count));
  }
  plan.variant = cat("per-step x", seq);
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(rnn, {"RNN", "", 0, [](const OpInfo& i) { return plan_recurrent(i, Cell::rnn); }});
VX_REGISTER_VK_OP(gru, {"GRU", "", 0, [](const OpInfo& i) { return plan_recurrent(i, Cell::gru); }});
VX_REGISTER_VK_OP(lstm, {"LSTM", "", 0, [](const OpInfo& i) { return plan_recurrent(i, Cell::lstm); }});

}  // namespace vx::vk
