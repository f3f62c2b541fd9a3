// One row of the op table: a single node (op, domain, attributes, opset), its inputs (shape, dtype,
// runtime or constant, a value generator with a fixed seed), how many outputs it has, the tolerance
// per precision, and which backends must run the node themselves. The table runs every case on
// every backend (op_backend.h) and compares each with the CPU reference kernels (the oracle).
//
//   cases.add(OpCase("Add", "broadcast")
//                 .in(f32({1, 3, 5, 7}))
//                 .in(f32({3, 1, 7}))
//                 .scale_last(2));                 // --scale K multiplies the last 2 axes by K
//   cases.add(OpCase("GridSample", "modes")       // 3 x 2 variants, run by one test
//                 .in(f32({2, 3, 5, 7})).in(f32({2, 4, 6, 2}, -1.4f, 1.4f))
//                 .sweep("mode", {std::string("bilinear"), std::string("nearest"), std::string("bicubic")})
//                 .sweep("align_corners", {int64_t(0), int64_t(1)}));
//   cases.add(OpCase("Add", "int64")
//                 .in(ints({2, 3, 5}, -9, 9, DType::i64)).in(ints({3, 1}, -9, 9, DType::i64))
//                 .may_fall_back(kVulkan));        // int64 maths is a shape computation: CPU by design
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attribute.h"
#include "core/tensor.h"

namespace vx::optable {

// ---------------- backends ----------------

enum class Backend { cpu_reference, cpu, vulkan_f32, vulkan_f16 };
inline constexpr Backend kAllBackends[] = {Backend::cpu_reference, Backend::cpu, Backend::vulkan_f32,
                                           Backend::vulkan_f16};
// "cpu-reference", "cpu", "vulkan-f32", "vulkan-f16" (what the bench prints and --backends takes).
const char* backend_name(Backend b);
// The same with '_' for '-' (GoogleTest names).
std::string backend_id(Backend b);

// A set of backends (bit i = Backend i).
class Backends {
 public:
  constexpr Backends() = default;
  constexpr Backends(Backend b) : bits_(1u << unsigned(b)) {}
  constexpr Backends operator|(Backends o) const { return from_bits(bits_ | o.bits_); }
  constexpr Backends operator-(Backends o) const { return from_bits(bits_ & ~o.bits_); }
  constexpr bool has(Backend b) const { return (bits_ >> unsigned(b)) & 1u; }
  static constexpr Backends all() { return from_bits(0xfu); }
  static constexpr Backends none() { return {}; }

 private:
  static constexpr Backends from_bits(unsigned bits) {
    Backends s;
    s.bits_ = bits;
    return s;
  }
  unsigned bits_ = 0;
};
inline constexpr Backends kVulkan = Backends(Backend::vulkan_f32) | Backend::vulkan_f16;

// |got - expected| <= atol + rtol * |expected| + peak * max|expected of that output| per element;
// integers and bools always exact. `peak` is for accumulations whose error grows with the largest
// term (float against the reference's double), as the old fast-path tests measured.
struct CaseTolerance {
  double rtol = 0, atol = 0, peak = 0;
};

// ---------------- inputs ----------------

// Makes an input's value from its shape, dtype and seed (the same on every machine).
using Generator = std::function<Tensor(const Shape& shape, DType dtype, uint64_t seed)>;

struct InputSpec {
  enum class Kind { runtime, constant, omitted } kind = Kind::runtime;
  Shape shape;
  DType dtype = DType::f32;
  Generator generate;
  bool fixed = false;  // explicit values: never scaled
  // Multiplied by --scale (negative: from the end; extents of 1 stay, so broadcasting still holds);
  // unset: the case's scale_axes.
  std::optional<std::vector<int>> scaled_axes;

