// Every reader on thousands of malformed inputs (malformed.h), in this process: each must return a
// sound value or throw vx::Error, nothing else (no other exception, no crash, no hang, no
// unbounded allocation). Each case runs under alarm(): past kCaseSeconds the process prints the
// case and exits (a hang); a fatal signal prints the case first (a crash). With
// VOLVOX_ROBUSTNESS_FORK=1 every case runs in a child process instead, so that one crash does
// not hide the cases after it (for triage; the default is in-process).
//
// Address space is capped at 8 GiB for the whole test (as for the CLI runs, robustness/cli_test.cpp):
// a size bomb the readers do not bound then shows up as a std::bad_alloc escaping the reader, not as
// the machine's OOM killer. The largest image a reader legitimately allocates is 1 GiB of floats
// (kMaxImageValues).
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <span>
#include <typeinfo>

#include "common/test_util.h"
#include "core/error.h"
#include "denoise/unet_spec.h"
#include "formats/npy.h"
#include "formats/onnx_import.h"
#include "formats/tza.h"
#include "robustness/malformed.h"

namespace vx::robust {
namespace {

constexpr unsigned kCaseSeconds = 20;  // a hang detector: every case takes milliseconds
// Refusing a FIFO, a folder or /dev/zero takes a stat(); the limit also bounds how much of /dev/zero
// a reader that does not refuse it can pull into memory before it counts as a hang.
constexpr unsigned kSpecialFileSeconds = 5;
constexpr rlim_t kAddressSpace = rlim_t(8) << 30;

char g_case[512] = "";

void write_stderr(const char* s) {
  ssize_t ignored = write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}

void on_signal(int sig) {
  write_stderr(sig == SIGALRM ? "\nHANG (no result within the time limit) in robustness case " : "\nCRASH (fatal signal) in robustness case ");
  write_stderr(g_case);
  write_stderr("\n");
  if (sig == SIGALRM) _exit(3);
  signal(sig, SIG_DFL);
  raise(sig);
}

void cap_address_space() {
#if !defined(__SANITIZE_ADDRESS__)
  rlimit limit{kAddressSpace, kAddressSpace};
  getrlimit(RLIMIT_AS, &limit);
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > kAddressSpace) {
    limit.rlim_cur = kAddressSpace;
    setrlimit(RLIMIT_AS, &limit);
  }
#endif
}

// Failures of one test, by class, each with its case; reported together at the end.
class Findings {
 public:
  void add(const std::string& cls, const std::string& case_name, const std::string& detail) {
    by_class_[cls].push_back(case_name + (detail.empty() ? "" : ": " + detail));
  }
  void expect_none(const std::string& reader, size_t cases) {
    size_t total = 0;
    std::string report;
    for (const auto& [cls, list] : by_class_) {
      total += list.size();
      report += "  " + cls + " (" + std::to_string(list.size()) + "):\n";
      for (size_t i = 0; i < list.size() && i < 40; ++i) report += "    " + list[i] + "\n";
      if (list.size() > 40) report += "    ... and " + std::to_string(list.size() - 40) + " more\n";
    }
    std::printf("%s: %zu cases, %zu failed\n", reader.c_str(), cases, total);
    EXPECT_EQ(total, 0u) << reader << ": " << total << " of " << cases << " malformed inputs failed:\n" << report;
  }

