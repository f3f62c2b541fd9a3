#include "backends/cpu/kernel_registry.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace vx::cpu {

namespace {
std::vector<KernelEntry>& entries() {
  static std::vector<KernelEntry> all;
  return all;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

void register_kernel(KernelEntry entry) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& all = entries();
  all.push_back(std::move(entry));
  std::stable_sort(all.begin(), all.end(), [](const KernelEntry& a, const KernelEntry& b) {
    if (a.domain != b.domain) return a.domain < b.domain;
    return a.op != b.op ? a.op < b.op : a.priority > b.priority;
  });
}

const KernelEntry* find_kernel(const Node& node, const Graph& graph) {
  for (const KernelEntry& e : entries())
    if (e.op == node.op && e.domain == node.domain && (!e.supports || e.supports(node, graph))) return &e;
  return nullptr;
}

const KernelEntry* find_reference_kernel(const std::string& op, const std::string& domain) {
  for (const KernelEntry& e : entries())
    if (e.op == op && e.domain == domain && e.priority == 0) return &e;
  return nullptr;
}

std::vector<const KernelEntry*> find_kernels(const std::string& op, const std::string& domain) {
  std::vector<const KernelEntry*> out;
  for (const KernelEntry& e : entries())
    if (e.op == op && e.domain == domain) out.push_back(&e);
  return out;
}

std::vector<std::string> registered_ops() {
  std::set<std::string> ops;
  for (const KernelEntry& e : entries()) ops.insert(e.domain.empty() ? e.op : e.domain + "." + e.op);
  return {ops.begin(), ops.end()};
}

}  // namespace vx::cpu
