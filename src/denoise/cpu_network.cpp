// The U-Net on the CPU backend: optimised once (fusion), planned and compiled per tile shape.
#include "core/error.h"
#include "denoise/network.h"
#include "session/graph_runner.h"

namespace vx::denoise {

namespace {

class CpuNetwork final : public TileNetwork {
 public:
  explicit CpuNetwork(Graph graph) : runner_(std::move(graph)) {}

  Tensor run(const Tensor& input, std::vector<LayerTiming>* profile) override {
    Profile p;
    std::vector<Tensor> out = runner_.run({input}, profile ? &p : nullptr);
    if (profile)
      for (const ProfileEntry& e : p.entries) profile->push_back({e.node, e.op, e.variant, e.milliseconds});
    return out.at(0);
  }

  size_t arena_bytes(int height, int width) override { return executable(height, width)->plan().arena_bytes; }
  size_t sum_activation_bytes(int height, int width) override {
    return executable(height, width)->plan().sum_activation_bytes;
  }
  std::string device_name() const override { return "cpu"; }

 private:
  std::shared_ptr<cpu::CpuExecutable> executable(int height, int width) {
    const Graph& g = runner_.graph();
    const std::string& input = g.value(g.inputs.at(0)).name;
    const int64_t channels = g.value(g.inputs.at(0)).shape[1];
    return runner_.executable({{input, Shape{1, channels, height, width}}});
  }

  GraphRunner runner_;
};

}  // namespace

std::unique_ptr<TileNetwork> make_cpu_network(Graph unet_graph) {
  return std::make_unique<CpuNetwork>(std::move(unet_graph));
}

}  // namespace vx::denoise
