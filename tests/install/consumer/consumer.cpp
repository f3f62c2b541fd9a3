// Uses an installed Volvox through its public headers only: a CPU device, an error reported as an
// exception, and (given weights) a denoised image checked against its input.
// Usage: consumer [rt_ldr.tza | builtin]; "builtin" sets no weights, so that the library's built-in
// rt_ldr serves. Prints "ok" and exits 0 when every check holds.
#include <cstring>
#include <volvox/volvox.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  try {
    volvox::DeviceRef device("cpu", 1);
    bool threw = false;
    try {
      volvox::FilterRef unknown(device, "NoSuchFilter");
    } catch (const volvox::Exception& e) {
      threw = e.code() != VX_ERROR_NONE;
    }
    if (!threw) {
      std::puts("an unknown filter type did not raise volvox::Exception");
      return 1;
    }
    if (argc < 2) {
      std::puts("ok (no weights file given: device and errors only)");
      return 0;
    }
    // A flat grey with a checkerboard of noise: the denoised image stays grey.
    const size_t w = 37, h = 23;
    std::vector<float> color(w * h * 3), output(w * h * 3, -1.0f);
    for (size_t i = 0; i < w * h; ++i)
      for (size_t c = 0; c < 3; ++c) color[i * 3 + c] = 0.5f + ((i % w + i / w) % 2 ? 0.05f : -0.05f);
    volvox::FilterRef filter(device, "RT");
    filter.set_image("color", color.data(), VX_FORMAT_FLOAT3, w, h);
    filter.set_image("output", output.data(), VX_FORMAT_FLOAT3, w, h);
    if (std::strcmp(argv[1], "builtin") != 0) filter.set_weights_file(argv[1]);
    filter.commit();
    filter.execute();
    double sum = 0;
    for (float v : output) {
      if (!std::isfinite(v) || v < 0.0f || v > 1.0f) {
        std::printf("output value %g is not a pixel of a grey image\n", double(v));
        return 1;
      }
      sum += v;
    }
    const double mean = sum / double(output.size());
    if (std::fabs(mean - 0.5) > 0.05) {
      std::printf("mean %.4f, expected 0.5 +- 0.05\n", mean);
      return 1;
    }
    std::printf("ok (mean %.4f)\n", mean);
    return 0;
  } catch (const volvox::Exception& e) {
    std::printf("volvox error %d: %s\n", int(e.code()), e.what());
    return 1;
  }
}
