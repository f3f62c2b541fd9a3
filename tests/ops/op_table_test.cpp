// The op table as GoogleTest: one value-parameterised test over (case, backend), so that ctest
// lists OpTable/Op.Matches/<op>_<case>_<backend> and a failure names the op, the case and the
// backend. What each backend is judged on: op_backend.h. The cases: tests/ops/cases_*.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>

#include "ops/op_backend.h"
#include "ops/op_table.h"

namespace vx::optable {

// GoogleTest prints parameters in its listing; the id is what a reader wants to see.
void PrintTo(const CaseOnBackend& p, std::ostream* os) { *os << p.id(); }

namespace {

class Op : public ::testing::TestWithParam<CaseOnBackend> {};

TEST_P(Op, Matches) {
  const OpCase& c = *GetParam().op_case;
  const Backend backend = GetParam().backend;
  const CheckOutcome outcome = check_case(c, backend);
  switch (outcome.status) {
    case CheckOutcome::Status::skipped:
      GTEST_SKIP() << backend_name(backend) << ": " << outcome.message;
    case CheckOutcome::Status::failed:
      FAIL() << c.op() << " case '" << c.name() << "' on " << backend_name(backend) << ": " << outcome.message;
    case CheckOutcome::Status::passed:
      // An allowed fallback is still reported: on the console and in the XML report.
      if (!outcome.message.empty()) {
        std::printf("[   NOTE   ] %s\n", outcome.message.c_str());
        RecordProperty("note", outcome.message);
      }
      break;
  }
}

INSTANTIATE_TEST_SUITE_P(OpTable, Op, ::testing::ValuesIn(all_case_backends()),
                         [](const ::testing::TestParamInfo<CaseOnBackend>& info) { return info.param.id(); });

}  // namespace
}  // namespace vx::optable
