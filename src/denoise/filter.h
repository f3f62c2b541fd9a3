// The denoising filter, with OIDN's concepts so that switching is easy: a device, a filter of a type
// (RT, RTLightmap) with images ("color", "albedo", "normal", "output"), named parameters ("hdr",
// "srgb", "cleanAux", "directional", "inputScale", "quality", "maxMemoryMB", plus our "maxTileSize",
// "precision"), weights from a file or a blob, a progress callback that can cancel, commit() then
// execute().
#pragma once
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/precision.h"
#include "denoise/image_view.h"
#include "denoise/network.h"
#include "denoise/temporal_stage.h"
#include "runtime/device.h"
#include "runtime/physical_device.h"

namespace vx::denoise {

enum class Quality { fast, balanced, high };

// OIDN's filter types: "RT" denoises rendered colour (with optional albedo and normal), or prefilters
// an albedo or normal image alone; "RTLightmap" denoises a lightmap in 'color' (HDR, or directional).
enum class FilterType { rt, rt_lightmap };

// Temporal denoising of an animation (the filter keeps a history between executes): none, or
// stabilize: the output blended with the previous execute's, reprojected by the `motion` image and
// clamped to the current frame's neighbourhood (temporal_stage.h), where `depth` (and `normal`, when
// set) say the surface was visible in the previous frame.
enum class TemporalMode { none, stabilize };

struct FilterParams {
  FilterType type = FilterType::rt;
  bool hdr = false;   // RT only: RTLightmap is HDR unless directional (this is then ignored)
  bool srgb = false;  // RT only
  bool clean_aux = false;
  bool directional = false;  // RTLightmap only: a directional lightmap, values in [-1, 1]
  float input_scale = NAN;  // NaN: automatic (autoexposure for HDR, 1 for LDR)
  Quality quality = Quality::high;
  // Approximate memory limit of the denoiser (activations, network inputs and outputs, device
  // copies), like OIDN's: larger images are tiled to stay under it. -1: the device's default
  // (Device::default_max_memory_mb); otherwise at least 1.
  int max_memory_mb = -1;
  int max_tile_size = 0;    // largest tile side in pixels; 0 = chosen from the memory limit
  // > 0: tiles of at least this side (where the image is as large), even above maxMemoryMB, which
  // then only sizes tiles and never refuses: OIDN's meaning of maxMemoryMB (768-pixel tiles), for
  // the OIDN API. 0: maxMemoryMB is a hard limit.
  int min_tile_size = 0;
  std::optional<Precision> precision;  // empty: automatic (fp16 where the device has it)
  // Conv kernel choice for the vulkan device: "auto", a variant for every layer ("direct", "tiled",
  // "coopmat"), optionally with per-layer overrides ("auto,dec_conv0=direct"). The cpu takes "auto".
  std::string kernels = "auto";
  // Interactive mode (vulkan device; > 0): tiles sized to about this GPU time (ms) each, from the
  // measured time of earlier tiles, cancellable between tiles; the result equals the untiled one.
  // The cpu device ignores it.
  double target_tile_ms = 0;
  // Replaces the measured tile time in interactive mode (tests: a deterministic clock).
  std::function<double(int buffer_width, int buffer_height, double measured_ms)> tile_time_source;
  TemporalMode temporal = TemporalMode::none;  // stabilize needs the 'motion' and 'depth' images
  float temporal_blend = 0.8f;                 // the history's weight, in [0, 1)
};

// Returns false to cancel; progress goes from 0 to 1.
using ProgressFn = std::function<bool(double progress)>;

struct ExecuteStats {
  double ms_total = 0;      // whole execute()
  double ms_network = 0;    // inside the network
  // GPU devices with timestamps: the device work end to end (autoexposure, input processing, network,
  // output processing), without host copies: the time a renderer's device images would take; else 0.
  double ms_device = 0;
  double ms_temporal = 0;   // the temporal stage (FilterParams::temporal)
  float input_scale = 1;    // the resolved scale (autoexposure)
  int tiles = 0;
  int tile_width = 0, tile_height = 0;
  size_t arena_bytes = 0;   // per tile, from the liveness planner
  size_t sum_activation_bytes = 0;
  std::vector<LayerTiming> layers;  // filled when profiling is on (summed over tiles)
};

// How a filter's U-Net runs on its device (from FilterParams): precision (automatic: fp16 where the
// device has it), the device's kernel choice ("" is "auto"), and OIDN's fastMath (quality below HIGH;
// runtime::ExecutableOptions::fast_math).
struct NetworkOptions {
  std::optional<Precision> precision;
  std::string kernels = "auto";
  bool fast_math = false;
  bool operator==(const NetworkOptions&) const = default;
};

class Device;
struct FilterMode;

class Filter {
 public:
  explicit Filter(std::shared_ptr<Device> device);
  ~Filter();

  // color, albedo, normal, output; motion and depth for the temporal stage (FilterParams::temporal).
  void set_image(const std::string& name, const ImageView& image);
  void unset_image(const std::string& name);
  // An image in a Vulkan buffer of the device's own VkDevice (see vulkan_device.h), laid out as
  // `layout` says (its data pointer is ignored). Only devices that run whole images (vulkan) take
  // them; execute() then reads and writes the buffers in place.
  void set_device_image(const std::string& name, const ImageView& layout, const DeviceImage& buffer);
  FilterParams& params() { return params_; }
  // The network's weights. Without them, commit() takes the OIDN weights that fit the images and
  // parameters (weights_choice.h) from $VOLVOX_WEIGHTS or the cache (weights_store.h), else the
  // copy built into the program (builtin_weights.h).
  void set_weights_file(const std::filesystem::path& path);
  void set_weights_blob(std::span<const std::byte> blob);  // copied
  void set_progress(ProgressFn fn) { progress_ = std::move(fn); }
  void set_profiling(bool on) { profiling_ = on; }

