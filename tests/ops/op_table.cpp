#include "ops/op_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "backends/cpu/kernel_registry.h"

namespace vx::optable {
namespace {

std::vector<std::pair<const char*, CaseFamily>>& families() {
  static std::vector<std::pair<const char*, CaseFamily>> all;
  return all;
}

std::vector<OpCase> collect_cases() {
  CaseList list;
  for (const auto& [name, family] : families()) family(list);
  std::vector<OpCase> cases = list.cases();
  std::stable_sort(cases.begin(), cases.end(), [](const OpCase& a, const OpCase& b) { return a.id() < b.id(); });
  // Test names come from ids: a duplicate would make GoogleTest abort with a less helpful message.
  bool duplicates = false;
  for (size_t i = 1; i < cases.size(); ++i)
    if (cases[i].id() == cases[i - 1].id()) {
      std::fprintf(stderr, "op table: two cases named %s\n", cases[i].id().c_str());
      duplicates = true;
    }
  if (duplicates) std::abort();
  return cases;
}

}  // namespace

bool register_case_family(const char* name, CaseFamily family) {
  families().emplace_back(name, family);
  return true;
}

const std::vector<OpCase>& all_cases() {
  static const std::vector<OpCase> cases = collect_cases();
  return cases;
}

bool has_fast_cpu_kernel(const std::string& op, const std::string& domain) {
  for (const cpu::KernelEntry* e : cpu::find_kernels(op, domain))
    if (e->priority > 0) return true;
  return false;
}

std::vector<std::string> ops_with_fast_cpu_kernels() {
  std::vector<std::string> out;
  for (const std::string& qualified : cpu::registered_ops()) {
    // registered_ops() spells custom domains "domain.op"; ours ("vx.FusedConv") are op names.
    std::string op = qualified, domain;
    if (cpu::find_kernels(op).empty()) {
      const size_t dot = qualified.rfind('.');
      domain = qualified.substr(0, dot);
      op = qualified.substr(dot + 1);
    }
    if (has_fast_cpu_kernel(op, domain)) out.push_back(qualified);
  }
  return out;
}

std::vector<CaseOnBackend> all_case_backends() {
  std::vector<CaseOnBackend> out;
  for (const OpCase& c : all_cases())
    for (Backend b : kAllBackends) {
      if (c.skips(b)) continue;
      if (b == Backend::cpu && !has_fast_cpu_kernel(c.op(), c.op_domain())) continue;
      out.push_back({&c, b});
    }
  return out;
}

}  // namespace vx::optable
