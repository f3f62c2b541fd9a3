#include "denoise/builtin_weights.h"

#include <mutex>

namespace vx::denoise {
namespace {

std::vector<BuiltinWeights>& registry() {
  static std::vector<BuiltinWeights> table;
  return table;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

bool register_builtin_weights(const BuiltinWeights* table, size_t count) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().insert(registry().end(), table, table + count);
  return true;
}

std::span<const std::byte> find_builtin_weights(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (const BuiltinWeights& w : registry())
    if (name == w.name) return {w.data, w.size};
  return {};
}

std::vector<std::string> builtin_weights_names() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> names;
  for (const BuiltinWeights& w : registry()) names.push_back(w.name);
  return names;
}

}  // namespace vx::denoise
