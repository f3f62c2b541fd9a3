// The volvox tool on malformed files and flag values (malformed.h), each run in a child process:
// `denoise`, `run`, `inspect` and `compare`. Every run must end in one of two ways:
//   - exit 0 with a correct result (the output reads back with the right size, finite pixels), or
//   - exit 1 with exactly one line on stderr, starting "volvox: ";
// never a signal, never past the time limit (then it is killed: a hang). The output file exists
// before each run with known bytes: a failed run must leave it byte-identical, and no run may leave
// another file (a temporary) in the output folder.
//
// Each child runs with its address space capped at 8 GiB (RLIMIT_AS). The tool legitimately maps
// far more than it touches (thread stacks, oneDNN and Vulkan loader reservations; an image may be
// 1 GiB of floats, kMaxImageValues, plus its copies), while an unbounded size bomb then ends in a
// failed allocation (which must be a one-line error) instead of the machine's OOM killer.
// Cases are sampled from the generator (every k-th) so that this suite stays near a minute on two
// busy cores; the in-process suite (readers_test.cpp) runs all of them.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <onnx/onnx_pb.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/test_util.h"
#include "core/error.h"
#include "denoise/unet_spec.h"
#include "formats/npy.h"
#include "formats/tza.h"
#include "robustness/malformed.h"

// GCC 12 flags std::string concatenation with a false -Wrestrict (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

