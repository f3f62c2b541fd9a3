// U-Net specs: the numbers OIDN publishes, detection and validation on synthetic and real weights,
// and the graph the builder emits (plain ONNX ops as ops/fused_ops.h documents).
#include <cmath>
#include <cstdio>
#include <map>
#include <sys/wait.h>

#include "common/test_util.h"
#include "denoise/unet_spec.h"
#include "formats/tza.h"

namespace vx {
namespace {

const UNetVariant kVariants[] = {UNetVariant::small, UNetVariant::base, UNetVariant::large};

// Runs detect_unet_spec and returns the InvalidFile message ("" when it passed).
std::string detection_error(const TzaFile& f) {
  try {
    detect_unet_spec(f);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidFile) << e.what();
    return e.what();
  }
  return "";
}

TzaTensor* find_mutable(TzaFile& f, const std::string& name) {
  for (TzaTensor& t : f.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

void erase(TzaFile& f, const std::string& name) {
  std::erase_if(f.tensors, [&](const TzaTensor& t) { return t.name == name; });
}

// Parameters summed over the graph's Conv weights and biases; MACs per full-resolution pixel found by
// walking the graph (each MaxPool quarters the pixels below it, each Resize multiplies them by 4).
struct GraphCounts {
  int64_t parameters = 0;
  double macs_per_pixel = 0;
};

GraphCounts count_graph(const Graph& g) {
  GraphCounts counts;
  std::map<ValueId, int> level{{g.inputs.at(0), 0}};
  for (const Node& n : g.nodes) {
    int in_level = level.at(n.inputs.at(0));
    int out_level = in_level;
    if (n.op == "MaxPool") out_level = in_level + 1;
    if (n.op == "Resize") out_level = in_level - 1;
    if (n.op == "Concat") {
      EXPECT_EQ(level.at(n.inputs.at(1)), in_level) << n.name << " joins two resolutions";
    }
    if (n.op == "Conv") {
      const Tensor& w = g.value(n.inputs.at(1)).constant;
      const Tensor& b = g.value(n.inputs.at(2)).constant;
      counts.parameters += w.numel() + b.numel();
      counts.macs_per_pixel += double(w.numel()) / std::pow(4.0, in_level);
    }
    level[n.outputs.at(0)] = out_level;
  }
  EXPECT_EQ(level.at(g.outputs.at(0)), 0) << "the output is at full resolution";
  return counts;
}

TEST(UNetSpec, NumbersMatchOidn) {
  struct Expect {
    UNetVariant variant;
    int64_t parameters_ic9;
    double kilo_macs_ic9;  // as OIDN-FACTS rounds them
    int receptive_field;
    int tile_overlap;
    size_t convs;
  };
  for (Expect e : {Expect{UNetVariant::small, 320035, 62.1, 174, 96, 16},
                   Expect{UNetVariant::base, 919811, 125.4, 174, 96, 16},
                   Expect{UNetVariant::large, 3848387, 312.2, 202, 112, 19}}) {
    SCOPED_TRACE(unet_variant_name(e.variant));
    UNetSpec spec = make_unet_spec(e.variant, 9);
    EXPECT_EQ(spec.parameter_count(), e.parameters_ic9);
    EXPECT_NEAR(double(spec.macs_per_pixel()) / 1000.0, e.kilo_macs_ic9, 0.05);
    EXPECT_EQ(spec.receptive_field, e.receptive_field);
    EXPECT_EQ(spec.tile_overlap(), e.tile_overlap);
    EXPECT_EQ(spec.alignment, 16);
    EXPECT_EQ(spec.convs.size(), e.convs);
  }
  // Exact MACs (hand-summed in_channels * out_channels * 9 / 4^level) for ic = 9 and ic = 3.
  EXPECT_EQ(make_unet_spec(UNetVariant::small, 9).macs_per_pixel(), 62136);
  EXPECT_EQ(make_unet_spec(UNetVariant::base, 9).macs_per_pixel(), 125406);
  EXPECT_EQ(make_unet_spec(UNetVariant::large, 9).macs_per_pixel(), 312192);
  EXPECT_EQ(make_unet_spec(UNetVariant::base, 3).macs_per_pixel(), 120222);
  EXPECT_EQ(make_unet_spec(UNetVariant::base, 3).parameter_count(), 914627);
  EXPECT_THROW(make_unet_spec(UNetVariant::base, 4), Error);
}

TEST(UNetSpec, ChannelsFlowFromLayerToLayer) {
  for (UNetVariant variant : kVariants) {
    for (int ic : {3, 6, 9}) {
      UNetSpec spec = make_unet_spec(variant, ic);
      std::map<std::string, int> skip_channels{{"input", ic}};
      int channels = ic;
      for (const ConvLayerSpec& c : spec.convs) {
        if (!c.concat_skip.empty()) {
          ASSERT_TRUE(skip_channels.count(c.concat_skip)) << c.name;
          EXPECT_EQ(c.skip_channels, skip_channels[c.concat_skip]) << c.name;
          channels += c.skip_channels;
        }
        EXPECT_EQ(c.in_channels, channels) << c.name;
        channels = c.out_channels;
        if (!c.pool_after.empty()) skip_channels[c.pool_after] = channels;
      }
      EXPECT_EQ(channels, 3);
    }
  }
}

TEST(UNetSpec, DetectsEveryGeneratedVariant) {
  for (UNetVariant variant : kVariants) {
    for (int ic : {3, 6, 9}) {
      SCOPED_TRACE(testing::Message() << unet_variant_name(variant) << " ic " << ic);
      // Through the file format, as a user's weights would arrive.
      TzaFile file = parse_tza(write_tza(make_random_unet_weights(variant, ic, uint64_t(ic))));
      UNetSpec spec = detect_unet_spec(file);
      EXPECT_EQ(spec.variant, variant);
      EXPECT_EQ(spec.input_channels, ic);
      EXPECT_EQ(spec.parameter_count(), make_unet_spec(variant, ic).parameter_count());
      int64_t stored = 0;
      for (const TzaTensor& t : file.tensors) stored += t.data.numel();
      EXPECT_EQ(stored, spec.parameter_count());
    }
  }
  // f32 weights are accepted too.
  EXPECT_EQ(detect_unet_spec(make_random_unet_weights(UNetVariant::small, 6, 3, DType::f32)).input_channels, 6);
}

TEST(UNetSpec, RandomWeightsAreReproducibleAndSane) {
  TzaFile a = make_random_unet_weights(UNetVariant::base, 9, 5);
  TzaFile b = make_random_unet_weights(UNetVariant::base, 9, 5);
  TzaFile c = make_random_unet_weights(UNetVariant::base, 9, 6);
  EXPECT_EQ(write_tza(a), write_tza(b));
  EXPECT_NE(write_tza(a), write_tza(c));
  // He-uniform: |w| <= sqrt(6 / fan_in), and the bound is nearly reached.
  const Tensor& w = a.at("dec_conv4a.weight").data;
  double bound = std::sqrt(6.0 / (160 * 9)), largest = 0;
  for (int64_t i = 0; i < w.numel(); ++i) largest = std::max(largest, std::abs(w.get(i)));
  EXPECT_LE(largest, bound * 1.001);
  EXPECT_GT(largest, bound * 0.95);
}

TEST(UNetSpec, RealWeightFiles) {
  VX_REQUIRE_SHARED(shared);
  struct Expect {
    const char* file;
    int input_channels;
  };
  for (Expect e : {Expect{"rt_ldr.tza", 3}, Expect{"rt_ldr_alb_nrm.tza", 9}, Expect{"rt_hdr_alb_nrm.tza", 9}}) {
    SCOPED_TRACE(e.file);
    std::filesystem::path path = shared / "weights" / e.file;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
    UNetSpec spec = detect_unet_spec(read_tza(path));
    EXPECT_EQ(spec.variant, UNetVariant::base);
    EXPECT_EQ(spec.input_channels, e.input_channels);
    EXPECT_EQ(spec.parameter_count(), e.input_channels == 9 ? 919811 : 914627);
  }
}

TEST(UNetSpec, MismatchesNameTheTensor) {
  const TzaFile good = make_random_unet_weights(UNetVariant::base, 9, 1);
  ASSERT_EQ(detection_error(good), "");

  TzaFile f = good;
  erase(f, "dec_conv3b.bias");
  EXPECT_NE(detection_error(f).find("base U-Net with 9 input channels: missing tensor 'dec_conv3b.bias'"),
            std::string::npos)
      << detection_error(f);

  f = good;
  find_mutable(f, "dec_conv4a.weight")->data = Tensor(DType::f16, Shape{112, 150, 3, 3});
  EXPECT_NE(detection_error(f).find("tensor 'dec_conv4a.weight' has shape [112, 150, 3, 3], expected [112, 160, 3, 3] "
                                    "(dec_conv4a: 96 upsampled + 64 from pool3 in, 112 out)"),
            std::string::npos)
      << detection_error(f);

  f = good;
  find_mutable(f, "enc_conv3.bias")->data = Tensor(DType::f16, Shape{63});
  EXPECT_NE(detection_error(f).find("tensor 'enc_conv3.bias' has shape [63], expected [64]"), std::string::npos);

  f = good;
  find_mutable(f, "enc_conv1.weight")->layout = "x";
  EXPECT_NE(detection_error(f).find("tensor 'enc_conv1.weight' has layout 'x', expected 'oihw'"), std::string::npos);

  f = good;
  find_mutable(f, "enc_conv1.bias")->data = Tensor(DType::i32, Shape{32});
  EXPECT_NE(detection_error(f).find("tensor 'enc_conv1.bias' has dtype i32"), std::string::npos);

  f = good;
  f.tensors.push_back({"extra.weight", "x", Tensor(DType::f16, Shape{4})});
  EXPECT_NE(detection_error(f).find("unexpected tensor 'extra.weight'"), std::string::npos);

  f = good;
  find_mutable(f, "enc_conv0.weight")->data = Tensor(DType::f16, Shape{32, 4, 3, 3});
  EXPECT_NE(detection_error(f).find("tensor 'enc_conv0.weight' has 4 input channels, expected 3, 6 or 9"),
            std::string::npos);

  f = good;
  find_mutable(f, "enc_conv0.weight")->data = Tensor(DType::f16, Shape{32});
  EXPECT_NE(detection_error(f).find("tensor 'enc_conv0.weight' has shape [32], expected [out, in, 3, 3]"),
            std::string::npos);

  f = good;
  find_mutable(f, "enc_conv2.weight")->data = Tensor(DType::f16, Shape{40, 32, 3, 3});
  EXPECT_NE(detection_error(f).find("'enc_conv2.weight' has 40 output channels, expected 32 (small) or 48 (base)"),
            std::string::npos);

  f = good;
  erase(f, "enc_conv0.weight");
  EXPECT_NE(detection_error(f).find("neither 'enc_conv0.weight' (small, base) nor 'enc_conv1b.weight' (large)"),
            std::string::npos);

  f = make_random_unet_weights(UNetVariant::large, 3, 1);
  erase(f, "enc_conv1a.weight");
  EXPECT_NE(detection_error(f).find("'enc_conv1a.weight' is missing"), std::string::npos);

  // A small file whose decoder has base widths: detected as small, fails at the first decoder conv.
  f = make_random_unet_weights(UNetVariant::small, 3, 1);
  find_mutable(f, "dec_conv4a.weight")->data = Tensor(DType::f16, Shape{112, 64, 3, 3});
  EXPECT_NE(detection_error(f).find("not a small U-Net with 3 input channels: tensor 'dec_conv4a.weight'"),
            std::string::npos)
      << detection_error(f);

  EXPECT_NE(detection_error(TzaFile{}).find("not an OIDN U-Net"), std::string::npos);
}

TEST(UNetGraph, BaseGraphStructure) {
  const UNetSpec spec = make_unet_spec(UNetVariant::base, 9);
  const TzaFile weights = make_random_unet_weights(UNetVariant::base, 9, 11);
  const Graph g = build_unet_graph(spec, weights);
  ASSERT_NO_THROW(g.validate());

  std::vector<std::string> names;
  std::map<std::string, int> ops;
  for (const Node& n : g.nodes) {
    names.push_back(n.name);
    ++ops[n.op];
    EXPECT_EQ(n.domain, "") << n.name << ": plain ONNX ops only";
  }
  EXPECT_EQ(ops, (std::map<std::string, int>{{"Conv", 16}, {"Relu", 16}, {"MaxPool", 4}, {"Resize", 4}, {"Concat", 4}}));
  const std::vector<std::string> head{"enc_conv0", "enc_conv0.relu", "enc_conv1", "enc_conv1.relu", "pool1",
                                      "enc_conv2", "enc_conv2.relu", "pool2"};
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 8), head);
  const std::vector<std::string> tail{"dec_conv1a.up", "dec_conv1a.concat", "dec_conv1a", "dec_conv1a.relu",
                                      "dec_conv1b", "dec_conv1b.relu", "dec_conv0", "dec_conv0.relu"};
  EXPECT_EQ(std::vector<std::string>(names.end() - 8, names.end()), tail);

  ASSERT_EQ(g.inputs.size(), 1u);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).name, "input");
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Shape{1, 9, -1, -1}));
  EXPECT_EQ(g.value(g.outputs[0]).name, "output");
  EXPECT_EQ(g.value(g.outputs[0]).shape, (Shape{1, 3, -1, -1}));
  EXPECT_EQ(g.value(g.outputs[0]).dtype, DType::f32);
  EXPECT_EQ(g.nodes.back().op, "Relu");
  EXPECT_EQ(g.nodes.back().outputs[0], g.outputs[0]);

  for (const Node& n : g.nodes) {
    SCOPED_TRACE(n.name);
    if (n.op == "Conv") {
      EXPECT_EQ(n.attrs.get_ints("kernel_shape"), (std::vector<int64_t>{3, 3}));
      EXPECT_EQ(n.attrs.get_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
      EXPECT_EQ(n.attrs.get_ints("strides"), (std::vector<int64_t>{1, 1}));
      const Value& w = g.value(n.inputs.at(1));
      const Value& b = g.value(n.inputs.at(2));
      ASSERT_TRUE(w.is_constant() && b.is_constant());
      EXPECT_EQ(w.name, n.name + ".weight");
      EXPECT_EQ(w.constant.dtype(), DType::f32);
      EXPECT_EQ(b.constant.dtype(), DType::f32);
      // Values are the file's halves, converted exactly.
      const Tensor& stored = weights.at(w.name).data;
      ASSERT_EQ(stored.shape(), w.constant.shape());
      for (int64_t i = 0; i < stored.numel(); i += 97) ASSERT_EQ(w.constant.get(i), stored.get(i));
      const Tensor& stored_b = weights.at(b.name).data;
      for (int64_t i = 0; i < stored_b.numel(); ++i) ASSERT_EQ(b.constant.get(i), stored_b.get(i));
    } else if (n.op == "MaxPool") {
      EXPECT_EQ(n.attrs.get_ints("kernel_shape"), (std::vector<int64_t>{2, 2}));
      EXPECT_EQ(n.attrs.get_ints("strides"), (std::vector<int64_t>{2, 2}));
    } else if (n.op == "Resize") {
      ASSERT_EQ(n.inputs.size(), 3u);
      EXPECT_EQ(n.inputs[1], kNoValue);
      const Tensor& scales = g.value(n.inputs[2]).constant;
      ASSERT_EQ(scales.shape(), (Shape{4}));
      for (int i = 0; i < 4; ++i) EXPECT_EQ(scales.get(i), i < 2 ? 1.0 : 2.0);
      EXPECT_EQ(n.attrs.get_string("mode", ""), "nearest");
      EXPECT_EQ(n.attrs.get_string("coordinate_transformation_mode", ""), "asymmetric");
      EXPECT_EQ(n.attrs.get_string("nearest_mode", ""), "floor");
    } else if (n.op == "Concat") {
      EXPECT_EQ(n.attrs.get_int("axis", -1), 1);
      ASSERT_EQ(n.inputs.size(), 2u);
      const std::string layer = n.name.substr(0, n.name.find('.'));
      EXPECT_EQ(g.value(n.inputs[0]).name, layer + ".up") << "upsampled first";
    }
  }
  // The skips, in order: (upsampled, skip).
  auto skip_of = [&](const std::string& concat) {
    for (const Node& n : g.nodes)
      if (n.name == concat) return g.value(n.inputs[1]).name;
    return std::string();
  };
  EXPECT_EQ(skip_of("dec_conv4a.concat"), "pool3");
  EXPECT_EQ(skip_of("dec_conv3a.concat"), "pool2");
  EXPECT_EQ(skip_of("dec_conv2a.concat"), "pool1");
  EXPECT_EQ(skip_of("dec_conv1a.concat"), "input");
}

