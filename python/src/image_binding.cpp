// volvox._volvox.read_image / write_image over the image C API (include/volvox/image.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "device_call.h"
#include "volvox/image.h"

namespace volvox_python {
namespace {

// HxWxC float32, owning the engine's pixels (no copy).
py::array read_image(const std::string& path) {
  VXImage image = nullptr;
  size_t width = 0, height = 0, channels = 0;
  call_without_gil(deviceless_lock(), nullptr, [&](auto&& ok) {
    image = vxReadImage(path.c_str());
    if (ok()) vxGetImageSize(image, &width, &height, &channels);
  }).raise_if_any();
  py::capsule owner(image, [](void* p) { vxReleaseImage(static_cast<VXImage>(p)); });
  return py::array_t<float>({ssize_t(height), ssize_t(width), ssize_t(channels)}, vxGetImageData(image), owner);
}

// `pixels`: float32, C-contiguous, HxW or HxWxC (volvox/_images.py converts).
void write_image(const std::string& path, const py::array_t<float, 0>& pixels, int png_bits, bool exr_half) {
  if (!(pixels.flags() & py::array::c_style) || (pixels.ndim() != 2 && pixels.ndim() != 3))
    raise_error(VX_ERROR_INVALID_ARGUMENT, "write_image needs a C-contiguous HxW or HxWxC float32 array");
  const size_t height = size_t(pixels.shape(0)), width = size_t(pixels.shape(1));
  const size_t channels = pixels.ndim() == 3 ? size_t(pixels.shape(2)) : 1;
  const float* data = pixels.data();
  call_without_gil(deviceless_lock(), nullptr, [&](auto&&) {
    vxWriteImage(path.c_str(), data, width, height, channels, png_bits, exr_half);
  }).raise_if_any();
}

}  // namespace

void bind_images(py::module_& m) {
  m.def("read_image", &read_image, py::arg("path"), "HxWxC float32 pixels of an image file");
  m.def("write_image", &write_image, py::arg("path"), py::arg("pixels"), py::arg("png_bits"), py::arg("exr_half"),
        "Writes C-contiguous float32 HxW or HxWxC pixels");
}

}  // namespace volvox_python
