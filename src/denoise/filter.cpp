#include "denoise/filter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <utility>

#include "core/error.h"
#include "core/file_io.h"
#include "denoise/autoexposure.h"
#include "denoise/filter_mode.h"
#include "denoise/processing.h"
#include "denoise/tiling.h"
#include "denoise/unet_spec.h"
#include "denoise/weights_choice.h"
#include "denoise/weights_store.h"
#include "formats/tza.h"
#include "runtime/step_progress.h"

namespace vx::denoise {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::pair<const char*, const char*> byte_range(const ImageView& v) {
  const char* begin = static_cast<const char*>(v.data);
  return {begin, begin + size_t(v.height - 1) * v.row_bytes() + size_t(v.width) * v.pixel_bytes()};
}
bool overlaps(const ImageView& a, const ImageView& b) {
  if (!a.valid() || !b.valid()) return false;
  auto [a0, a1] = byte_range(a);
  auto [b0, b1] = byte_range(b);
  return a0 < b1 && b0 < a1;
}

// A private float copy of an image, for in-place filtering where tiles would read what earlier
// tiles already wrote.
struct ImageCopy {
  std::vector<float> pixels;
  ImageView view;
  explicit ImageCopy(const ImageView& src) : pixels(size_t(src.width) * size_t(src.height) * 3) {
    view.data = pixels.data();
    view.width = src.width;
    view.height = src.height;
    view.channels = 3;
    for (int y = 0; y < src.height; ++y)
      for (int x = 0; x < src.width; ++x) src.load3(x, y, &pixels[(size_t(y) * size_t(src.width) + size_t(x)) * 3]);
  }
};
}  // namespace

struct Filter::Committed {
  UNetSpec spec;
  std::unique_ptr<TileNetwork> network;
  TileLayout layout;
  NetworkOptions options;  // what the network was made with
};

Filter::Filter(std::shared_ptr<Device> device) : device_(std::move(device)) {
  VX_CHECK(device_ != nullptr, InvalidArgument, "a filter needs a device");
}
Filter::~Filter() = default;

namespace {
// The data pointer of a device image's view: never dereferenced (the host path refuses them).
char g_device_image_marker;
}  // namespace

void Filter::set_image(const std::string& name, const ImageView& image) {
  set_device_image(name, image, {});
}

void Filter::set_device_image(const std::string& name, const ImageView& layout, const DeviceImage& buffer) {
  ImageView image = layout;
  if (buffer.on_device()) image.data = &g_device_image_marker;
  image.validate(name);
  if (name == "color") color_ = image, color_buffer_ = buffer;
  else if (name == "albedo") albedo_ = image, albedo_buffer_ = buffer;
  else if (name == "normal") normal_ = image, normal_buffer_ = buffer;
  else if (name == "output") output_ = image, output_buffer_ = buffer;
  else if (name == "motion") motion_ = image, motion_buffer_ = buffer;
  else if (name == "depth") depth_ = image, depth_buffer_ = buffer;
  else
    fail(ErrorCode::InvalidArgument,
         cat("unknown image '", name, "' (expected color, albedo, normal, output, motion or depth)"));
  dirty_ = true;
}

void Filter::unset_image(const std::string& name) {
  if (name == "color") color_ = {}, color_buffer_ = {};
  else if (name == "albedo") albedo_ = {}, albedo_buffer_ = {};
  else if (name == "normal") normal_ = {}, normal_buffer_ = {};
  else if (name == "output") output_ = {}, output_buffer_ = {};
  else if (name == "motion") motion_ = {}, motion_buffer_ = {};
  else if (name == "depth") depth_ = {}, depth_buffer_ = {};
  dirty_ = true;
}

void Filter::set_weights_file(const std::filesystem::path& path) {
  // A FIFO or folder is refused at once; an empty file is named here, not as "no weights" at commit.
  const std::vector<uint8_t> bytes = read_file_bytes(path, "weights file", kTzaMaxFileBytes);
  VX_CHECK(!bytes.empty(), InvalidFile, "weights file ", path, " is empty, not a TZA file");
  const auto blob = std::as_bytes(std::span(bytes));
  weights_.assign(blob.begin(), blob.end());
  weights_origin_ = path.string();
  committed_.reset();
  dirty_ = true;
}