  // Validates images and weights, builds the network (expensive; cached until something changes).
  // The inputs (filter_mode.h): color (+albedo (+normal)), or for RT albedo or normal alone.
  void commit();
  // Denoises color (+albedo, +normal), or the auxiliary image set alone, into output, then runs the
  // temporal stage when one is on. Throws vx::Error (Cancelled when the callback said stop; output
  // is then partially written).
  void execute();
  // A cut in an animation: the next execute starts a new temporal history.
  void reset_history() { temporal_.reset(), device_history_reset_ = true; }
  const ExecuteStats& stats() const { return stats_; }
  // Description of the committed network: variant, input channels, parameters, device.
  std::string describe() const;
  // maxMemoryMB, or the device's default when it is -1.
  int memory_limit_mb() const;
  // The tiles commit() chose (null before a commit).
  const TileLayout* tile_layout() const;
  // OIDN's "tileAlignment": tile offsets and sides are multiples of it.
  static int tile_alignment();
  // OIDN's "tileOverlap": round_up(receptive field / 2, tile_alignment()) of the committed network
  // (96 for the small and base U-Nets, 112 for the large); 0 before a commit.
  int tile_overlap() const;

 private:
  std::shared_ptr<Device> device_;
  ImageView color_, albedo_, normal_, output_, motion_, depth_;
  DeviceImage color_buffer_, albedo_buffer_, normal_buffer_, output_buffer_, motion_buffer_, depth_buffer_;
  FilterParams params_;
  void choose_weights();
  // The image the network denoises (color, or the auxiliary image filtered alone) and its buffer.
  const ImageView& main_image(const FilterMode& mode) const;
  const DeviceImage& main_buffer(const FilterMode& mode) const;
  const std::vector<std::byte>& weights() const { return weights_.empty() ? chosen_weights_ : weights_; }
  const std::string& weights_origin() const { return weights_.empty() ? chosen_weights_origin_ : weights_origin_; }

  std::vector<std::byte> weights_;  // the caller's
  std::string weights_origin_;
  std::vector<std::byte> chosen_weights_;  // choose_weights()'s, used when the caller gave none
  std::string chosen_weights_origin_;
  ProgressFn progress_;
  bool profiling_ = false;
  bool dirty_ = true;
  ExecuteStats stats_;
  TemporalStage temporal_;        // the temporal stage for host outputs; the network keeps the device's
  bool device_history_reset_ = false;  // reset_history() for the device's stage, at its next run
  void execute_network();
  void check_temporal_inputs() const;  // when a temporal mode is on
  struct Committed;
  std::unique_ptr<Committed> committed_;
};

// A device: where the network runs. "cpu", "vulkan", "vulkan:N" or "auto" (a discrete GPU if one
// is present, else the CPU).
// OIDN's CPU device keeps to about 3 GB by default; so do the CPU and Vulkan devices that share
// the host's memory (integrated GPUs, lavapipe).
inline constexpr int kDefaultMaxMemoryMB = 3000;

class Device {
 public:
  // Throws InvalidArgument for an unknown kind, Unsupported when the kind's device is missing.
  static std::shared_ptr<Device> create(const std::string& kind, int threads = 0);
  virtual ~Device() = default;
  virtual std::string name() const = 0;
  // The memory limit a filter keeps to when maxMemoryMB is -1 (see README, "Known limits").
  virtual int default_max_memory_mb() const { return kDefaultMaxMemoryMB; }
  virtual std::unique_ptr<TileNetwork> make_network(Graph unet_graph, const NetworkOptions& options) = 0;
  std::unique_ptr<TileNetwork> make_network(Graph unet_graph, std::optional<Precision> precision) {
    return make_network(std::move(unet_graph), NetworkOptions{precision});
  }
  // The engine's view of the device (ONNX models loaded on a filter device run on it); it keeps
  // what it needs (a Vulkan context) alive.
  virtual std::shared_ptr<const runtime::ComputeDevice> compute_device() const = 0;
};

// Devices other than the CPU live in folders of their own (denoise_vulkan/) and register their
// kind here at static initialisation, so that Device::create reaches them without this layer
// depending on any backend (a program linking the static library links it whole, as the CLI and
// the tests do, or the registrations are dropped). `make(kind)` gets "name" or "name:..."; `make_fast()` returns the
// device for "auto" when its hardware beats the CPU (a discrete GPU), else nullptr.
struct DeviceKind {
  std::string name;  // "vulkan"
  std::function<std::shared_ptr<Device>(const std::string& kind)> make;
  std::function<std::shared_ptr<Device>()> make_fast;
  // The hardware of this kind, best first, each with the `kind` string make() opens it by; empty
  // when none is present (never throws for a missing driver).
  std::function<std::vector<runtime::PhysicalDevice>()> list;
};
bool register_device_kind(DeviceKind kind);
// Every registered kind's hardware (GPUs: discrete, integrated, virtual, then software renderers),
// then the CPU.
std::vector<runtime::PhysicalDevice> list_physical_devices();

}  // namespace vx::denoise
