// The ONNX side of the planned engine: shape functions of the common ops, constant folding,
// Conv+BatchNormalization folding, the ModelRunner (planned with eager fallback) against the eager
// runner, and the model summary `volvox inspect model.onnx` prints.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "common/graph_builder.h"
#include "common/test_util.h"
#include "core/graph.h"
#include "formats/npy.h"
#include "formats/onnx_import.h"
#include "formats/onnx_summary.h"
#include "passes/fold_constants.h"
#include "passes/fold_conv_affine.h"
#include "passes/optimize_onnx.h"
#include "passes/shape_inference.h"
#include "backends/cpu/eager_runner.h"
#include "session/model_runner.h"

namespace vx {
namespace {

Attributes ints_attr(const std::string& name, std::vector<int64_t> v) {
  Attributes a;
  a.set(name, std::move(v));
  return a;
}

// A small CNN head: Conv -> BatchNormalization -> Relu -> MaxPool -> GlobalAveragePool -> Flatten
// -> Gemm -> Softmax, with a constant subgraph (Add of two constants) feeding a Mul.
Graph small_cnn() {
  Graph g;
  g.name = "small_cnn";
  g.opsets[""] = 13;
  uint64_t seed = 10;
  ValueId x = g.add_value("x", DType::f32, {1, 3, 8, 8});
  g.inputs = {x};
  ValueId w = g.add_constant("w", test::random_tensor({4, 3, 3, 3}, seed++, -0.5f, 0.5f));
  ValueId b = g.add_constant("b", test::random_tensor({4}, seed++));
  ValueId conv = g.add_value("conv", DType::f32, {});
  Attributes ca = ints_attr("pads", {1, 1, 1, 1});
  g.add_node("Conv", "conv", {x, w, b}, {conv}, ca);
  ValueId scale = g.add_constant("scale", test::random_tensor({4}, seed++, 0.5f, 1.5f));
  ValueId beta = g.add_constant("beta", test::random_tensor({4}, seed++));
  ValueId mean = g.add_constant("mean", test::random_tensor({4}, seed++));
  ValueId var = g.add_constant("var", test::random_tensor({4}, seed++, 0.5f, 2.0f));
  ValueId bn = g.add_value("bn", DType::f32, {});
  g.add_node("BatchNormalization", "bn", {conv, scale, beta, mean, var}, {bn});
  ValueId relu = g.add_value("relu", DType::f32, {});
  g.add_node("Relu", "relu", {bn}, {relu});
  ValueId pool = g.add_value("pool", DType::f32, {});
  Attributes pa = ints_attr("kernel_shape", {2, 2});
  pa.set("strides", std::vector<int64_t>{2, 2});
  g.add_node("MaxPool", "pool", {relu}, {pool}, pa);
  // Constant subgraph: factor = c1 + c2 (shape [1, 4, 1, 1]), folded before the run.
  ValueId c1 = g.add_constant("c1", test::random_tensor({1, 4, 1, 1}, seed++));
  ValueId c2 = g.add_constant("c2", test::random_tensor({4, 1, 1}, seed++));
  ValueId factor = g.add_value("factor", DType::f32, {});
  g.add_node("Add", "factor_add", {c1, c2}, {factor});
  ValueId scaled = g.add_value("scaled", DType::f32, {});
  g.add_node("Mul", "scale_mul", {pool, factor}, {scaled});
  ValueId gap = g.add_value("gap", DType::f32, {});
  g.add_node("GlobalAveragePool", "gap", {scaled}, {gap});
  ValueId flat = g.add_value("flat", DType::f32, {});
  g.add_node("Flatten", "flatten", {gap}, {flat});
  ValueId fc_w = g.add_constant("fc_w", test::random_tensor({5, 4}, seed++));
  ValueId fc_b = g.add_constant("fc_b", test::random_tensor({5}, seed++));
  ValueId logits = g.add_value("logits", DType::f32, {});
  Attributes ga;
  ga.set("transB", int64_t(1));
  g.add_node("Gemm", "fc", {flat, fc_w, fc_b}, {logits}, ga);
  ValueId prob = g.add_value("prob", DType::f32, {});
  g.add_node("Softmax", "softmax", {logits}, {prob});
  g.outputs = {prob};
  return g;
}

TEST(OnnxShapeFns, CommonOpsGiveHandComputedShapes) {
  Graph g;
  g.opsets[""] = 13;
  ValueId a = g.add_value("a", DType::f32, {2, 1, 4, 8});
  ValueId b = g.add_value("b", DType::f32, {3, 8, 5});
  ValueId ids = g.add_value("ids", DType::i64, {2, 7});
  g.inputs = {a, b, ids};
  ValueId mm = g.add_value("mm", DType::f32, {});
  g.add_node("MatMul", "mm", {a, b}, {mm});  // [2,1,4,8] x [3,8,5] -> [2,3,4,5]
  ValueId t = g.add_value("t", DType::f32, {});
  g.add_node("Transpose", "t", {mm}, {t}, ints_attr("perm", {0, 2, 1, 3}));  // [2,4,3,5]
  ValueId shape = g.add_constant("shape", Tensor::from<int64_t>({2}, {0, -1}));
  ValueId r = g.add_value("r", DType::f32, {});
  g.add_node("Reshape", "r", {t, shape}, {r});  // [2, 60]
  ValueId table = g.add_constant("table", test::random_tensor({10, 6}, 3));
  ValueId emb = g.add_value("emb", DType::f32, {});
  g.add_node("Gather", "emb", {table, ids}, {emb});  // [2, 7, 6]
  ValueId axes = g.add_constant("axes", Tensor::from<int64_t>({1}, {1}));
  ValueId u = g.add_value("u", DType::f32, {});
  g.add_node("Unsqueeze", "u", {emb, axes}, {u});  // [2, 1, 7, 6]
  g.outputs = {r, u};
  std::vector<bool> known;
  infer_shapes(g, &known);
  EXPECT_EQ(g.value(mm).shape, Shape({2, 3, 4, 5}));
  EXPECT_EQ(g.value(t).shape, Shape({2, 4, 3, 5}));
  EXPECT_EQ(g.value(r).shape, Shape({2, 60}));
  EXPECT_EQ(g.value(emb).shape, Shape({2, 7, 6}));
  EXPECT_EQ(g.value(u).shape, Shape({2, 1, 7, 6}));
  for (ValueId id : {mm, t, r, emb, u}) EXPECT_TRUE(known[size_t(id)]) << g.value(id).name;

  Graph bad;
  ValueId p = bad.add_value("p", DType::f32, {2, 3});
  ValueId q = bad.add_value("q", DType::f32, {4, 3});
  bad.inputs = {p, q};
  ValueId s = bad.add_value("s", DType::f32, {});
  bad.add_node("Equal", "eq", {p, q}, {s});
  EXPECT_THROW(infer_shapes(bad), Error);
  Graph ok = bad;
  ok.value(q).shape = Shape({1, 3});
  infer_shapes(ok);
  EXPECT_EQ(ok.value(s).shape, Shape({2, 3}));
  EXPECT_EQ(ok.value(s).dtype, DType::boolean);
}

TEST(FoldConstants, EvaluatesConstantSubgraphsOnce) {
  Graph g = small_cnn();
  const ValueId factor = g.find("factor");
  const Tensor c1 = g.value(g.find("c1")).constant, c2 = g.value(g.find("c2")).constant;
  Graph folded = fold_constants(g);
  EXPECT_EQ(test::count_ops(folded, "Add"), 0);
  EXPECT_EQ(folded.nodes.size(), g.nodes.size() - 1);
  ASSERT_TRUE(folded.value(factor).is_constant());
  EXPECT_EQ(folded.value(factor).constant.shape(), Shape({1, 4, 1, 1}));
  for (int64_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(float(folded.value(factor).constant.get(i)), float(c1.get(i) + c2.get(i)));
  // The folded graph computes the same outputs.
  Tensor x = test::random_tensor({1, 3, 8, 8}, 99);
  EXPECT_LE(test::max_abs_diff(run_graph_eager(g, {x})[0], run_graph_eager(folded, {x})[0]), 1e-6);
}

TEST(FoldConstants, LeavesRandomAndOversizedOutputsAlone) {
  Graph g;
  g.opsets[""] = 13;
  ValueId shape = g.add_constant("shape", Tensor::from<int64_t>({2}, {64, 64}));
  ValueId big = g.add_value("big", DType::f32, {});
  g.add_node("ConstantOfShape", "fill", {shape}, {big});
  g.outputs = {big};
  EXPECT_EQ(fold_constants(g, 100).nodes.size(), 1u);  // 4096 elements > 100
  Graph folded = fold_constants(g);
  EXPECT_EQ(folded.nodes.size(), 0u);
  EXPECT_EQ(folded.value(big).constant.shape(), Shape({64, 64}));
}

TEST(FoldConvBatchNorm, MatchesTheUnfoldedGraph) {
  Graph g = small_cnn();
  Graph folded = fold_conv_affine(g);
  EXPECT_EQ(test::count_ops(folded, "BatchNormalization"), 0);
  EXPECT_EQ(test::count_ops(folded, "Conv"), 1);
  folded.validate();
  for (uint64_t seed : {1, 2}) {
    Tensor x = test::random_tensor({1, 3, 8, 8}, seed);
    // Tolerance: float32 rounding of W * s and the bias against the BN's separate steps.
    EXPECT_LE(test::max_abs_diff(run_graph_eager(g, {x})[0], run_graph_eager(folded, {x})[0]), 1e-5);
  }
}

TEST(FoldConvBatchNorm, KeepsABatchNormWhoseInputIsShared) {
  Graph g = small_cnn();
  // A second reader of the Conv output: folding would change what it sees.
  ValueId extra = g.add_value("extra", DType::f32, {});
  g.add_node("Relu", "extra", {g.find("conv")}, {extra});
  g.outputs.push_back(extra);
  EXPECT_EQ(test::count_ops(fold_conv_affine(g), "BatchNormalization"), 1);
}

TEST(ModelRunner, PlansACnnAndMatchesTheEagerRunner) {
  Graph g = small_cnn();
  ModelRunner runner(g);
  EXPECT_EQ(test::count_ops(runner.graph(), "BatchNormalization"), 0);  // optimize_onnx ran
  Tensor x = test::random_tensor({1, 3, 8, 8}, 5);
  Profile profile;
  std::vector<Tensor> planned = runner.run({x}, &profile);
  ASSERT_TRUE(runner.last_run_planned()) << runner.fallback_reason();
  const runtime::ScheduledExecutable& exe = *runner.last_executable();
  for (const Node& n : exe.bound_graph().nodes)
    for (ValueId id : n.outputs) EXPECT_TRUE(exe.shape_known()[size_t(id)]) << n.name << " output not inferred";
  EXPECT_GT(exe.memory_needs().arena_bytes, 0u);
  EXPECT_EQ(profile.entries.size(), runner.graph().nodes.size());
  std::vector<Tensor> eager = run_graph_eager(g, {x});
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].shape(), Shape({1, 5}));
  EXPECT_LE(test::max_abs_diff(planned[0], eager[0]), 1e-5);
}

TEST(ModelRunner, FallsBackToEagerWhenPlanningFails) {
  Graph g = small_cnn();
  // An input shape that contradicts the declared one: planning fails, the eager fallback reports it.
  ModelRunner runner(g);
  Tensor wrong = test::random_tensor({1, 3, 9, 8}, 5);
  EXPECT_THROW(runner.run({wrong}), Error);  // 9 does not match the declared 8
  EXPECT_FALSE(runner.last_run_planned());
  ModelRunnerOptions eager_options;
  eager_options.planned = false;
  ModelRunner eager(g, eager_options);
  Tensor x = test::random_tensor({1, 3, 8, 8}, 6);
  std::vector<Tensor> out = eager.run({x});
  EXPECT_FALSE(eager.last_run_planned());
  EXPECT_LE(test::max_abs_diff(out[0], run_graph_eager(g, {x})[0]), 1e-5);
}

// x [batch, 3, 8, 8] -> Conv (4 filters, 3x3, pads 1, no bias) -> Relu -> y; with `odd`, a node
// of an op no kernel implements between the Relu and y.
std::string tiny_conv_model(bool odd_node) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto* graph = model.mutable_graph();
  graph->set_name("tiny");
  auto add_io = [](auto* list, const std::string& name, std::vector<std::string> dims) {
    auto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (const std::string& d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (std::isdigit(static_cast<unsigned char>(d[0]))) dim->set_dim_value(std::stoll(d));
      else dim->set_dim_param(d);
    }
  };
  add_io(graph->mutable_input(), "x", {"batch", "3", "8", "8"});
  add_io(graph->mutable_output(), "y", {"batch", "4", "8", "8"});
  auto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {4, 3, 3, 3}) w->add_dims(d);
  for (int i = 0; i < 108; ++i) w->add_float_data(0.01f * float(i));
  auto* conv = graph->add_node();
  conv->set_op_type("Conv");
  conv->set_name("conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("c");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  auto* relu = graph->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("c");
  relu->add_output("r");
  if (!odd_node) {
    relu->set_output(0, "y");
    return model.SerializeAsString();
  }
  auto* odd = graph->add_node();
  odd->set_op_type("FrobnicateTensor");
  odd->set_name("odd");
  odd->add_input("r");
  odd->add_output("y");
  return model.SerializeAsString();
}

