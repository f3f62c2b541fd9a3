// The op table (tests/ops) outside GoogleTest: its correctness check on any machine, and its speed
// mode, which times every case on every backend and compares each with the CPU reference kernels.
//
//   op_table_bench [--filter REGEX] [--backends LIST]               check: PASS / FAIL / SKIP per case
//   op_table_bench --speed [--filter REGEX] [--runs N] [--scale K] [--backends LIST] [--all-variants]
//
// --filter matches "<op>_<case>" (and the variant label with --all-variants); --backends takes
// cpu-reference,cpu,vulkan-f32,vulkan-f16; --scale K multiplies the axes each case marks as
// scalable (cases without any run at their own size, marked "unscaled"); --runs N timed runs after
// two warm-up runs (default 10). Speed mode prints per case and backend the median wall time of a
// run (inputs in, outputs out), on Vulkan also the median GPU time of the node (timestamps), and
// the speed-up over the reference (reference median / backend median). The speed mode builds each
// executable once (make_executable, as the test helpers' run_on_vulkan does) and times its runs:
// the helpers build one per run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "backends/cpu/cpu_executable.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "common/test_util.h"
#include "core/error.h"
#include "ops/op_backend.h"
#include "ops/op_table.h"
#include "session/device_model_runner.h"

namespace vx::optable {
namespace {

struct Options {
  bool speed = false, all_variants = false;
  std::string filter = ".*";
  int runs = 10, scale = 1;
  std::vector<Backend> backends{std::begin(kAllBackends), std::end(kAllBackends)};
};

[[noreturn]] void usage(const std::string& error) {
  std::fprintf(stderr,
               "op_table_bench: %s\n"
               "usage: op_table_bench [--speed] [--filter REGEX] [--runs N] [--scale K] [--backends LIST] [--all-variants]\n",
               error.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--speed") {
      o.speed = true;
    } else if (a == "--all-variants") {
      o.all_variants = true;
    } else if (a == "--filter") {
      o.filter = value();
    } else if (a == "--runs") {
      o.runs = std::atoi(value().c_str());
      if (o.runs < 1) usage("--runs must be at least 1");
    } else if (a == "--scale") {
      o.scale = std::atoi(value().c_str());
      if (o.scale < 1) usage("--scale must be at least 1");
    } else if (a == "--backends") {
      o.backends.clear();
      std::string list = value() + ",";
      for (size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1) {
        const std::string name = list.substr(at, comma - at);
        bool found = false;
        for (Backend b : kAllBackends)
          if (name == backend_name(b)) o.backends.push_back(b), found = true;
        if (!found) usage("unknown backend '" + name + "'");
      }
    } else {
      usage("unknown argument '" + a + "'");
    }
  }
  return o;
}

bool runs_on(const OpCase& c, Backend b) {
  if (c.skips(b)) return false;
  return b != Backend::cpu || has_fast_cpu_kernel(c.op(), c.op_domain());
}

// ---------------- check mode ----------------

int check(const Options& o) {
  const std::regex filter(o.filter);
  int passed = 0, failed = 0, skipped = 0;
  for (const OpCase& c : all_cases()) {
    if (!std::regex_search(c.id(), filter)) continue;
    for (Backend b : o.backends) {
      if (!runs_on(c, b)) continue;
      const CheckOutcome r = check_case(c, b);
      const char* status = r.status == CheckOutcome::Status::passed ? "PASS"
                           : r.status == CheckOutcome::Status::failed ? "FAIL"
                                                                      : "SKIP";
      (r.status == CheckOutcome::Status::passed ? passed : r.status == CheckOutcome::Status::failed ? failed : skipped)++;
      std::printf("%s %s_%s%s%s\n", status, c.id().c_str(), backend_id(b).c_str(), r.message.empty() ? "" : ": ",
                  r.message.c_str());
      std::fflush(stdout);
    }
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

// ---------------- speed mode ----------------

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Timing {
  double wall_ms = 0;
  std::optional<double> gpu_ms;
  std::string note;  // kernel variant, fallbacks
};

std::map<std::string, Shape> shapes_of(const test::SingleNodeCase& sc) {
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < sc.inputs.size(); ++i) shapes[sc.graph.value(sc.graph.inputs[i]).name] = sc.inputs[i].shape();
  return shapes;
}

template <class Run>
std::vector<double> time_runs(int runs, Run&& run) {
  for (int i = 0; i < 2; ++i) run();  // warm-up: first-touch allocations, pipeline caches
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return ms;
}

Timing time_cpu(const test::SingleNodeCase& sc, bool reference_only, int runs) {
  cpu::CpuOptions options;
  options.reference_only = reference_only;
  cpu::CpuExecutable exe(cpu::make_cpu_plan(sc.graph, shapes_of(sc), reference_only), options);
  std::vector<Tensor> outputs;
  Timing t;
  t.wall_ms = median(time_runs(runs, [&] { exe.run(sc.inputs, outputs); }));
  t.note = exe.plan().steps.at(0).variant;
  return t;
}

Timing time_vulkan(const vk::VulkanContext& ctx, const test::SingleNodeCase& sc, Precision precision, int runs) {
  runtime::ExecutableOptions options;
  options.precision = precision;
  options.timestamps = runtime::Timestamps::per_node;
  auto exe = make_executable(vk::compute_device(ctx), sc.graph, shapes_of(sc), options, &sc.inputs);
  std::vector<double> gpu;
  Timing t;
  t.wall_ms = median(time_runs(runs, [&] {
    Profile profile;
    exe->run(sc.inputs, &profile);
    if (ctx.info().timestamps) gpu.push_back(profile.total_ms());
  }));
  if (!gpu.empty()) t.gpu_ms = median(std::vector<double>(gpu.end() - runs, gpu.end()));
  for (const auto& p : exe->placements()) {
    if (!t.note.empty()) t.note += "; ";
    t.note += p.on_host ? "CPU: " + p.reason : p.variant;
  }
  return t;
}

int speed(const Options& o) {
  const std::regex filter(o.filter);
  std::unique_ptr<vk::VulkanContext> ctx;
  std::string no_vulkan;
  try {
    vk::ContextOptions co;  // no validation: it would time the layer
    ctx = std::make_unique<vk::VulkanContext>(co);
    std::printf("Vulkan device: %s%s\n", ctx->info().name.c_str(), ctx->fp16_enabled() ? "" : " (no fp16 storage)");
  } catch (const Error& e) {
    no_vulkan = e.what();
    std::printf("no Vulkan device: %s\n", no_vulkan.c_str());
  }
  std::printf("%d runs, scale %d; median wall ms per run (GPU ms of the node), speed-up over cpu-reference\n\n", o.runs,
              o.scale);
  std::printf("%-58s %-13s %11s %11s %9s  %s\n", "case", "backend", "wall ms", "gpu ms", "x ref", "kernel");
  int errors = 0;
  for (const OpCase& base : all_cases()) {
    if (!std::regex_search(base.id(), filter) && !o.all_variants) continue;
    std::vector<OpCase> variants = base.expand();
    if (!o.all_variants) variants.erase(variants.begin() + 1, variants.end());
    for (const OpCase& c : variants) {
      const std::string name = c.id() + (c.variant_label().empty() ? "" : " [" + c.variant_label() + "]");
      if (o.all_variants && !std::regex_search(name, filter)) continue;
      const bool scaled = o.scale > 1 && c.scalable();
      std::optional<double> reference_ms;
      try {
        std::vector<std::unique_ptr<test::ScopedEnv>> env;
        for (const auto& [k, v] : c.environment()) env.push_back(std::make_unique<test::ScopedEnv>(k.c_str(), v.c_str()));
        const test::SingleNodeCase sc = build_case(c, scaled ? o.scale : 1);
        for (Backend b : o.backends) {
          if (!runs_on(c, b)) continue;
          const std::string label = name + (o.scale > 1 && !scaled ? " (unscaled)" : "");
          Timing t;
          if (b == Backend::cpu_reference || b == Backend::cpu) {
            t = time_cpu(sc, b == Backend::cpu_reference, o.runs);
          } else {
            const Precision p = b == Backend::vulkan_f16 ? Precision::fp16 : Precision::fp32;
            if (!ctx || (p == Precision::fp16 && !ctx->fp16_enabled())) continue;
            t = time_vulkan(*ctx, sc, p, o.runs);
          }
          if (b == Backend::cpu_reference) reference_ms = t.wall_ms;
          char gpu[32] = "-", ratio[32] = "-";
          if (t.gpu_ms) std::snprintf(gpu, sizeof gpu, "%.4f", *t.gpu_ms);
          if (reference_ms && t.wall_ms > 0) std::snprintf(ratio, sizeof ratio, "%.3g", *reference_ms / t.wall_ms);
          std::printf("%-58s %-13s %11.4f %11s %9s  %s\n", label.c_str(), backend_name(b), t.wall_ms, gpu, ratio, t.note.c_str());
          std::fflush(stdout);
        }
      } catch (const std::exception& e) {
        ++errors;
        std::printf("%-58s error: %s\n", name.c_str(), e.what());
      }
    }
  }
  return errors ? 1 : 0;
}

}  // namespace
}  // namespace vx::optable

int main(int argc, char** argv) {
  const vx::optable::Options o = vx::optable::parse(argc, argv);
  const int rc = o.speed ? vx::optable::speed(o) : vx::optable::check(o);
  // The checks' shared Vulkan context (vulkan_test_context) is released by a GoogleTest
  // environment, which no test runner tears down here: static destruction would destroy the
  // device after the driver's own globals (NVIDIA's driver crashed in vkDestroyDevice at exit).
  std::fflush(stdout);
  std::_Exit(rc);
}