namespace vx::robust {
namespace {

namespace fs = std::filesystem;

constexpr rlim_t kChildAddressSpace = rlim_t(8) << 30;
constexpr auto kRunTimeLimit = std::chrono::seconds(20);  // a hang detector: runs take well under 2 s
constexpr int kParallelRuns = 2;
// Known bytes the output file holds before each run.
const std::string kPrevious = "previous output: a failed run must leave these bytes\n";

struct Outcome {
  bool hang = false;
  int signal = 0;
  int status = -1;
  std::string out, err;
};

struct CliCase {
  std::string name;
  std::vector<std::string> args;  // after "volvox"
  fs::path out_dir;               // the output folder, pre-filled with `out_file` holding kPrevious
  std::string out_file;           // "" when the command writes nothing
  // On exit 0: "" when the result is right, else what is wrong with it.
  std::function<std::string(const CliCase&, const Outcome&)> check_success;
  rlim_t file_size_limit = 0;  // RLIMIT_FSIZE when non-zero (SIGXFSZ ignored: writes fail with EFBIG)
};

// Sets a flag's value where the arguments have it already, else appends the flag.
void set_flag(CliCase& c, const std::string& flag, const std::string& value) {
  for (size_t i = 0; i + 1 < c.args.size(); ++i)
    if (c.args[i] == flag) {
      c.args[i + 1] = value;
      return;
    }
  c.args.push_back(flag);
  c.args.push_back(value);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_text(const fs::path& p, const std::string& s) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << s;
}

// Runs every case in child processes, kParallelRuns at a time.
std::vector<Outcome> run_all(const std::vector<CliCase>& cases, const fs::path& scratch) {
  const std::string cli = test::cli_path();
  std::vector<Outcome> outcomes(cases.size());
  struct Running {
    pid_t pid;
    size_t index;
    std::chrono::steady_clock::time_point start;
    int out_fd, err_fd;
  };
  std::vector<Running> running;
  size_t next = 0;
  auto launch = [&](size_t i) {
    const CliCase& c = cases[i];
    if (!c.out_dir.empty()) fs::create_directories(c.out_dir);
    if (!c.out_file.empty()) write_text(c.out_dir / c.out_file, kPrevious);
    std::vector<std::string> words{cli};
    words.insert(words.end(), c.args.begin(), c.args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const std::string home = (scratch / "home").string();
    // Pipes, not files: RLIMIT_FSIZE must not cut the tool's own messages.
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      const int in = open("/dev/null", O_RDONLY);
      if (in < 0) _exit(126);
      dup2(in, 0);
      dup2(out_pipe[1], 1);
      dup2(err_pipe[1], 2);
      rlimit as{kChildAddressSpace, kChildAddressSpace};
      setrlimit(RLIMIT_AS, &as);
      rlimit core{0, 0};
      setrlimit(RLIMIT_CORE, &core);
      if (c.file_size_limit) {
        signal(SIGXFSZ, SIG_IGN);
        rlimit fsize{c.file_size_limit, c.file_size_limit};
        setrlimit(RLIMIT_FSIZE, &fsize);
      }
      // No re-exec for the OpenMP policy (main.cpp), no user cache or weights folder.
      setenv("OMP_WAIT_POLICY", "passive", 1);
      setenv("HOME", home.c_str(), 1);
      setenv("XDG_CACHE_HOME", home.c_str(), 1);
      unsetenv("VOLVOX_WEIGHTS");
      execv(cli.c_str(), argv.data());
      _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
    running.push_back({pid, i, std::chrono::steady_clock::now(), out_pipe[0], err_pipe[0]});
  };
  auto drain = [](int fd, std::string& into) {
    char buf[4096];
    for (ssize_t n; fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0;) into.append(buf, size_t(n));
  };
  while (next < cases.size() || !running.empty()) {
    while (running.size() < kParallelRuns && next < cases.size()) launch(next++);
    for (size_t r = 0; r < running.size();) {
      Running& run = running[r];
      Outcome& o = outcomes[run.index];
      drain(run.out_fd, o.out);
      drain(run.err_fd, o.err);
      int status = 0;
      const pid_t done = waitpid(run.pid, &status, WNOHANG);
      if (done == 0 && std::chrono::steady_clock::now() - run.start > kRunTimeLimit) {
        kill(-run.pid, SIGKILL);
        waitpid(run.pid, &status, 0);
        o.hang = true;
      } else if (done == 0) {
        ++r;
        continue;
      } else {
        if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
        if (WIFEXITED(status)) o.status = WEXITSTATUS(status);
      }
      kill(-run.pid, SIGKILL);  // anything the tool left behind in its process group
      drain(run.out_fd, o.out);
      drain(run.err_fd, o.err);
      close(run.out_fd);
      close(run.err_fd);
      running.erase(running.begin() + std::ptrdiff_t(r));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return outcomes;
}

std::string command_line(const CliCase& c, const fs::path& root) {
  std::string s = "volvox";
  for (const std::string& a : c.args) {
    std::string shown = a;
    const std::string prefix = root.string() + "/";
    for (size_t at; (at = shown.find(prefix)) != std::string::npos;) shown.replace(at, prefix.size(), "");
    s += " " + (shown.empty() || shown.find(' ') != std::string::npos ? "'" + shown + "'" : shown);
  }
  return s;
}

// Checks every outcome; returns the failures by class.
void expect_contract(const std::vector<CliCase>& cases, const std::vector<Outcome>& outcomes, const fs::path& root,
                     const std::string& what) {
  std::map<std::string, std::vector<std::string>> by_class;
  for (size_t i = 0; i < cases.size(); ++i) {
    const CliCase& c = cases[i];
    const Outcome& o = outcomes[i];
    std::string err_shown = o.err.substr(0, 300);
    for (char& ch : err_shown)
      if (ch == '\n') ch = '|';
    auto fail = [&](const std::string& cls, const std::string& detail) {
      by_class[cls].push_back(c.name + "\n      $ " + command_line(c, root) + "\n      -> " + detail);
    };
    bool failed_run = true;
    if (o.hang) {
      fail("hang", cat("killed after ", kRunTimeLimit.count(), " s; stderr: ", err_shown));
    } else if (o.signal) {
      fail("crash", cat("signal ", o.signal, " (", strsignal(o.signal), "); stderr: ", err_shown));
    } else if (o.status == 0) {
      failed_run = false;
      if (std::string wrong = c.check_success ? c.check_success(c, o) : ""; !wrong.empty())
        fail("exit 0 with a wrong result", wrong);
    } else if (o.status == 1) {
      const bool one_line = !o.err.empty() && o.err.back() == '\n' && o.err.find('\n') == o.err.size() - 1;
      if (!one_line || o.err.rfind("volvox: ", 0) != 0)
        fail("exit 1 without exactly one 'volvox: ' line on stderr", "stderr: " + err_shown);
    } else {
      fail("exit status other than 0 or 1", cat("status ", o.status, "; stderr: ", err_shown));
    }
    if (c.out_dir.empty()) continue;
    // The output folder: the output file (previous or new), nothing else.
    std::vector<std::string> extra;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(c.out_dir, ec))
      if (entry.path().filename() != c.out_file && !(c.check_success && !failed_run && entry.path().extension() == ".npy"))
        extra.push_back(entry.path().filename().string());
    if (!extra.empty()) {
      std::string list;
      for (const auto& e : extra) list += e + " ";
      fail("files left in the output folder", "left: " + list + (failed_run ? "(failed run)" : "(exit 0)"));
    }
    if (failed_run && !c.out_file.empty()) {
      const fs::path out = c.out_dir / c.out_file;
      if (!fs::is_regular_file(out) || read_text(out) != kPrevious)
        fail("data loss: a failed run changed the previous output",
             fs::is_regular_file(out) ? cat("now ", fs::file_size(out), " bytes") : std::string("the file is gone"));
    }
  }
  size_t total = 0;
  std::string report;
  for (const auto& [cls, list] : by_class) {
    total += list.size();
    report += "  " + cls + " (" + std::to_string(list.size()) + "):\n";
    for (size_t i = 0; i < list.size() && i < 40; ++i) report += "    " + list[i] + "\n";
    if (list.size() > 40) report += "    ... and " + std::to_string(list.size() - 40) + " more\n";
  }
  std::printf("%s: %zu runs, %zu failed\n", what.c_str(), cases.size(), total);
  EXPECT_EQ(total, 0u) << what << ": " << total << " of " << cases.size() << " runs broke the contract:\n" << report;
}

// ---- checks of successful runs ----
std::string check_image_file(const fs::path& path, int width, int height) {
  Image img;
  try {
    img = read_image(path);
  } catch (const Error& e) {
    return cat("the output does not read back: ", e.what());
  }
  if (width > 0 && (img.width != width || img.height != height))
    return cat("output is ", img.width, "x", img.height, ", expected ", width, "x", height);
  if (height > 0 && width == 0 && img.height != height) return cat("output height ", img.height, ", expected ", height);
  for (float v : img.pixels)
    if (!std::isfinite(v)) return "non-finite pixel in the output";
  return "";
}

// Every file a successful `run` wrote: readable .npy.
std::string check_npy_outputs(const CliCase& c, const Outcome&) {
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator(c.out_dir)) {
    if (entry.path().extension() != ".npy") continue;
    if (entry.path().filename() == c.out_file && read_text(entry.path()) == kPrevious) continue;
    try {
      read_npy(entry.path());
      ++n;
    } catch (const Error& e) {
      return cat(entry.path().filename().string(), " does not read back: ", e.what());
    }
  }
  return n ? "" : "exit 0 but no output .npy written";
}

struct Inputs {
  fs::path root;      // every file of the test lives below
  fs::path in;        // input files
  fs::path weights;   // the U-Net weights for denoise (9 input channels: color, albedo, normal)
  bool real_weights = false;
  size_t next_id = 0;

  fs::path file(const std::string& name, const Bytes& bytes) {
    const fs::path p = in / (std::to_string(next_id++) + "_" + name);
    write_bytes(p, bytes);
    return p;
  }
  fs::path out_dir() { return root / "out" / std::to_string(next_id++); }
};

Inputs make_inputs() {
  Inputs in;
  in.root = test::temp_dir();
  in.in = in.root / "in";
  fs::create_directories(in.in);
  if (auto shared = test::shared_dir(); shared && fs::exists(*shared / "weights" / "rt_hdr_alb_nrm.tza")) {
    in.weights = *shared / "weights" / "rt_hdr_alb_nrm.tza";
    in.real_weights = true;
  } else {
    in.weights = in.in / "small_hdr_alb_nrm.tza";
    write_tza_file(in.weights, make_random_unet_weights(UNetVariant::small, 9, 5));
  }
  return in;
}

// Short case names from the generator's: characters that are awkward in file names replaced.
std::string file_name_of(const std::string& case_name, const std::string& ext) {
  std::string s = case_name.substr(0, 60);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return s + ext;
}

std::optional<Image> try_decode(const Bytes& bytes, ImageFormat format) {
  try {
    return decode_image(bytes, format);
  } catch (const Error&) {
    return std::nullopt;
  }
}

const std::pair<ImageFormat, const char*> kImageFormats[] = {
    {ImageFormat::Pfm, ".pfm"}, {ImageFormat::Png, ".png"}, {ImageFormat::RadianceHdr, ".hdr"}, {ImageFormat::Exr, ".exr"}};

// Every k-th image case of each format, images that decode to more than 64x64 pixels left out (they
// are valid, only slow to denoise).
std::vector<std::pair<Case, const char*>> sampled_image_cases(size_t every) {
  std::vector<std::pair<Case, const char*>> out;
  for (auto [format, ext] : kImageFormats) {
    const std::vector<Case> cases = all_image_cases(format);
    for (size_t i = 0; i < cases.size(); i += every) {
      auto img = try_decode(cases[i].bytes, format);
      if (img && int64_t(img->width) * img->height > 64 * 64) continue;
      out.push_back({cases[i], ext});
    }
  }
  return out;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(test::cli_path())) GTEST_SKIP() << "the volvox tool is not built at " << test::cli_path();
  }
};

// ---- denoise ----
TEST_F(Cli, DenoiseMalformedFilesAndFlags) {
  Inputs in = make_inputs();
  std::vector<CliCase> cases;
  const fs::path color5x3 = in.file("color5x3.pfm", encode_image(smooth_image(5, 3, 3, 11), ImageFormat::Pfm));
  const fs::path albedo5x3 = in.file("albedo5x3.pfm", encode_image(smooth_image(5, 3, 3, 12), ImageFormat::Pfm));
  const fs::path normal5x3 = in.file("normal5x3.pfm", encode_image(smooth_image(5, 3, 3, 13), ImageFormat::Pfm));
  auto denoise = [&](const std::string& name, const fs::path& color, const fs::path& albedo, const fs::path& normal,
                     std::vector<std::string> extra, int w, int h, const std::string& out_name = "out.pfm",
                     const std::string& weights = "") {
    CliCase c;
    c.name = "denoise/" + name;
    c.out_dir = in.out_dir();
    c.out_file = out_name;
    c.args = {"denoise", "--hdr", "--device", "cpu", "--weights", weights.empty() ? in.weights.string() : weights,
              "--color", color.string(), "--albedo", albedo.string(), "--normal", normal.string(), "-o",
              (c.out_dir / out_name).string()};
    c.args.insert(c.args.end(), extra.begin(), extra.end());
    c.check_success = [w, h](const CliCase& c, const Outcome&) { return check_image_file(c.out_dir / c.out_file, w, h); };
    cases.push_back(std::move(c));
  };

  // Valid inputs of odd sizes: these must succeed (checked below).
  for (auto [w, h] : {std::pair{1, 1}, {1, 5}, {5, 1}, {17, 3}}) {
    const std::string s = std::to_string(w) + "x" + std::to_string(h);
    denoise("valid_" + s, in.file("c" + s + ".pfm", encode_image(smooth_image(w, h, 3, 1), ImageFormat::Pfm)),
            in.file("a" + s + ".pfm", encode_image(smooth_image(w, h, 3, 2), ImageFormat::Pfm)),
            in.file("n" + s + ".pfm", encode_image(smooth_image(w, h, 3, 3), ImageFormat::Pfm)), {}, w, h);
  }
  const size_t first_malformed = cases.size();
  // Non-finite colour values (PFM and EXR hold them).
  for (auto [format, ext] : {std::pair{ImageFormat::Pfm, ".pfm"}, {ImageFormat::Exr, ".exr"}})
    denoise(std::string("nonfinite_color") + ext,
            in.file(std::string("nonfinite") + ext, encode_image(nonfinite_image(5, 3, 3), format, {.exr_half = false})),
            albedo5x3, normal5x3, {}, 5, 3);
  denoise("nonfinite_albedo", color5x3, in.file("nf_albedo.pfm", encode_image(nonfinite_image(5, 3, 3), ImageFormat::Pfm)),
          normal5x3, {}, 5, 3);
  denoise("nonfinite_normal", color5x3, albedo5x3,
          in.file("nf_normal.pfm", encode_image(nonfinite_image(5, 3, 3), ImageFormat::Pfm)), {}, 5, 3);

  // Malformed colour images: the auxiliary images get the size the colour decodes to, if it does,
  // so that the network runs on what the reader accepted.
  for (const auto& [c, ext] : sampled_image_cases(23)) {
    const fs::path color = in.file(file_name_of(c.name, ext), c.bytes);
    auto img = try_decode(c.bytes, image_format_for_path(color));
    const int w = img ? img->width : 5, h = img ? img->height : 3;
    fs::path albedo = albedo5x3, normal = normal5x3;
    if (img && (w != 5 || h != 3) && w > 0 && h > 0) {
      albedo = in.file("a.pfm", encode_image(smooth_image(w, h, 3, 2), ImageFormat::Pfm));
      normal = in.file("n.pfm", encode_image(smooth_image(w, h, 3, 3), ImageFormat::Pfm));
    }
    denoise("color/" + c.name, color, albedo, normal, {}, w, h);
  }
  // Malformed auxiliary images (PFM and EXR samples).
  {
    const std::vector<Case> pfm = all_image_cases(ImageFormat::Pfm), exr = all_image_cases(ImageFormat::Exr);
    for (size_t i = 5; i < pfm.size(); i += 61) denoise("albedo/" + pfm[i].name, color5x3, in.file("a.pfm", pfm[i].bytes), normal5x3, {}, 5, 3);
    for (size_t i = 11; i < exr.size(); i += 97) denoise("normal/" + exr[i].name, color5x3, albedo5x3, in.file("n.exr", exr[i].bytes), {}, 5, 3);
  }
  // Non-regular and missing files in each role.
  for (const fs::path& p : make_special_files(in.root / "special", ".pfm")) {
    denoise("color/" + p.filename().string(), p, albedo5x3, normal5x3, {}, 5, 3);
    denoise("albedo/" + p.filename().string(), color5x3, p, normal5x3, {}, 5, 3);
  }
  for (const fs::path& p : make_special_files(in.root / "special", ".tza"))
    denoise("weights/" + p.filename().string(), color5x3, albedo5x3, normal5x3, {}, 5, 3, "out.pfm", p.string());
  // Malformed weights: the generator's TZA cases, and the weights in use cut and flipped.
  {
    const std::vector<Case> tza = all_tza_cases();
    for (size_t i = 0; i < tza.size(); i += 19)
      denoise("weights/" + tza[i].name, color5x3, albedo5x3, normal5x3, {}, 5, 3, "out.pfm",
              in.file(file_name_of(tza[i].name, ".tza"), tza[i].bytes).string());
    const auto blob = test::read_bytes(in.weights);
    Bytes w(blob.size());
    std::memcpy(w.data(), blob.data(), blob.size());
    for (const Case& m : generic_mutations({"weights", w})) {
      // Truncations at every one of the first 24 bytes say little more than a few of them.
      if (m.name.find("trunc@") != std::string::npos && m.bytes.size() > 3 && m.bytes.size() < 24) continue;
      denoise(m.name, color5x3, albedo5x3, normal5x3, {}, 5, 3, "out.pfm",
              in.file(file_name_of(m.name, ".tza"), m.bytes).string());
    }
  }
  // Flag values: negative, zero, huge, NaN, empty, unknown.
  const std::pair<const char*, std::vector<const char*>> flags[] = {
      {"--max-tile", {"-1", "0", "1", "3", "2147483647", "-2147483648", "99999999999", "nan", "", "abc"}},
      {"--threads", {"-1", "0", "1", "100000", "2147483647", "nan", ""}},
      {"--max-memory-mb", {"-5", "0", "1", "2147483647", "nan", ""}},
      {"--input-scale", {"nan", "inf", "-inf", "-1", "0", "1e39", "", "abc"}},
      {"--repeat", {"-1", "0", "2", "nan", ""}},
      {"--target-tile-ms", {"-1", "nan", "inf", "1e308", ""}},
      {"--device", {"bogus", "", "vulkan:99", "vulkan:-1", "cpu:0"}},
      {"--precision", {"fp8", ""}},
      {"--quality", {"ultra", ""}},
      {"--kernel", {"bogus", "auto,=", "auto,dec_conv0=bogus", ""}},
  };
  for (const auto& [flag, values] : flags)
    for (const char* v : values) {
      denoise(std::string("flag") + flag + "=" + v, color5x3, albedo5x3, normal5x3, {}, 5, 3);
      set_flag(cases.back(), flag, v);
    }
  denoise("flag/unknown", color5x3, albedo5x3, normal5x3, {"--bogus"}, 5, 3);
  denoise("flag/value_missing", color5x3, albedo5x3, normal5x3, {"--max-tile"}, 5, 3);
  denoise("flag/color_twice", color5x3, albedo5x3, normal5x3, {"--color", color5x3.string()}, 5, 3);
  denoise("flag/hdr_and_srgb", color5x3, albedo5x3, normal5x3, {"--srgb"}, 5, 3);
  // Outputs: other formats, unknown or no extension, a missing folder, a folder, a full disk.
  for (const char* out : {"out.exr", "out.png", "out.hdr", "out.PFM", "out.txt", "out"})
    denoise(std::string("output/") + out, color5x3, albedo5x3, normal5x3, {}, 5, 3, out);
  // -o's value replaced: into a missing folder, onto a folder.
  auto set_output = [](CliCase& c, const fs::path& out) { set_flag(c, "-o", out.string()); };
  denoise("output/missing_folder", color5x3, albedo5x3, normal5x3, {}, 5, 3);
  set_output(cases.back(), in.root / "nowhere" / "out.pfm");
  {
    denoise("output/is_a_folder", color5x3, albedo5x3, normal5x3, {}, 5, 3);
    CliCase& c = cases.back();
    const fs::path folder = in.root / "folders" / std::to_string(cases.size()) / "folder.pfm";
    fs::create_directories(folder);
    set_output(c, folder);
    c.check_success = [](const CliCase&, const Outcome&) { return std::string("exit 0 writing onto a folder"); };
  }
  {
    denoise("output/file_size_limit_64_bytes", color5x3, albedo5x3, normal5x3, {}, 5, 3);
    cases.back().file_size_limit = 64;
  }

  const fs::path scratch = in.root / "scratch";
  fs::create_directories(scratch / "home");
  std::printf("denoise: %zu runs (%s weights)\n", cases.size(), in.real_weights ? "real" : "synthetic small");
  const std::vector<Outcome> outcomes = run_all(cases, scratch);
  // The valid cases must have succeeded: a contract kept by failing everything proves nothing.
  for (size_t i = 0; i < first_malformed; ++i)
    EXPECT_EQ(outcomes[i].status, 0) << cases[i].name << ": " << outcomes[i].err;
  expect_contract(cases, outcomes, in.root, "volvox denoise");
}

// ---- run ----
std::vector<int64_t> first_input_shape(const Bytes& model) {
  onnx::ModelProto m;
  if (!m.ParseFromArray(model.data(), int(model.size())) || m.graph().input_size() == 0) return {1, 2, 5, 5};
  std::vector<int64_t> dims;
  for (const auto& d : m.graph().input(0).type().tensor_type().shape().dim()) {
    if (d.dim_value() <= 0 || d.dim_value() > 64) return {1, 2, 5, 5};
    dims.push_back(d.dim_value());
  }
  return dims.empty() ? std::vector<int64_t>{1, 2, 5, 5} : dims;
}

Bytes npy_of(std::vector<int64_t> dims, float value = 0.25f) {
  Tensor t(DType::f32, Shape(dims));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = value * float(i % 5);
  const std::string s = encode_npy(t);
  return Bytes(s.begin(), s.end());
}

TEST_F(Cli, RunMalformedModelsInputsAndFlags) {
  Inputs in = make_inputs();
  std::vector<CliCase> cases;
  const fs::path model = in.file("conv.onnx", conv_model());
  const fs::path x = in.file("x.npy", npy_of({1, 2, 5, 5}));
  auto run = [&](const std::string& name, const fs::path& m, std::vector<std::string> inputs, std::vector<std::string> extra) {
    CliCase c;
    c.name = "run/" + name;
    c.out_dir = in.out_dir();
    c.out_file = "y.npy";
    c.args = {"run", m.string()};
    for (const std::string& i : inputs) {
      c.args.push_back("--input");
      c.args.push_back(i);
    }
    c.args.push_back("--output-dir");
    c.args.push_back(c.out_dir.string());
    c.args.insert(c.args.end(), extra.begin(), extra.end());
    c.check_success = check_npy_outputs;
    cases.push_back(std::move(c));
  };
  run("valid", model, {"x=" + x.string()}, {});
  const size_t first_malformed = cases.size();
  // Malformed models, each with an input of the shape its first input declares (when it declares one).
  const std::vector<Case> models = all_onnx_cases();
  for (size_t i = 0; i < models.size(); i += 4) {
    const fs::path m = in.file(file_name_of(models[i].name, ".onnx"), models[i].bytes);
    const fs::path xi = in.file("x.npy", npy_of(first_input_shape(models[i].bytes)));
    run("model/" + models[i].name, m, {"x=" + xi.string()}, {});
  }
  // External data next to the model: a FIFO, a folder, /dev/zero.
  {
    const fs::path dir = in.root / "external";
    make_special_files(dir, ".bin");
    for (const Case& c : onnx_structure_cases())
      if (c.name.find("W_external=") != std::string::npos && c.name.find("length=16") != std::string::npos) {
        const fs::path m = dir / file_name_of(c.name, ".onnx");
        write_bytes(m, c.bytes);
        run("model/" + c.name, m, {"x=" + x.string()}, {});
      }
  }
  // Malformed inputs.
  const std::vector<Case> npys = all_npy_cases();
  for (size_t i = 0; i < npys.size(); i += 17)
    run("input/" + npys[i].name, model, {"x=" + in.file(file_name_of(npys[i].name, ".npy"), npys[i].bytes).string()}, {});
  for (const Case& c : npy_header_cases())
    if (c.name.find("shape=") != std::string::npos)
      run("input/" + c.name, model, {"x=" + in.file(file_name_of(c.name, ".npy"), c.bytes).string()}, {});
  for (const fs::path& p : make_special_files(in.root / "special", ".npy")) run("input/" + p.filename().string(), model, {"x=" + p.string()}, {});
  for (const fs::path& p : make_special_files(in.root / "special", ".onnx")) run("model/" + p.filename().string(), p, {"x=" + x.string()}, {});
  // Input specifications and flags.
  for (const std::string& spec : {std::string("=") + x.string(), std::string("x="), std::string("x"), "x=" + x.string() + "=b",
                                  "y=" + x.string(), std::string("")})
    run("spec/'" + spec.substr(0, 12) + "'", model, {spec}, {});
  run("spec/twice", model, {"x=" + x.string(), "x=" + x.string()}, {});
  run("spec/none", model, {}, {});
  for (const char* device : {"bogus", "", "vulkan:99", "vulkan:-1"})
    run(std::string("flag/device=") + device, model, {"x=" + x.string()}, {"--device", device});
  for (const char* precision : {"fp64", "", "fp16"}) run(std::string("flag/precision=") + precision, model, {"x=" + x.string()}, {"--precision", precision});
  run("flag/unknown", model, {"x=" + x.string()}, {"--bogus"});
  {
    run("output_dir/is_a_file", model, {"x=" + x.string()}, {});
    CliCase& c = cases.back();
    set_flag(c, "--output-dir", (c.out_dir / c.out_file).string());
  }
  {
    run("output_dir/file_size_limit_64_bytes", model, {"x=" + x.string()}, {});
    cases.back().file_size_limit = 64;
  }

  const fs::path scratch = in.root / "scratch";
  fs::create_directories(scratch / "home");
  const std::vector<Outcome> outcomes = run_all(cases, scratch);
  for (size_t i = 0; i < first_malformed; ++i) EXPECT_EQ(outcomes[i].status, 0) << cases[i].name << ": " << outcomes[i].err;
  expect_contract(cases, outcomes, in.root, "volvox run");
}

// ---- inspect ----
TEST_F(Cli, InspectMalformedModels) {
  Inputs in = make_inputs();
  std::vector<CliCase> cases;
  auto inspect = [&](const std::string& name, const fs::path& file) {
    CliCase c;
    c.name = "inspect/" + name;
    c.args = {"inspect", file.string()};
    c.check_success = [](const CliCase&, const Outcome& o) { return o.out.empty() ? std::string("no output") : ""; };
    cases.push_back(std::move(c));
  };
  inspect("valid_weights", in.weights);
  inspect("valid_model", in.file("conv.onnx", conv_model()));
  const size_t first_malformed = cases.size();
  const std::vector<Case> tza = all_tza_cases(), onnx = all_onnx_cases();
  for (size_t i = 0; i < tza.size(); i += 5) inspect(tza[i].name, in.file(file_name_of(tza[i].name, ".tza"), tza[i].bytes));
  for (size_t i = 0; i < onnx.size(); i += 5) inspect(onnx[i].name, in.file(file_name_of(onnx[i].name, ".onnx"), onnx[i].bytes));
  for (const char* ext : {".tza", ".onnx"})
    for (const fs::path& p : make_special_files(in.root / "special", ext)) inspect(p.filename().string(), p);
  inspect("unknown_extension", in.file("model.bin", conv_model()));
  inspect("no_extension", in.file("model", conv_model()));

  const fs::path scratch = in.root / "scratch";
  fs::create_directories(scratch / "home");
  const std::vector<Outcome> outcomes = run_all(cases, scratch);
  for (size_t i = 0; i < first_malformed; ++i) EXPECT_EQ(outcomes[i].status, 0) << cases[i].name << ": " << outcomes[i].err;
  expect_contract(cases, outcomes, in.root, "volvox inspect");
}

// ---- compare ----
TEST_F(Cli, CompareMalformedImages) {
  Inputs in = make_inputs();
  std::vector<CliCase> cases;
  const fs::path ref = in.file("ref.pfm", encode_image(smooth_image(5, 3, 3, 21), ImageFormat::Pfm));
  const fs::path img = in.file("img.pfm", encode_image(smooth_image(5, 3, 3, 22), ImageFormat::Pfm));
  auto compare = [&](const std::string& name, const fs::path& reference, const fs::path& image,
                     const std::string& strip = "strip.png") {
    CliCase c;
    c.name = "compare/" + name;
    c.out_dir = in.out_dir();
    c.out_file = strip;
    c.args = {"compare", "--reference", reference.string(), image.string(), "--side-by-side", (c.out_dir / strip).string()};
    c.check_success = [](const CliCase& c, const Outcome& o) {
      if (o.out.find("PSNR") == std::string::npos) return std::string("no PSNR printed");
      return check_image_file(c.out_dir / c.out_file, 0, 3);
    };
    cases.push_back(std::move(c));
  };
  compare("valid", ref, img);
  const size_t first_malformed = cases.size();
  for (const auto& [c, ext] : sampled_image_cases(31)) {
    const fs::path p = in.file(file_name_of(c.name, ext), c.bytes);
    compare("image/" + c.name, ref, p);
  }
  for (const auto& [c, ext] : sampled_image_cases(131)) compare("reference/" + c.name, in.file(file_name_of(c.name, ext), c.bytes), img);
  compare("different_sizes", ref, in.file("img17x3.pfm", encode_image(smooth_image(17, 3, 3, 23), ImageFormat::Pfm)));
  compare("different_heights", ref, in.file("img5x4.pfm", encode_image(smooth_image(5, 4, 3, 24), ImageFormat::Pfm)));
  compare("nonfinite", ref, in.file("nf.pfm", encode_image(nonfinite_image(5, 3, 3), ImageFormat::Pfm)));
  for (const fs::path& p : make_special_files(in.root / "special", ".pfm")) {
    compare("image/" + p.filename().string(), ref, p);
    compare("reference/" + p.filename().string(), p, img);
  }
  for (const char* strip : {"strip.txt", "strip", "strip.exr"}) compare(std::string("output/") + strip, ref, img, strip);
  {
    compare("output/file_size_limit_64_bytes", ref, img);
    cases.back().file_size_limit = 64;
  }

  const fs::path scratch = in.root / "scratch";
  fs::create_directories(scratch / "home");
  const std::vector<Outcome> outcomes = run_all(cases, scratch);
  for (size_t i = 0; i < first_malformed; ++i) EXPECT_EQ(outcomes[i].status, 0) << cases[i].name << ": " << outcomes[i].err;
  expect_contract(cases, outcomes, in.root, "volvox compare");
}

}  // namespace
}  // namespace vx::robust
