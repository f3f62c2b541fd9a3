// The extension volvox._volvox: the C API's devices, models, filters and image files for the
// Python package (volvox/__init__.py builds the public API on it).
#include <pybind11/pybind11.h>

namespace volvox_python {
void bind_model(pybind11::module_& m);
void bind_filter(pybind11::module_& m);
void bind_images(pybind11::module_& m);
}  // namespace volvox_python

PYBIND11_MODULE(_volvox, m) {
  m.doc() = "Volvox's C API for the volvox package (use volvox, not this module)";
  volvox_python::bind_filter(m);  // first: Device, which Model's constructor takes
  volvox_python::bind_model(m);
  volvox_python::bind_images(m);
}
