// The whole denoiser end to end on device buffers, as a renderer runs it: color, albedo, normal and
// output live in device-local Vulkan buffers (uploaded once), and each execute() runs autoexposure,
// input processing, the U-Net and output processing on the GPU. Timed by the filter's ms_device (GPU
// timestamps around each execute's device work), after a warm-up of at least --warmup-ms of GPU time
// (the H200 ramps its clock only under sustained load), median and minimum of --runs executes.
//   denoise_device_bench --weights rt_hdr_alb_nrm.tza --color C.pfm --albedo A.pfm --normal N.pfm
//                        [--sizes 1920x1088,3840x2160] [--precisions fp16,fp32] [--runs 20]
//                        [--warmup-ms 1000] [--md out.md] [--json out.json] [--qualities high,balanced]
// The inputs are tiled (repeated) to each size; HDR (autoexposure on) as OIDN's hdr_alb_nrm.
// --oidn-api: also the same images through OIDN's C API (libOpenImageDenoise.so.2: a DEFAULT device,
// OIDN_STORAGE_DEVICE buffers, oidnExecuteFilter; automatic precision, so with the fp16 rows),
// executes interleaved one by one with the native filter's, both timed by the wall clock a caller
// waits (each execute returns when the work is done).
// --qualities: a row per precision and quality (OIDN's quality; below high, fastMath: fp16
// accumulators on tensor cores), each with the display PSNR of its output against the first row of
// its size (order the precisions fp32,fp16 to measure against fp32).
// --temporal: also device motion (a constant sub-pixel pan, so that every pixel resamples a valid
// history) and depth buffers, and executes alternating between FilterParams::temporal none and
// stabilize on the same filter: each row then has the end-to-end median with the temporal stage
// beside the one without, and the stage's cost (the median of the paired differences), with the
// stage's own wall clock (its submission and wait: an upper bound of its GPU time, without the
// network's jitter). Issue 12's budget: at most 0.3 ms at 1920x1088 fp16 on the H200.
#include <OpenImageDenoise/oidn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "denoise/filter.h"
#include "denoise/image_metrics.h"
#include "formats/image_io.h"
#include "runtime/device.h"

