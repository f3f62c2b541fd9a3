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
  // What the model file declares for one input or output (vxGetModelInputInfo), before the graph
  // is optimised, in the form the C API hands out.
  struct DeclaredValue {
    std::string name;
    VXDataType type = VX_TYPE_FLOAT32;
    std::vector<int64_t> dims;  // -1: free
    std::vector<std::string> dim_names;
    std::vector<const char*> dim_name_pointers;  // into dim_names
  };
  VXDeviceImpl* owner = nullptr;
  std::unique_ptr<vx::api::ModelSession> session;
  std::vector<DeclaredValue> declared_inputs, declared_outputs;  // in the graph's order
  std::map<std::string, vx::Tensor> inputs;  // placeholders (no data) for inputs in device buffers
  struct DeviceBuffer {
    uint64_t buffer = 0;
    size_t offset = 0;
  };
  std::map<std::string, DeviceBuffer> input_buffers, output_buffers;  // IO binding
  std::vector<vx::Tensor> outputs;  // of the last execute, in the graph's output order
  std::vector<std::vector<int64_t>> output_shapes;
  vx::Profile profile;  // of the last execute, while "profiling" is on
};

namespace {

using vx::api::guarded;
using vx::api::record;
using DeclaredValue = VXModelImpl::DeclaredValue;

std::vector<DeclaredValue> declared_values(const vx::Graph& g, const std::vector<vx::ValueId>& ids) {
  std::vector<DeclaredValue> declared(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const vx::Value& v = g.value(ids[i]);
    DeclaredValue& d = declared[i];
    d.name = v.name;
    d.type = vx::api::to_api(v.dtype);
    d.dims = v.shape.dims();
    d.dim_names.resize(d.dims.size());
    for (size_t k = 0; k < d.dims.size() && k < v.dim_params.size(); ++k) d.dim_names[k] = v.dim_params[k];
    for (const std::string& name : d.dim_names) d.dim_name_pointers.push_back(name.c_str());
  }
  return declared;
}

VXModel new_model(VXDevice device, const std::function<vx::Graph()>& import) {
  VXModel result = nullptr;
  guarded(device, [&] {
    VX_CHECK(device != nullptr, InvalidArgument, "null device handle");
    auto m = std::make_unique<VXModelImpl>();
    m->owner = device;
    vx::Graph graph = import();
    m->declared_inputs = declared_values(graph, graph.inputs);
    m->declared_outputs = declared_values(graph, graph.outputs);
    m->session = vx::api::make_model_session(device->device, std::move(graph));
    result = m.release();
  });
  return result;
}

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "]";
}

// The dimensions of input `n` as the caller gives them; InvalidArgument for an unknown input, a bad
// shape, or one that the model's declared rank or fixed extents rule out.
std::vector<int64_t> input_dims(const VXModelImpl& model, const std::string& n, const int64_t* shape, size_t rank) {
  const DeclaredValue* declared = nullptr;
  for (const DeclaredValue& d : model.declared_inputs)
    if (d.name == n) declared = &d;
  VX_CHECK(declared != nullptr, InvalidArgument, "model has no input '", n, "'");
  VX_CHECK(rank <= 8 && (shape != nullptr || rank == 0), InvalidArgument, "input '", n, "': bad shape (rank ", rank, ")");
  std::vector<int64_t> dims(shape, shape + rank);
  for (int64_t d : dims) VX_CHECK(d >= 0, InvalidArgument, "input '", n, "': negative dimension ", d);
  // Rank 0 declared is also "no shape declared": nothing to hold the input to.
  if (!declared->dims.empty()) {
    VX_CHECK(dims.size() == declared->dims.size(), InvalidArgument, "input '", n, "' has rank ", dims.size(),
             " (shape ", shape_text(dims), ") but the model declares rank ", declared->dims.size(), " ",
             shape_text(declared->dims));
    for (size_t i = 0; i < dims.size(); ++i)
      VX_CHECK(declared->dims[i] < 0 || declared->dims[i] == dims[i], InvalidArgument, "input '", n, "' has shape ",
               shape_text(dims), " but the model declares ", shape_text(declared->dims), " (dimension ", i, " must be ",
               declared->dims[i], ")");
  }
  return dims;
}

