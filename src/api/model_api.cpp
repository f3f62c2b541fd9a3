// The C API for ONNX models (include/volvox/model.h) over the runtime's model runners. Like the
// filter's entry points, every one catches everything and records the error on the device.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/c_api_internal.h"
#include "api/model_session.h"
#include "formats/onnx_import.h"

struct VXModelImpl {
  VXDeviceImpl* owner = nullptr;
  std::unique_ptr<vx::api::ModelSession> session;
  std::map<std::string, vx::Tensor> inputs;  // placeholders (no data) for inputs in device buffers
  struct DeviceBuffer {
    uint64_t buffer = 0;
    size_t offset = 0;
  };
  std::map<std::string, DeviceBuffer> input_buffers, output_buffers;  // IO binding
  std::vector<vx::Tensor> outputs;  // of the last execute, in the graph's output order
  std::vector<std::vector<int64_t>> output_shapes;
};

namespace {

using vx::api::guarded;
using vx::api::record;

VXModel new_model(VXDevice device, const std::function<vx::Graph()>& import) {
  VXModel result = nullptr;
  guarded(device, [&] {
    VX_CHECK(device != nullptr, InvalidArgument, "null device handle");
    auto m = std::make_unique<VXModelImpl>();
    m->owner = device;
    m->session = vx::api::make_model_session(device->device, import());
    result = m.release();
  });
  return result;
}

// The dimensions of input `n` as the caller gives them; InvalidArgument for an unknown input or a bad shape.
std::vector<int64_t> input_dims(const VXModelImpl& model, const std::string& n, const int64_t* shape, size_t rank) {
  const vx::Graph& g = model.session->graph();
  bool known = false;
  for (vx::ValueId id : g.inputs) known |= g.value(id).name == n;
  VX_CHECK(known, InvalidArgument, "model has no input '", n, "'");
  VX_CHECK(rank <= 8 && (shape != nullptr || rank == 0), InvalidArgument, "input '", n, "': bad shape (rank ", rank, ")");
  std::vector<int64_t> dims(shape, shape + rank);
  for (int64_t d : dims) VX_CHECK(d >= 0, InvalidArgument, "input '", n, "': negative dimension ", d);
  return dims;
}

#define VX_REQUIRE_MODEL(m, ...)                                       \
  if (!(m)) {                                                          \
    record(nullptr, VX_ERROR_INVALID_ARGUMENT, "null model handle");   \
    return __VA_ARGS__;                                                \
  }

}  // namespace

