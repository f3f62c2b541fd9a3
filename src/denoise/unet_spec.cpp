#include "denoise/unet_spec.h"

#include <cmath>
#include <unordered_set>

#include "core/error.h"

namespace vx {

namespace {

// Channel widths of one variant (docs/OIDN-FACTS.md). Large has one decoder width per level; its
// D2a == D2b and D1a == D1b.
struct Widths {
  int e1, e2, e3, e4, e5;
  int d4, d3, d2a, d2b, d1a, d1b;
};

Widths widths_of(UNetVariant variant) {
  switch (variant) {
    case UNetVariant::small: return {32, 32, 32, 32, 32, 64, 64, 64, 32, 32, 32};
    case UNetVariant::base: return {32, 48, 64, 80, 96, 112, 96, 64, 64, 64, 32};
    case UNetVariant::large: return {64, 96, 128, 192, 256, 192, 128, 96, 96, 64, 64};
  }
  fail(ErrorCode::Internal, "unknown U-Net variant");
}

std::string describe(const UNetSpec& spec) {
  return cat(unet_variant_name(spec.variant), " U-Net with ", spec.input_channels, " input channels");
}

// Where the input channels of a conv come from, for error messages.
std::string channel_flow(const ConvLayerSpec& c) {
  if (c.concat_skip.empty()) return cat(c.in_channels, " in, ", c.out_channels, " out");
  return cat(c.in_channels - c.skip_channels, " upsampled + ", c.skip_channels, " from ", c.concat_skip, " in, ",
             c.out_channels, " out");
}

void check_tensor(const TzaFile& weights, const UNetSpec& spec, const ConvLayerSpec& conv, const std::string& name,
                  const std::string& layout, const Shape& shape) {
  const TzaTensor* t = weights.find(name);
  VX_CHECK(t != nullptr, InvalidFile, "not a ", describe(spec), ": missing tensor '", name, "'");
  VX_CHECK(t->layout == layout, InvalidFile, "not a ", describe(spec), ": tensor '", name, "' has layout '", t->layout,
           "', expected '", layout, "'");
  VX_CHECK(t->data.dtype() == DType::f16 || t->data.dtype() == DType::f32, InvalidFile, "not a ", describe(spec),
           ": tensor '", name, "' has dtype ", dtype_name(t->data.dtype()), ", expected f16 or f32");
  VX_CHECK(t->data.shape() == shape, InvalidFile, "not a ", describe(spec), ": tensor '", name, "' has shape ",
           t->data.shape().str(), ", expected ", shape.str(), " (", conv.name, ": ", channel_flow(conv), ")");
}

// Every expected tensor present with the right shape, layout and dtype; nothing else.
void validate_weights(const UNetSpec& spec, const TzaFile& weights) {
  std::unordered_set<std::string> expected;
  for (const ConvLayerSpec& c : spec.convs) {
    check_tensor(weights, spec, c, c.weight_name(), "oihw", Shape{c.out_channels, c.in_channels, 3, 3});
    check_tensor(weights, spec, c, c.bias_name(), "x", Shape{c.out_channels});
    expected.insert(c.weight_name());
    expected.insert(c.bias_name());
  }
  for (const TzaTensor& t : weights.tensors)
    VX_CHECK(expected.count(t.name), InvalidFile, "not a ", describe(spec), ": unexpected tensor '", t.name, "'");
}

// The input channels read from the first conv's weight, before anything else is trusted.
int detect_input_channels(const TzaFile& weights, const std::string& first_weight) {
  const TzaTensor& w = weights.at(first_weight);
  VX_CHECK(w.data.rank() == 4, InvalidFile, "not an OIDN U-Net: tensor '", first_weight, "' has shape ",
           w.data.shape().str(), ", expected [out, in, 3, 3]");
  int64_t ic = w.data.dim(1);
  VX_CHECK(ic == 3 || ic == 6 || ic == 9, InvalidFile, "not an OIDN U-Net: tensor '", first_weight, "' has ", ic,
           " input channels, expected 3, 6 or 9");
  return int(ic);
}

// Deterministic uniform numbers in [-1, 1), the same on every platform (splitmix64).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  double next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return double(z >> 11) * 0x1.0p-52 - 1.0;
  }

 private:
  uint64_t state_;
};

}  // namespace

std::string_view unet_variant_name(UNetVariant variant) {
  switch (variant) {
    case UNetVariant::small: return "small";
    case UNetVariant::base: return "base";
    case UNetVariant::large: return "large";
  }
  return "?";
}

int64_t UNetSpec::parameter_count() const {
  int64_t n = 0;
  for (const ConvLayerSpec& c : convs) n += int64_t(c.out_channels) * c.in_channels * 9 + c.out_channels;
  return n;
}

int64_t UNetSpec::macs_per_pixel() const {
  // A conv at level l runs on 1/4^l of the pixels: sum in units of 1/4^4 pixel, exact in integers.
  int64_t sixteenths_of_sixteenths = 0;
  for (const ConvLayerSpec& c : convs)
    sixteenths_of_sixteenths += int64_t(c.out_channels) * c.in_channels * 9 << (2 * (4 - c.level));
  return (sixteenths_of_sixteenths + 128) >> 8;
}

