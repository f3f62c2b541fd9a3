#include "common/test_util.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

#include "backends/cpu/eager_runner.h"

namespace vx::test {

std::optional<std::filesystem::path> shared_dir() {
  if (const char* env = std::getenv("VOLVOX_SHARED"))
    if (std::filesystem::is_directory(env)) return std::filesystem::path(env);
  std::filesystem::path p = std::filesystem::path(VOLVOX_SOURCE_DIR) / ".." / "shared";
  if (std::filesystem::is_directory(p / "weights")) return std::filesystem::canonical(p);
  return std::nullopt;
}

std::filesystem::path temp_dir() {
  static std::filesystem::path root = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "volvox-test-XXXXXX").string();
    char* made = mkdtemp(tmpl.data());
    std::filesystem::path dir = made ? made : tmpl;
    static struct Cleanup {
      std::filesystem::path d;
      ~Cleanup() {
        std::error_code ec;
        std::filesystem::remove_all(d, ec);
      }
    } cleanup{dir};
    return dir;
  }();
  static int counter = 0;
  std::filesystem::path dir = root / std::to_string(counter++);
  std::filesystem::create_directories(dir);
  return dir;
}

std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  VX_CHECK(f.good(), Io, "cannot open ", path.string());
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

std::string cli_path() {
  if (const char* env = std::getenv("VOLVOX_CLI")) return env;
  return std::string(VOLVOX_BINARY_DIR) + "/volvox";
}

CommandResult run_command(const std::string& shell_command) {
  FILE* pipe = popen((shell_command + " 2>&1").c_str(), "r");
  VX_CHECK(pipe != nullptr, Io, "cannot run ", shell_command);
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

CommandResult run_volvox(const std::string& args) { return run_command(cli_path() + " " + args); }

bool is_one_error_line(const std::string& output) {
  return output.rfind("volvox: ", 0) == 0 && output.find('\n') == output.size() - 1;
}

Tensor random_tensor(Shape shape, uint64_t seed, float lo, float hi, DType dtype) {
  Tensor t(DType::f32, std::move(shape));
  std::mt19937_64 rng(seed);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = lo + (hi - lo) * float(double(rng() >> 11) * 0x1.0p-53);
  return dtype == DType::f32 ? t : t.to(dtype);
}

Tensor random_int_tensor(Shape shape, uint64_t seed, int lo, int hi, DType dtype) {
  Tensor f = random_tensor(shape, seed, float(lo), float(hi) + 0.999f);
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, std::floor(f.get(i)));
  return t;
}

Tensor i64s(std::initializer_list<int64_t> values) {
  return Tensor::from<int64_t>(Shape{int64_t(values.size())}, values);
}

Tensor iota(Shape shape, float start) {
  Tensor t(DType::f32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, double(start) + double(i));
  return t;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  if (a.shape() != b.shape()) return INFINITY;
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double d = std::abs(a.get(i) - b.get(i));
    if (std::isnan(d)) return INFINITY;
    worst = std::max(worst, d);
  }
  return worst;
}

double max_diff_over_peak(const Tensor& got, const Tensor& want) {
  double peak = 1e-6;
  for (int64_t i = 0; i < want.numel(); ++i) peak = std::max(peak, std::abs(want.get(i)));
  return max_abs_diff(got, want) / peak;
}

void expect_rewrite_keeps_results(const Graph& before, const Graph& after, const std::vector<Tensor>& feeds,
                                  double max_over_peak) {
  after.validate();
  const std::vector<Tensor> want = run_graph_eager(before, feeds), got = run_graph_eager(after, feeds);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << "output " << i;
    EXPECT_LE(max_diff_over_peak(got[i], want[i]), max_over_peak) << "output " << i;
  }
}

double psnr_db(const Tensor& reference, const Tensor& test) {
  double peak = 1e-12, sum = 0;
  for (int64_t i = 0; i < reference.numel(); ++i) {
    peak = std::max(peak, std::abs(reference.get(i)));
    double d = reference.get(i) - test.get(i);
    sum += d * d;
  }
  double mse = sum / double(std::max<int64_t>(1, reference.numel()));
  if (mse == 0) return INFINITY;
  return 10 * std::log10(peak * peak / mse);
}

ScopedEnv::ScopedEnv(const char* name, const char* value)
    : ScopedEnv(name, value ? std::optional<std::string>(value) : std::nullopt) {}

ScopedEnv::ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  if (value) {
    setenv(name, value->c_str(), 1);
  } else {
    unsetenv(name);
  }
}

ScopedEnv::~ScopedEnv() {
  if (old_) {
    setenv(name_.c_str(), old_->c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

}  // namespace vx::test
