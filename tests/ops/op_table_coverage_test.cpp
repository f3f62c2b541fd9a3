// Every op the Vulkan op registry can run and every op with a fast CPU kernel must have a case in
// the op table (tests/ops/cases_*.cpp): a new kernel without a case fails here, naming the op.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "backends/vulkan/kernels/op_kernel.h"
#include "ops/op_table.h"

namespace vx::optable {
namespace {

// Ops not in the table yet, each with the reason. The goal is an empty list (it is): add the op's
// cases, then remove it here.
const std::set<std::string> kNotYetInTheTable = {};

std::string qualified(const OpCase& c) { return c.op_domain().empty() ? c.op() : c.op_domain() + "." + c.op(); }

std::set<std::string> ops_in_the_table() {
  std::set<std::string> ops;
  for (const OpCase& c : all_cases()) ops.insert(qualified(c));
  return ops;
}

TEST(OpTableCoverage, EveryVulkanOpAndFastCpuKernelHasACase) {
  const std::set<std::string> covered = ops_in_the_table();
  std::set<std::string> wanted;
  for (const std::string& op : vk::registered_vulkan_ops()) wanted.insert(op);
  for (const std::string& op : ops_with_fast_cpu_kernels()) wanted.insert(op);
  std::string missing, stale;
  for (const std::string& op : wanted)
    if (!covered.count(op) && !kNotYetInTheTable.count(op)) missing += " " + op;
  for (const std::string& op : kNotYetInTheTable)
    if (covered.count(op) || !wanted.count(op)) stale += " " + op;
  EXPECT_TRUE(missing.empty()) << "ops with a Vulkan or fast CPU kernel but no case in tests/ops/cases_*.cpp:" << missing;
  EXPECT_TRUE(stale.empty()) << "ops in kNotYetInTheTable that have cases now (or no kernel): remove them:" << stale;
  size_t variants = 0;
  for (const OpCase& c : all_cases()) variants += c.variant_count();
  std::printf("op table: %zu cases (%zu variants) over %zu ops; %zu of the %zu ops with kernels still in the allow-list\n",
              all_cases().size(), variants, covered.size(), kNotYetInTheTable.size(), wanted.size());
}

}  // namespace
}  // namespace vx::optable
