#include "ops/shape_fn.h"

#include <cmath>
#include <map>
#include <mutex>

#include "core/error.h"
#include "ops/fused_ops.h"
#include "ops/window_geometry.h"

namespace vx {

namespace {

std::map<std::string, ShapeFn>& shape_fns() {
  static std::map<std::string, ShapeFn> fns;
  return fns;
}
std::mutex& shape_fns_mutex() {
  static std::mutex m;
  return m;
}

const Shape& input_shape(const Node& node, const Graph& graph, size_t i) {
  VX_CHECK(node.input(i) != kNoValue, InvalidArgument, "node '", node.name, "' (", node.op, ") lacks input ", i);
  return graph.value(node.input(i)).shape;
}

void set_output(const Node& node, Graph& graph, size_t i, Shape shape, DType dtype) {
  if (i >= node.outputs.size() || node.outputs[i] == kNoValue) return;
  Value& v = graph.value(node.outputs[i]);
  v.shape = std::move(shape);
  v.dtype = dtype;
}

// Conv output: [N, M, spatial...] from X [N, C, spatial...] and W [M, C/group, k...].
Shape conv_output(const Node& node, const Shape& x, const Shape& w, int64_t channels_in) {
  const std::string what = "node '" + node.name + "' (" + node.op + ")";
  VX_CHECK(x.rank() >= 3 && w.rank() == x.rank(), InvalidArgument, what, ": input ", x.str(), " and weights ",
           w.str(), " must be N,C,spatial... of the same rank");
  const int64_t group = node.attrs.get_int("group", 1);
  VX_CHECK(group >= 1 && channels_in % group == 0 && w[1] * group == channels_in && w[0] % group == 0,
           InvalidArgument, what, ": ", channels_in, " input channels do not match weights ", w.str(), " with group ",
           group);
  std::vector<int64_t> in(x.begin() + 2, x.end()), k(w.begin() + 2, w.end());
  WindowGeometry g = window_geometry(node.attrs, in, k, false, what);
  std::vector<int64_t> out = {x[0], w[0]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  return Shape(out);
}

bool conv_shape(const Node& node, Graph& graph) {
  const Shape& x = input_shape(node, graph, 0);
  const Shape& w = input_shape(node, graph, 1);
  set_output(node, graph, 0, conv_output(node, x, w, x.rank() > 1 ? x[1] : -1), graph.value(node.input(0)).dtype);
  return true;
}

bool fused_conv_shape(const Node& node, Graph& graph) {
  const std::string what = "node '" + node.name + "' (" + node.op + ")";
  const bool upsample_concat = node.attrs.get_int("upsample_concat", 0) != 0;
  Shape x = input_shape(node, graph, 0);
  size_t w_index = 1;
  if (upsample_concat) {
    const Shape& skip = input_shape(node, graph, 1);
    VX_CHECK(x.rank() == 4 && skip.rank() == 4 && x[0] == skip[0] && x[2] * 2 == skip[2] && x[3] * 2 == skip[3],
             InvalidArgument, what, ": upsample_concat needs X_low [N,C,H,W] and X_skip [N,C2,2H,2W], got ", x.str(),
             " and ", skip.str());
    x = Shape({skip[0], x[1] + skip[1], skip[2], skip[3]});
    w_index = 2;
  }
  const Shape& w = input_shape(node, graph, w_index);
  Shape y = conv_output(node, x, w, x[1]);
  if (node.attrs.get_int("pool", 0) != 0) {
    VX_CHECK(y.rank() == 4, InvalidArgument, what, ": pool needs a 2-D convolution");
    y[2] /= 2;
    y[3] /= 2;
    VX_CHECK(y[2] > 0 && y[3] > 0, InvalidArgument, what, ": the convolution output is too small to pool");
  }
  set_output(node, graph, 0, y, graph.value(node.input(0)).dtype);
  return true;
}

bool max_pool_shape(const Node& node, Graph& graph) {
  const std::string what = "node '" + node.name + "' (" + node.op + ")";
  const Shape& x = input_shape(node, graph, 0);
  VX_CHECK(x.rank() >= 3, InvalidArgument, what, ": input ", x.str(), " must be N,C,spatial...");
  std::vector<int64_t> in(x.begin() + 2, x.end());
  VX_CHECK(node.attrs.has("kernel_shape"), InvalidArgument, what, ": kernel_shape is required");
  WindowGeometry g = window_geometry(node.attrs, in, {}, node.attrs.get_int("ceil_mode", 0) != 0, what);
  std::vector<int64_t> out = {x[0], x[1]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  set_output(node, graph, 0, Shape(out), graph.value(node.input(0)).dtype);
  if (node.outputs.size() > 1) set_output(node, graph, 1, Shape(out), DType::i64);  // Indices
  return true;
}

// Resize (opset 10: X, scales; opset 11+: X, roi, scales, sizes). Only constant scales / sizes
// give a shape at plan time.
bool resize_shape(const Node& node, Graph& graph) {
  const Shape& x = input_shape(node, graph, 0);
  ValueId scales_id = node.inputs.size() == 2 ? node.input(1) : node.input(2);
  ValueId sizes_id = node.inputs.size() == 2 ? kNoValue : node.input(3);
  std::vector<int64_t> out(x.begin(), x.end());
  if (sizes_id != kNoValue && graph.value(sizes_id).is_constant() && graph.value(sizes_id).constant.numel() > 0) {
    const Tensor& sizes = graph.value(sizes_id).constant;
    VX_CHECK(size_t(sizes.numel()) == x.rank(), InvalidArgument, "node '", node.name, "' (Resize): ", sizes.numel(),
             " sizes for an input of rank ", x.rank());
    for (size_t i = 0; i < out.size(); ++i) out[i] = int64_t(sizes.get(int64_t(i)));
  } else if (scales_id != kNoValue && graph.value(scales_id).is_constant() &&
             graph.value(scales_id).constant.numel() > 0) {
    const Tensor& scales = graph.value(scales_id).constant;
    VX_CHECK(size_t(scales.numel()) == x.rank(), InvalidArgument, "node '", node.name, "' (Resize): ", scales.numel(),
             " scales for an input of rank ", x.rank());
    // ONNX: output extent = floor(input extent * scale); float32 like the reference implementation.
    for (size_t i = 0; i < out.size(); ++i) out[i] = int64_t(std::floor(double(x[i]) * double(float(scales.get(int64_t(i))))));
  } else {
    return false;  // scales or sizes computed at run time
  }
  set_output(node, graph, 0, Shape(out), graph.value(node.input(0)).dtype);
  return true;
}

bool concat_shape(const Node& node, Graph& graph) {
  const std::string what = "node '" + node.name + "' (Concat)";
  VX_CHECK(!node.inputs.empty(), InvalidArgument, what, ": no inputs");
  Shape out = input_shape(node, graph, 0);
  const int64_t rank = int64_t(out.rank());
  int64_t axis = node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  VX_CHECK(axis >= 0 && axis < rank, InvalidArgument, what, ": axis ", node.attrs.get_int("axis", 1),
           " is out of range for rank ", rank);
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    const Shape& s = input_shape(node, graph, i);
    VX_CHECK(int64_t(s.rank()) == rank, InvalidArgument, what, ": input ", i, " has shape ", s.str(), ", input 0 has ",
             out.str());
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        VX_CHECK(s[size_t(d)] == out[size_t(d)], InvalidArgument, what, ": input ", i, " has shape ", s.str(),
                 ", input 0 has ", input_shape(node, graph, 0).str());
    out[size_t(axis)] += s[size_t(axis)];
  }
  set_output(node, graph, 0, out, graph.value(node.input(0)).dtype);
  return true;
}

}  // namespace

bool same_shape_as_first_input(const Node& node, Graph& graph) {
  const Value& x = graph.value(node.input(0));
  set_output(node, graph, 0, x.shape, x.dtype);
  return true;
}

namespace {
// Custom domains get their own key space ("com.example::Op"), so they never shadow ONNX ops.
std::string shape_fn_key(const std::string& op, const std::string& domain) {
  return domain.empty() ? op : domain + "::" + op;
}
}  // namespace

void register_shape_fn(const std::string& op, ShapeFn fn, const std::string& domain) {
  std::lock_guard<std::mutex> lock(shape_fns_mutex());
  shape_fns()[shape_fn_key(op, domain)] = std::move(fn);
}

const ShapeFn* find_shape_fn(const std::string& op, const std::string& domain) {
  std::lock_guard<std::mutex> lock(shape_fns_mutex());
  auto it = shape_fns().find(shape_fn_key(op, domain));
  return it == shape_fns().end() ? nullptr : &it->second;
}

void infer_shapes(Graph& graph, std::vector<bool>* inferred) {
  // Values no node produces (graph inputs, constants) are known when their shape is.
  std::vector<bool> known(graph.values.size(), false);
  const std::vector<int> producers = graph.producers();
  for (size_t i = 0; i < graph.values.size(); ++i)
    known[i] = producers[i] < 0 && (graph.values[i].is_constant() || graph.values[i].shape.is_known());
  for (const Node& node : graph.nodes) {
    bool inputs_known = true;
    for (ValueId id : node.inputs)
      if (id != kNoValue && !known[size_t(id)]) inputs_known = false;
    if (!inputs_known) continue;
    const ShapeFn* fn = find_shape_fn(node.op, node.domain);
    if (fn == nullptr) continue;
    if (!(*fn)(node, graph)) continue;
    for (ValueId id : node.outputs)
      if (id != kNoValue) known[size_t(id)] = graph.value(id).shape.is_known();
  }
  if (inferred) *inferred = std::move(known);
}

VX_REGISTER_SHAPE_FN(conv, "Conv", conv_shape);
VX_REGISTER_SHAPE_FN(fused_conv, kFusedConv, fused_conv_shape);
VX_REGISTER_SHAPE_FN(relu, "Relu", same_shape_as_first_input);
VX_REGISTER_SHAPE_FN(max_pool, "MaxPool", max_pool_shape);
VX_REGISTER_SHAPE_FN(resize, "Resize", resize_shape);
VX_REGISTER_SHAPE_FN(concat, "Concat", concat_shape);

}  // namespace vx