TEST(OnnxSummary, ListsOpsetsIoOpsParametersAndUnsupportedNodes) {
  const std::string bytes = tiny_conv_model(true);
  OnnxImportOptions options;
  options.check_support = false;
  OnnxModelSummary s = summarize_onnx(import_onnx_buffer(bytes.data(), bytes.size(), {}, options));

  EXPECT_EQ(s.graph_name, "tiny");
  EXPECT_EQ(s.opsets.at(""), 13);
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].name, "x");
  EXPECT_EQ(s.inputs[0].shape_str(), "[batch, 3, 8, 8]");
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0].shape_str(), "[batch, 4, 8, 8]");
  EXPECT_EQ(s.node_count, 3u);
  EXPECT_EQ(s.op_histogram.at("Conv"), 1);
  EXPECT_EQ(s.op_histogram.at("Relu"), 1);
  EXPECT_EQ(s.op_histogram.at("FrobnicateTensor"), 1);
  EXPECT_EQ(s.parameter_count, 108);
  ASSERT_EQ(s.unsupported_nodes.size(), 1u);
  EXPECT_EQ(s.unsupported_nodes[0], "odd (FrobnicateTensor)");
  const std::string text = format_onnx_summary(s);
  EXPECT_NE(text.find("ai.onnx 13"), std::string::npos) << text;
  EXPECT_NE(text.find("[batch, 3, 8, 8]"), std::string::npos) << text;
  EXPECT_NE(text.find("odd (FrobnicateTensor)"), std::string::npos) << text;
}