 private:
  std::map<std::string, std::vector<std::string>> by_class_;
};

// Runs `fn` (which checks the value it got and returns "" or what is wrong with it) for one case.
void run_case(Findings& findings, const std::string& name, const std::function<std::string()>& fn,
              bool fork_this = false, unsigned seconds = kCaseSeconds) {
  std::snprintf(g_case, sizeof g_case, "%s", name.c_str());
  static const bool fork_each = [] {
    const char* env = std::getenv("VOLVOX_ROBUSTNESS_FORK");
    return env && *env && std::string(env) != "0";
  }();
  auto body = [&]() -> std::pair<std::string, std::string> {  // class, detail
    try {
      std::string wrong = fn();
      if (!wrong.empty()) return {"accepted with an unsound value", wrong};
    } catch (const Error&) {
    } catch (const std::bad_alloc&) {
      return {"std::bad_alloc escaped (unbounded allocation)", ""};
    } catch (const std::exception& e) {
      return {std::string("non-vx::Error exception escaped"), std::string(typeid(e).name()) + ": " + e.what()};
    } catch (...) {
      return {"non-standard exception escaped", ""};
    }
    return {"", ""};
  };
  if (!fork_each && !fork_this) {
    alarm(seconds);
    auto [cls, detail] = body();
    alarm(0);
    if (!cls.empty()) findings.add(cls, name, detail);
    return;
  }
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipe_fds[0]);
    alarm(seconds);
    auto [cls, detail] = body();
    const std::string msg = cls.empty() ? "" : cls + "\n" + detail;
    ssize_t ignored = write(pipe_fds[1], msg.data(), msg.size());
    (void)ignored;
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) findings.add("hang", name, "");
  else if (WIFSIGNALED(status)) findings.add("crash", name, strsignal(WTERMSIG(status)));
  else if (!msg.empty()) findings.add(msg.substr(0, msg.find('\n')), name, msg.substr(msg.find('\n') + 1));
}

class Readers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cap_address_space();
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) signal(sig, on_signal);
  }
  static void TearDownTestSuite() {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) signal(sig, SIG_DFL);
  }
};

std::string check_image(const Image& img) {
  if (img.width <= 0 || img.height <= 0 || img.channels < 1 || img.channels > 4)
    return cat("image ", img.width, "x", img.height, "x", img.channels);
  if (img.width > kMaxImageSide || img.height > kMaxImageSide) return cat("image side over the limit: ", img.width, "x", img.height);
  if (img.pixels.size() != size_t(img.width) * size_t(img.height) * size_t(img.channels))
    return cat(img.pixels.size(), " values for ", img.width, "x", img.height, "x", img.channels);
  return "";
}

std::string check_tensor(const Tensor& t) {
  if (!t.defined()) return "undefined tensor";
  int64_t n = 1;
  for (int64_t d : t.shape()) {
    if (d < 0) return "negative extent in " + t.shape().str();
    n *= d;
  }
  if (n != t.numel()) return cat("numel ", t.numel(), " for shape ", t.shape().str());
  return "";
}

void image_reader_test(ImageFormat format) {
  Findings findings;
  const std::vector<Case> cases = all_image_cases(format);
  for (const Case& c : cases)
    run_case(findings, c.name, [&] { return check_image(decode_image(c.bytes, format)); });
  findings.expect_none(image_format_name(format), cases.size());
}

TEST_F(Readers, Pfm) { image_reader_test(ImageFormat::Pfm); }
TEST_F(Readers, Png) { image_reader_test(ImageFormat::Png); }
TEST_F(Readers, RadianceHdr) { image_reader_test(ImageFormat::RadianceHdr); }
TEST_F(Readers, OpenExr) { image_reader_test(ImageFormat::Exr); }

// The same cases through read_image (file name, extension): every 7th of each format, so that the
// file path is covered without doubling the run time.
TEST_F(Readers, ImageFilesByExtension) {
  Findings findings;
  const auto dir = test::temp_dir();
  size_t n = 0;
  for (auto [format, ext] : {std::pair{ImageFormat::Pfm, ".pfm"}, {ImageFormat::Png, ".png"},
                             {ImageFormat::RadianceHdr, ".hdr"}, {ImageFormat::Exr, ".exr"}}) {
    const std::vector<Case> cases = all_image_cases(format);
    for (size_t i = 0; i < cases.size(); i += 7, ++n) {
      const auto path = dir / (std::to_string(i) + ext);
      write_bytes(path, cases[i].bytes);
      run_case(findings, cases[i].name, [&] { return check_image(read_image(path)); });
    }
  }
  findings.expect_none("read_image", n);
}

TEST_F(Readers, Npy) {
  Findings findings;
  const std::vector<Case> cases = all_npy_cases();
  for (const Case& c : cases)
    run_case(findings, c.name, [&] {
      const Tensor t = parse_npy(c.bytes.data(), c.bytes.size());
      if (std::string wrong = check_tensor(t); !wrong.empty()) return wrong;
      if (t.nbytes() > c.bytes.size()) return cat(t.nbytes(), " bytes of data from a ", c.bytes.size(), "-byte file");
      const std::string again = encode_npy(t);
      const Tensor back = parse_npy(again.data(), again.size());
      if (back.dtype() != t.dtype() || back.shape() != t.shape() ||
          (t.nbytes() && std::memcmp(back.raw(), t.raw(), t.nbytes()) != 0))
        return std::string("does not re-encode to itself");
      return std::string();
    });
  findings.expect_none("npy", cases.size());
}