int UNetSpec::tile_overlap() const {
  const int half = receptive_field / 2;  // OIDN: round_up(receptive_field / 2, alignment)
  return (half + alignment - 1) / alignment * alignment;
}

UNetSpec make_unet_spec(UNetVariant variant, int input_channels) {
  VX_CHECK(input_channels == 3 || input_channels == 6 || input_channels == 9, InvalidArgument,
           "a U-Net has 3, 6 or 9 input channels, not ", input_channels);
  const Widths w = widths_of(variant);
  const int ic = input_channels;
  UNetSpec spec;
  spec.variant = variant;
  spec.input_channels = ic;
  auto conv = [&](std::string name, int in, int out, int level, std::string pool = {}, std::string skip = {},
                  int skip_channels = 0) {
    ConvLayerSpec c;
    c.name = std::move(name);
    c.in_channels = in;
    c.out_channels = out;
    c.level = level;
    c.pool_after = std::move(pool);
    c.concat_skip = std::move(skip);
    c.skip_channels = skip_channels;
    spec.convs.push_back(std::move(c));
  };

  if (variant == UNetVariant::large) {
    conv("enc_conv1a", ic, w.e1, 0);
    conv("enc_conv1b", w.e1, w.e1, 0, "pool1");
    conv("enc_conv2a", w.e1, w.e2, 1);
    conv("enc_conv2b", w.e2, w.e2, 1, "pool2");
    conv("enc_conv3a", w.e2, w.e3, 2);
    conv("enc_conv3b", w.e3, w.e3, 2, "pool3");
    conv("enc_conv4a", w.e3, w.e4, 3);
    conv("enc_conv4b", w.e4, w.e4, 3, "pool4");
  } else {
    conv("enc_conv0", ic, w.e1, 0);
    conv("enc_conv1", w.e1, w.e1, 0, "pool1");
    conv("enc_conv2", w.e1, w.e2, 1, "pool2");
    conv("enc_conv3", w.e2, w.e3, 2, "pool3");
    conv("enc_conv4", w.e3, w.e4, 3, "pool4");
  }
  conv("enc_conv5a", w.e4, w.e5, 4);
  conv("enc_conv5b", w.e5, w.e5, 4);
  conv("dec_conv4a", w.e5 + w.e3, w.d4, 3, {}, "pool3", w.e3);
  conv("dec_conv4b", w.d4, w.d4, 3);
  conv("dec_conv3a", w.d4 + w.e2, w.d3, 2, {}, "pool2", w.e2);
  conv("dec_conv3b", w.d3, w.d3, 2);
  conv("dec_conv2a", w.d3 + w.e1, w.d2a, 1, {}, "pool1", w.e1);
  conv("dec_conv2b", w.d2a, w.d2b, 1);
  conv("dec_conv1a", w.d2b + ic, w.d1a, 0, {}, "input", ic);
  conv("dec_conv1b", w.d1a, w.d1b, 0);
  conv(variant == UNetVariant::large ? "dec_conv1c" : "dec_conv0", w.d1b, spec.output_channels, 0);

  // Each 3x3 conv at level l widens the field by 2 * 2^l full-res pixels, each 2x2 pool by 2^l;
  // nearest upsampling adds nothing.
  int rf = 1;
  for (const ConvLayerSpec& c : spec.convs) {
    rf += 2 << c.level;
    if (!c.pool_after.empty()) rf += 1 << c.level;
  }
  spec.receptive_field = rf;
  return spec;
}

UNetSpec detect_unet_spec(const TzaFile& weights) {
  UNetVariant variant;
  int ic;
  if (weights.find("enc_conv1b.weight")) {
    variant = UNetVariant::large;
    VX_CHECK(weights.find("enc_conv1a.weight"), InvalidFile,
             "not an OIDN U-Net: 'enc_conv1b.weight' (large) is present but 'enc_conv1a.weight' is missing");
    ic = detect_input_channels(weights, "enc_conv1a.weight");
  } else {
    VX_CHECK(weights.find("enc_conv0.weight"), InvalidFile,
             "not an OIDN U-Net: neither 'enc_conv0.weight' (small, base) nor 'enc_conv1b.weight' (large) is present");
    ic = detect_input_channels(weights, "enc_conv0.weight");
    const TzaTensor* w2 = weights.find("enc_conv2.weight");
    VX_CHECK(w2 != nullptr, InvalidFile, "not an OIDN U-Net: missing tensor 'enc_conv2.weight'");
    VX_CHECK(w2->data.rank() == 4, InvalidFile, "not an OIDN U-Net: tensor 'enc_conv2.weight' has shape ",
             w2->data.shape().str(), ", expected [out, in, 3, 3]");
    const int64_t e2 = w2->data.dim(0);
    if (e2 == widths_of(UNetVariant::base).e2) {
      variant = UNetVariant::base;
    } else if (e2 == widths_of(UNetVariant::small).e2) {
      variant = UNetVariant::small;
    } else {
      fail(ErrorCode::InvalidFile, cat("not an OIDN U-Net: tensor 'enc_conv2.weight' has ", e2,
                                       " output channels, expected 32 (small) or 48 (base)"));
    }
  }
  UNetSpec spec = make_unet_spec(variant, ic);
  validate_weights(spec, weights);
  return spec;
}

