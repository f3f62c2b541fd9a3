// The op table: every case of every op, declared one file per op or op family
// (tests/ops/cases_<family>.cpp) with VX_OP_CASES, collected here in one list that the GoogleTest
// table (op_table_test.cpp) and the speed mode (bench/op_table_bench.cpp) both read.
//
//   VX_OP_CASES(trilu) {
//     cases.add(OpCase("Trilu", "upper_k2").in(f32({2, 3, 5, 4})).in(scalar(2, DType::i64)).attr("upper", int64_t(1)));
//   }
#pragma once
#include <string>
#include <vector>

#include "ops/op_case.h"

namespace vx::optable {

class CaseList {
 public:
  void add(OpCase c) { cases_.push_back(std::move(c)); }
  const std::vector<OpCase>& cases() const { return cases_; }

 private:
  std::vector<OpCase> cases_;
};

using CaseFamily = void (*)(CaseList& cases);
// Called from VX_OP_CASES at static initialisation; the families run on the first all_cases().
bool register_case_family(const char* name, CaseFamily family);

// Every case, sorted by id; aborts naming the duplicates when two cases share an id.
const std::vector<OpCase>& all_cases();

// One test of the table: a case on one backend.
struct CaseOnBackend {
  const OpCase* op_case = nullptr;
  Backend backend = Backend::cpu_reference;
  std::string id() const { return op_case->id() + "_" + backend_id(backend); }
};
// Every case on every backend that applies: all four, less what the case skips, and `cpu` only for
// ops that have a CPU kernel besides the reference one (elsewhere it would be the oracle again).
std::vector<CaseOnBackend> all_case_backends();

// Ops with a registered CPU kernel of priority > 0 ("domain.op" outside ai.onnx).
std::vector<std::string> ops_with_fast_cpu_kernels();
bool has_fast_cpu_kernel(const std::string& op, const std::string& domain);

}  // namespace vx::optable

#define VX_OP_CASES(tag)                                                                       \
  static void vx_op_cases_##tag(::vx::optable::CaseList& cases);                               \
  [[maybe_unused]] static const bool vx_op_cases_registered_##tag =                           \
      ::vx::optable::register_case_family(#tag, &vx_op_cases_##tag);                           \
  static void vx_op_cases_##tag(::vx::optable::CaseList& cases)