TEST_F(Readers, Tza) {
  Findings findings;
  const std::vector<Case> cases = all_tza_cases();
  for (const Case& c : cases)
    run_case(findings, c.name, [&] {
      const TzaFile f = parse_tza(std::span(reinterpret_cast<const std::byte*>(c.bytes.data()), c.bytes.size()));
      size_t bytes = 0;
      for (const TzaTensor& t : f.tensors) {
        if (std::string wrong = check_tensor(t.data); !wrong.empty()) return t.name + ": " + wrong;
        if (t.data.dtype() != DType::f32 && t.data.dtype() != DType::f16) return t.name + ": dtype not f32/f16";
        bytes += t.data.nbytes();
      }
      // Data blocks may not overlap the header; tensors may share a block, so this bounds each one.
      for (const TzaTensor& t : f.tensors)
        if (t.data.nbytes() > c.bytes.size()) return cat(t.name, ": ", t.data.nbytes(), " bytes from a ", c.bytes.size(), "-byte file");
      try {
        detect_unet_spec(f);  // not a U-Net: InvalidFile
      } catch (const Error&) {
      }
      (void)bytes;
      return std::string();
    });
  findings.expect_none("tza", cases.size());
}

TEST_F(Readers, OnnxModels) {
  Findings findings;
  const auto base = test::temp_dir();
  make_special_files(base, ".bin");  // external data: fifo.bin, dir.bin, zero.bin
  const std::vector<Case> cases = all_onnx_cases();
  for (const Case& c : cases)
    run_case(findings, c.name, [&] {
      Graph g = import_onnx_buffer(c.bytes.data(), c.bytes.size(), base);
      (void)unsupported_onnx_nodes(g);
      return std::string();
    });
  findings.expect_none("onnx", cases.size());
}

TEST_F(Readers, OnnxTensors) {
  Findings findings;
  std::vector<Case> cases = onnx_tensor_cases();
  for (Case& c : generic_mutations({"onnx_tensor", onnx_tensor_seed()})) cases.push_back(std::move(c));
  for (const Case& c : cases)
    run_case(findings, c.name, [&] { return check_tensor(read_onnx_tensor_buffer(c.bytes.data(), c.bytes.size())); });
  findings.expect_none("onnx tensor", cases.size());
}

// A FIFO nobody writes, a directory, /dev/zero (through a symbolic link with the right extension), a
// missing file and an empty file, for every reader that takes a path. A FIFO that is opened for
// reading blocks until a writer comes: these cases are the likeliest to hang, so each always runs
// in a child process, whatever VOLVOX_ROBUSTNESS_FORK says.
TEST_F(Readers, NonRegularFiles) {
  Findings findings;
  const auto dir = test::temp_dir();
  const std::pair<const char*, std::function<void(const std::filesystem::path&)>> readers[] = {
      {".pfm", [](const auto& p) { check_image(read_image(p)); }},
      {".png", [](const auto& p) { check_image(read_image(p)); }},
      {".hdr", [](const auto& p) { check_image(read_image(p)); }},
      {".exr", [](const auto& p) { check_image(read_image(p)); }},
      {".npy", [](const auto& p) { read_npy(p); }},
      {".tza", [](const auto& p) { read_tza(p); }},
      {".onnx", [](const auto& p) { import_onnx(p); }},
      {".pb", [](const auto& p) { read_onnx_tensor_file(p); }},
  };
  size_t n = 0;
  for (const auto& [ext, read] : readers)
    for (const auto& path : make_special_files(dir / (ext + 1), ext)) {
      ++n;
      const std::string name = std::string(ext + 1) + "/" + path.filename().string();
      run_case(findings, name, [&] {
        read(path);
        return std::string();
      }, /*fork_this=*/true, kSpecialFileSeconds);
    }
  findings.expect_none("non-regular files", n);
}

}  // namespace
}  // namespace vx::robust
