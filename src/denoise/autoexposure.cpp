#include "denoise/autoexposure.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "core/thread_pool.h"

namespace vx::denoise {

namespace {
constexpr int kBinSize = 16;
constexpr double kMinBinLuminance = 1e-8;
constexpr double kKey = 0.18;

// Same sanitising as the input processing: non-finite -> 0, clamp to [0, FLT_MAX].
inline float sanitize(float v) { return std::isfinite(v) ? std::fmin(std::fmax(v, 0.0f), FLT_MAX) : 0.0f; }
}  // namespace

float compute_autoexposure(const ImageView& color) {
  const int H = color.height, W = color.width;
  const int bins_h = (H + kBinSize - 1) / kBinSize;
  const int bins_w = (W + kBinSize - 1) / kBinSize;
  // log2 of each bin's mean luminance, or NaN when the bin is too dark to count.
  std::vector<double> bin_log2(size_t(bins_h) * size_t(bins_w));
  ThreadPool::global().parallel_for(int64_t(bins_h) * bins_w, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const int i = int(b / bins_w), j = int(b % bins_w);
      // Bin edges by integer division, as OIDN: bins differ by at most one pixel in size.
      const int y0 = int(int64_t(i) * H / bins_h), y1 = int(int64_t(i + 1) * H / bins_h);
      const int x0 = int(int64_t(j) * W / bins_w), x1 = int(int64_t(j + 1) * W / bins_w);
      double sum = 0;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
          float rgb[3];
          color.load3(x, y, rgb);
          sum += 0.212671 * sanitize(rgb[0]) + 0.715160 * sanitize(rgb[1]) + 0.072169 * sanitize(rgb[2]);
        }
      const double mean = sum / double((y1 - y0) * (x1 - x0));
      bin_log2[size_t(b)] = mean > kMinBinLuminance ? std::log2(mean) : NAN;
    }
  });
  double log_sum = 0;
  int64_t count = 0;
  for (double v : bin_log2)
    if (!std::isnan(v)) {
      log_sum += v;
      ++count;
    }
  if (count == 0) return 1.0f;
  // Never below the smallest normal float: only images of pixels near FLT_MAX get there, and a
  // denormal (or, on GPUs, flushed-to-zero) scale would divide the output by zero.
  return float(std::max(kKey / std::exp2(log_sum / double(count)), double(FLT_MIN)));
}

}  // namespace vx::denoise
