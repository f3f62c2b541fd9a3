#include "ops/shape_fn.h"

#include <map>
#include <mutex>

namespace vx {

namespace {

std::map<std::string, ShapeFn>& shape_fns() {
  static std::map<std::string, ShapeFn> fns;
  return fns;
}
std::mutex& shape_fns_mutex() {
  static std::mutex m;
  return m;
}

// Custom domains get their own key space ("com.example::Op"), so they never shadow ONNX ops.
std::string shape_fn_key(const std::string& op, const std::string& domain) {
  return domain.empty() ? op : domain + "::" + op;
}

}  // namespace

void register_shape_fn(const std::string& op, ShapeFn fn, const std::string& domain) {
  std::lock_guard<std::mutex> lock(shape_fns_mutex());
  shape_fns()[shape_fn_key(op, domain)] = std::move(fn);
}

const ShapeFn* find_shape_fn(const std::string& op, const std::string& domain) {
  std::lock_guard<std::mutex> lock(shape_fns_mutex());
  auto it = shape_fns().find(shape_fn_key(op, domain));
  return it == shape_fns().end() ? nullptr : &it->second;
}

}  // namespace vx