  InputSpec& constant() {
    kind = Kind::constant;
    return *this;
  }
  InputSpec& scaled(std::vector<int> axes) {
    scaled_axes = std::move(axes);
    return *this;
  }
};

// Uniform floats in [lo, hi).
InputSpec f32(Shape shape, float lo = -1.0f, float hi = 1.0f);
// Uniform integers in [lo, hi] of `dtype`.
InputSpec ints(Shape shape, int lo, int hi, DType dtype = DType::i32);
InputSpec bools(Shape shape);
// Fixed values (row-major), converted to `dtype`.
InputSpec values(Shape shape, std::vector<double> v, DType dtype = DType::f32);
InputSpec scalar(double v, DType dtype = DType::f32);
InputSpec i64s(std::vector<int64_t> v);  // a 1-D int64 tensor (axes, shapes, pads)
InputSpec omitted();
// `base` with some elements overwritten (flat index, value): ties, zeros, special values.
InputSpec patched(InputSpec base, std::vector<std::pair<int64_t, double>> at);
// Any other value: `fn` makes it from the shape, dtype and seed (index patterns, masks, tokens).
InputSpec custom(Shape shape, DType dtype, Generator fn);

// ---------------- the case ----------------

class OpCase;
// One variation of a case: a label ("mode=nearest", "4d_by_3d") and the edit that makes it.
struct Variant {
  std::string label;
  std::function<void(OpCase&)> edit;
};

class OpCase {
 public:
  OpCase(std::string op, std::string name) : op_(std::move(op)), name_(std::move(name)) {}

  // Builders. in() adds inputs in the node's order; the rest may come in any order.
  OpCase& in(InputSpec input) {
    inputs_.push_back(std::move(input));
    return *this;
  }
  // Replaces every input (for variants that change shapes or types).
  OpCase& with_inputs(std::vector<InputSpec> inputs) {
    inputs_ = std::move(inputs);
    return *this;
  }
  OpCase& attr(const std::string& key, Attribute value) {
    attrs_.set(key, std::move(value));
    return *this;
  }
  OpCase& domain(std::string d) {
    domain_ = std::move(d);
    return *this;
  }
  OpCase& opset(int64_t v) {
    opset_ = v;
    return *this;
  }
  OpCase& outputs(size_t n) {
    outputs_ = n;
    return *this;
  }
  // Output shapes (and types) declared in the graph, as an imported model declares them (else
  // shape inference or an observing run finds them; single_node starts every output as f32).
  OpCase& declare_outputs(std::vector<Shape> shapes) {
    declared_outputs_.clear();
    for (Shape& s : shapes) declared_outputs_.push_back({std::move(s), DType::f32, true});
    return *this;
  }
  OpCase& declare_output(size_t k, Shape shape, DType dtype) {
    if (declared_outputs_.size() <= k) declared_outputs_.resize(k + 1);
    declared_outputs_[k] = {std::move(shape), dtype, true};
    return *this;
  }
  OpCase& seed(uint64_t s) {
    seed_ = s;
    return *this;
  }
  OpCase& tol_f32(CaseTolerance t) {
    tol_f32_ = t;
    return *this;
  }
  OpCase& tol_f16(CaseTolerance t) {
    tol_f16_ = t;
    return *this;
  }
  OpCase& tol_cpu(CaseTolerance t) {
    tol_cpu_ = t;
    return *this;
  }
  // Backends that may run the node elsewhere (a Vulkan op declines, a fast CPU kernel does not
  // apply); say why in a comment. Every other backend must run the node natively or fail.
  OpCase& may_fall_back(Backends b) {
    may_fall_back_ = may_fall_back_ | b;
    return *this;
  }
  // Backends the case is not run on at all (e.g. fp16 storage would change an integer-valued
  // result's length); say why in a comment.
  OpCase& skip(Backends b) {
    skipped_ = skipped_ | b;
    return *this;
  }
  // Integer tensors only: fp16 storage changes nothing, so vulkan-f16 would repeat vulkan-f32.
  OpCase& integers_only() { return skip(Backend::vulkan_f16); }
  // The kernel variant the backend must pick (a prefix: "onednn", "tiled+vecA", "folded").
  OpCase& expect_variant(Backend b, std::string prefix) {
    variants_[b] = std::move(prefix);
    return *this;
  }
  // Environment variables set while the case runs (e.g. VOLVOX_VK_CONV=gemm forces a conv kernel).
  OpCase& env(std::string name, std::string value) {
    env_[std::move(name)] = std::move(value);
    return *this;
  }
  // Hand-computed outputs the reference must produce (checked on cpu-reference at 1e-6).
  OpCase& expect(std::vector<Tensor> outputs) {
    expected_ = std::move(outputs);
    return *this;
  }
  // --scale K multiplies these axes of every input that has them (negative: from the end), unless
  // the input says otherwise (InputSpec::scaled) or has fixed values.
  OpCase& scale_last(int n);
  OpCase& scale_axes(std::vector<int> axes) {
    scale_axes_ = std::move(axes);
    return *this;
  }

