// Typed node attributes (ONNX's attribute kinds): int, float, string, tensor, lists, and graphs (the
// bodies of If, Loop and Scan, shared and never changed once imported).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"

namespace vx {

class Graph;
using GraphAttribute = std::shared_ptr<const Graph>;

using Attribute = std::variant<int64_t, float, std::string, Tensor, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, GraphAttribute>;

class Attributes {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, Attribute value) { values_[name] = std::move(value); }
  void erase(const std::string& name) { values_.erase(name); }
  const std::map<std::string, Attribute>& all() const { return values_; }

  // Typed getters: the fallback when absent; an error naming the attribute when the type differs.
  int64_t get_int(const std::string& name, int64_t fallback) const { return get_or<int64_t>(name, fallback); }
  float get_float(const std::string& name, float fallback) const { return get_or<float>(name, fallback); }
  std::string get_string(const std::string& name, const std::string& fallback) const {
    return get_or<std::string>(name, fallback);
  }
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& fallback = {}) const {
    return get_or<std::vector<int64_t>>(name, fallback);
  }
  std::vector<float> get_floats(const std::string& name, const std::vector<float>& fallback = {}) const {
    return get_or<std::vector<float>>(name, fallback);
  }
  std::vector<std::string> get_strings(const std::string& name,
                                       const std::vector<std::string>& fallback = {}) const {
    return get_or<std::vector<std::string>>(name, fallback);
  }
  Tensor get_tensor(const std::string& name) const { return get_or<Tensor>(name, Tensor()); }
  // Null when absent.
  GraphAttribute get_graph(const std::string& name) const { return get_or<GraphAttribute>(name, nullptr); }

 private:
  template <class T>
  T get_or(const std::string& name, const T& fallback) const {
    auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    const T* v = std::get_if<T>(&it->second);
    VX_CHECK(v != nullptr, InvalidFile, "attribute '", name, "' has an unexpected type");
    return *v;
  }

  std::map<std::string, Attribute> values_;
};

}  // namespace vx
