// volvox._volvox.Device and Filter: OIDN's device and filter over the C API. Images are NumPy
// arrays the filter reads and writes in place where their layout allows (float32 or float16,
// HxWx3 or HxWx4, channels adjacent, rows and pixels apart by positive strides); others are copied
// (an output back after execute). execute() runs without the GIL; the progress callback takes it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "device_call.h"
#include "volvox/volvox.h"

namespace volvox_python {
namespace {

// One image as the filter sees it: the caller's array, and the array the engine reads or writes
// (the same one unless the layout needed a copy).
struct BoundImage {
  py::array given;
  py::array engine;
  bool copy_back = false;  // an output denoised into a copy: copied into `given` after execute
};

// Whether the engine can address `a` in place: pixel (x, y) channel c at
// data + y * row_stride + x * pixel_stride + c * itemsize, strides positive and non-overlapping.
bool engine_can_address(const py::array& a) {
  const ssize_t item = a.itemsize();
  const ssize_t row = a.strides(0), pixel = a.strides(1), channel = a.strides(2);
  const auto address = reinterpret_cast<uintptr_t>(a.data());
  return channel == item && pixel >= a.shape(2) * item && row >= a.shape(1) * pixel && pixel % item == 0 &&
         row % item == 0 && address % uintptr_t(item) == 0;
}

class Filter {
 public:
  Filter(std::shared_ptr<DeviceHandle> device, const std::string& type) : device_(std::move(device)) {
    device_->call([&](auto&&) { filter_ = vxNewFilter(device_->get(), type.c_str()); });
  }
  ~Filter() { vxReleaseFilter(filter_); }

  void set_image(const std::string& name, const py::object& value) {
    if (!py::isinstance<py::array>(value))
      raise_error(VX_ERROR_INVALID_ARGUMENT, "image '" + name + "' must be a NumPy array, not " +
                                                 std::string(py::str(py::type::of(value).attr("__name__"))));
    py::array given = py::reinterpret_borrow<py::array>(value);
    const char kind = given.dtype().kind();
    const ssize_t item = given.itemsize();
    if (kind != 'f' || (item != 4 && item != 2))
      raise_error(VX_ERROR_INVALID_ARGUMENT, "image '" + name + "' must be float32 or float16, not " +
                                                 std::string(py::str(given.dtype())));
    if (given.ndim() != 3 || (given.shape(2) != 3 && given.shape(2) != 4) || given.shape(0) < 1 || given.shape(1) < 1)
      raise_error(VX_ERROR_INVALID_ARGUMENT,
                  "image '" + name + "' must be HxWx3 or HxWx4, not shape " + std::string(py::str(given.attr("shape"))));
    const bool output = name == "output";
    if (output && !given.writeable()) raise_error(VX_ERROR_INVALID_ARGUMENT, "image 'output' is read-only");
    BoundImage image{given, given, false};
    if (!engine_can_address(given)) {
      // A copy in the C layout: inputs now, outputs after execute.
      image.engine = py::module_::import("numpy").attr("ascontiguousarray")(given);
      image.copy_back = output;
    }
    const VXFormat format = item == 4 ? VX_FORMAT_FLOAT3 : VX_FORMAT_HALF3;
    void* data = image.engine.mutable_data();
    const size_t height = size_t(image.engine.shape(0)), width = size_t(image.engine.shape(1));
    const size_t pixel_stride = size_t(image.engine.strides(1)), row_stride = size_t(image.engine.strides(0));
    device_->call([&](auto&&) {
      vxSetFilterImage(filter_, name.c_str(), data, format, width, height, pixel_stride, row_stride);
    });
    images_[name] = std::move(image);
  }

  void unset_image(const std::string& name) {
    device_->call([&](auto&&) { vxUnsetFilterImage(filter_, name.c_str()); });
    images_.erase(name);
  }