// The CLI end to end on a model file: inspect, run --profile (planned) and bench --json.
TEST(OnnxCli, InspectRunProfileAndBench) {
  const std::filesystem::path dir = test::temp_dir();
  std::ofstream(dir / "m.onnx", std::ios::binary) << tiny_conv_model(false);
  const Tensor x = test::random_tensor({1, 3, 8, 8}, 7);
  write_npy(dir / "x.npy", x);
  auto run = [&](const std::string& args, const std::string& log) {
    const std::string cmd = test::cli_path() + " " + args + " > " + (dir / log).string() + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(dir / log);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string model = (dir / "m.onnx").string();
  std::string text = run("inspect " + model, "inspect.txt");
  EXPECT_NE(text.find("ai.onnx 13"), std::string::npos) << text;
  EXPECT_NE(text.find("[batch, 3, 8, 8]"), std::string::npos) << text;
  EXPECT_NE(text.find("parameters:  108"), std::string::npos) << text;
  EXPECT_NE(text.find("unsupported nodes: 0"), std::string::npos) << text;

  text = run("run " + model + " -i x=" + (dir / "x.npy").string() + " -o " + dir.string() + " --profile", "run.txt");
  EXPECT_NE(text.find("vx.FusedConv"), std::string::npos) << text;  // planned, Conv+Relu fused
  EXPECT_EQ(text.find("eager"), std::string::npos) << text;
  const Tensor y = read_npy(dir / "y.npy");
  Graph g = import_onnx(dir / "m.onnx");
  EXPECT_LE(test::max_abs_diff(y, run_graph_eager(g, {x})[0]), 1e-5);

  text = run("bench " + model + " --shape x=1x3x8x8 --runs 3 --json", "bench.txt");
  EXPECT_NE(text.find("\"median_ms\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"engine\":\"planned\""), std::string::npos) << text;
}

}  // namespace
}  // namespace vx
