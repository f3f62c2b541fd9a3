// Times OIDN's base U-Net (ic = 9, random weights, fused graph) on a Vulkan device for each
// precision and conv kernel variant, by GPU timestamp queries after warm-up, and checks every
// variant: against a CPU reference (double accumulation) at a small size, and against the fp32
// direct kernel at each benchmark size. Writes JSON and Markdown.
//
//   vulkan_unet_bench [--device vulkan:N] [--sizes 1088x1920,2160x3840] [--runs 20]
//                     [--configs fp32:direct,fp32:tiled,fp16:direct,fp16:tiled,fp16:auto]
//                     [--json out.json] [--md out.md] [--no-check] [--warmup-ms 1000]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backends/vulkan/context.h"
#include "backends/vulkan/graph_executable.h"
#include "core/thread_pool.h"
#include "ops/fused_ops.h"

using namespace vx;
using namespace vx::vk;

namespace {

struct Conv {
  std::string name;
  int cin, cout;
  bool relu, pool;
  Tensor w, b;
};

Tensor uniform(Shape shape, std::mt19937_64& rng, float lo, float hi) {
  Tensor t(DType::f32, std::move(shape));
  std::uniform_real_distribution<float> d(lo, hi);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(rng);
  return t;
}

// OIDN's base U-Net (bench/vulkan/torch_unet.py, widths from OIDN's training/model.py), fused.
struct UNet {
  Graph graph;
  std::vector<Conv> convs;
};

UNet make_unet(int ic, uint64_t seed) {
  const int e1 = 32, e2 = 48, e3 = 64, e4 = 80, e5 = 96, d4 = 112, d3 = 96, d2a = 64, d2b = 64, d1a = 64, d1b = 32;
  std::mt19937_64 rng(seed);
  UNet net;
  auto conv = [&](const char* name, int cin, int cout, bool relu, bool pool) {
    float s = std::sqrt(6.0f / (9.0f * float(cin)));  // He-uniform: activations keep their scale
    net.convs.push_back({name, cin, cout, relu, pool, uniform(Shape{cout, cin, 3, 3}, rng, -s, s),
                         uniform(Shape{cout}, rng, -0.05f, 0.05f)});
    return net.convs.size() - 1;
  };
  Graph& g = net.graph;
  auto add = [&](size_t i, std::vector<ValueId> in) {
    const Conv& c = net.convs[i];
    bool upcat = in.size() == 2;
    in.push_back(g.add_constant(c.name + ".weight", c.w));
    in.push_back(g.add_constant(c.name + ".bias", c.b));
    ValueId y = g.add_value(c.name + ".out", DType::f32, Shape{1, c.cout, -1, -1});
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{3, 3});
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    a.set("relu", int64_t(c.relu));
    a.set("pool", int64_t(c.pool));
    a.set("upsample_concat", int64_t(upcat));
    g.add_node(kFusedConv, c.name, in, {y}, a);
    return y;
  };
  ValueId x = g.add_value("input", DType::f32, Shape{1, ic, -1, -1});
  g.inputs = {x};
  ValueId v = add(conv("enc_conv0", ic, e1, true, false), {x});
  ValueId p1 = add(conv("enc_conv1", e1, e1, true, true), {v});
  ValueId p2 = add(conv("enc_conv2", e1, e2, true, true), {p1});
  ValueId p3 = add(conv("enc_conv3", e2, e3, true, true), {p2});
  v = add(conv("enc_conv4", e3, e4, true, true), {p3});
  v = add(conv("enc_conv5a", e4, e5, true, false), {v});
  v = add(conv("enc_conv5b", e5, e5, true, false), {v});
  v = add(conv("dec_conv4a", e5 + e3, d4, true, false), {v, p3});
  v = add(conv("dec_conv4b", d4, d4, true, false), {v});
  v = add(conv("dec_conv3a", d4 + e2, d3, true, false), {v, p2});
  v = add(conv("dec_conv3b", d3, d3, true, false), {v});
  v = add(conv("dec_conv2a", d3 + e1, d2a, true, false), {v, p1});
  v = add(conv("dec_conv2b", d2a, d2b, true, false), {v});
  v = add(conv("dec_conv1a", d2b + ic, d1a, true, false), {v, x});
  v = add(conv("dec_conv1b", d1a, d1b, true, false), {v});
  g.outputs = {add(conv("dec_conv0", d1b, 3, false, false), {v})};
  return net;
}

