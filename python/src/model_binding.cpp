// volvox._volvox.Model: an ONNX model on a device, run as one call (set every input, execute, copy
// the outputs) with the GIL released. The Python InferenceSession (volvox/_session.py) builds ONNX
// Runtime's API on it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "arrays.h"
#include "device_call.h"
#include "volvox/volvox.h"

namespace volvox_python {
namespace {

// An input or output as the model file declares it (NodeArg in ONNX Runtime).
struct DeclaredValue {
  std::string name;
  VXDataType type = VX_TYPE_FLOAT32;
  std::vector<int64_t> dims;  // -1: free
  std::vector<std::string> dim_names;

  // (name, "tensor(float)", [3, "batch", None, ...]) as ONNX Runtime's NodeArg shows them.
  py::tuple as_python() const {
    py::list shape;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] >= 0) shape.append(dims[i]);
      else if (!dim_names[i].empty()) shape.append(dim_names[i]);
      else shape.append(py::none());
    }
    return py::make_tuple(name, onnx_type_name(type), shape);
  }
};

struct ProfileRow {
  std::string node, op, kernel;
  double milliseconds = 0;
};

// The C API's NumPy view of one input: the array kept alive while the engine reads it.
struct FeedValue {
  std::string name;
  VXDataType type;
  std::vector<int64_t> shape;
  py::array array;  // C-contiguous
};

class Model {
 public:
  Model(std::shared_ptr<DeviceHandle> device, const py::object& source) : device_(std::move(device)) {
    // bytes: the model itself, read in place (immutable, and `source` keeps it alive); else a path.
    const bool from_memory = py::isinstance<py::bytes>(source);
    char* bytes = nullptr;
    Py_ssize_t size = 0;
    if (from_memory) PyBytes_AsStringAndSize(source.ptr(), &bytes, &size);
    const std::string path = from_memory ? std::string() : std::string(py::str(source));
    device_->call([&](auto&& ok) {
      VXModel model = from_memory ? vxNewModelFromMemory(device_->get(), bytes, size_t(size))
                                  : vxNewModel(device_->get(), path.c_str());
      model_ = model;
      if (!ok()) return;
      inputs_ = declared(vxGetModelInputCount(model), vxGetModelInputInfo, vxGetModelInputName);
      outputs_ = declared(vxGetModelOutputCount(model), vxGetModelOutputInfo, vxGetModelOutputName);
    });
  }
  ~Model() { vxReleaseModel(model_); }

  py::list inputs() const { return as_python(inputs_); }
  py::list outputs() const { return as_python(outputs_); }

  void set_int(const std::string& name, int value) {
    device_->call([&](auto&&) {
      if (VXModel model = model_) vxSetModelInt(model, name.c_str(), value);
    });
    check_open();
  }

  // Runs the model on `feed` (name -> array) and returns ([outputs named by output_names, or all],
  // the per-node profile or None).
  py::tuple run(const py::dict& feed, const std::vector<std::string>& output_names, bool profile) {
    check_open();
    std::vector<FeedValue> values = feed_values(feed);
    std::vector<std::string> wanted = output_names;
    if (wanted.empty())
      for (const DeclaredValue& o : outputs_) wanted.push_back(o.name);
    for (const std::string& name : wanted)
      if (!declared_named(outputs_, name))
        raise_error(VX_ERROR_INVALID_ARGUMENT, "the model has no output '" + name + "' (outputs: " + names(outputs_) + ")");

    std::vector<HostTensor> results(wanted.size());
    std::vector<ProfileRow> rows;
    bool closed = false;
    device_->call([&](auto&& ok) {
      VXModel model = model_;
      if (!model) {
        closed = true;
        return;
      }
      for (const FeedValue& v : values) {
        vxSetModelInput(model, v.name.c_str(), v.type, v.shape.data(), v.shape.size(), v.array.data());
        if (!ok()) return;
      }
      vxExecuteModel(model);
      if (!ok()) return;
      for (size_t i = 0; i < wanted.size(); ++i) {
        const int64_t* shape = nullptr;
        size_t rank = 0;
        const void* data = nullptr;
        if (!vxGetModelOutput(model, wanted[i].c_str(), &results[i].type, &shape, &rank, &data)) return;
        results[i].shape.assign(shape, shape + rank);
        size_t bytes = element_size(results[i].type);
        for (int64_t d : results[i].shape) bytes *= size_t(d);
        const auto* first = static_cast<const uint8_t*>(data);
        results[i].bytes.assign(first, first + bytes);
      }
      for (size_t i = 0; profile && i < vxGetModelProfileCount(model); ++i) {
        const char *node = nullptr, *op = nullptr, *kernel = nullptr;
        double ms = 0;
        if (vxGetModelProfileEntry(model, i, &node, &op, &kernel, &ms)) rows.push_back({node, op, kernel, ms});
      }
    });
    if (closed) raise_closed();
    py::list arrays;
    for (HostTensor& t : results) arrays.append(to_array(std::move(t)));
    if (!profile) return py::make_tuple(arrays, py::none());
    py::list profile_rows;
    for (const ProfileRow& r : rows) profile_rows.append(py::make_tuple(r.node, r.op, r.kernel, r.milliseconds));
    return py::make_tuple(arrays, profile_rows);
  }

