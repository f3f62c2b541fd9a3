#include "denoise/image_metrics.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "denoise/transfer.h"

namespace vx::denoise {

float display_encode(float linear) {
  const float v = std::isnan(linear) ? 0.0f : std::clamp(linear, 0.0f, 1.0f);
  return srgb_forward(v);
}

namespace {
float channel3(const Image& img, int x, int y, int c) { return img.at(x, y, std::min(c, img.channels - 1)); }
}  // namespace

Image display_encoded(const Image& linear) {
  Image out(linear.width, linear.height, 3);
  for (int y = 0; y < linear.height; ++y)
    for (int x = 0; x < linear.width; ++x)
      for (int c = 0; c < 3; ++c) out.at(x, y, c) = display_encode(channel3(linear, x, y, c));
  return out;
}

double display_mse(const Image& a, const Image& b) {
  VX_CHECK(a.width == b.width && a.height == b.height, InvalidArgument, "cannot compare a ", b.width, "x", b.height,
           " image with a ", a.width, "x", a.height, " image");
  VX_CHECK(!a.empty(), InvalidArgument, "cannot compare empty images");
  double sum = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x)
      for (int c = 0; c < 3; ++c) {
        const double d = double(display_encode(channel3(a, x, y, c))) - display_encode(channel3(b, x, y, c));
        sum += d * d;
      }
  return sum / (3.0 * a.width * a.height);
}

double display_psnr(const Image& reference, const Image& test) {
  const double mse = display_mse(reference, test);
  return mse == 0 ? INFINITY : -10.0 * std::log10(mse);
}

Image side_by_side(const std::vector<const Image*>& images, int gap) {
  VX_CHECK(!images.empty(), InvalidArgument, "no images to place side by side");
  const int h = images[0]->height;
  int w = 0;
  for (const Image* img : images) {
    VX_CHECK(img->height == h, InvalidArgument, "side by side needs equal heights (", img->height, " vs ", h, ")");
    w += img->width;
  }
  w += gap * int(images.size() - 1);
  Image out(w, h, 3);
  int x0 = 0;
  for (const Image* img : images) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < img->width; ++x)
        for (int c = 0; c < 3; ++c) out.at(x0 + x, y, c) = display_encode(channel3(*img, x, y, c));
    x0 += img->width + gap;
  }
  return out;
}

}  // namespace vx::denoise
