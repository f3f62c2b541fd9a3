// Conv (1-D to 3-D, groups incl. depthwise, strides, dilations, pads, auto_pad, bias),
// vx.FusedConv (Conv + ReLU (+ 2x2 max pool) (+ post-ops, ops/post_ops.h, in the epilogue of either
// kernel) as the fusion passes produce it; upsample_concat
// builds concat(upsample2x(A), B) in a scratch buffer first, shaders/upsample_concat.comp),
// vx.FusedConvResidual (the residual R added in the GEMM's epilogue, before the ReLU) and
// ConvTranspose. (Whole networks of 3x3 vx.FusedConv layers run on the denoiser's executable and
// its cooperative-matrix kernels instead: vulkan_backend.cpp.)
//   Conv: an implicit GEMM on the shared GEMM kernels (gemm_plan.h): per (image, group) the
//   weights [M/g, C/g * k] times the im2col matrix of the input [C/g * k, output pixels], which
//   the kernel reads straight from the NCHW input (1x1 convolutions with stride 1 and no padding
//   read the input as a plain matrix; large ones at fp16 on tensor cores read it materialised by
//   shaders/im2col.comp, kIm2colMinMacs); bias in the epilogue. Convolutions with few input values
//   per output (C/g * k < 32: depthwise, tiny channel counts) use the direct kernel instead, and
//   other ones with few outputs (at most kDotMaxOutputs: squeeze-and-excitation 1x1 layers on a
//   1x1 map) the dot kernel, a workgroup per output (shaders/conv_dot.comp).
//   VOLVOX_VK_CONV = "direct" | "dot" | "gemm" forces one (tests, measurements).
//   ConvTranspose: a direct gather kernel (shaders/conv_transpose.comp).
#include <algorithm>
#include <cstdlib>
#include <optional>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/gemm_plan.h"
#include "backends/vulkan/kernels/pool.h"
#include "ops/conv_transpose_geometry.h"
#include "ops/fused_ops.h"