namespace {

using namespace vx;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

// `image` repeated to width x height (3 channels, f32).
std::vector<float> tiled(const Image& image, int width, int height) {
  std::vector<float> out(size_t(width) * height * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        out[(size_t(y) * width + x) * 3 + c] = image.pixels[(size_t(y % image.height) * image.width + x % image.width) *
                                                                image.channels + std::min(c, image.channels - 1)];
  return out;
}

// A buffer in the device's own memory holding `data` (the compute device's buffers: no Vulkan here).
std::shared_ptr<runtime::Buffer> upload(const runtime::ComputeDevice& device, const std::vector<float>& data) {
  const uint64_t bytes = data.size() * sizeof(float);
  std::shared_ptr<runtime::Buffer> buffer = device.make_buffer(bytes, runtime::BufferStorage::device);
  buffer->write(0, bytes, data.data());
  return buffer;
}

denoise::DeviceImage device_image(const runtime::Buffer& b) { return {b.native_handle(), 0}; }

double wall_ms(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void check_oidn(OIDNDevice device) {
  const char* message = nullptr;
  if (oidnGetDeviceError(device, &message) != OIDN_ERROR_NONE)
    throw std::runtime_error(std::string("OIDN API: ") + (message ? message : "error"));
}

// The OIDN API's filter over device buffers holding the same images.
struct OidnFilter {
  OIDNDevice device = nullptr;
  std::vector<OIDNBuffer> buffers;
  OIDNFilter filter = nullptr;
  std::vector<char> weights;
  OidnFilter(const std::string& weights_path, const std::vector<std::vector<float>*>& images, int w, int h) {
    device = oidnNewDevice(OIDN_DEVICE_TYPE_DEFAULT);
    check_oidn(nullptr);
    oidnCommitDevice(device);
    filter = oidnNewFilter(device, "RT");
    const char* names[] = {"color", "albedo", "normal", "output"};
    for (size_t i = 0; i < 4; ++i) {
      const size_t bytes = size_t(w) * h * 3 * sizeof(float);
      buffers.push_back(oidnNewBufferWithStorage(device, bytes, OIDN_STORAGE_DEVICE));
      if (i < images.size()) oidnWriteBuffer(buffers.back(), 0, bytes, images[i]->data());
      oidnSetFilterImage(filter, names[i], buffers.back(), OIDN_FORMAT_FLOAT3, size_t(w), size_t(h), 0, 0, 0);
    }
    std::ifstream in(weights_path, std::ios::binary);
    weights.assign(std::istreambuf_iterator<char>(in), {});
    oidnSetSharedFilterData(filter, "weights", weights.data(), weights.size());
    oidnSetFilterBool(filter, "hdr", true);
    oidnCommitFilter(filter);
    check_oidn(device);
  }
  void execute() {
    oidnExecuteFilter(filter);
    check_oidn(device);
  }
  ~OidnFilter() {
    oidnReleaseFilter(filter);
    for (OIDNBuffer b : buffers) oidnReleaseBuffer(b);
    oidnReleaseDevice(device);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  int width, height;
  std::string precision, quality;
  double median, min, network_median;
  int tiles;
  double psnr;  // display PSNR against the first row of this size (infinity for that row)
  // --temporal: the end-to-end median with the temporal stage, and what it adds (median of the
  // paired differences with the executes without it); NaN without --temporal.
  double temporal_median = NAN, temporal_added = NAN, temporal_wall = NAN;
};

denoise::Quality parse_quality(const std::string& name) {
  if (name == "high") return denoise::Quality::high;
  if (name == "balanced") return denoise::Quality::balanced;
  if (name == "fast") return denoise::Quality::fast;
  throw std::runtime_error("unknown quality '" + name + "' (high, balanced or fast)");
}

}  // namespace

int main(int argc, char** argv) {
  std::string weights, color_path, albedo_path, normal_path, md_path, json_path;
  std::string sizes = "1920x1088,3840x2160", precisions = "fp16,fp32", qualities = "high";
  int runs = 20;
  double warmup_ms = 1000;
  bool oidn_api = false, temporal = false;
  std::vector<std::string> oidn_rows;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--weights") weights = next();
    else if (a == "--color") color_path = next();
    else if (a == "--albedo") albedo_path = next();
    else if (a == "--normal") normal_path = next();
    else if (a == "--sizes") sizes = next();
    else if (a == "--precisions") precisions = next();
    else if (a == "--runs") runs = std::max(1, std::stoi(next()));
    else if (a == "--warmup-ms") warmup_ms = std::stod(next());
    else if (a == "--md") md_path = next();
    else if (a == "--json") json_path = next();
    else if (a == "--oidn-api") oidn_api = true;
    else if (a == "--qualities") qualities = next();
    else if (a == "--temporal") temporal = true;
    else {
      std::fprintf(stderr, "unknown argument %s (see the header of denoise_device_bench.cpp)\n", a.c_str());
      return 2;
    }
  }
  if (weights.empty() || color_path.empty() || albedo_path.empty() || normal_path.empty()) {
    std::fprintf(stderr, "--weights, --color, --albedo and --normal are required\n");
    return 2;
  }
  try {
    const Image color = read_image(color_path), albedo = read_image(albedo_path), normal = read_image(normal_path);
    auto device = denoise::Device::create("vulkan");
    auto compute = device->compute_device();
    std::vector<Row> rows;
    for (const std::string& size : split(sizes, ',')) {
      const size_t x = size.find('x');
      const int w = std::stoi(size.substr(0, x)), h = std::stoi(size.substr(x + 1));
      std::vector<float> color_pixels = tiled(color, w, h), albedo_pixels = tiled(albedo, w, h),
                         normal_pixels = tiled(normal, w, h);
      auto in_color = upload(*compute, color_pixels);
      auto in_albedo = upload(*compute, albedo_pixels);
      auto in_normal = upload(*compute, normal_pixels);
      auto out = compute->make_buffer(uint64_t(w) * h * 3 * sizeof(float), runtime::BufferStorage::device);
      // --temporal's guides: the camera pans by a constant sub-pixel step (Catmull-Rom everywhere),
      // one surface at depth 1 (the history is valid everywhere but at the edge).
      std::shared_ptr<runtime::Buffer> motion, depth;
      if (temporal) {
        std::vector<float> motion_pixels(size_t(w) * h * 2), depth_pixels(size_t(w) * h, 1.0f);
        for (size_t p = 0; p < size_t(w) * h; ++p) motion_pixels[2 * p] = -0.3f, motion_pixels[2 * p + 1] = 0.2f;
        motion = upload(*compute, motion_pixels);
        depth = upload(*compute, depth_pixels);
      }
      Image first_output;  // this size's first row's output: the PSNR reference
      for (const std::string& precision : split(precisions, ','))
        for (const std::string& quality : split(qualities, ',')) {
          denoise::Filter filter(device);
          denoise::ImageView layout;
          layout.width = w;
          layout.height = h;
          filter.set_device_image("color", layout, device_image(*in_color));
          filter.set_device_image("albedo", layout, device_image(*in_albedo));
          filter.set_device_image("normal", layout, device_image(*in_normal));
          filter.set_device_image("output", layout, device_image(*out));
          if (temporal) {
            denoise::ImageView motion_layout = layout, depth_layout = layout;
            motion_layout.channels = 2;
            depth_layout.channels = 1;
            filter.set_device_image("motion", motion_layout, device_image(*motion));
            filter.set_device_image("depth", depth_layout, device_image(*depth));
            filter.params().temporal = denoise::TemporalMode::stabilize;  // the warm-up runs it too
          }
          filter.params().hdr = true;
          filter.params().precision = parse_precision(precision);
          filter.params().quality = parse_quality(quality);
          filter.set_weights_file(weights);
          filter.commit();
          double warmed = 0;
          for (int k = 0; k < 3 || warmed < warmup_ms; ++k) {
            filter.execute();
            warmed += filter.stats().ms_device;
          }
          std::vector<double> device_ms, network_ms, temporal_ms, added_ms, stage_wall_ms;
          for (int k = 0; k < runs; ++k) {
            filter.params().temporal = denoise::TemporalMode::none;
            filter.execute();
            device_ms.push_back(filter.stats().ms_device);
            network_ms.push_back(filter.stats().ms_network);
            if (temporal) {
              // The same filter (network, buffers) right after: only the temporal stage differs.
              filter.params().temporal = denoise::TemporalMode::stabilize;
              filter.execute();
              temporal_ms.push_back(filter.stats().ms_device);
              added_ms.push_back(temporal_ms.back() - device_ms.back());
              stage_wall_ms.push_back(filter.stats().ms_temporal);
            }
          }
          std::sort(device_ms.begin(), device_ms.end());
          std::sort(network_ms.begin(), network_ms.end());
          if (temporal) {
            // The PSNR (and --oidn-api's executes) are of the network's output alone.
            filter.params().temporal = denoise::TemporalMode::none;
            filter.execute();
          }
          Image output(w, h, 3);
          out->read(0, output.pixels.size() * sizeof(float), output.pixels.data());
          if (first_output.empty()) first_output = output;
          rows.push_back({w, h, precision, quality, device_ms[device_ms.size() / 2], device_ms[0],
                          network_ms[network_ms.size() / 2], filter.stats().tiles,
                          denoise::display_psnr(first_output, output)});
          if (temporal) {
            rows.back().temporal_median = median(temporal_ms);
            rows.back().temporal_added = median(added_ms);
            rows.back().temporal_wall = median(stage_wall_ms);
          }
          if (oidn_api && precision == "fp16" && quality == "high") {
            OidnFilter oidn(weights, {&color_pixels, &albedo_pixels, &normal_pixels}, w, h);
            for (int k = 0; k < 3; ++k) oidn.execute();
            std::vector<double> native_wall, oidn_wall;
            for (int k = 0; k < runs; ++k) {
              native_wall.push_back(wall_ms([&] { filter.execute(); }));
              oidn_wall.push_back(wall_ms([&] { oidn.execute(); }));
            }
            char line[256];
            std::snprintf(line, sizeof line, "| %dx%d | %.3f | %.3f | %.3f | %.3f | %.3f |", w, h, median(native_wall),
                          *std::min_element(native_wall.begin(), native_wall.end()), median(oidn_wall),
                          *std::min_element(oidn_wall.begin(), oidn_wall.end()), median(oidn_wall) / median(native_wall));
            oidn_rows.push_back(line);
            std::printf("OIDN API vs native, wall ms: %s\n", line);
          }
          const Row& r = rows.back();
          std::printf("%dx%d %s %s: device median %.3f ms, min %.3f ms (network median %.3f ms, %d tile%s), PSNR %.2f dB\n",
                      w, h, precision.c_str(), quality.c_str(), r.median, r.min, r.network_median, r.tiles,
                      r.tiles == 1 ? "" : "s", r.psnr);
          if (temporal)
            std::printf("%dx%d %s %s temporal: device median %.3f ms with the stage, %.3f ms without: %+.3f ms "
                        "(median of paired differences; budget 0.3 ms at 1920x1088 fp16), stage wall median %.3f ms\n",
                        w, h, precision.c_str(), quality.c_str(), r.temporal_median, r.median, r.temporal_added,
                        r.temporal_wall);
          std::fflush(stdout);
        }
    }
    if (!md_path.empty()) {
      std::ofstream f(md_path);
      f << "| size | precision | quality | end to end median ms | min ms | network median ms | tiles | PSNR vs first row (dB) |"
        << (temporal ? " with temporal stage median ms | temporal stage adds ms | stage wall median ms |" : "") << "\n"
        << "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |" << (temporal ? " ---: | ---: | ---: |" : "") << "\n";
      for (const Row& r : rows) {
        f << "| " << r.width << "x" << r.height << " | " << r.precision << " | " << r.quality << " | " << r.median
          << " | " << r.min << " | " << r.network_median << " | " << r.tiles << " | " << r.psnr << " |";
        if (temporal) f << " " << r.temporal_median << " | " << r.temporal_added << " | " << r.temporal_wall << " |";
        f << "\n";
      }
      if (!oidn_rows.empty()) {
        f << "\n| size (fp16, wall clock) | native median ms | min | oidnExecuteFilter median ms | min | ratio |\n"
          << "| --- | ---: | ---: | ---: | ---: | ---: |\n";
        for (const std::string& line : oidn_rows) f << line << "\n";
      }
    }
    if (!json_path.empty()) {
      std::ofstream f(json_path);
      f << "[\n";
      for (size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        f << "  {\"width\": " << r.width << ", \"height\": " << r.height << ", \"precision\": \"" << r.precision
          << "\", \"quality\": \"" << r.quality << "\", \"psnr_vs_first_db\": " << (std::isinf(r.psnr) ? 999.0 : r.psnr)
          << ", \"device_ms_median\": " << r.median << ", \"device_ms_min\": " << r.min
          << ", \"network_ms_median\": " << r.network_median << ", \"tiles\": " << r.tiles;
        if (temporal)
          f << ", \"temporal_device_ms_median\": " << r.temporal_median << ", \"temporal_added_ms\": " << r.temporal_added
            << ", \"temporal_stage_wall_ms_median\": " << r.temporal_wall;
        f << "}" << (i + 1 < rows.size() ? ",\n" : "\n");
      }
      f << "]\n";
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
