// The ONNX importer and the eager runner on models built here with the protobuf API.
#include <onnx/onnx_pb.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>

#include "common/test_util.h"
#include "core/half.h"
#include "formats/npy.h"
#include "formats/onnx_import.h"
#include "backends/cpu/eager_runner.h"

namespace vx {
namespace {

using onnx::TensorProto;

struct ModelBuilder {
  onnx::ModelProto model;
  onnx::GraphProto* graph;

  explicit ModelBuilder(int64_t opset = 13) {
    model.set_ir_version(8);
    auto* op = model.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    graph = model.mutable_graph();
    graph->set_name("test");
  }
  ModelBuilder(const ModelBuilder& other) : model(other.model), graph(model.mutable_graph()) {}
  // A tensor value info; a negative extent with a name becomes a dim_param.
  void io(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name, int elem,
          std::vector<std::pair<int64_t, std::string>> dims) {
    auto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* shape = t->mutable_shape();
    for (auto& [extent, param] : dims) {
      auto* d = shape->add_dim();
      if (!param.empty()) d->set_dim_param(param);
      else d->set_dim_value(extent);
    }
  }
  void input(const std::string& name, int elem, std::vector<std::pair<int64_t, std::string>> dims) {
    io(graph->mutable_input(), name, elem, std::move(dims));
  }
  void output(const std::string& name, int elem, std::vector<std::pair<int64_t, std::string>> dims) {
    io(graph->mutable_output(), name, elem, std::move(dims));
  }
  onnx::NodeProto* node(const std::string& op, const std::string& name, std::vector<std::string> ins,
                        std::vector<std::string> outs) {
    auto* n = graph->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : ins) n->add_input(i);
    for (auto& o : outs) n->add_output(o);
    return n;
  }
  TensorProto* initializer(const std::string& name, int type, std::vector<int64_t> dims) {
    auto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    return t;
  }
  std::string bytes() const { return model.SerializeAsString(); }
  Graph import(const OnnxImportOptions& options = {}) const {
    std::string b = bytes();
    return import_onnx_buffer(b.data(), b.size(), {}, options);
  }
};

// Runs `fn` and checks that it throws vx::Error with `code` and every fragment in its message.
template <class Fn>
void expect_error(Fn fn, ErrorCode code, std::vector<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << "'" << f << "' not in: " << e.what();
  }
}

TEST(OnnxImport, InitializersInEveryEncoding) {
  ModelBuilder m;
  m.input("x", TensorProto::FLOAT, {{2, ""}});
  float raw[2] = {1.5f, -2.0f};
  m.initializer("raw_f32", TensorProto::FLOAT, {2})->set_raw_data(std::string(reinterpret_cast<char*>(raw), 8));
  auto* i64 = m.initializer("typed_i64", TensorProto::INT64, {3});
  for (int64_t v : {int64_t(1) << 40, int64_t(-3), int64_t(7)}) i64->add_int64_data(v);
  auto* f16 = m.initializer("typed_f16", TensorProto::FLOAT16, {1});
  f16->add_int32_data(0x3C00);  // 1.0
  auto* f64 = m.initializer("typed_f64", TensorProto::DOUBLE, {2});
  f64->add_double_data(0.25);
  f64->add_double_data(-1e-3);
  auto* u16 = m.initializer("typed_u16", TensorProto::UINT16, {1});
  u16->add_int32_data(65535);
  auto* b = m.initializer("typed_bool", TensorProto::BOOL, {2});
  b->add_int32_data(1);
  b->add_int32_data(0);
  m.node("Add", "add", {"x", "raw_f32"}, {"y"});
  m.output("y", TensorProto::FLOAT, {{2, ""}});
  Graph g = m.import();

  auto constant = [&](const std::string& name) { return g.value(g.find(name)).constant; };
  EXPECT_EQ(constant("raw_f32").data<float>()[1], -2.0f);
  EXPECT_EQ(constant("typed_i64").data<int64_t>()[0], int64_t(1) << 40);
  EXPECT_EQ(constant("typed_i64").data<int64_t>()[1], -3);
  EXPECT_EQ(constant("typed_f16").dtype(), DType::f16);
  EXPECT_EQ(constant("typed_f16").get(0), 1.0);
  EXPECT_EQ(constant("typed_f64").dtype(), DType::f32);  // f64 is narrowed
  EXPECT_FLOAT_EQ(constant("typed_f64").data<float>()[1], -1e-3f);
  EXPECT_EQ(constant("typed_u16").dtype(), DType::i32);  // u16 is widened
  EXPECT_EQ(constant("typed_u16").data<int32_t>()[0], 65535);
  EXPECT_EQ(constant("typed_bool").get(0), 1.0);
  EXPECT_EQ(constant("typed_bool").get(1), 0.0);

  std::vector<Tensor> out = run_graph_eager(g, {Tensor::from<float>({2}, {1.0f, 1.0f})});
  EXPECT_EQ(out[0].data<float>()[0], 2.5f);
  EXPECT_EQ(out[0].data<float>()[1], -1.0f);
}

