// shape_key: one string per set of input shapes, both the plan caches' key and how errors (the
// memory limit's) name the shapes, so it must be readable and tell different shapes apart.
#include <gtest/gtest.h>

#include <set>

#include "plan/plan.h"

namespace vx {
namespace {

TEST(ShapeKey, NamesEveryInputReadably) {
  EXPECT_EQ(shape_key({{"x", Shape({1, 3, 224, 224})}, {"mask", Shape({1, 224})}}), "mask=1x224, x=1x3x224x224");
  EXPECT_EQ(shape_key({{"x", Shape({262144})}}), "x=262144");
  EXPECT_EQ(shape_key({{"s", Shape()}}), "s=scalar");
  EXPECT_EQ(shape_key({}), "");
}

TEST(ShapeKey, DistinctShapesGetDistinctKeys) {
  const std::vector<std::map<std::string, Shape>> sets = {
      {{"x", Shape()}},          {{"x", Shape({0})}},     {{"x", Shape({1})}},
      {{"x", Shape({1, 1})}},    {{"x", Shape({1, 23})}}, {{"x", Shape({12, 3})}},
      {{"x", Shape({123})}},     {{"y", Shape({1})}},     {{"x", Shape({1})}, {"y", Shape({1})}},
  };
  std::set<std::string> keys;
  for (const auto& s : sets) keys.insert(shape_key(s));
  EXPECT_EQ(keys.size(), sets.size());
}

}  // namespace
}  // namespace vx