  // Frees the model now (later calls raise); the device goes when nothing else holds it.
  void close() {
    device_->call([&](auto&&) { vxReleaseModel(model_.exchange(nullptr)); });
  }
  bool closed() const { return model_ == nullptr; }
  const std::string& device_kind() const { return device_->kind(); }

 private:
  template <class InfoFn, class NameFn>
  std::vector<DeclaredValue> declared(size_t count, InfoFn info, NameFn name) const {
    std::vector<DeclaredValue> values(count);
    for (size_t i = 0; i < count; ++i) {
      const int64_t* dims = nullptr;
      const char* const* dim_names = nullptr;
      size_t rank = 0;
      if (!info(model_.load(), i, &values[i].type, &dims, &dim_names, &rank)) return {};
      values[i].name = name(model_.load(), i);
      values[i].dims.assign(dims, dims + rank);
      values[i].dim_names.assign(dim_names, dim_names + rank);
    }
    return values;
  }

  static py::list as_python(const std::vector<DeclaredValue>& values) {
    py::list list;
    for (const DeclaredValue& v : values) list.append(v.as_python());
    return list;
  }
  static const DeclaredValue* declared_named(const std::vector<DeclaredValue>& values, const std::string& name) {
    for (const DeclaredValue& v : values)
      if (v.name == name) return &v;
    return nullptr;
  }
  static std::string names(const std::vector<DeclaredValue>& values) {
    std::string s;
    for (const DeclaredValue& v : values) s += (s.empty() ? "'" : ", '") + v.name + "'";
    return s;
  }

  [[noreturn]] static void raise_closed() { raise_error(VX_ERROR_INVALID_ARGUMENT, "the session is closed"); }
  void check_open() const {
    if (!model_) raise_closed();
  }

  // Every declared input exactly once, each as a C-contiguous array of a type the model takes
  // (the C API checks it against the declaration, and the shape).
  std::vector<FeedValue> feed_values(const py::dict& feed) const {
    std::vector<FeedValue> values;
    for (const auto& [key, value] : feed) {
      const std::string name = py::str(key);
      const DeclaredValue* declared = declared_named(inputs_, name);
      if (!declared)
        raise_error(VX_ERROR_INVALID_ARGUMENT, "the model has no input '" + name + "' (inputs: " + names(inputs_) + ")");
      // asarray, not ascontiguousarray, which would make a scalar (rank 0) a rank-1 array.
      py::array array = py::module_::import("numpy").attr("asarray")(value, py::arg("order") = "C");
      const std::optional<VXDataType> type = data_type_of(array.dtype());
      if (!type || *type != declared->type)
        raise_error(VX_ERROR_INVALID_ARGUMENT, "input '" + name + "' has dtype " +
                                                   std::string(py::str(array.dtype())) + " but the model declares " +
                                                   onnx_type_name(declared->type));
      values.push_back({name, *type, std::vector<int64_t>(array.shape(), array.shape() + array.ndim()), array});
    }
    std::string missing;
    for (const DeclaredValue& d : inputs_)
      if (!feed.contains(py::str(d.name))) missing += (missing.empty() ? "'" : ", '") + d.name + "'";
    if (!missing.empty())
      raise_error(VX_ERROR_INVALID_ARGUMENT, "the input feed lacks " + missing + " (every input is needed on every run)");
    return values;
  }

  std::shared_ptr<DeviceHandle> device_;
  // Null once closed. Used under the device's lock; atomic for the early checks made outside it.
  std::atomic<VXModel> model_ = nullptr;
  std::vector<DeclaredValue> inputs_, outputs_;
};

}  // namespace

void bind_model(py::module_& m) {
  py::class_<Model>(m, "Model", "An ONNX model loaded on a device (the engine under volvox.InferenceSession).")
      .def(py::init<std::shared_ptr<DeviceHandle>, const py::object&>(), py::arg("device"), py::arg("source"),
           "Loads an ONNX file (a path) or model bytes onto `device`.")
      .def("inputs", &Model::inputs, "[(name, type, shape)] of the declared inputs")
      .def("outputs", &Model::outputs, "[(name, type, shape)] of the declared outputs")
      .def("set_int", &Model::set_int, py::arg("name"), py::arg("value"),
           "vxSetModelInt: 'precision' (0 auto, 1 fp32, 2 fp16), 'maxMemoryMB', 'profiling'")
      .def("run", &Model::run, py::arg("feed"), py::arg("output_names"), py::arg("profile"),
           "Runs on {name: array}; returns ([arrays], [(node, op, kernel, ms)] or None).")
      .def("close", &Model::close, "Frees the model; later calls raise.")
      .def_property_readonly("closed", &Model::closed)
      .def_property_readonly("device_kind", &Model::device_kind);
}

}  // namespace volvox_python