TEST(OnnxImport, ConstantNodesBecomeConstantValuesAndRun) {
  ModelBuilder m;
  m.input("x", TensorProto::FLOAT, {{3, ""}});
  auto* c1 = m.node("Constant", "c1", {}, {"k"});
  auto* a1 = c1->add_attribute();
  a1->set_name("value_float");
  a1->set_type(onnx::AttributeProto::FLOAT);
  a1->set_f(2.0f);
  auto* c2 = m.node("Constant", "c2", {}, {"t"});
  auto* a2 = c2->add_attribute();
  a2->set_name("value");
  a2->set_type(onnx::AttributeProto::TENSOR);
  a2->mutable_t()->set_data_type(TensorProto::FLOAT);
  a2->mutable_t()->add_dims(3);
  for (float v : {10.0f, 20.0f, 30.0f}) a2->mutable_t()->add_float_data(v);
  auto* c3 = m.node("Constant", "c3", {}, {"axes"});
  auto* a3 = c3->add_attribute();
  a3->set_name("value_ints");
  a3->set_type(onnx::AttributeProto::INTS);
  a3->add_ints(0);
  m.node("Mul", "mul", {"x", "k"}, {"xk"});
  m.node("Add", "add", {"xk", "t"}, {"sum"});
  auto* r = m.node("ReduceSum", "reduce", {"sum", "axes"}, {"y"});
  auto* keep = r->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  m.output("y", TensorProto::FLOAT, {});
  Graph g = m.import();

  ASSERT_EQ(g.nodes.size(), 3u);  // the Constant nodes are folded into values
  EXPECT_TRUE(g.value(g.find("k")).is_constant());
  EXPECT_EQ(g.value(g.find("k")).constant.rank(), 0u);
  EXPECT_EQ(g.value(g.find("axes")).constant.dtype(), DType::i64);
  std::vector<Tensor> out = run_graph_eager(g, {Tensor::from<float>({3}, {1.0f, 2.0f, 3.0f})});
  ASSERT_EQ(out[0].rank(), 0u);
  EXPECT_EQ(out[0].data<float>()[0], 2.0f + 4.0f + 6.0f + 60.0f);
}