extern "C" {

VXModel vxNewModel(VXDevice device, const char* path) {
  return new_model(device, [&] {
    VX_CHECK(path != nullptr, InvalidArgument, "null model path");
    return vx::import_onnx(path);
  });
}

VXModel vxNewModelFromMemory(VXDevice device, const void* data, size_t size) {
  return new_model(device, [&] {
    VX_CHECK(data != nullptr || size == 0, InvalidArgument, "null model data");
    return vx::import_onnx_buffer(data, size);
  });
}

void vxReleaseModel(VXModel model) { delete model; }

void vxSetModelInt(VXModel model, const char* name, int value) {
  VX_REQUIRE_MODEL(model);
  guarded(model->owner, [&] {
    const std::string n = name ? name : "";
    if (n == "precision") {
      model->session->set_precision(vx::api::precision_from_c(value));
    } else if (n == "maxMemoryMB") {
      VX_CHECK(value >= 0, InvalidArgument, "maxMemoryMB ", value, " (expected 0 for no limit, or a size in MB)");
      model->session->set_max_memory_mb(uint64_t(value));
    } else {
      vx::fail(vx::ErrorCode::InvalidArgument,
               vx::cat("unknown model parameter '", n, "' (expected precision or maxMemoryMB)"));
    }
  });
}

size_t vxGetModelInputCount(VXModel model) { return model ? model->session->graph().inputs.size() : 0; }
size_t vxGetModelOutputCount(VXModel model) { return model ? model->session->graph().outputs.size() : 0; }

const char* vxGetModelInputName(VXModel model, size_t index) {
  if (!model || index >= model->session->graph().inputs.size()) return nullptr;
  const vx::Graph& g = model->session->graph();
  return g.value(g.inputs[index]).name.c_str();
}

const char* vxGetModelOutputName(VXModel model, size_t index) {
  if (!model || index >= model->session->graph().outputs.size()) return nullptr;
  const vx::Graph& g = model->session->graph();
  return g.value(g.outputs[index]).name.c_str();
}

void vxSetModelInput(VXModel model, const char* name, VXDataType type, const int64_t* shape, size_t rank,
                     const void* data) {
  VX_REQUIRE_MODEL(model);
  guarded(model->owner, [&] {
    const std::string n = name ? name : "";
    const std::vector<int64_t> dims = input_dims(*model, n, shape, rank);
    vx::Tensor t(vx::api::to_dtype(type), vx::Shape(dims));
    VX_CHECK(data != nullptr || t.nbytes() == 0, InvalidArgument, "input '", n, "': null data");
    if (t.nbytes()) std::memcpy(t.raw(), data, t.nbytes());
    model->inputs[n] = std::move(t);
    model->input_buffers.erase(n);
  });
}

void vxSetModelInputVulkanBuffer(VXModel model, const char* name, const int64_t* shape, size_t rank, uint64_t buffer,
                                 size_t byte_offset) {
  VX_REQUIRE_MODEL(model);
  guarded(model->owner, [&] {
    const std::string n = name ? name : "";
    const std::vector<int64_t> dims = input_dims(*model, n, shape, rank);
    VX_CHECK(buffer != 0, InvalidArgument, "input '", n, "': null VkBuffer (use vxSetModelInput for host memory)");
    model->inputs[n] = vx::Tensor::wrap(vx::DType::f32, vx::Shape(dims), nullptr);  // the shape; values on the device
    model->input_buffers[n] = {buffer, byte_offset};
  });
}

void vxSetModelOutputVulkanBuffer(VXModel model, const char* name, uint64_t buffer, size_t byte_offset) {
  VX_REQUIRE_MODEL(model);
  guarded(model->owner, [&] {
    const std::string n = name ? name : "";
    const vx::Graph& g = model->session->graph();
    bool known = false;
    for (vx::ValueId id : g.outputs) known |= g.value(id).name == n;
    VX_CHECK(known, InvalidArgument, "model has no output '", n, "'");
    if (buffer == 0) model->output_buffers.erase(n);
    else model->output_buffers[n] = {buffer, byte_offset};
  });
}

void vxExecuteModel(VXModel model) {
  VX_REQUIRE_MODEL(model);
  guarded(model->owner, [&] {
    const vx::Graph& g = model->session->graph();
    std::vector<vx::Tensor> inputs;
    for (vx::ValueId id : g.inputs) {
      auto it = model->inputs.find(g.value(id).name);
      VX_CHECK(it != model->inputs.end(), InvalidArgument, "input '", g.value(id).name, "' was not set");
      inputs.push_back(it->second);
    }
    std::vector<vx::runtime::ScheduledExecutable::NamedDeviceValue> device_values;
    for (const auto& [name, b] : model->input_buffers) device_values.push_back({name, b.buffer, b.offset});
    for (const auto& [name, b] : model->output_buffers) device_values.push_back({name, b.buffer, b.offset});
    model->outputs.clear();
    model->output_shapes.clear();
    model->outputs = model->session->run(inputs, device_values);
    for (const vx::Tensor& t : model->outputs) model->output_shapes.push_back(t.shape().dims());
  });
}

bool vxGetModelOutput(VXModel model, const char* name, VXDataType* type, const int64_t** shape, size_t* rank,
                      const void** data) {
  VX_REQUIRE_MODEL(model, false);
  bool found = false;
  guarded(model->owner, [&] {
    const std::string n = name ? name : "";
    const vx::Graph& g = model->session->graph();
    VX_CHECK(!model->outputs.empty(), InvalidArgument, "no outputs yet: call vxExecuteModel first");
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      if (g.value(g.outputs[i]).name != n) continue;
      const vx::Tensor& t = model->outputs[i];
      if (type) *type = vx::api::to_api(t.dtype());
      if (shape) *shape = model->output_shapes[i].data();
      if (rank) *rank = model->output_shapes[i].size();
      if (data) *data = t.raw();
      found = true;
      return;
    }
    vx::fail(vx::ErrorCode::InvalidArgument, vx::cat("model has no output '", n, "'"));
  });
  return found;
}

}  // extern "C"