void Filter::set_weights_blob(std::span<const std::byte> blob) {
  weights_.assign(blob.begin(), blob.end());
  weights_origin_ = "<memory blob>";
  committed_.reset();
  dirty_ = true;
}

void Filter::choose_weights() {
  const WeightsQuery query = weights_query(params_, color_.valid(), albedo_.valid(), normal_.valid());
  const std::vector<FoundWeights> found = installed_weights(query);
  // None: resolve_weights throws, saying where it looked and how to get the weights.
  if (found.empty()) resolve_weights("", weights_candidates(query).back());
  const FoundWeights& best = found.front();
  if (best.origin == chosen_weights_origin_) return;
  if (best.file) {
    const std::vector<uint8_t> bytes = read_file_bytes(*best.file, "weights file", kTzaMaxFileBytes);
    const auto blob = std::as_bytes(std::span(bytes));
    chosen_weights_.assign(blob.begin(), blob.end());
  } else {
    chosen_weights_.assign(best.builtin.begin(), best.builtin.end());
  }
  chosen_weights_origin_ = best.origin;
  committed_.reset();  // another network
}

void Filter::commit() {
  const FilterMode mode = resolve_filter_mode(params_, color_.valid(), albedo_.valid(), normal_.valid());
  VX_CHECK(output_.valid(), InvalidArgument, "no 'output' image set");
  const ImageView& main = main_image(mode);
  auto same_size = [&](const ImageView& v, const char* name) {
    VX_CHECK(!v.valid() || (v.width == main.width && v.height == main.height), InvalidArgument, "image '", name,
             "' is ", v.width, "x", v.height, " but '", mode.main_name(), "' is ", main.width, "x", main.height);
  };
  same_size(albedo_, "albedo");
  same_size(normal_, "normal");
  same_size(output_, "output");
  check_temporal_inputs();
  // The output is divided by the scale: a denormal or infinite scale would make it Inf or NaN.
  VX_CHECK(std::isnan(params_.input_scale) || (std::isnormal(params_.input_scale) && params_.input_scale > 0),
           InvalidArgument, "inputScale ", params_.input_scale,
           " must be a positive finite number of at least 1.2e-38 (or NaN for automatic)");
  VX_CHECK(params_.max_memory_mb == -1 || params_.max_memory_mb >= 1, InvalidArgument, "maxMemoryMB ",
           params_.max_memory_mb, " must be at least 1 (or -1 for the device's default)");
  VX_CHECK(params_.min_tile_size >= 0, InvalidArgument, "minTileSize ", params_.min_tile_size, " must be 0 or more");
  VX_CHECK(params_.max_tile_size >= 0, InvalidArgument, "maxTileSize ", params_.max_tile_size,
           " must be 0 (automatic) or a tile side in pixels");
  // OIDN builds rtlightmap_hdr / rtlightmap_dir into its library; they are not published as files.
  VX_CHECK(params_.type != FilterType::rt_lightmap || !weights_.empty(), InvalidArgument,
           "an RTLightmap filter needs user weights (set_weights_file or set_weights_blob: OIDN's \"weights\" "
           "data): OIDN's lightmap weights ship only inside OIDN's binaries, so there are none to choose");
  if (weights_.empty()) choose_weights();

  // OIDN's fastMath: below HIGH quality, accuracy may be traded for speed.
  const NetworkOptions network_options{params_.precision, params_.kernels, params_.quality != Quality::high};
  if (committed_ && committed_->options != network_options) committed_.reset();  // the network depends on them
  if (!committed_) {
    auto c = std::make_unique<Committed>();
    TzaFile tza;
    VX_WITH_CONTEXT(cat("weights ", weights_origin()), tza = parse_tza(weights()));
    VX_WITH_CONTEXT(cat("weights ", weights_origin()), c->spec = detect_unet_spec(tza));
    c->network = device_->make_network(build_unet_graph(c->spec, tza), network_options);
    c->options = network_options;
    committed_ = std::move(c);
  }
  const int ic = committed_->spec.input_channels;
  VX_CHECK(mode.input_channels == ic, InvalidArgument, "the weights (", weights_origin(), ") take ", ic,
           " input channels (",
           ic == 3 ? "color, or albedo or normal alone" : ic == 6 ? "color, albedo" : "color, albedo, normal",
           ") but ", mode.input_channels, " were given (", mode.inputs_description(), ")");

  // Tile size: the user's cap, and the largest square tile whose memory fits the memory limit.
  int max_side = params_.max_tile_size;
  // Below 512 x 512 pixels no OIDN network comes near the default limit; skip the probe's plan.
  if (params_.max_memory_mb > 0 || int64_t(main.width) * main.height > 512 * 512) {
    const int probe = 256;
    const double bytes_per_pixel =
        double(committed_->network->arena_bytes(probe, probe)) / (probe * probe) + (ic + 3) * 4.0;
    const double pixels = double(memory_limit_mb()) * 1024 * 1024 / bytes_per_pixel;
    const int floor = std::max(kTileAlignment, (params_.min_tile_size + kTileAlignment - 1) / kTileAlignment * kTileAlignment);
    const int side = std::max(floor, int(std::sqrt(pixels)) / kTileAlignment * kTileAlignment);
    max_side = max_side > 0 ? std::min(max_side, side) : side;
  }
  committed_->layout = make_tile_layout(main.width, main.height, committed_->spec.receptive_field, max_side);
  // Build the executable for the tile shape now (kernels, weights in their layout, the arena), so
  // that execute() only runs.
  committed_->network->arena_bytes(committed_->layout.tile_height, committed_->layout.tile_width);
  dirty_ = false;
}

