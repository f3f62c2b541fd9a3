#include "api/model_session.h"

#include "runtime/model_runner.h"

namespace vx::api {
namespace {

class CpuModelSession final : public ModelSession {
 public:
  explicit CpuModelSession(Graph graph) : runner_(std::move(graph)) {}
  const Graph& graph() const override { return runner_.graph(); }
  void set_precision(ModelPrecision precision) override {
    VX_CHECK(precision != ModelPrecision::fp16, Unsupported,
             "fp16 is supported on the vulkan device only; the cpu device computes in fp32");
  }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) override { return runner_.run(inputs); }

 private:
  ModelRunner runner_;
};

}  // namespace

std::unique_ptr<ModelSession> make_model_session(std::shared_ptr<denoise::Device> device, Graph graph) {
  VX_CHECK(device != nullptr, InvalidArgument, "null device");
  VX_CHECK(device->name() == "cpu", Unsupported, "ONNX models run on the cpu device only so far (device '",
           device->name(), "')");
  return std::make_unique<CpuModelSession>(std::move(graph));
}

}  // namespace vx::api