  void set_bool(const std::string& name, bool value) {
    device_->call([&](auto&&) { vxSetFilterBool(filter_, name.c_str(), value); });
  }
  void set_int(const std::string& name, int value) {
    device_->call([&](auto&&) { vxSetFilterInt(filter_, name.c_str(), value); });
  }
  void set_float(const std::string& name, float value) {
    device_->call([&](auto&&) { vxSetFilterFloat(filter_, name.c_str(), value); });
  }
  void set_weights(const py::bytes& blob) {
    char* data = nullptr;
    Py_ssize_t size = 0;
    PyBytes_AsStringAndSize(blob.ptr(), &data, &size);
    device_->call([&](auto&&) { vxSetFilterWeights(filter_, data, size_t(size)); });  // copied
  }

  // fn(progress in [0, 1]) -> False cancels (execute then raises volvox.Cancelled); None clears it.
  void set_progress(const py::object& fn) {
    progress_ = fn;
    const bool on = !fn.is_none();
    device_->call([&](auto&&) { vxSetFilterProgressMonitorFunction(filter_, on ? &Filter::on_progress : nullptr, this); });
  }

  void commit() {
    device_->call([&](auto&&) { vxCommitFilter(filter_); });
  }

  void execute() {
    callback_error_.reset();
    Failure failure = device_->run([&](auto&&) { vxExecuteFilter(filter_); });
    // An exception in the callback cancelled the run: it is the cause, raised as it was.
    if (callback_error_) {
      std::unique_ptr<py::error_already_set> error = std::move(callback_error_);
      throw std::move(*error);
    }
    failure.raise_if_any();
    for (auto& [name, image] : images_)
      if (image.copy_back) py::module_::import("numpy").attr("copyto")(image.given, image.engine);
  }

 private:
  // Called by the engine (any thread, without the GIL).
  static bool on_progress(void* self_ptr, double progress) {
    auto* self = static_cast<Filter*>(self_ptr);
    py::gil_scoped_acquire gil;
    if (self->callback_error_ || self->progress_.is_none()) return !self->callback_error_;
    try {
      py::object go_on = self->progress_(progress);
      // Only False (or another false value but None) cancels: a callback that returns nothing goes on.
      return go_on.is_none() || PyObject_IsTrue(go_on.ptr()) != 0;
    } catch (py::error_already_set& e) {
      self->callback_error_ = std::make_unique<py::error_already_set>(std::move(e));
      return false;
    }
  }

  std::shared_ptr<DeviceHandle> device_;
  VXFilter filter_ = nullptr;
  std::map<std::string, BoundImage> images_;
  py::object progress_ = py::none();
  std::unique_ptr<py::error_already_set> callback_error_;
};

}  // namespace

void bind_filter(py::module_& m) {
  py::class_<DeviceHandle, std::shared_ptr<DeviceHandle>>(m, "Device", "A C API device (volvox.Device wraps it).")
      .def(py::init<const std::string&, int>(), py::arg("kind"), py::arg("num_threads"))
      .def_property_readonly("kind", &DeviceHandle::kind);
  py::class_<Filter>(m, "Filter", "A C API filter (volvox.Filter wraps it).")
      .def(py::init<std::shared_ptr<DeviceHandle>, const std::string&>(), py::arg("device"), py::arg("type"))
      .def("set_image", &Filter::set_image, py::arg("name"), py::arg("array"))
      .def("unset_image", &Filter::unset_image, py::arg("name"))
      .def("set_bool", &Filter::set_bool, py::arg("name"), py::arg("value"))
      .def("set_int", &Filter::set_int, py::arg("name"), py::arg("value"))
      .def("set_float", &Filter::set_float, py::arg("name"), py::arg("value"))
      .def("set_weights", &Filter::set_weights, py::arg("blob"))
      .def("set_progress", &Filter::set_progress, py::arg("fn"))
      .def("commit", &Filter::commit)
      .def("execute", &Filter::execute);
}

}  // namespace volvox_python
