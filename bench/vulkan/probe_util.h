// What the Vulkan probes (bench/vulkan/*_probe.cpp) share: their flags, their SPIR-V read from
// beside the binary, and the median of their timings.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace vx::probe {

// `--name N`, N clamped to [min, max].
struct NumberFlag {
  const char* name;
  uint32_t* value;
  unsigned long min, max;
};

// Parses `--name N` pairs and `--spv-dir DIR` (default: the executable's folder). A flag it does
// not know or a value that is not a number: one line on stderr, false.
inline bool parse_flags(int argc, char** argv, std::initializer_list<NumberFlag> flags, std::string& spv_dir) {
  for (int i = 1; i < argc; i += 2) {
    const std::string name = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "error: %s needs a value\n", name.c_str());
      return false;
    }
    if (name == "--spv-dir") {
      spv_dir = argv[i + 1];
      continue;
    }
    const NumberFlag* flag = nullptr;
    for (const NumberFlag& f : flags)
      if (name == std::string("--") + f.name) flag = &f;
    if (!flag) {
      std::fprintf(stderr, "error: unknown flag %s\n", name.c_str());
      return false;
    }
    const std::string text = argv[i + 1];
    if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos) {
      std::fprintf(stderr, "error: %s takes a whole number, not '%s'\n", name.c_str(), text.c_str());
      return false;
    }
    *flag->value = uint32_t(std::clamp(std::stoul(text), flag->min, flag->max));
  }
  if (spv_dir.empty()) spv_dir = std::filesystem::read_symlink("/proc/self/exe").parent_path().string();
  return true;
}

inline std::vector<uint32_t> read_spirv(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::streamsize bytes = f.tellg();
  if (bytes <= 0 || bytes % 4 != 0 || bytes > (16 << 20)) throw std::runtime_error("not SPIR-V: " + path);
  std::vector<uint32_t> words(size_t(bytes) / 4);
  f.seekg(0);
  f.read(reinterpret_cast<char*>(words.data()), bytes);
  return words;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace vx::probe
