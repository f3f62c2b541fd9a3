#include "ops/op_case.h"

#include <cctype>

#include "common/test_util.h"

namespace vx::optable {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::cpu_reference:
      return "cpu-reference";
    case Backend::cpu:
      return "cpu";
    case Backend::vulkan_f32:
      return "vulkan-f32";
    case Backend::vulkan_f16:
      return "vulkan-f16";
  }
  return "?";
}

std::string backend_id(Backend b) {
  std::string s = backend_name(b);
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

InputSpec f32(Shape shape, float lo, float hi) {
  InputSpec s;
  s.shape = std::move(shape);
  s.generate = [lo, hi](const Shape& sh, DType, uint64_t seed) { return test::random_tensor(sh, seed, lo, hi); };
  return s;
}

InputSpec ints(Shape shape, int lo, int hi, DType dtype) {
  InputSpec s;
  s.shape = std::move(shape);
  s.dtype = dtype;
  s.generate = [lo, hi](const Shape& sh, DType dt, uint64_t seed) { return test::random_int_tensor(sh, seed, lo, hi, dt); };
  return s;
}

InputSpec bools(Shape shape) {
  InputSpec s = ints(std::move(shape), 0, 1, DType::boolean);
  return s;
}

InputSpec values(Shape shape, std::vector<double> v, DType dtype) {
  InputSpec s;
  s.shape = std::move(shape);
  s.dtype = dtype;
  s.fixed = true;
  s.generate = [v = std::move(v)](const Shape& sh, DType dt, uint64_t) {
    Tensor t(dt, sh);
    VX_CHECK(size_t(t.numel()) == v.size(), InvalidArgument, "values(): ", v.size(), " values for shape ", sh.str());
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, v[size_t(i)]);
    return t;
  };
  return s;
}

InputSpec scalar(double v, DType dtype) { return values(Shape{}, {v}, dtype); }

InputSpec i64s(std::vector<int64_t> v) {
  std::vector<double> d(v.begin(), v.end());
  return values(Shape{int64_t(v.size())}, std::move(d), DType::i64);
}

InputSpec omitted() {
  InputSpec s;
  s.kind = InputSpec::Kind::omitted;
  return s;
}

InputSpec patched(InputSpec base, std::vector<std::pair<int64_t, double>> at) {
  base.generate = [inner = base.generate, at = std::move(at)](const Shape& sh, DType dt, uint64_t seed) {
    Tensor t = inner(sh, dt, seed);
    for (const auto& [i, v] : at)
      if (i < t.numel()) t.set(i, v);
    return t;
  };
  return base;
}

InputSpec custom(Shape shape, DType dtype, Generator fn) {
  InputSpec s;
  s.shape = std::move(shape);
  s.dtype = dtype;
  s.generate = std::move(fn);
  return s;
}

OpCase& OpCase::scale_last(int n) {
  scale_axes_.clear();
  for (int i = 1; i <= n; ++i) scale_axes_.push_back(-i);
  return *this;
}

OpCase& OpCase::sweep(const std::string& attr, std::vector<Attribute> values) {
  std::vector<Variant> axis;
  for (Attribute& v : values) {
    std::string label = attr + "=" + attribute_str(v);
    axis.push_back({std::move(label), [attr, v = std::move(v)](OpCase& c) { c.attr(attr, v); }});
  }
  return variants(std::move(axis));
}

size_t OpCase::variant_count() const {
  size_t n = 1;
  for (const auto& axis : axes_) n *= axis.size();
  return n;
}

std::vector<OpCase> OpCase::expand() const {
  OpCase base = *this;
  base.axes_.clear();
  std::vector<OpCase> out = {base};
  for (const auto& axis : axes_) {
    std::vector<OpCase> next;
    for (const OpCase& c : out)
      for (const Variant& v : axis) {
        OpCase e = c;
        v.edit(e);
        e.label_ += (e.label_.empty() ? "" : ", ") + v.label;
        next.push_back(std::move(e));
      }
    out = std::move(next);
  }
  return out;
}

std::string attribute_str(const Attribute& value) {
  struct Visitor {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(float v) const { return cat(v); }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(const Tensor& v) const { return cat("tensor ", v.shape().str()); }
    std::string operator()(const GraphAttribute&) const { return "graph"; }
    std::string operator()(const std::vector<int64_t>& v) const { return Shape(v).str(); }
    std::string operator()(const std::vector<float>& v) const {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + cat(v[i]);
      return s + "]";
    }
    std::string operator()(const std::vector<std::string>& v) const {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
      return s + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

Variant inputs_variant(std::string label, std::vector<InputSpec> inputs) {
  return {std::move(label), [inputs = std::move(inputs)](OpCase& c) { c.with_inputs(inputs); }};
}

std::vector<Variant> float_and_int32_data() {
  return {{"float", [](OpCase&) {}}, {"int32", [](OpCase& v) {
             std::vector<InputSpec> ins = v.inputs();
             for (InputSpec& in : ins) {
               if (in.kind == InputSpec::Kind::omitted || in.dtype != DType::f32) continue;
               if (in.fixed) {  // a fill value and the like: the data's type, its value truncated
                 in.dtype = DType::i32;
                 continue;
               }
               const InputSpec::Kind kind = in.kind;
               in = ints(in.shape, -1000, 1000);
               in.kind = kind;
             }
             v.with_inputs(ins);
           }}};
}

std::vector<int> OpCase::scaled_axes(size_t i) const {
  const InputSpec& in = inputs_.at(i);
  if (in.fixed || in.kind == InputSpec::Kind::omitted) return {};
  return in.scaled_axes ? *in.scaled_axes : scale_axes_;
}

bool OpCase::scalable() const {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (!scaled_axes(i).empty()) return true;
  return false;
}

uint64_t OpCase::case_seed() const {
  if (seed_) return *seed_;
  uint64_t h = 1469598103934665603ull;  // FNV-1a of "<op>/<name>"
  for (char c : op_ + "/" + name_) h = (h ^ uint8_t(c)) * 1099511628211ull;
  return h % 1000003;
}

CaseTolerance OpCase::tolerance(Backend b) const {
  switch (b) {
    case Backend::cpu_reference:
      return {0, 1e-6, 0};  // hand-computed values (expect())
    case Backend::cpu:
      // Float accumulation (oneDNN) against the reference's double: 1e-4 of the output's peak.
      return tol_cpu_.value_or(CaseTolerance{0, 0, 1e-4});
    case Backend::vulkan_f32:
      return tol_f32_.value_or(CaseTolerance{1e-5, 1e-6, 0});
    case Backend::vulkan_f16:
      // fp16 storage, fp32 maths, against the reference on fp16-rounded inputs.
      return tol_f16_.value_or(CaseTolerance{1e-2, 1e-3, 0});
  }
  return {};
}

std::optional<std::string> OpCase::expected_variant(Backend b) const {
  auto it = variants_.find(b);
  if (it == variants_.end()) return std::nullopt;
  return it->second;
}

std::string OpCase::id() const {
  std::string s = op_ + "_" + name_;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return s;
}

}  // namespace vx::optable