// The type of input `n` must be the declared one (the engine computes in the model's types).
void check_input_type(const VXModelImpl& model, const std::string& n, VXDataType type) {
  for (const DeclaredValue& d : model.declared_inputs)
    if (d.name == n)
      VX_CHECK(vx::api::to_dtype(type) == vx::api::to_dtype(d.type), InvalidArgument, "input '", n, "' is ",
               vx::dtype_name(vx::api::to_dtype(type)), " but the model declares ",
               vx::dtype_name(vx::api::to_dtype(d.type)));
}

bool declared_info(VXModel model, const std::vector<DeclaredValue>& values, const char* what, size_t index,
                   VXDataType* type, const int64_t** dims, const char* const** dim_names, size_t* rank) {
  bool found = false;
  vx::api::guarded(model->owner, [&] {
    VX_CHECK(index < values.size(), InvalidArgument, what, " index ", index, " is out of range (the model has ",
             values.size(), ")");
    const DeclaredValue& d = values[index];
    if (type) *type = d.type;
    if (dims) *dims = d.dims.data();
    if (dim_names) *dim_names = d.dim_name_pointers.data();
    if (rank) *rank = d.dims.size();
    found = true;
  });
  return found;
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
    } else if (n == "profiling") {
      VX_CHECK(value == 0 || value == 1, InvalidArgument, "profiling ", value, " (expected 0 off or 1 on)");
      model->session->set_profiling(value == 1);
    } else {
      vx::fail(vx::ErrorCode::InvalidArgument,
               vx::cat("unknown model parameter '", n, "' (expected precision, maxMemoryMB or profiling)"));
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

bool vxGetModelInputInfo(VXModel model, size_t index, VXDataType* type, const int64_t** dims,
                         const char* const** dim_names, size_t* rank) {
  VX_REQUIRE_MODEL(model, false);
  return declared_info(model, model->declared_inputs, "input", index, type, dims, dim_names, rank);
}

bool vxGetModelOutputInfo(VXModel model, size_t index, VXDataType* type, const int64_t** dims,
                          const char* const** dim_names, size_t* rank) {
  VX_REQUIRE_MODEL(model, false);
  return declared_info(model, model->declared_outputs, "output", index, type, dims, dim_names, rank);
}

void vxSetModelInput(VXModel model, const char* name, VXDataType type, const int64_t* shape, size_t rank,
                     const void* data) {
  VX_REQUIRE_MODEL(model);
  guarded(model->owner, [&] {
    const std::string n = name ? name : "";
    const std::vector<int64_t> dims = input_dims(*model, n, shape, rank);
    check_input_type(*model, n, type);
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
    model->profile.entries.clear();
    model->outputs = model->session->run(inputs, device_values, &model->profile);
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

size_t vxGetModelProfileCount(VXModel model) { return model ? model->profile.entries.size() : 0; }

bool vxGetModelProfileEntry(VXModel model, size_t index, const char** node, const char** op, const char** kernel,
                            double* milliseconds) {
  VX_REQUIRE_MODEL(model, false);
  bool found = false;
  guarded(model->owner, [&] {
    VX_CHECK(index < model->profile.entries.size(), InvalidArgument, "profile entry ", index,
             " is out of range (the last execute has ", model->profile.entries.size(), ")");
    const vx::ProfileEntry& e = model->profile.entries[index];
    if (node) *node = e.node.c_str();
    if (op) *op = e.op.c_str();
    if (kernel) *kernel = e.variant.c_str();
    if (milliseconds) *milliseconds = e.milliseconds;
    found = true;
  });
  return found;
}

}  // extern "C"
