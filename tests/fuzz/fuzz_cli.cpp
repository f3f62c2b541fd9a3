// Fuzzes the command line: the input is split into argv words at NUL or newline bytes, "volvox" is
// put in front, and run_cli parses and validates every flag without reading a file or running
// anything (validate_only). It must return 0 or 1 and never throw; any other status, exception,
// crash or sanitizer report is a bug. A corpus file is thus one word per line:
//   denoise
//   --color
//   c.exr
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The usage text of --help would flood the output; errors (one line each) stay on stderr.
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> words{"volvox"};
  std::string word;
  for (size_t i = 0; i < size; ++i) {
    const char c = char(data[i]);
    if (c == '\0' || c == '\n') {
      words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  // A trailing separator ends the last word; it does not add an empty one.
  if (!word.empty()) words.push_back(word);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int status = -1;
  try {
    status = vx::cli::run_cli(int(words.size()), argv.data(), /*validate_only=*/true);
  } catch (...) {
    std::fputs("fuzz_cli: run_cli threw\n", stderr);
    std::abort();
  }
  if (status != 0 && status != 1) {
    std::fprintf(stderr, "fuzz_cli: run_cli returned %d\n", status);
    std::abort();
  }
  return 0;
}