  // Variants that the same test runs one after another, each named when it fails: the cartesian
  // product of every sweep() and variants() axis. On lavapipe each test is a process that pays
  // ~0.4 s of CPU to load the driver and the validation layer, so a case sweeps its attributes
  // instead of becoming a dozen cases; the runs themselves take milliseconds.
  OpCase& sweep(const std::string& attr, std::vector<Attribute> values);
  OpCase& variants(std::vector<Variant> axis) {
    axes_.push_back(std::move(axis));
    return *this;
  }
  // The concrete cases, one per combination of the axes (the case itself when it has none), each
  // with its label ("mode=nearest, align_corners=1").
  std::vector<OpCase> expand() const;
  const std::string& variant_label() const { return label_; }
  size_t variant_count() const;

  const std::string& op() const { return op_; }
  const std::string& name() const { return name_; }
  const std::string& op_domain() const { return domain_; }
  const Attributes& attrs() const { return attrs_; }
  const std::vector<InputSpec>& inputs() const { return inputs_; }
  size_t num_outputs() const { return outputs_; }
  int64_t op_opset() const { return opset_; }
  struct DeclaredOutput {
    Shape shape;
    DType dtype = DType::f32;
    bool set = false;  // false: a gap left by declare_output of a later output
  };
  const std::vector<DeclaredOutput>& declared_outputs() const { return declared_outputs_; }
  uint64_t case_seed() const;  // explicit, or a hash of op and name (stable under reordering)
  // The tolerance for comparing `b` with the oracle.
  CaseTolerance tolerance(Backend b) const;
  bool may_fall_back_on(Backend b) const { return may_fall_back_.has(b); }
  bool skips(Backend b) const { return skipped_.has(b); }
  std::optional<std::string> expected_variant(Backend b) const;
  const std::map<std::string, std::string>& environment() const { return env_; }
  const std::vector<Tensor>& expected() const { return expected_; }
  // The axes of input i that --scale multiplies.
  std::vector<int> scaled_axes(size_t i) const;
  bool scalable() const;
  // "<op>_<name>" with every character outside [A-Za-z0-9_] replaced by '_' ("vx.Gelu" -> "vx_Gelu").
  std::string id() const;

 private:
  std::string op_, name_, domain_;
  Attributes attrs_;
  std::vector<InputSpec> inputs_;
  size_t outputs_ = 1;
  int64_t opset_ = 18;
  std::vector<DeclaredOutput> declared_outputs_;
  std::optional<uint64_t> seed_;
  std::optional<CaseTolerance> tol_f32_, tol_f16_, tol_cpu_;
  Backends may_fall_back_, skipped_;
  std::map<Backend, std::string> variants_;
  std::map<std::string, std::string> env_;
  std::vector<Tensor> expected_;
  std::vector<int> scale_axes_;
  std::vector<std::vector<Variant>> axes_;
  std::string label_;
};

// "axis=-1", "mode=nearest", "axes=[0, 2]" (sweep labels).
std::string attribute_str(const Attribute& value);
// A variant that replaces every input.
Variant inputs_variant(std::string label, std::vector<InputSpec> inputs);
// Two variants: the case as declared, and with its random float data as int32 in [-1000, 1000]
// and its fixed float values (fill values) as int32 (data movement must round-trip integers).
std::vector<Variant> float_and_int32_data();

}  // namespace vx::optable
