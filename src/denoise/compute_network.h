// The U-Net on any compute device (runtime/device.h): per tile shape, the (already optimised) graph
// bound and scheduled on the device's backend (session/device_model_runner.h make_executable),
// kept in a small LRU cache because the filter uses at most a couple of tile shapes per image.
// The CPU device's network is this; a GPU device's network adds its whole-image path on top.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "denoise/filter.h"
#include "denoise/network.h"
#include "plan/plan_cache.h"
#include "runtime/device.h"
#include "runtime/scheduled_executable.h"

namespace vx::denoise {

// The executable options of a U-Net on `device` (Unsupported when fp16 is asked of a device without
// it), with per-layer device times on (a handful of queries per tile; --profile shows them).
runtime::ExecutableOptions network_options(const runtime::ComputeDevice& device, const NetworkOptions& options);
// How the filter names such a network: "<device name>, fp16" or ", fp32".
std::string network_name(const runtime::ComputeDevice& device, const runtime::ExecutableOptions& options);

class ComputeNetwork : public TileNetwork {
 public:
  // `options`: fp16, the device's kernel choice, timestamps (per-layer device times in profiles).
  ComputeNetwork(std::shared_ptr<const runtime::ComputeDevice> device, Graph unet_graph,
                 runtime::ExecutableOptions options, std::string device_name);

  Tensor run(const Tensor& input, std::vector<LayerTiming>* profile) override;
  size_t arena_bytes(int height, int width) override;
  size_t sum_activation_bytes(int height, int width) override;
  std::string device_name() const override { return device_name_; }

 protected:
  // The executable for an H x W tile (built now if new); the caller holds mutex_.
  std::shared_ptr<runtime::ScheduledExecutable> executable_locked(int height, int width);
  // Serialises runs and the cache: a tile's executable is used by one caller at a time.
  std::mutex mutex_;

 private:
  std::shared_ptr<const runtime::ComputeDevice> device_;
  Graph graph_;
  runtime::ExecutableOptions options_;
  std::string device_name_;
  ShapeLruCache<runtime::ScheduledExecutable> cache_;
};

}  // namespace vx::denoise