void Filter::check_temporal_inputs() const {
  if (params_.temporal == TemporalMode::none) return;
  VX_CHECK(motion_.valid() && depth_.valid(), InvalidArgument, "temporal denoising needs the 'motion' and 'depth' images (",
           motion_.valid() ? "depth" : "motion", " is not set)");
  VX_CHECK(motion_.channels >= 2, InvalidArgument, "image 'motion' has ", motion_.channels,
           " channel; it needs 2 (dx, dy in pixels)");
  VX_CHECK(output_.channels >= 3, InvalidArgument, "temporal denoising needs a colour output (3 channels), not ",
           output_.channels, " (an auxiliary image filtered alone has no temporal stage)");
  for (const auto& [view, name] : {std::pair{&motion_, "motion"}, {&depth_, "depth"}})
    VX_CHECK(view->width == output_.width && view->height == output_.height, InvalidArgument, "image '", name, "' is ",
             view->width, "x", view->height, " but 'output' is ", output_.width, "x", output_.height);
  VX_CHECK(params_.temporal_blend >= 0 && params_.temporal_blend < 1, InvalidArgument, "temporalBlend ",
           params_.temporal_blend, " must be in [0, 1)");
  // The stage runs where the output is: on the host (temporal_stage.h) or on the device
  // (TileNetwork::run_temporal); its guides must be there too.
  const bool on_device = output_buffer_.on_device();
  for (const auto& [buffer, name] : {std::pair{&motion_buffer_, "motion"}, {&depth_buffer_, "depth"}})
    VX_CHECK(buffer->on_device() == on_device, InvalidArgument, "image '", name, "' is in ",
             buffer->on_device() ? "a device buffer" : "host memory", " but 'output' is in ",
             on_device ? "a device buffer" : "host memory", ": the temporal stage needs them in the same place");
}