TEST(UNetGraph, ParametersAndMacsOfEveryVariant) {
  struct Expect {
    UNetVariant variant;
    int64_t parameters;
    double kilo_macs;
  };
  for (Expect e : {Expect{UNetVariant::small, 320035, 62.1}, Expect{UNetVariant::base, 919811, 125.4},
                   Expect{UNetVariant::large, 3848387, 312.2}}) {
    SCOPED_TRACE(unet_variant_name(e.variant));
    TzaFile weights = make_random_unet_weights(e.variant, 9, 3);
    Graph g = build_unet_graph(detect_unet_spec(weights), weights);
    GraphCounts counts = count_graph(g);
    EXPECT_EQ(counts.parameters, e.parameters);
    EXPECT_NEAR(counts.macs_per_pixel / 1000.0, e.kilo_macs, 0.05);
    EXPECT_EQ(counts.macs_per_pixel, double(make_unet_spec(e.variant, 9).macs_per_pixel()));
    if (e.variant == UNetVariant::large) {
      EXPECT_EQ(g.nodes.back().name, "dec_conv1c.relu");
    }
  }
  // ic = 3 changes only the first conv and dec_conv1a.
  TzaFile weights = make_random_unet_weights(UNetVariant::base, 3, 3);
  Graph g = build_unet_graph(detect_unet_spec(weights), weights);
  EXPECT_EQ(count_graph(g).parameters, 914627);
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Shape{1, 3, -1, -1}));
}