Graph build_unet_graph(const UNetSpec& spec, const TzaFile& weights) {
  validate_weights(spec, weights);  // before converting anything

  Graph g;
  g.name = cat("oidn_unet_", unet_variant_name(spec.variant));
  g.opsets[""] = 13;
  auto activation = [&](const std::string& name, int channels) {
    return g.add_value(name, DType::f32, Shape{1, channels, -1, -1});
  };

  ValueId input = activation("input", spec.input_channels);
  g.value(input).dim_params = {"", "", "height", "width"};
  g.inputs = {input};
  ValueId scales = g.add_constant("upsample_scales", Tensor::from<float>({4}, {1.0f, 1.0f, 2.0f, 2.0f}));

  std::map<std::string, ValueId> skips{{"input", input}};
  ValueId x = input;
  int channels = spec.input_channels;
  for (size_t i = 0; i < spec.convs.size(); ++i) {
    const ConvLayerSpec& c = spec.convs[i];
    if (!c.concat_skip.empty()) {
      auto skip = skips.find(c.concat_skip);
      VX_CHECK(skip != skips.end(), Internal, "U-Net spec: ", c.name, " concatenates '", c.concat_skip,
               "' before it is produced");
      Attributes resize;
      resize.set("mode", std::string("nearest"));
      resize.set("coordinate_transformation_mode", std::string("asymmetric"));
      resize.set("nearest_mode", std::string("floor"));
      ValueId up = activation(c.name + ".up", channels);
      g.add_node("Resize", c.name + ".up", {x, kNoValue, scales}, {up}, std::move(resize));
      channels += c.skip_channels;
      ValueId joined = activation(c.name + ".concat", channels);
      Attributes concat;
      concat.set("axis", int64_t(1));
      g.add_node("Concat", c.name + ".concat", {up, skip->second}, {joined}, std::move(concat));
      x = joined;
    }
    VX_CHECK(channels == c.in_channels, Internal, "U-Net spec: ", c.name, " reads ", channels, " channels, expects ",
             c.in_channels);

    ValueId weight = g.add_constant(c.weight_name(), weights.at(c.weight_name()).data.to(DType::f32));
    ValueId bias = g.add_constant(c.bias_name(), weights.at(c.bias_name()).data.to(DType::f32));
    Attributes attrs;
    attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
    attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    attrs.set("strides", std::vector<int64_t>{1, 1});
    ValueId conv_out = activation(c.name, c.out_channels);
    g.add_node("Conv", c.name, {x, weight, bias}, {conv_out}, std::move(attrs));
    channels = c.out_channels;

    const bool last = i + 1 == spec.convs.size();
    ValueId relu_out = activation(last ? "output" : c.name + ".relu", channels);
    g.add_node("Relu", c.name + ".relu", {conv_out}, {relu_out});
    x = relu_out;

    if (!c.pool_after.empty()) {
      Attributes pool;
      pool.set("kernel_shape", std::vector<int64_t>{2, 2});
      pool.set("strides", std::vector<int64_t>{2, 2});
      ValueId pooled = activation(c.pool_after, channels);
      g.add_node("MaxPool", c.pool_after, {x}, {pooled}, std::move(pool));
      skips[c.pool_after] = pooled;
      x = pooled;
    }
  }
  VX_CHECK(channels == spec.output_channels, Internal, "U-Net spec ends with ", channels, " channels");
  g.value(x).dim_params = {"", "", "height", "width"};
  g.outputs = {x};
  g.validate();
  return g;
}

TzaFile make_random_unet_weights(UNetVariant variant, int input_channels, uint64_t seed, DType dtype) {
  VX_CHECK(dtype == DType::f16 || dtype == DType::f32, InvalidArgument, "U-Net weights are f16 or f32, not ",
           dtype_name(dtype));
  const UNetSpec spec = make_unet_spec(variant, input_channels);
  Random random(seed);
  TzaFile file;
  for (const ConvLayerSpec& c : spec.convs) {
    // He-uniform keeps activations of a deep ReLU stack in a sane range.
    const double bound = std::sqrt(6.0 / (c.in_channels * 9.0));
    Tensor w(dtype, Shape{c.out_channels, c.in_channels, 3, 3});
    for (int64_t i = 0; i < w.numel(); ++i) w.set(i, bound * random.next());
    Tensor b(dtype, Shape{c.out_channels});
    for (int64_t i = 0; i < b.numel(); ++i) b.set(i, 0.05 * random.next());
    file.tensors.push_back({c.weight_name(), "oihw", std::move(w)});
    file.tensors.push_back({c.bias_name(), "x", std::move(b)});
  }
  return file;
}

}  // namespace vx