// ---- CPU reference (double accumulation, threaded over output channels) ----
Tensor ref_conv(const Tensor& x, const Conv& c) {
  const int C = int(x.dim(1)), H = int(x.dim(2)), W = int(x.dim(3)), O = c.cout;
  Tensor y(DType::f32, Shape{1, O, H, W});
  const float *xs = x.data<float>(), *ws = c.w.data<float>(), *bs = c.b.data<float>();
  float* ys = y.data<float>();
  ThreadPool::global().parallel_for(O, [&](int64_t o0, int64_t o1) {
    std::vector<double> acc(size_t(H) * W);
    for (int64_t o = o0; o < o1; ++o) {
      std::fill(acc.begin(), acc.end(), double(bs[o]));
      for (int ci = 0; ci < C; ++ci)
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            double wv = ws[((o * C + ci) * 3 + ky) * 3 + kx];
            for (int i = 0; i < H; ++i) {
              int yy = i + ky - 1;
              if (yy < 0 || yy >= H) continue;
              for (int j = std::max(0, 1 - kx); j < std::min(W, W + 1 - kx); ++j)
                acc[size_t(i) * W + j] += wv * xs[(size_t(ci) * H + yy) * W + j + kx - 1];
            }
          }
      for (int i = 0; i < H * W; ++i) ys[size_t(o) * H * W + i] = float(c.relu ? std::max(acc[i], 0.0) : acc[i]);
    }
  });
  if (!c.pool) return y;
  Tensor p(DType::f32, Shape{1, O, H / 2, W / 2});
  float* ps = p.data<float>();
  for (int o = 0; o < O; ++o)
    for (int i = 0; i < H / 2; ++i)
      for (int j = 0; j < W / 2; ++j) {
        auto at = [&](int a, int b) { return ys[(size_t(o) * H + 2 * i + a) * W + 2 * j + b]; };
        ps[(size_t(o) * (H / 2) + i) * (W / 2) + j] = std::max(std::max(at(0, 0), at(0, 1)), std::max(at(1, 0), at(1, 1)));
      }
  return p;
}

Tensor upcat(const Tensor& low, const Tensor& skip) {
  const int CA = int(low.dim(1)), CB = int(skip.dim(1)), H = int(skip.dim(2)), W = int(skip.dim(3));
  Tensor out(DType::f32, Shape{1, CA + CB, H, W});
  float* o = out.data<float>();
  const float *l = low.data<float>(), *s = skip.data<float>();
  for (int c = 0; c < CA; ++c)
    for (int i = 0; i < H; ++i)
      for (int j = 0; j < W; ++j) o[(size_t(c) * H + i) * W + j] = l[(size_t(c) * (H / 2) + i / 2) * (W / 2) + j / 2];
  std::copy(s, s + size_t(CB) * H * W, o + size_t(CA) * H * W);
  return out;
}

Tensor ref_unet(const UNet& n, const Tensor& x) {
  auto c = [&](int i, const Tensor& t) { return ref_conv(t, n.convs[size_t(i)]); };
  Tensor v = c(0, x), p1 = c(1, v), p2 = c(2, p1), p3 = c(3, p2);
  v = c(6, c(5, c(4, p3)));
  v = c(8, c(7, upcat(v, p3)));
  v = c(10, c(9, upcat(v, p2)));
  v = c(12, c(11, upcat(v, p1)));
  v = c(14, c(13, upcat(v, x)));
  return c(15, v);
}

// max |a - b|
double abs_error(const Tensor& a, const Tensor& b) {
  double err = 0;
  const float *pa = a.data<float>(), *pb = b.data<float>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    double d = std::abs(double(pa[i]) - pb[i]);
    if (std::isnan(d)) return INFINITY;
    err = std::max(err, d);
  }
  return err;
}

