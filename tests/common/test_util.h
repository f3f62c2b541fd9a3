// Helpers shared by every test suite: where the shared data is, deterministic random tensors, and
// comparisons that report the worst element.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace vx::test {

// ../shared beside the checkout (or $VOLVOX_SHARED), if it exists.
std::optional<std::filesystem::path> shared_dir();
// A fresh empty temporary folder, removed at process exit.
std::filesystem::path temp_dir();
// The whole file; throws vx::Error(Io) when it cannot be read.
std::vector<std::byte> read_bytes(const std::filesystem::path& path);
// Path of the built `volvox` executable.
std::string cli_path();

// A shell command's exit status (-1 when a signal ended it) and its stdout and stderr together.
struct CommandResult {
  int status;
  std::string output;
};
CommandResult run_command(const std::string& shell_command);
// `volvox ARGS` (ARGS as the shell splits them).
CommandResult run_volvox(const std::string& args);
// True when `output` is exactly one line that starts with "volvox: " (the CLI's error contract).
bool is_one_error_line(const std::string& output);

// Uniform random values in [lo, hi), the same for the same seed on every machine.
Tensor random_tensor(Shape shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f, DType dtype = DType::f32);

// Largest |a - b| over all elements (both converted to double); shapes must match.
// Integers uniformly in [lo, hi] as `dtype`.
Tensor random_int_tensor(Shape shape, uint64_t seed, int lo, int hi, DType dtype = DType::i64);
// A 1-D int64 tensor of these values.
Tensor i64s(std::initializer_list<int64_t> values);
// f32 values start, start + 1, ... in row-major order.
Tensor iota(Shape shape, float start);
double max_abs_diff(const Tensor& a, const Tensor& b);
// max_abs_diff over the peak |want| (at least 1e-6): how the fusion and layout tests compare a
// rewritten graph's outputs with the original's.
double max_diff_over_peak(const Tensor& got, const Tensor& want);
// That a pass's rewrite `after` of the graph `before` computes what it did: both run eagerly on the
// CPU kernels with `feeds`, every output of the same shape and within `max_over_peak` of the peak
// (max_diff_over_peak; 0: identical).
void expect_rewrite_keeps_results(const Graph& before, const Graph& after, const std::vector<Tensor>& feeds,
                                  double max_over_peak);
// Peak signal-to-noise ratio in dB of `test` against `reference`, peak = max |reference| (at least 1e-12).
double psnr_db(const Tensor& reference, const Tensor& test);

// Sets an environment variable for one scope (unsets it for nullptr / nullopt) and restores the
// old value, or its absence, on exit.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ScopedEnv(const char* name, std::optional<std::string> value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace vx::test

// Skips the current test with the reason when ../shared is absent; binds `dir` to its path.
#define VX_REQUIRE_SHARED(dir)                                                          \
  auto dir##_opt = ::vx::test::shared_dir();                                           \
  if (!dir##_opt) GTEST_SKIP() << "../shared is absent: real weights and images unavailable"; \
  const std::filesystem::path dir = *dir##_opt
