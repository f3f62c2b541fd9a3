// The U-Net as the filter drives it: one network input tile in, one output tile out. Each device
// (cpu, vulkan) provides one; the filter does not care how it runs.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace vx::denoise {

struct LayerTiming {
  std::string name;
  std::string op;
  std::string variant;  // kernel variant chosen for the layer
  double ms = 0;
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
};

// The CPU network: the graph optimised once (fusion), planned per tile shape (cached).
std::unique_ptr<TileNetwork> make_cpu_network(Graph unet_graph);

}  // namespace vx::denoise