TEST(OnnxImport, AttributesOfEveryKindOpsetsAndSymbolicDims) {
  ModelBuilder m(17);
  auto* ml = m.model.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(3);
  m.input("x", TensorProto::FLOAT, {{-1, "batch"}, {4, ""}});
  auto* n = m.node("LeakyRelu", "", {"x"}, {"y"});  // no name: named after its output
  auto add = [&](const std::string& name, onnx::AttributeProto::AttributeType type) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
  };
  add("alpha", onnx::AttributeProto::FLOAT)->set_f(0.5f);
  add("i", onnx::AttributeProto::INT)->set_i(-4);
  add("s", onnx::AttributeProto::STRING)->set_s("hello");
  auto* t = add("t", onnx::AttributeProto::TENSOR)->mutable_t();
  t->set_data_type(TensorProto::INT32);
  t->add_dims(2);
  t->add_int32_data(5);
  t->add_int32_data(-6);
  auto* fs = add("fs", onnx::AttributeProto::FLOATS);
  fs->add_floats(1.0f);
  fs->add_floats(2.5f);
  auto* is = add("is", onnx::AttributeProto::INTS);
  is->add_ints(3);
  auto* ss = add("ss", onnx::AttributeProto::STRINGS);
  ss->add_strings("a");
  ss->add_strings("b");
  m.output("y", TensorProto::FLOAT, {{-1, "batch"}, {4, ""}});
  Graph g = m.import();

  EXPECT_EQ(g.opset(""), 17);
  EXPECT_EQ(g.opset("ai.onnx.ml"), 3);
  const Value& x = g.value(g.inputs[0]);
  EXPECT_EQ(x.shape, Shape({-1, 4}));
  ASSERT_EQ(x.dim_params.size(), 2u);
  EXPECT_EQ(x.dim_params[0], "batch");
  EXPECT_EQ(x.dim_params[1], "");
  const Node& node = g.nodes[0];
  EXPECT_EQ(node.name, "y");
  EXPECT_EQ(node.attrs.get_float("alpha", 0), 0.5f);
  EXPECT_EQ(node.attrs.get_int("i", 0), -4);
  EXPECT_EQ(node.attrs.get_string("s", ""), "hello");
  Tensor tv = node.attrs.get_tensor("t");
  EXPECT_EQ(tv.dtype(), DType::i32);
  EXPECT_EQ(tv.data<int32_t>()[1], -6);
  EXPECT_EQ(node.attrs.get_floats("fs"), (std::vector<float>{1.0f, 2.5f}));
  EXPECT_EQ(node.attrs.get_ints("is"), (std::vector<int64_t>{3}));
  EXPECT_EQ(node.attrs.get_strings("ss"), (std::vector<std::string>{"a", "b"}));

  // The symbolic batch binds at run time; LeakyRelu uses alpha = 0.5.
  std::vector<Tensor> out = run_graph_eager(g, {Tensor::from<float>({1, 4}, {-2.0f, 1.0f, -1.0f, 0.0f})});
  EXPECT_EQ(out[0].data<float>()[0], -1.0f);
  EXPECT_EQ(out[0].data<float>()[2], -0.5f);
  expect_error([&] { run_graph_eager(g, {Tensor::from<float>({1, 3}, {1, 2, 3})}); }, ErrorCode::InvalidArgument,
               {"input 'x'", "[?, 4]", "[1, 3]"});
  expect_error([&] { run_graph_eager(g, {Tensor(DType::i32, Shape{1, 4})}); }, ErrorCode::InvalidArgument,
               {"input 'x' must be f32, not i32"});
  expect_error([&] { run_graph_eager(g, {}); }, ErrorCode::InvalidArgument, {"1 inputs but 0 were given"});
}

TEST(OnnxImport, ExternalDataNextToTheModel) {
  std::filesystem::path dir = test::temp_dir();
  float weights[4] = {0.0f, 1.0f, 2.0f, 3.0f};  // the tensor reads elements 1..2 (offset 4, length 8)
  std::ofstream(dir / "weights.bin", std::ios::binary).write(reinterpret_cast<char*>(weights), sizeof(weights));
  ModelBuilder m;
  m.input("x", TensorProto::FLOAT, {{2, ""}});
  auto* w = m.initializer("w", TensorProto::FLOAT, {2});
  w->set_data_location(TensorProto::EXTERNAL);
  auto entry = [&](const char* k, const char* v) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  entry("location", "weights.bin");
  entry("offset", "4");
  entry("length", "8");
  m.node("Sub", "sub", {"x", "w"}, {"y"});
  m.output("y", TensorProto::FLOAT, {{2, ""}});
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.bytes();

  Graph g = import_onnx(dir / "model.onnx");
  Tensor c = g.value(g.find("w")).constant;
  EXPECT_EQ(c.data<float>()[0], 1.0f);
  EXPECT_EQ(c.data<float>()[1], 2.0f);

  // From memory without a folder, and paths that leave the model's folder, are errors.
  expect_error([&] { m.import(); }, ErrorCode::InvalidArgument, {"external data 'weights.bin'", "from memory"});
  w->mutable_external_data(0)->set_value("../weights.bin");
  std::ofstream(dir / "escape.onnx", std::ios::binary) << m.bytes();
  expect_error([&] { import_onnx(dir / "escape.onnx"); }, ErrorCode::InvalidFile, {"must stay inside"});
  w->mutable_external_data(0)->set_value("weights.bin");
  w->mutable_external_data(2)->set_value("16");  // runs past the 16-byte file from offset 4
  std::ofstream(dir / "long.onnx", std::ios::binary) << m.bytes();
  expect_error([&] { import_onnx(dir / "long.onnx"); }, ErrorCode::InvalidFile, {"past the end"});
}

