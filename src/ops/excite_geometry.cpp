#include "ops/excite_geometry.h"

#include "core/error.h"

namespace vx {

ExciteExtents excite_extents(const Shape& x, const Shape& p, const Shape& w1, const Shape* b1, const Shape& w2,
                             const Shape* b2, const Shape* residual, const std::string& what) {
  VX_CHECK(x.rank() >= 3, InvalidArgument, what, ": X ", x.str(), " must have rank >= 3");
  VX_CHECK(w1.rank() >= 1, InvalidArgument, what, ": W1 must have rank >= 1");
  ExciteExtents e{x[0], x[1], 1, w1[0]};
  for (size_t a = 2; a < x.rank(); ++a) e.pixels *= x[a];
  // Each operand: `lead` x `rest` values, its first axis `lead` (trailing 1x1 axes allowed).
  auto fits = [&](const Shape& s, int64_t lead, int64_t rest, const char* name) {
    VX_CHECK(s.rank() >= 1 && s[0] == lead && s.numel() == lead * rest, InvalidArgument, what, ": ", name, " ", s.str(),
             " does not fit X ", x.str(), " and ", e.squeezed, " squeezed channels");
  };
  fits(p, e.batch, e.channels, "P");
  fits(w1, e.squeezed, e.channels, "W1");
  fits(w2, e.channels, e.squeezed, "W2");
  if (b1) fits(*b1, e.squeezed, 1, "B1");
  if (b2) fits(*b2, e.channels, 1, "B2");
  VX_CHECK(!residual || *residual == x, InvalidArgument, what, ": residual ", residual ? residual->str() : "",
           " must have X's shape ", x.str());
  return e;
}

}  // namespace vx