void Filter::execute() {
  // Parameters changed since the commit are read here, as before; a lightmap filter still needs the
  // caller's weights (commit() says so).
  if (dirty_ || !committed_ || (params_.type == FilterType::rt_lightmap && weights_.empty())) commit();
  execute_network();
  if (params_.temporal == TemporalMode::none) return;
  check_temporal_inputs();
  const auto t0 = Clock::now();
  const FilterMode mode = resolve_filter_mode(params_, color_.valid(), albedo_.valid(), normal_.valid());
  if (output_buffer_.on_device()) {
    TemporalJob job;
    job.output = output_, job.motion = motion_, job.depth = depth_;
    job.output_buffer = output_buffer_, job.motion_buffer = motion_buffer_, job.depth_buffer = depth_buffer_;
    if (mode.normal && normal_buffer_.on_device()) job.normal = normal_, job.normal_buffer = normal_buffer_;
    job.blend = params_.temporal_blend;
    job.reset = std::exchange(device_history_reset_, false);
    double ms_device = 0;
    VX_CHECK(committed_->network->run_temporal(job, &ms_device), Unsupported, "device '", device_->name(),
             "' has no temporal stage for images in device buffers: set host images");
    stats_.ms_device += ms_device;
  } else {
    const bool normals = mode.normal && !normal_buffer_.on_device();
    temporal_.apply(output_, motion_, depth_, normals ? &normal_ : nullptr, params_.temporal_blend);
  }
  stats_.ms_temporal = ms_since(t0);
  stats_.ms_total += stats_.ms_temporal;
}

