// The U-Net as the filter drives it: one network input tile in, one output tile out. Each device
// provides one (compute_network.h runs it on any compute device); the filter does not care how.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"
#include "denoise/image_view.h"
#include "denoise/tiling.h"
#include "denoise/transfer.h"

namespace vx::denoise {

struct LayerTiming {
  std::string name;
  std::string op;
  std::string variant;  // kernel variant chosen for the layer
  double ms = 0;
};

// An image that lives in device memory instead of host memory: a VkBuffer of the device's VkDevice
// (as an integer handle) and the byte offset of pixel (0, 0); the ImageView beside it gives the
// layout (its data pointer is unused). buffer 0: the image is in host memory.
struct DeviceImage {
  uint64_t buffer = 0;
  uint64_t offset = 0;
  bool on_device() const { return buffer != 0; }
};

// A whole image for a device that runs input processing, every tile and output processing itself
// (the vulkan device), so that only the user's images cross the bus.
struct ImageJob {
  // `input`: the main input (OIDN's "input": the colour, or the auxiliary image filtered alone);
  // albedo / normal: the auxiliary images beside the colour, not valid() when unused.
  ImageView input, albedo, normal, output;
  DeviceImage input_buffer, albedo_buffer, normal_buffer, output_buffer;
  std::string input_name = "color";  // which image `input` is, for messages
  const TileLayout* layout = nullptr;  // the filter's fixed tiles (unused in interactive mode)
  TransferKind transfer = TransferKind::pu;
  bool hdr = true;
  bool snorm = false;        // the main input is signed, [-1, 1] (processing.h)
  float input_scale = 1.0f;  // NaN: autoexposure on the device (HDR)
  int input_channels = 3;
  int max_memory_mb = -1;
  // Interactive mode (> 0): tiles sized to about this GPU time from the measured time of earlier
  // tiles; tile_time, when set, replaces the measured time (tests: a deterministic clock).
  double target_tile_ms = 0;
  std::function<double(int buffer_width, int buffer_height, double measured_ms)> tile_time;
  std::function<bool(double progress)> progress;  // false: cancel (checked between tiles)
  bool profile = false;
};

struct ImageJobResult {
  float input_scale = 1.0f;
  double ms_network = 0;
  double ms_device = 0;  // GPU devices: the on-device work of every tile by timestamps (no host copies)
  int tiles = 0;
  int tile_width = 0, tile_height = 0;  // the largest network input used (a shape that ran)
  std::vector<LayerTiming> layers;      // summed over tiles when profiling
};

// The temporal stage (FilterParams::temporal) on the device, for an output in a device buffer: the
// output, in place, blended with the history the network keeps between jobs, by TemporalStabilizer's
// method (temporal_stabilizer.h: reprojection by `motion`, validity by `depth` and `normal` when it is
// valid(), 3x3 neighbourhood clamp, blend). Every image here is in a device buffer.
struct TemporalJob {
  ImageView output, motion, depth, normal;  // layouts; normal not valid() when unused
  DeviceImage output_buffer, motion_buffer, depth_buffer, normal_buffer;
  float blend = 0.8f;  // the history's weight
  bool reset = false;  // a cut: this frame starts a new history (passes through)
};

class TileNetwork {
 public:
  virtual ~TileNetwork() = default;
  // input [1, ic, H, W] f32 NCHW with H, W multiples of 16; returns [1, 3, H, W] f32.
  virtual Tensor run(const Tensor& input, std::vector<LayerTiming>* profile = nullptr) = 0;
  // Bytes of activation memory the network needs for an H x W tile (the planner's arena), and the
  // sum of every activation's size (what a planner-less executor would need).
  virtual size_t arena_bytes(int height, int width) = 0;
  virtual size_t sum_activation_bytes(int height, int width) = 0;
  virtual std::string device_name() const = 0;
  // Runs a whole image on the device when it can (see ImageJob) and returns true; false leaves it
  // to the filter's host path (tile by tile through run()). Throws for errors (e.g. OutOfMemory).
  virtual bool run_image(const ImageJob& job, ImageJobResult& result) { return false; }
  // Runs the temporal stage on the device (see TemporalJob) and returns true, with its GPU time in
  // *ms_device where timestamps exist (else 0); false when the device has none.
  virtual bool run_temporal(const TemporalJob& job, double* ms_device) { return false; }
};

}  // namespace vx::denoise
