// Replays fuzz inputs without libFuzzer: the driver main of the fuzz_<name>_replay executables that
// every build makes (gcc included) and ctest runs. Each argument is a file or a folder (walked
// recursively); every regular file is passed once to LLVMFuzzerTestOneInput. Exit status 0 when
// all ran, 1 when an argument is missing or holds no file at all (a corpus that vanished must not
// pass), when a target throws, or when one input runs past the per-input time limit. Crashes and
// sanitizer reports end the process on their own; the file being run is printed first.
//
//   fuzz_tza_replay tests/fuzz/corpus/fuzz_tza tests/data/tza_corrupt
//   VOLVOX_FUZZ_INPUT_SECONDS=60 fuzz_image_replay crash-1234   (the default limit is 30 s)
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

// The sanitizer runtime (only linked into sanitizer builds) reports the input on its way out too.
#if defined(__SANITIZE_ADDRESS__)
#define VX_HAVE_SANITIZER_INTERFACE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VX_HAVE_SANITIZER_INTERFACE 1
#endif
#endif
#ifdef VX_HAVE_SANITIZER_INTERFACE
#include <sanitizer/common_interface_defs.h>
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

// The input being run, for the messages of the signal handlers (async-signal-safe: write(2) only).
char g_current[4096] = "";

void write_stderr(const char* s) {
  ssize_t ignored = write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}

void report_current(const char* what) {
  write_stderr("fuzz replay: ");
  write_stderr(what);
  write_stderr(" on input ");
  write_stderr(g_current);
  write_stderr("\n");
}

void on_fatal_signal(int sig) {
  report_current(sig == SIGALRM ? "HANG (per-input time limit passed)" : "CRASH (fatal signal)");
  if (sig == SIGALRM) _exit(1);
  signal(sig, SIG_DFL);
  raise(sig);
}

#ifdef VX_HAVE_SANITIZER_INTERFACE
void on_sanitizer_death() { report_current("sanitizer report"); }
#endif

bool read_file(const std::filesystem::path& path, std::vector<uint8_t>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
    return 1;
  }
  unsigned seconds = 30;
  if (const char* env = std::getenv("VOLVOX_FUZZ_INPUT_SECONDS")) seconds = unsigned(std::max(1, std::atoi(env)));
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) signal(sig, on_fatal_signal);
#ifdef VX_HAVE_SANITIZER_INTERFACE
  __sanitizer_set_death_callback(on_sanitizer_death);
#endif

  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      size_t before = files.size();
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
      if (files.size() == before) {
        std::fprintf(stderr, "fuzz replay: %s holds no file\n", argv[i]);
        return 1;
      }
    } else if (std::filesystem::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "fuzz replay: %s is neither a file nor a folder\n", argv[i]);
      return 1;
    }
  }
  std::sort(files.begin(), files.end());  // the same order on every machine

  std::vector<uint8_t> bytes;
  for (const auto& file : files) {
    if (!read_file(file, bytes)) {
      std::fprintf(stderr, "fuzz replay: cannot read %s\n", file.c_str());
      return 1;
    }
    std::snprintf(g_current, sizeof g_current, "%s", file.c_str());
    // An exact-size heap copy (new[0] for an empty file), so that AddressSanitizer sees a read one
    // byte past the input.
    std::unique_ptr<uint8_t[]> data(new uint8_t[bytes.size()]);
    if (!bytes.empty()) std::memcpy(data.get(), bytes.data(), bytes.size());
    alarm(seconds);
    try {
      LLVMFuzzerTestOneInput(data.get(), bytes.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz replay: uncaught exception on input %s: %s\n", file.c_str(), e.what());
      return 1;
    } catch (...) {
      std::fprintf(stderr, "fuzz replay: uncaught non-standard exception on input %s\n", file.c_str());
      return 1;
    }
    alarm(0);
  }
  std::printf("fuzz replay: %zu inputs ran, none failed\n", files.size());
  return 0;
}