void Filter::execute_network() {
  const auto t0 = Clock::now();
  Committed& c = *committed_;
  stats_ = {};

  const FilterMode mode = resolve_filter_mode(params_, color_.valid(), albedo_.valid(), normal_.valid());
  const ImageView& main = main_image(mode);
  ProcessingParams p;
  p.hdr = mode.hdr;
  p.transfer = mode.transfer;
  p.input_channels = c.spec.input_channels;
  p.snorm = mode.snorm;

  // Devices that run whole images (vulkan): processing, autoexposure and tiles on the device.
  {
    ImageJob job;
    job.input = main, job.output = output_;
    job.input_buffer = main_buffer(mode), job.output_buffer = output_buffer_;
    job.input_name = mode.main_name();
    if (mode.albedo) job.albedo = albedo_, job.albedo_buffer = albedo_buffer_;
    if (mode.normal) job.normal = normal_, job.normal_buffer = normal_buffer_;
    job.layout = &c.layout;
    job.transfer = p.transfer;
    job.hdr = p.hdr;
    job.snorm = p.snorm;
    job.input_scale = std::isnan(params_.input_scale) ? (p.hdr ? NAN : 1.0f) : params_.input_scale;
    VX_CHECK(std::isnan(job.input_scale) || (std::isfinite(job.input_scale) && job.input_scale > 0), InvalidArgument,
             "inputScale ", job.input_scale, " is not a positive finite number");
    job.input_channels = c.spec.input_channels;
    job.max_memory_mb = params_.min_tile_size > 0 ? 0 : memory_limit_mb();  // 0: a hint only
    job.target_tile_ms = params_.target_tile_ms;
    job.tile_time = params_.tile_time_source;
    job.progress = progress_;
    job.profile = profiling_;
    if (progress_ && !progress_(0.0)) fail(ErrorCode::Cancelled, "denoising cancelled by the progress callback");
    ImageJobResult r;
    if (c.network->run_image(job, r)) {
      stats_.input_scale = r.input_scale;
      stats_.ms_network = r.ms_network;
      stats_.ms_device = r.ms_device;
      stats_.layers = std::move(r.layers);
      stats_.tiles = r.tiles;
      stats_.tile_width = r.tile_width;
      stats_.tile_height = r.tile_height;
      stats_.arena_bytes = c.network->arena_bytes(r.tile_height, r.tile_width);
      stats_.sum_activation_bytes = c.network->sum_activation_bytes(r.tile_height, r.tile_width);
      stats_.ms_total = ms_since(t0);
      return;
    }
    VX_CHECK(!color_buffer_.on_device() && !albedo_buffer_.on_device() && !normal_buffer_.on_device() &&
                 !output_buffer_.on_device(),
             Unsupported, "images in device buffers need a device that runs whole images (vulkan); ",
             device_->name(), " cannot take them");
  }

  if (std::isnan(params_.input_scale))
    p.input_scale = p.hdr ? compute_autoexposure(main) : 1.0f;
  else
    p.input_scale = params_.input_scale;
  VX_CHECK(std::isfinite(p.input_scale) && p.input_scale > 0, InvalidArgument, "inputScale ", p.input_scale,
           " is not a positive finite number");

  // In-place filtering with several tiles: read the inputs from a copy.
  const bool several_tiles = c.layout.tiles.size() > 1;
  std::optional<ImageCopy> main_copy, albedo_copy, normal_copy;
  if (several_tiles && overlaps(output_, main)) main_copy.emplace(main);
  if (several_tiles && mode.albedo && overlaps(output_, albedo_)) albedo_copy.emplace(albedo_);
  if (several_tiles && mode.normal && overlaps(output_, normal_)) normal_copy.emplace(normal_);
  const ImageView& input = main_copy ? main_copy->view : main;
  const ImageView* albedo = mode.albedo ? (albedo_copy ? &albedo_copy->view : &albedo_) : nullptr;
  const ImageView* normal = mode.normal ? (normal_copy ? &normal_copy->view : &normal_) : nullptr;

  Tensor network_input(DType::f32, {1, c.spec.input_channels, c.layout.tile_height, c.layout.tile_width});
  std::vector<LayerTiming> tile_profile;
  const size_t n = c.layout.tiles.size();
  for (size_t i = 0; i < n; ++i) {
    const Tile& tile = c.layout.tiles[i];
    process_input_tile(input, albedo, normal, tile, p, network_input);
    const auto tn = Clock::now();
    tile_profile.clear();
    // Progress (and a cancel) after every layer on devices that run layers on this thread (the CPU).
    std::optional<runtime::StepProgressScope> layer_progress;
    if (progress_)
      layer_progress.emplace([&](int64_t done, int64_t total) {
        if (!progress_((double(i) + double(done) / double(total)) / double(n)))
          fail(ErrorCode::Cancelled, cat("denoising cancelled by the progress callback in tile ", i + 1, " of ", n));
      });
    Tensor out = c.network->run(network_input, profiling_ ? &tile_profile : nullptr);
    layer_progress.reset();
    stats_.ms_network += ms_since(tn);
    process_output_tile(out, tile, p, output_);
    if (profiling_) {
      if (stats_.layers.empty()) stats_.layers = tile_profile;
      else
        for (size_t k = 0; k < std::min(stats_.layers.size(), tile_profile.size()); ++k)
          stats_.layers[k].ms += tile_profile[k].ms;
    }
    if (progress_ && !progress_(double(i + 1) / double(n)))
      fail(ErrorCode::Cancelled, cat("denoising cancelled by the progress callback after tile ", i + 1, " of ", n));
  }
  stats_.input_scale = p.input_scale;
  stats_.tiles = int(n);
  stats_.tile_width = c.layout.tile_width;
  stats_.tile_height = c.layout.tile_height;
  stats_.arena_bytes = c.network->arena_bytes(c.layout.tile_height, c.layout.tile_width);
  stats_.sum_activation_bytes = c.network->sum_activation_bytes(c.layout.tile_height, c.layout.tile_width);
  stats_.ms_total = ms_since(t0);
}

int Filter::memory_limit_mb() const {
  return params_.max_memory_mb > 0 ? params_.max_memory_mb : device_->default_max_memory_mb();
}

const TileLayout* Filter::tile_layout() const { return committed_ && !dirty_ ? &committed_->layout : nullptr; }

int Filter::tile_alignment() { return kTileAlignment; }

int Filter::tile_overlap() const { return committed_ ? denoise::tile_overlap(committed_->spec.receptive_field) : 0; }

const ImageView& Filter::main_image(const FilterMode& mode) const {
  return mode.main == MainInput::albedo ? albedo_ : mode.main == MainInput::normal ? normal_ : color_;
}

const DeviceImage& Filter::main_buffer(const FilterMode& mode) const {
  return mode.main == MainInput::albedo   ? albedo_buffer_
         : mode.main == MainInput::normal ? normal_buffer_
                                          : color_buffer_;
}

std::string Filter::describe() const {
  if (!committed_) return "(not committed)";
  const UNetSpec& s = committed_->spec;
  return cat(unet_variant_name(s.variant), " U-Net, ", s.input_channels, " input channels, ", s.parameter_count(),
             " parameters, on ", committed_->network->device_name());
}

}  // namespace vx::denoise