TEST(OnnxImport, BrokenModels) {
  ModelBuilder m;
  m.input("x", TensorProto::FLOAT, {{2, ""}});
  m.initializer("w", TensorProto::FLOAT, {2})->set_raw_data(std::string(8, '\0'));
  m.node("Add", "add", {"x", "w"}, {"y"});
  m.output("y", TensorProto::FLOAT, {{2, ""}});
  std::string good = m.bytes();
  ASSERT_NO_THROW(import_onnx_buffer(good.data(), good.size()));

  // Truncated protobuf.
  expect_error([&] { import_onnx_buffer(good.data(), good.size() - 5); }, ErrorCode::InvalidFile, {"truncated"});
  expect_error([&] { import_onnx_buffer("garbage!", 8); }, ErrorCode::InvalidFile, {"not a valid ONNX model"});

  // An initializer whose data does not fill its shape.
  ModelBuilder short_data = m;
  short_data.graph->mutable_initializer(0)->set_raw_data(std::string(4, '\0'));
  expect_error([&] { short_data.import(); }, ErrorCode::InvalidFile, {"tensor 'w'", "1 elements of data", "[2] needs 2"});

  // A missing initializer.
  ModelBuilder missing = m;
  missing.graph->clear_initializer();
  expect_error([&] { missing.import(); }, ErrorCode::InvalidFile, {"node 'add' (Add) reads 'w'", "no graph input"});

  // A cycle: a reads b's output and b reads a's.
  ModelBuilder cycle;
  cycle.input("x", TensorProto::FLOAT, {{2, ""}});
  cycle.node("Add", "a", {"x", "q"}, {"p"});
  cycle.node("Neg", "b", {"p"}, {"q"});
  cycle.output("q", TensorProto::FLOAT, {{2, ""}});
  expect_error([&] { cycle.import(); }, ErrorCode::InvalidFile, {"cycle", "a (Add)", "b (Neg)"});

  // Unsupported ops: every such node is listed; supported ones are not.
  ModelBuilder unsupported;
  unsupported.input("x", TensorProto::FLOAT, {{2, ""}});
  unsupported.node("FancyOp", "first", {"x"}, {"p"});
  unsupported.node("Neg", "fine", {"p"}, {"q"});
  unsupported.node("OtherOp", "second", {"q"}, {"r"});
  auto* ml = unsupported.node("Neg", "custom", {"r"}, {"s"});
  ml->set_domain("com.example");
  unsupported.output("s", TensorProto::FLOAT, {{2, ""}});
  expect_error([&] { unsupported.import(); }, ErrorCode::Unsupported,
               {"3 node(s)", "first (FancyOp)", "second (OtherOp)", "custom (com.example.Neg)"});
  Graph lenient = unsupported.import({.check_support = false});
  EXPECT_EQ(unsupported_onnx_nodes(lenient),
            (std::vector<std::string>{"first (FancyOp)", "second (OtherOp)", "custom (com.example.Neg)"}));

  // Lists of graphs (no standard op has one) make a node unsupported.
  ModelBuilder with_graph;
  with_graph.input("c", TensorProto::BOOL, {});
  auto* n = with_graph.node("Identity", "branchy", {"c"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("branches");
  a->set_type(onnx::AttributeProto::GRAPHS);
  a->add_graphs()->set_name("then");
  with_graph.output("y", TensorProto::BOOL, {});
  expect_error([&] { with_graph.import(); }, ErrorCode::Unsupported, {"branchy (Identity)"});

  // Sequence inputs and string tensors are unsupported.
  ModelBuilder seq;
  auto* v = seq.graph->add_input();
  v->set_name("s");
  v->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  seq.node("Identity", "id", {"s"}, {"y"});
  expect_error([&] { seq.import(); }, ErrorCode::Unsupported, {"'s' is a sequence"});

  // A file that does not exist.
  expect_error([&] { import_onnx(test::temp_dir() / "absent.onnx"); }, ErrorCode::Io, {"absent.onnx", "does not exist"});
}

// A deterministic mini-fuzz: corrupted and truncated copies of a valid model either import or fail
// with vx::Error (never another exception or a crash; run under the asan preset for memory errors).
TEST(OnnxImport, CorruptedBytesFailCleanly) {
  ModelBuilder m;
  m.input("x", TensorProto::FLOAT, {{-1, "n"}, {3, ""}});
  auto* w = m.initializer("w", TensorProto::FLOAT, {3});
  for (float v : {1.0f, 2.0f, 3.0f}) w->add_float_data(v);
  auto* c = m.node("Constant", "c", {}, {"k"});
  c->add_attribute()->set_name("value_ints");
  c->mutable_attribute(0)->set_type(onnx::AttributeProto::INTS);
  c->mutable_attribute(0)->add_ints(1);
  m.node("Mul", "mul", {"x", "w"}, {"p"});
  m.node("ReduceSum", "sum", {"p", "k"}, {"y"});
  m.output("y", TensorProto::FLOAT, {{-1, "n"}, {1, ""}});
  const std::string good = m.bytes();
  std::mt19937 rng(1234);
  int imported = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = good;
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = char(rng());
    if (trial % 3 == 0) bytes.resize(rng() % bytes.size());
    try {
      Graph g = import_onnx_buffer(bytes.data(), bytes.size(), {}, {.check_support = false});
      ++imported;
    } catch (const Error&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_EQ(imported + rejected, 3000);
}

TEST(OnnxImport, ReadsTestSuiteTensorFiles) {
  TensorProto t;
  t.set_name("input");
  t.set_data_type(TensorProto::INT32);
  t.add_dims(2);
  t.add_dims(1);
  t.add_int32_data(4);
  t.add_int32_data(-5);
  std::string bytes = t.SerializeAsString();
  std::string name;
  Tensor x = read_onnx_tensor_buffer(bytes.data(), bytes.size(), &name);
  EXPECT_EQ(name, "input");
  EXPECT_EQ(x.shape(), Shape({2, 1}));
  EXPECT_EQ(x.data<int32_t>()[1], -5);
  t.set_data_type(TensorProto::STRING);
  bytes = t.SerializeAsString();
  expect_error([&] { read_onnx_tensor_buffer(bytes.data(), bytes.size()); }, ErrorCode::Unsupported, {"STRING"});
}

// `volvox run` end to end: a model and .npy input written here, outputs read back.
TEST(OnnxImport, CliRunWritesNpyOutputs) {
  std::filesystem::path dir = test::temp_dir();
  ModelBuilder m;
  m.input("x", TensorProto::FLOAT, {{2, ""}, {2, ""}});
  m.node("Softmax", "softmax", {"x"}, {"probs"});
  m.node("ArgMax", "argmax", {"x"}, {"best"})->add_attribute()->set_name("axis");
  m.graph->mutable_node(1)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
  m.graph->mutable_node(1)->mutable_attribute(0)->set_i(1);
  m.output("probs", TensorProto::FLOAT, {{2, ""}, {2, ""}});
  m.output("best", TensorProto::INT64, {{2, ""}, {1, ""}});
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.bytes();
  write_npy(dir / "x.npy", Tensor::from<float>({4}, {0.0f, 0.0f, 3.0f, 1.0f}).reshaped({2, 2}));

  std::string cmd = test::cli_path() + " run " + (dir / "model.onnx").string() + " --input x=" +
                    (dir / "x.npy").string() + " --output-dir " + (dir / "out").string() + " > " +
                    (dir / "log.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  Tensor probs = read_npy(dir / "out" / "probs.npy");
  Tensor best = read_npy(dir / "out" / "best.npy");
  ASSERT_EQ(probs.shape(), Shape({2, 2}));
  EXPECT_NEAR(probs.data<float>()[0], 0.5f, 1e-6);
  EXPECT_NEAR(probs.data<float>()[2], 1.0f / (1.0f + std::exp(-2.0f)), 1e-6);
  ASSERT_EQ(best.dtype(), DType::i64);
  EXPECT_EQ(best.data<int64_t>()[0], 0);
  EXPECT_EQ(best.data<int64_t>()[1], 0);
  std::ifstream log(dir / "log.txt");
  std::string first_line;
  std::getline(log, first_line);
  EXPECT_NE(first_line.find("probs: f32 [2, 2]"), std::string::npos) << first_line;

  // A missing input: exit status 1 and a one-line error naming it.
  std::string bad = test::cli_path() + " run " + (dir / "model.onnx").string() + " > " + (dir / "err.txt").string() + " 2>&1";
  int status = std::system(bad.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::ifstream err(dir / "err.txt");
  std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("needs input 'x'"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
}

}  // namespace
}  // namespace vx