namespace vx::vk {
namespace {

// The dot kernel's share: convolutions of at most kDotMaxOutputs outputs, each a sum of at least
// kDotMinReduction products (below, the GEMM's few K steps are as fast) or of a single output pixel
// (a squeeze-and-excitation layer on a 1x1 map, of 32 products or more: the direct kernel's limit).
constexpr int64_t kDotMaxOutputs = 4096, kDotMinReduction = 64;

// shaders/conv_nchw.comp's XR: the direct kernel computes this many outputs along x an invocation.
// With it the direct kernel beats the GEMM on dense convolutions of 16-31 terms too (DeepLabV3 on
// the H100, session 34: its RGB stem 0.020 vs 0.032 ms, a 1x1 expansion from 16 channels 0.036
// vs 0.056), so the 32-term bound stays.
constexpr int64_t kDirectOutputsPerInvocation = 4;

// Convolutions that read an im2col matrix (3x3, strided, dilated) and have at least this many
// multiply-adds materialise it (shaders/im2col.comp) where the device has tensor cores and the
// storage is fp16, so that the staged tensor-core GEMM runs them over plain rows: gathering the
// matrix inside the GEMM bounds them (DeepLabV3's 960 -> 256 ASPP layers, 2.4 G multiply-adds:
// 0.35 ms on the FMA GEMM, 0.29-0.31 on the 128 x 128 tensor-core GEMM gathering). At 2^26 on the
// 64 x 128 staged tile ResNet-50's 3x3 layers lost (session 27); on the smaller tiles with padded
// rows they win (H100, session 31: ResNet-50 1.166 -> 1.003 ms of GPU time).
// VOLVOX_VK_IM2COL_MIN_MACS overrides it (0: every such convolution, as the tests force it on any
// device and precision). The matrix takes at most kIm2colMaxBytes of scratch.
constexpr double kIm2colMinMacs = 0x1p26;
constexpr uint64_t kIm2colMaxBytes = uint64_t(64) << 20;

// Matches the push block of shaders/im2col.comp.
struct Im2colPush {
  int32_t rows, columns, channels, stride;
};

int add_constant(OpPlan& plan, const Tensor& t, DeviceType storage) {
  plan.constants.push_back(pack(constant_values(t), storage));
  return int(plan.constants.size() - 1);
}

// Constant weights [M, K] as rows of `row` >= K values, zeros past K.
int add_padded_rows(OpPlan& plan, const Tensor& t, int64_t k, int64_t row, DeviceType storage) {
  const std::vector<float> values = constant_values(t);
  const int64_t rows = int64_t(values.size()) / k;
  std::vector<float> padded(size_t(rows * row), 0.0f);
  for (int64_t m = 0; m < rows; ++m) std::copy_n(values.begin() + m * k, k, padded.begin() + m * row);
  plan.constants.push_back(pack(padded, storage));
  return int(plan.constants.size() - 1);
}

Binding operand(OpPlan& plan, const OpInfo& info, int i, DeviceType storage) {
  if (info.inputs[size_t(i)].constant) return Binding::constant_blob(add_constant(plan, *info.inputs[size_t(i)].constant, storage));
  return Binding::in(i);
}

void check_output(const OpInfo& info, const std::vector<int64_t>& expected, const Shape& actual) {
  if (Shape(expected) != actual) decline(info, "planned output ", actual.str(), " differs from the attributes' ", Shape(expected).str());
}

// Where a convolution's operands are: X (its shape and binding), the node input holding W (the
// bias, when present, is the next one) and the one holding the residual R (vx.FusedConvResidual).
// x_reduce (vx.ConvPair's second convolution): X is the output of the first one's split-K reduce
// pass, not yet recorded; it is recorded before this convolution's dispatches or, where this one
// materialises its im2col matrix, becomes the pass that writes the matrix (gemm_reduce_im2col).
struct ConvOperands {
  Shape x_shape;
  Binding x = Binding::in(0);
  size_t w = 1;
  std::optional<size_t> residual;
  const Dispatch* x_reduce = nullptr;
};

// Matches GemmPush (gemm_plan.cpp, 112 bytes) followed by gemm_io.glsl's GEMM_IM2COL_PUSH fields.
struct ReduceIm2colPush {
  int32_t rows, columns, stride;
};

// shaders/gemm_reduce_im2col.comp holds a channel's pixels of the first output in shared memory.
constexpr int64_t kReduceIm2colMaxPixels = 4096;

// The first convolution's deferred reduce pass turned into shaders/gemm_reduce_im2col.comp: the
// GEMM's push block and constants, its window constants (ids 3..19) replaced by `w`'s, Y (binding
// 3) by the matrix; a workgroup per channel of the first output and image.
Dispatch reduce_into_im2col(const Dispatch& reduce, const Window3& w, Binding matrix, int64_t rows, int64_t columns,
                            int64_t stride, int64_t channels, int64_t batch, DeviceType storage) {
  Dispatch d = reduce;
  d.shader = shader_variant("gemm_reduce_im2col", {storage});
  const std::vector<int32_t> ws = gemm_window_constants(w);
  std::copy(ws.begin(), ws.end(), d.spec_constants.begin() + kGemmWindowConstantsId);
  d.bindings[3] = matrix;
  const ReduceIm2colPush push{int32_t(rows), int32_t(columns), int32_t(stride)};
  const auto* bytes = reinterpret_cast<const uint8_t*>(&push);
  d.push.insert(d.push.end(), bytes, bytes + sizeof(push));
  d.groups = {uint32_t(channels), 1, uint32_t(batch)};
  return d;
}

// Y = post_ops(relu?(conv(X, W) + B (+ R))) into `y`. With `deferred_reduce`, a split-K GEMM's
// reduce pass is returned there instead of recorded (add_gemm).
std::string add_conv(OpPlan& plan, const OpInfo& info, const ConvOperands& ops, Binding y, bool relu, DeviceType storage,
                     WindowGeometry* geometry, const std::vector<PostOp>& post_ops = {},
                     Dispatch* deferred_reduce = nullptr) {
  float_storage(info, ops.w);
  const Shape& xs = ops.x_shape;
  const Shape& ws = info.inputs[ops.w].shape;
  if (xs.rank() < 3 || xs.rank() > 5 || ws.rank() != xs.rank())
    decline(info, "input ", xs.str(), " and weights ", ws.str(), " must be N, C and 1 to 3 spatial axes");
  const int64_t batch = xs[0], channels = xs[1], outputs = ws[0], group = info.node.attrs.get_int("group", 1);
  if (group < 1 || channels % group != 0 || outputs % group != 0 || ws[1] != channels / group)
    decline(info, "input ", xs.str(), " and weights ", ws.str(), " do not fit group ", group);
  const std::vector<int64_t> in(xs.begin() + 2, xs.end());
  WindowGeometry g;
  try {
    g = window_geometry(info.node.attrs, in, std::vector<int64_t>(ws.begin() + 2, ws.end()), false, label(info));
  } catch (const Error& e) {
    decline(info, e.what());
  }
  if (g.kernel != std::vector<int64_t>(ws.begin() + 2, ws.end())) decline(info, "kernel_shape differs from the weights ", ws.str());
  if (geometry) *geometry = g;
  const Window3 w = window3(g, in);
  const int64_t cg = channels / group, mg = outputs / group, ks = w.kernel_size(), in_size = w.in_size(),
                out_size = w.out_size();
  checked_count32(info, xs.numel(), "X");
  checked_count32(info, ws.numel(), "W");
  checked_count32(info, batch * outputs * out_size, "Y");
  const size_t bias = ops.w + 1;
  const bool has_bias = info.has_input(bias);
  if (has_bias) {
    float_storage(info, bias);
    if (info.inputs[bias].shape.numel() != outputs) decline(info, "bias ", info.inputs[bias].shape.str(), " for ", outputs, " outputs");
  }

  if (ops.residual) {
    float_storage(info, *ops.residual);
    std::vector<int64_t> y_dims = {batch, outputs};
    y_dims.insert(y_dims.end(), g.output.begin(), g.output.end());
    if (info.inputs[*ops.residual].shape != Shape(y_dims))
      decline(info, "residual ", info.inputs[*ops.residual].shape.str(), " for the output ", Shape(y_dims).str());
  }

  const char* env = std::getenv("VOLVOX_VK_CONV");
  const std::string mode = env ? env : "auto";
  const int64_t total = batch * outputs * out_size;
  // The residual joins the GEMM's epilogue (the direct kernels have none).
  const bool direct = !ops.residual && (mode == "direct" || (mode == "auto" && cg * ks < 32));
  const bool dot = !ops.residual && !direct &&
                   (mode == "dot" || (mode == "auto" && total <= kDotMaxOutputs &&
                                      (cg * ks >= kDotMinReduction || out_size == 1)));
  const Binding bb = has_bias ? operand(plan, info, int(bias), storage) : ops.x;  // unread without a bias
  const bool x_pending = ops.x_reduce && !ops.x_reduce->shader.empty();
  if (direct || dot) {
    if (x_pending) plan.dispatches.push_back(*ops.x_reduce);
    const Binding wb = operand(plan, info, int(ops.w), storage);
    Dispatch d;
    d.shader = shader_variant(dot ? "conv_dot" : "conv_nchw", {storage});
    d.spec_constants = {int32_t(cg), int32_t(mg)};
    const std::vector<int32_t> ws3 = w.spec_constants();
    d.spec_constants.insert(d.spec_constants.end(), ws3.begin(), ws3.end());
    d.spec_constants.push_back(has_bias ? 1 : 0);
    d.spec_constants.push_back(relu ? 1 : 0);
    add_post_op_constants(d.spec_constants, 22, post_ops);  // shaders/conv_nchw.comp: POST_OPS_ID0
    d.bindings = {ops.x, wb, bb, y};
    const int64_t row_invocations = (w.out[2] + kDirectOutputsPerInvocation - 1) / kDirectOutputsPerInvocation;
    const int64_t invocations = dot ? total : total / w.out[2] * row_invocations;
    struct {
      int32_t total, c, m;
    } push{int32_t(invocations), int32_t(channels), int32_t(outputs)};
    d.set_push(push);
    d.groups = dot ? linear_groups(uint64_t(total), 1) : element_groups(info, invocations);  // dot: a workgroup an output
    plan.dispatches.push_back(std::move(d));
    return dot ? "dot" : "direct";
  }
  GemmDesc d;
  d.m = mg;
  d.n = out_size;
  d.k = cg * ks;
  d.sam = cg * ks;
  d.sak = 1;
  const bool pointwise = ks == 1 && w.stride == std::array<int32_t, 3>{1, 1, 1} &&
                         w.pad_begin == std::array<int32_t, 3>{0, 0, 0} && w.out == w.in;
  const char* min_env = std::getenv("VOLVOX_VK_IM2COL_MIN_MACS");
  const double min_macs = min_env ? std::atof(min_env) : kIm2colMinMacs;
  const bool forced = min_env != nullptr;  // on any device and precision: the tests' way in
  const int64_t vec = 16 / int64_t(device_type_bytes(storage));  // elements per 16-byte word
  // The matrix's rows padded to whole 16-byte words (zeros): the staged GEMM loads them as vectors
  // at any pixel count (DeepLabV3's ASPP product at 33 x 33 pixels: 0.27 -> 0.11 ms on the H100).
  const int64_t im2col_stride = (out_size + vec - 1) / vec * vec;
  const uint64_t im2col_bytes = uint64_t(batch) * uint64_t(cg * ks) * uint64_t(im2col_stride) * device_type_bytes(storage);
  const bool im2col = !pointwise && group == 1 && (forced || (storage == DeviceType::f16 && info.coopmat)) &&
                      double(mg) * double(out_size) * double(cg * ks) * double(batch) >= min_macs &&
                      im2col_bytes <= kIm2colMaxBytes && cg * ks <= 65535 && batch <= 65535;
  const bool reduce_into_matrix = im2col && x_pending && in_size <= kReduceIm2colMaxPixels && channels <= 65535;
  Binding matrix;
  if (x_pending && !reduce_into_matrix) plan.dispatches.push_back(*ops.x_reduce);
  if (im2col) {
    checked_count32(info, int64_t(im2col_bytes / device_type_bytes(storage)), "the im2col matrix");
    plan.scratch_bytes.push_back(im2col_bytes);
    matrix = Binding::scratch_buffer(int(plan.scratch_bytes.size() - 1));
  }
  if (reduce_into_matrix) {
    plan.dispatches.push_back(
        reduce_into_im2col(*ops.x_reduce, w, matrix, cg * ks, out_size, im2col_stride, channels, batch, storage));
  } else if (im2col) {
    Dispatch m;
    m.shader = shader_variant("im2col", {storage});
    m.spec_constants = w.spec_constants();
    m.bindings = {ops.x, matrix};
    m.set_push(Im2colPush{int32_t(cg * ks), int32_t(out_size), int32_t(channels), int32_t(im2col_stride)});
    // A 16-byte word an invocation: at most kIm2colMaxBytes / 16 / 256 = 16384 workgroups an image.
    const uint64_t words = uint64_t(cg * ks) * uint64_t(im2col_stride / vec);
    m.groups = {uint32_t((words + 255) / 256), 1, uint32_t(batch)};
    plan.dispatches.push_back(std::move(m));
  }
  if (im2col) {
    d.sbk = im2col_stride;
    d.sbn = 1;
    d.b_rows_padded = im2col_stride != out_size;
    // Constant weights in rows of whole 16-byte words too (zeros past K), so that the staged GEMM
    // loads them as vectors at any K (ResNet-50's stem: 3 x 7 x 7 = 147).
    if (info.inputs[ops.w].constant && (cg * ks) % vec != 0) {
      d.sam = (cg * ks + vec - 1) / vec * vec;
      d.a_rows_padded = true;
      d.a = Binding::constant_blob(add_padded_rows(plan, *info.inputs[ops.w].constant, cg * ks, d.sam, storage));
    }
  } else if (pointwise) {
    d.sbk = in_size;
    d.sbn = 1;
  } else {
    d.b_im2col = true;
    d.conv = w;
  }
  d.z1_count = batch;
  d.z0_count = group;
  d.a_z0 = mg * d.sam;
  d.b_z1 = im2col ? cg * ks * im2col_stride : channels * in_size;
  d.b_z0 = im2col ? 0 : cg * in_size;  // im2col: group 1
  d.o_z1 = outputs * out_size;
  d.o_z0 = mg * out_size;
  d.beta = 1.0f;
  if (ops.residual) {  // C is R (laid out as Y); the bias goes per row
    d.has_c = true;
    d.c = Binding::in(int(*ops.residual));
    d.scm = out_size;
    d.scn = 1;
    d.c_z1 = outputs * out_size;
    d.c_z0 = mg * out_size;
    d.has_bias = has_bias;
    d.bias_per_row = true;
    d.bias = bb;
  } else {  // C is the bias, broadcast along the row
    d.has_c = has_bias;
    d.scm = 1;
    d.scn = 0;
    d.c_z0 = mg;
    d.c = bb;
  }
  d.act = relu ? GemmActivation::relu : GemmActivation::none;
  d.post_ops = post_ops;
  if (!d.a_rows_padded) d.a = operand(plan, info, int(ops.w), storage);
  d.b = im2col ? matrix : ops.x;
  d.y = y;
  const std::string kind = pointwise            ? "gemm1x1_"
                           : reduce_into_matrix ? "gemm_reduce_im2col_"
                           : im2col             ? "gemm_im2col_"
                                                : "gemm_";
  return kind + add_gemm(plan, info, d, storage, deferred_reduce);
}

OpPlan plan_conv(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  OpPlan plan;
  WindowGeometry g;
  plan.variant = add_conv(plan, info, {info.inputs[0].shape}, Binding::out(0), false, storage, &g);
  std::vector<int64_t> expected = {info.inputs[0].shape[0], info.inputs[1].shape[0]};
  expected.insert(expected.end(), g.output.begin(), g.output.end());
  check_output(info, expected, info.outputs[0].shape);
  return plan;
}

// Matches the push block of shaders/upsample_concat.comp.
struct UpsampleConcatPush {
  int32_t total, ca, cb, h, w;
};

// An upsample_concat node's conv input, concat(upsample2x_nearest(A), B), built in a new scratch
// buffer: the operands of the conv that reads it.
ConvOperands add_upsample_concat(OpPlan& plan, const OpInfo& info, DeviceType storage) {
  float_storage(info, 1);
  const Shape& low = info.inputs[0].shape;
  const Shape& skip = info.inputs[1].shape;
  if (low.rank() != 4 || skip.rank() != 4 || low[0] != skip[0] || skip[2] != 2 * low[2] || skip[3] != 2 * low[3])
    decline(info, "upsample_concat needs A [N, CA, H/2, W/2] and B [N, CB, H, W], not ", low.str(), " and ", skip.str());
  const Shape x{low[0], low[1] + skip[1], skip[2], skip[3]};
  const int64_t total = checked_count32(info, x.numel(), "the concatenated input");
  plan.scratch_bytes.push_back(uint64_t(total) * device_type_bytes(storage));
  const Binding concat = Binding::scratch_buffer(int(plan.scratch_bytes.size() - 1));
  const UpsampleConcatPush push{int32_t(total), int32_t(low[1]), int32_t(skip[1]), int32_t(skip[2]), int32_t(skip[3])};
  plan.dispatches.push_back(make_dispatch(move_variant("upsample_concat", storage), {Binding::in(0), Binding::in(1), concat}, push,
                                          uint64_t(total)));
  plan.dispatches.back().groups = element_groups(info, total);
  return {x, concat, 2};
}

// The node's post-ops (vx.FusedConv's attributes), declined past what the kernels take.
std::vector<PostOp> conv_post_ops(const OpInfo& info) {
  std::vector<PostOp> post_ops;
  try {
    post_ops = read_post_ops(info.node.attrs, label(info));
  } catch (const Error& e) {
    decline(info, e.what());
  }
  if (post_ops.size() > kMaxPostOps) decline(info, post_ops.size(), " post-ops (the kernels take ", kMaxPostOps, ")");
  return post_ops;
}

// vx.FusedConv's global_mean: the convolution into a scratch buffer, then the mean of each output
// plane. Where the GEMM splits K (and the device has subgroup reductions) its reduce pass averages
// as it adds the partial sums (shaders/gemm_reduce_mean.comp) and the convolution's output is never
// written; else a global pool dispatch reads it.
OpPlan add_conv_global_mean(OpPlan& plan, const OpInfo& info, const ConvOperands& ops, bool relu, DeviceType storage,
                            const std::vector<PostOp>& post_ops) {
  const int64_t planes = ops.x_shape[0] * info.inputs[ops.w].shape[0];
  plan.scratch_bytes.push_back(0);  // the convolution's output, sized below
  const int conv_scratch = int(plan.scratch_bytes.size() - 1);
  const Binding conv_y = Binding::scratch_buffer(conv_scratch);
  Dispatch reduce;
  const bool mean_in_reduce = info.device.has_subgroup_arithmetic();
  WindowGeometry g;
  plan.variant = add_conv(plan, info, ops, conv_y, relu, storage, &g, post_ops, mean_in_reduce ? &reduce : nullptr);
  if (!post_ops.empty()) plan.variant += cat("+post", post_ops.size());
  const int64_t pixels = product(g.output, 0, g.output.size());
  plan.scratch_bytes[size_t(conv_scratch)] = uint64_t(planes * pixels) * device_type_bytes(storage);
  std::vector<int64_t> means = {ops.x_shape[0], info.inputs[ops.w].shape[0]};
  means.resize(2 + g.output.size(), 1);
  check_output(info, means, info.outputs[0].shape);
  if (!reduce.shader.empty()) {
    reduce.shader = shader_variant("gemm_reduce_mean", {storage});
    reduce.bindings[3] = Binding::out(0);
    reduce.groups = linear_groups(uint64_t(planes), 1);  // a workgroup per plane
    plan.dispatches.push_back(std::move(reduce));
    plan.variant += "+reduce_mean";
    return plan;
  }
  add_global_pool_dispatch(plan, conv_y, Binding::out(0), planes, pixels, 1, 2, storage);
  plan.variant += "+global_pool";
  return plan;
}

OpPlan plan_fused_conv(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  const Attributes& attrs = info.node.attrs;
  const std::vector<PostOp> post_ops = conv_post_ops(info);
  const bool relu = attrs.get_int("relu", 0) != 0, pool = attrs.get_int("pool", 0) != 0;
  if (pool && !post_ops.empty()) decline(info, "post-ops with a fused pool");
  const bool upsample_concat = attrs.get_int("upsample_concat", 0) != 0;
  const bool global_mean = attrs.get_int("global_mean", 0) != 0;
  if (global_mean && (pool || upsample_concat)) decline(info, "global_mean with pool or upsample_concat");
  OpPlan plan;
  ConvOperands ops = upsample_concat ? add_upsample_concat(plan, info, storage) : ConvOperands{info.inputs[0].shape};
  if (info.node.op == kFusedConvResidual) {  // inputs X, W, B (may be omitted), R
    if (pool || upsample_concat || !info.has_input(3)) decline(info, "a residual convolution needs X, W, (B,) R and no pool or upsample_concat");
    ops.residual = 3;
  }
  const std::string prefix = plan.dispatches.empty() ? "" : "upcat+";
  WindowGeometry g;
  std::vector<int64_t> conv_out;
  if (global_mean) return add_conv_global_mean(plan, info, ops, relu, storage, post_ops);
  if (!pool) {
    plan.variant = prefix + add_conv(plan, info, ops, Binding::out(0), relu, storage, &g, post_ops);
    if (!post_ops.empty()) plan.variant += cat("+post", post_ops.size());
    conv_out = {ops.x_shape[0], info.inputs[ops.w].shape[0]};
    conv_out.insert(conv_out.end(), g.output.begin(), g.output.end());
    check_output(info, conv_out, info.outputs[0].shape);
    return plan;
  }
  plan.scratch_bytes.push_back(0);  // the conv output, sized below
  const int conv_scratch = int(plan.scratch_bytes.size() - 1);
  plan.variant = prefix + add_conv(plan, info, ops, Binding::scratch_buffer(conv_scratch), relu, storage, &g) + "+pool";
  if (g.rank() != 2 || g.output[0] < 2 || g.output[1] < 2) decline(info, "pool needs a 2-D output of at least 2x2");
  const int64_t planes = ops.x_shape[0] * info.inputs[ops.w].shape[0];
  plan.scratch_bytes[size_t(conv_scratch)] = uint64_t(planes * g.output[0] * g.output[1]) * device_type_bytes(storage);
  Attributes pool_attrs;
  pool_attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool_attrs.set("strides", std::vector<int64_t>{2, 2});
  const WindowGeometry pg = window_geometry(pool_attrs, g.output, {}, false, label(info));
  check_output(info, {ops.x_shape[0], info.inputs[ops.w].shape[0], pg.output[0], pg.output[1]}, info.outputs[0].shape);
  add_pool_dispatch(plan, info, Binding::scratch_buffer(conv_scratch), Binding::out(0), window3(pg, g.output), planes,
                    PoolMode::max, false, 0, storage);
  return plan;
}

// vx.ConvPair: the 1x1 convolution into a scratch buffer (its reduce pass deferred), then the second
// convolution reading it, whose im2col pass the deferred reduce becomes where it has one.
OpPlan plan_conv_pair(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  const Attributes& attrs = info.node.attrs;
  const std::vector<PostOp> post_ops = conv_post_ops(info);
  if (!info.has_input(0) || !info.has_input(1) || !info.has_input(3)) decline(info, "needs X, W1, (B1,) W2");
  const Shape& xs = info.inputs[0].shape;
  const Shape& w1 = info.inputs[1].shape;
  if (xs.rank() < 3 || w1.rank() != xs.rank()) decline(info, "input ", xs.str(), " and W1 ", w1.str());
  for (size_t i = 2; i < w1.rank(); ++i)
    if (w1[i] != 1) decline(info, "W1 ", w1.str(), " is not 1x1");
  std::vector<int64_t> mid_dims = {xs[0], w1[0]};
  mid_dims.insert(mid_dims.end(), xs.begin() + 2, xs.end());
  const Shape mid_shape(mid_dims);
  OpPlan plan;
  plan.scratch_bytes.push_back(uint64_t(checked_count32(info, mid_shape.numel(), "the first output")) *
                               device_type_bytes(storage));
  const Binding mid = Binding::scratch_buffer(int(plan.scratch_bytes.size() - 1));
  Node first_node = info.node;  // the 1x1 convolution: stride 1, no padding, group 1
  first_node.attrs = Attributes{};
  const OpInfo first{first_node, info.graph, info.opset, info.precision, info.device,
                     info.inputs, info.present, info.outputs, info.coopmat};
  Dispatch reduce;
  const std::string first_variant = add_conv(plan, first, ConvOperands{xs, Binding::in(0), 1}, mid,
                                             attrs.get_int("first_relu", 0) != 0, storage, nullptr, {}, &reduce);
  ConvOperands second{mid_shape, mid, 3};
  second.x_reduce = &reduce;
  WindowGeometry g;
  plan.variant = first_variant + "|" +
                 add_conv(plan, info, second, Binding::out(0), attrs.get_int("relu", 0) != 0, storage, &g, post_ops);
  if (!post_ops.empty()) plan.variant += cat("+post", post_ops.size());
  std::vector<int64_t> expected = {xs[0], info.inputs[3].shape[0]};
  expected.insert(expected.end(), g.output.begin(), g.output.end());
  check_output(info, expected, info.outputs[0].shape);
  return plan;
}

OpPlan plan_conv_transpose(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  float_storage(info, 1);
  const Attributes& attrs = info.node.attrs;
  const Shape& xs = info.inputs[0].shape;
  const Shape& ws = info.inputs[1].shape;
  if (xs.rank() < 3 || xs.rank() > 5 || ws.rank() != xs.rank())
    decline(info, "input ", xs.str(), " and weights ", ws.str(), " must be N, C and 1 to 3 spatial axes");
  const int64_t batch = xs[0], channels = xs[1];
  ConvTransposeGeometry g;
  try {
    g = conv_transpose_geometry(attrs, xs, ws, label(info));
  } catch (const Error& e) {
    decline(info, e.what());
  }
  const int64_t group = g.group, mg = ws[1], outputs = mg * group;
  for (size_t i = 0; i < g.output.size(); ++i)
    if (g.output[i] <= 0) decline(info, "empty output on spatial axis ", i);
  const std::vector<int64_t> in(xs.begin() + 2, xs.end());
  check_output(info, g.output_shape.dims(), info.outputs[0].shape);
  g.pads_end.assign(g.output.size(), 0);  // negative with output_padding; the shader reads only pads_begin
  const Window3 w = window3(g, in);
  checked_count32(info, xs.numel(), "X");
  checked_count32(info, ws.numel(), "W");
  const int64_t total = batch * outputs * w.out_size();
  const bool has_bias = info.has_input(2);
  if (has_bias) {
    float_storage(info, 2);
    if (info.inputs[2].shape.numel() != outputs) decline(info, "bias ", info.inputs[2].shape.str(), " for ", outputs, " outputs");
  }
  OpPlan plan;
  Dispatch d;
  d.shader = shader_variant("conv_transpose", {storage});
  d.spec_constants = {int32_t(channels / group), int32_t(mg)};
  const std::vector<int32_t> ws3 = w.spec_constants();
  d.spec_constants.insert(d.spec_constants.end(), ws3.begin(), ws3.end());
  d.spec_constants.push_back(has_bias ? 1 : 0);
  d.bindings = {Binding::in(0), operand(plan, info, 1, storage), has_bias ? operand(plan, info, 2, storage) : Binding::in(0),
                Binding::out(0)};
  struct {
    int32_t total, c, m;
  } push{int32_t(total), int32_t(channels), int32_t(outputs)};
  d.set_push(push);
  d.groups = element_groups(info, total);
  plan.dispatches.push_back(std::move(d));
  plan.variant = "direct";
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(conv, {"Conv", "", 0, plan_conv});
VX_REGISTER_VK_OP(fused_conv, {kFusedConv, "", 0, plan_fused_conv});
VX_REGISTER_VK_OP(fused_conv_residual, {kFusedConvResidual, "", 0, plan_fused_conv});
VX_REGISTER_VK_OP(conv_pair, {kConvPair, "", 0, plan_conv_pair});
VX_REGISTER_VK_OP(conv_transpose, {"ConvTranspose", "", 0, plan_conv_transpose});

}  // namespace vx::vk
