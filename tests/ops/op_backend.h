// Runs a case of the op table on one backend and judges it against the oracle (the CPU reference
// kernels alone), through the test helpers of tests/common/vulkan_op_test_util.h:
//   cpu-reference  the oracle itself: it runs, gives the case's number of outputs with the shapes
//                  shape inference predicted, twice the same, and any hand-computed values
//   cpu            the registry's best kernel (oneDNN and other fast paths) against the oracle
//   vulkan-f32/16  the Vulkan executable at fp32 / fp16 storage against the oracle (at fp16 the
//                  oracle runs on the fp16-rounded inputs and constants, as the device sees them)
// A backend that does not run the node itself (a Vulkan op declined and the node fell back to the
// CPU; no fast CPU kernel accepted it) fails unless the case allows it (OpCase::may_fall_back).
#pragma once
#include <string>
#include <vector>

#include "common/vulkan_op_test_util.h"
#include "ops/op_case.h"

namespace vx::optable {

// The case as a one-node graph and its runtime inputs; `scale` multiplies the case's scaled axes.
test::SingleNodeCase build_case(const OpCase& c, int scale = 1);

// The same graph and inputs as the device sees them at fp16: float inputs and constants rounded.
test::SingleNodeCase rounded_to_fp16(const test::SingleNodeCase& sc);

// The oracle's outputs: every node on its reference (priority 0) kernel.
std::vector<Tensor> run_reference(const test::SingleNodeCase& sc);

struct CheckOutcome {
  enum class Status { passed, failed, skipped } status = Status::passed;
  std::string message;  // why it failed or was skipped; for a pass, notes (an allowed fallback)
};

// Runs every variant of `c` on `b` and compares (see above); a failure names the variants that
// failed. Never throws: errors become failures.
CheckOutcome check_case(const OpCase& c, Backend b);
// One concrete case (no variants left: OpCase::expand()).
CheckOutcome check_concrete_case(const OpCase& c, Backend b);

// |got - expected| per output as OpCase tolerances define it; "" when they match, else why not.
std::string compare_outputs(const std::vector<Tensor>& expected, const std::vector<Tensor>& got, CaseTolerance tol);

}  // namespace vx::optable