// max |a - b| / max(1e-6, max |b|)
double rel_error(const Tensor& a, const Tensor& b) {
  double err = 0, peak = 1e-6;
  const float *pa = a.data<float>(), *pb = b.data<float>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    double d = std::abs(double(pa[i]) - pb[i]);
    if (std::isnan(d)) return INFINITY;
    err = std::max(err, d);
    peak = std::max(peak, std::abs(double(pb[i])));
  }
  return err / peak;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Row {
  int h, w;
  std::string precision, kernels, variants;
  double median_ms = 0, min_ms = 0, tflops = 0, rel_err = -1;
  std::vector<std::pair<std::string, double>> layers;  // "name (kernel)", median ms
};

}  // namespace

int main(int argc, char** argv) {
  std::string device = "vulkan", sizes = "1088x1920,2160x3840", json_path, md_path;
  std::string configs = "fp32:direct,fp32:tiled,fp16:direct,fp16:tiled,fp16:auto";
  int runs = 20;
  double warmup_ms = 1000;  // GPU time of warm-up runs per config and size
  bool check = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--device") device = next();
    else if (a == "--sizes") sizes = next();
    else if (a == "--configs") configs = next();
    else if (a == "--runs") runs = std::stoi(next());
    else if (a == "--warmup-ms") warmup_ms = std::stod(next());
    else if (a == "--json") json_path = next();
    else if (a == "--md") md_path = next();
    else if (a == "--no-check") check = false;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  try {
    ContextOptions co;
    co.device_index = parse_vulkan_device(device);
    VulkanContext ctx(co);
    std::printf("%s", ctx.info().describe().c_str());
    const int ic = 9;
    UNet net = make_unet(ic, 1234);
    std::vector<std::pair<Precision, std::string>> cfgs;
    // Configs are separated by ';' when any is given (then a config's kernels may hold per-layer
    // choices, "fp16:coopmat_p,enc_conv0=coopmat_t"), else by ','.
    for (const auto& c : split(configs, configs.find(';') != std::string::npos ? ';' : ',')) {
      auto parts = split(c, ':');
      if (parts.size() != 2) fail(ErrorCode::InvalidArgument, "config '" + c + "' is not precision:kernels");
      Precision p = parts[0] == "fp16" ? Precision::fp16 : Precision::fp32;
      if (p == Precision::fp16 && !ctx.fp16_enabled()) continue;
      cfgs.push_back({p, parts[1]});
    }

    int failures = 0;
    if (check) {  // every config vs the CPU reference at a small size
      const int h = 64, w = 96;
      std::mt19937_64 rng(99);
      Tensor x = uniform(Shape{1, ic, h, w}, rng, 0.0f, 1.0f);
      Tensor ref = ref_unet(net, x);
      for (auto& [p, k] : cfgs) {
        ExecutableOptions o;
        o.precision = p;
        o.kernels = k;
        VulkanGraphExecutable exe(ctx, net.graph, x.shape(), o);
        Tensor y = exe.run(x);
        double err = rel_error(y, ref);
        double tol = p == Precision::fp16 ? 2e-2 : 1e-4;
        bool ok = err <= tol;
        failures += !ok;
        std::printf("check %dx%d %s %-8s vs CPU reference: max rel error %.3g (tolerance %.0e), max abs error %.3g %s\n",
                    h, w, precision_name(p), k.c_str(), err, tol, abs_error(y, ref), ok ? "ok" : "FAIL");
      }
    }

    std::vector<Row> rows;
    for (const auto& size : split(sizes, ',')) {
      auto hw = split(size, 'x');
      const int h = std::stoi(hw.at(0)), w = std::stoi(hw.at(1));
      std::mt19937_64 rng(h * 7 + w);
      Tensor x = uniform(Shape{1, ic, h, w}, rng, 0.0f, 1.0f);
      Tensor baseline;  // fp32 direct
      if (check) {
        ExecutableOptions o;
        o.kernels = "direct";
        VulkanGraphExecutable exe(ctx, net.graph, x.shape(), o);
        baseline = exe.run(x);
      }
      for (auto& [p, k] : cfgs) {
        ExecutableOptions o;
        o.precision = p;
        o.kernels = k;
        o.timestamps = true;
        VulkanGraphExecutable exe(ctx, net.graph, x.shape(), o);
        Row row{h, w, precision_name(p), k, ""};
        std::map<std::string, int> variant_count;
        for (const auto& l : exe.layers()) variant_count[l.kernel]++;
        for (auto& [v, n] : variant_count) row.variants += (row.variants.empty() ? "" : " ") + v + "x" + std::to_string(n);
        Tensor y = exe.run(x);
        if (check) row.rel_err = rel_error(y, baseline);
        // Warm-up: at least 3 runs and warmup_ms of GPU time, so the clock has ramped before timing.
        double warm = 0;
        for (int i = 0; i < 3 || warm < warmup_ms; ++i) {
          exe.run_resident();
          warm += exe.last_gpu_ms();
        }
        std::vector<double> totals;
        std::vector<std::vector<double>> per_layer(exe.layers().size());
        for (int r = 0; r < runs; ++r) {
          exe.run_resident();
          totals.push_back(exe.last_gpu_ms());
          for (size_t l = 0; l < per_layer.size(); ++l) per_layer[l].push_back(exe.last_timings()[l].ms);
        }
        row.median_ms = median(totals);
        row.min_ms = *std::min_element(totals.begin(), totals.end());
        row.tflops = exe.flops() / (row.median_ms * 1e-3) / 1e12;
        for (size_t l = 0; l < per_layer.size(); ++l)
          row.layers.push_back({exe.layers()[l].name + " (" + exe.layers()[l].shader + ")", median(per_layer[l])});
        std::printf("%dx%d %s %-8s [%s]: median %.3f ms, min %.3f ms, %.1f TFLOP/s, rel err vs fp32 direct %.3g\n", h,
                    w, row.precision.c_str(), k.c_str(), row.variants.c_str(), row.median_ms, row.min_ms, row.tflops,
                    row.rel_err);
        std::fflush(stdout);
        rows.push_back(row);
      }
    }

    if (!json_path.empty()) {
      std::ofstream f(json_path);
      f << "{\"device\": \"" << ctx.info().name << "\", \"driver\": \"" << ctx.info().driver_version
        << "\", \"network\": \"oidn-base ic=9\", \"runs\": " << runs << ", \"results\": [\n";
      for (size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        f << " {\"height\": " << r.h << ", \"width\": " << r.w << ", \"precision\": \"" << r.precision
          << "\", \"kernels\": \"" << r.kernels << "\", \"variants\": \"" << r.variants
          << "\", \"median_ms\": " << r.median_ms << ", \"min_ms\": " << r.min_ms << ", \"tflops\": " << r.tflops
          << ", \"max_rel_err_vs_fp32_direct\": " << r.rel_err << ", \"layers\": [";
        for (size_t l = 0; l < r.layers.size(); ++l)
          f << (l ? ", " : "") << "{\"layer\": \"" << r.layers[l].first << "\", \"median_ms\": " << r.layers[l].second << "}";
        f << "]}" << (i + 1 < rows.size() ? "," : "") << "\n";
      }
      f << "]}\n";
    }
    if (!md_path.empty()) {
      std::ofstream f(md_path);
      f << "# Vulkan U-Net benchmark: " << ctx.info().name << " (" << ctx.info().driver_version << ")\n\n";
      f << "OIDN base U-Net, ic=9, random weights; GPU timestamps, " << runs << " runs after warm-up.\n\n";
      f << "| size | precision | kernels | median ms | min ms | TFLOP/s | max rel err vs fp32 direct |\n";
      f << "| --- | --- | --- | ---: | ---: | ---: | ---: |\n";
      for (const Row& r : rows)
        f << "| " << r.w << "x" << r.h << " | " << r.precision << " | " << r.kernels << " (" << r.variants << ") | "
          << r.median_ms << " | " << r.min_ms << " | " << r.tflops << " | " << r.rel_err << " |\n";
      for (const Row& r : rows) {
        f << "\n## " << r.w << "x" << r.h << " " << r.precision << " " << r.kernels << "\n\n| layer | median ms |\n| --- | ---: |\n";
        for (auto& [name, ms] : r.layers) f << "| " << name << " | " << ms << " |\n";
      }
    }
    if (failures) {
      std::fprintf(stderr, "%d correctness check(s) failed\n", failures);
      return 1;
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "vulkan_unet_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