TEST(UNetGraph, RejectsWeightsOfAnotherSpec) {
  TzaFile weights = make_random_unet_weights(UNetVariant::small, 3, 3);
  try {
    build_unet_graph(make_unet_spec(UNetVariant::base, 3), weights);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidFile);
    EXPECT_NE(std::string(e.what()).find("not a base U-Net with 3 input channels: tensor 'enc_conv2.weight'"),
              std::string::npos)
        << e.what();
  }
}

// Runs a shell command; returns its exit status and what it wrote (stdout and stderr).
std::pair<int, std::string> run_command(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, output};
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(InspectCli, DescribesAUNetAndRejectsBadFiles) {
  const std::string cli = test::cli_path();
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << cli << " is not built";
  std::filesystem::path dir = test::temp_dir();
  write_tza_file(dir / "small6.tza", make_random_unet_weights(UNetVariant::small, 6, 2));
  auto [status, out] = run_command(cli + " inspect " + (dir / "small6.tza").string());
  EXPECT_EQ(status, 0) << out;
  for (const char* line : {"variant:         small\n", "input channels:  6\n", "parameters:      318,307\n",
                           "MACs per pixel:  60,408 (60.4k)\n", "receptive field: 174 px",
                           "dec_conv1a.weight  [32, 38, 3, 3]    oihw    f16\n"})
    EXPECT_NE(out.find(line), std::string::npos) << "missing '" << line << "' in:\n" << out;

  // Not a U-Net: one line naming the problem, exit status 1.
  TzaFile broken = make_random_unet_weights(UNetVariant::large, 3, 2);
  erase(broken, "dec_conv2b.bias");
  write_tza_file(dir / "broken.tza", broken);
  std::tie(status, out) = run_command(cli + " inspect " + (dir / "broken.tza").string());
  EXPECT_EQ(status, 1);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("not a large U-Net with 3 input channels: missing tensor 'dec_conv2b.bias'"), std::string::npos)
      << out;

  std::tie(status, out) = run_command(cli + " inspect " + (dir / "model.xyz").string());
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("unknown file type '.xyz'"), std::string::npos) << out;
}

}  // namespace
}  // namespace vx
