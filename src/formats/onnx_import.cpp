// ONNX ModelProto -> vx::Graph (see onnx_import.h for the rules).
#include "formats/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <unordered_map>

#include "core/error.h"
#include "core/file_io.h"
#include "formats/onnx_tensor.h"
#include "ops/control_flow.h"
#include "ops/host_kernels.h"
#include "ops/onnx_dtype.h"

namespace vx {
namespace {

// Set on nodes whose attributes we could not import (lists of graphs, sparse tensors, type protos); such
// nodes are always reported as unsupported.
constexpr const char* kUnsupportedAttribute = "vx.unsupported_attribute";
// The newest ai.onnx opset we accept at all; kernels decide below that.
constexpr int64_t kNewestOpset = 21;

std::string normalize_domain(const std::string& domain) { return domain == "ai.onnx" ? std::string() : domain; }

const char* value_kind_name(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType: return "a tensor";
    case onnx::TypeProto::kSequenceType: return "a sequence";
    case onnx::TypeProto::kMapType: return "a map";
    case onnx::TypeProto::kOptionalType: return "an optional";
    case onnx::TypeProto::kSparseTensorType: return "a sparse tensor";
    default: return "of an unknown kind";
  }
}

// Fills dtype / shape / dim_params of `v` from a ValueInfoProto's tensor type.
void apply_value_info(Value& v, const onnx::ValueInfoProto& info, bool required) {
  const onnx::TypeProto& type = info.type();
  if (type.value_case() != onnx::TypeProto::kTensorType) {
    VX_CHECK(!required || type.value_case() == onnx::TypeProto::VALUE_NOT_SET, Unsupported, "value '", info.name(),
             "' is ", value_kind_name(type), ", which Volvox does not support");
    return;
  }
  const auto& tensor_type = type.tensor_type();
  if (tensor_type.elem_type() != 0) {
    std::optional<DType> dtype = dtype_from_onnx(tensor_type.elem_type());
    VX_CHECK(dtype.has_value() || !required, Unsupported, "value '", info.name(), "' has element type ",
             onnx::TensorProto::DataType_IsValid(tensor_type.elem_type())
                 ? onnx::TensorProto::DataType_Name(tensor_type.elem_type())
                 : std::to_string(tensor_type.elem_type()),
             ", which Volvox does not support");
    if (dtype) v.dtype = *dtype;
  }
  if (!tensor_type.has_shape()) return;
  std::vector<int64_t> dims;
  std::vector<std::string> params;
  bool any_param = false;
  for (const auto& d : tensor_type.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      dims.push_back(d.dim_value());
      params.emplace_back();
    } else {
      dims.push_back(-1);
      params.push_back(d.has_dim_param() ? d.dim_param() : std::string());
      any_param = any_param || d.has_dim_param();
    }
  }
  v.shape = Shape(std::move(dims));
  v.dim_params = any_param ? std::move(params) : std::vector<std::string>();
}

// Imports one attribute but a graph (Importer::make_node does those); returns false for kinds we do
// not support (lists of graphs, sparse tensors, types).
bool import_attribute(const onnx::AttributeProto& a, const std::filesystem::path& base_dir, Attributes& attrs) {
  using A = onnx::AttributeProto;
  A::AttributeType type = a.type();
  if (type == A::UNDEFINED) {  // very old models: infer the kind from the field that is set
    if (a.has_f()) type = A::FLOAT;
    else if (a.has_i()) type = A::INT;
    else if (a.has_s()) type = A::STRING;
    else if (a.has_t()) type = A::TENSOR;
    else if (a.has_g()) type = A::GRAPH;
    else if (a.floats_size()) type = A::FLOATS;
    else if (a.ints_size()) type = A::INTS;
    else if (a.strings_size()) type = A::STRINGS;
    else if (a.tensors_size()) type = A::TENSORS;
    else if (a.graphs_size()) type = A::GRAPHS;
  }
  switch (type) {
    case A::FLOAT: attrs.set(a.name(), a.f()); return true;
    case A::INT: attrs.set(a.name(), int64_t(a.i())); return true;
    case A::STRING: attrs.set(a.name(), a.s()); return true;
    case A::TENSOR: attrs.set(a.name(), onnx_detail::tensor_from_proto(a.t(), base_dir)); return true;
    case A::FLOATS: attrs.set(a.name(), std::vector<float>(a.floats().begin(), a.floats().end())); return true;
    case A::INTS: attrs.set(a.name(), std::vector<int64_t>(a.ints().begin(), a.ints().end())); return true;
    case A::STRINGS:
      attrs.set(a.name(), std::vector<std::string>(a.strings().begin(), a.strings().end()));
      return true;
    case A::UNDEFINED: attrs.set(a.name(), std::vector<int64_t>()); return true;  // an empty list
    default: return false;
  }
}

// The constant a Constant node holds, or an undefined tensor when it holds something we cannot
// represent (strings, sparse tensors): the node then stays and is reported as unsupported.
Tensor constant_node_value(const onnx::NodeProto& node, const std::filesystem::path& base_dir) {
  VX_CHECK(node.attribute_size() == 1, InvalidFile, "Constant node '", node.name(), "' has ",
           node.attribute_size(), " attributes instead of one");
  const onnx::AttributeProto& a = node.attribute(0);
  const std::string& n = a.name();
  if (n == "value") {
    if (a.t().data_type() == onnx::TensorProto::STRING) return Tensor();
    return onnx_detail::tensor_from_proto(a.t(), base_dir);
  }
  if (n == "value_float") return Tensor::from<float>({}, {a.f()});
  if (n == "value_int") return Tensor::from<int64_t>({}, {int64_t(a.i())});
  if (n == "value_floats") {
    Tensor t(DType::f32, Shape{int64_t(a.floats_size())});
    for (int i = 0; i < a.floats_size(); ++i) t.data<float>()[i] = a.floats(i);
    return t;
  }
  if (n == "value_ints") {
    Tensor t(DType::i64, Shape{int64_t(a.ints_size())});
    for (int i = 0; i < a.ints_size(); ++i) t.data<int64_t>()[i] = a.ints(i);
    return t;
  }
  return Tensor();  // value_string(s), sparse_value
}

// Imports one graph: the model's, or (with a parent) the body of an If, Loop or Scan, which may read
// the values of every enclosing graph (ops/control_flow.h says how such reads are made explicit).
class Importer {
 public:
  Importer(const onnx::GraphProto& proto, std::filesystem::path base_dir, std::map<std::string, int64_t> opsets,
           Importer* parent = nullptr)
      : proto_(proto), base_dir_(std::move(base_dir)), parent_(parent) {
    graph_.opsets = std::move(opsets);
  }

  Graph run() {
    const onnx::GraphProto& g = proto_;
    graph_.name = g.name();
    for (const auto& init : g.initializer()) {
      VX_CHECK(!init.name().empty(), InvalidFile, "an initializer has no name");
      VX_CHECK(!ids_.count(init.name()), InvalidFile, "initializer '", init.name(), "' is defined twice");
      Tensor t;
      VX_WITH_CONTEXT(cat("initializer '", init.name(), "'"), t = onnx_detail::tensor_from_proto(init, base_dir_));
      ids_[init.name()] = graph_.add_constant(init.name(), std::move(t));
    }
    VX_CHECK(g.sparse_initializer_size() == 0, Unsupported, "the model has sparse initializers");
    for (const auto& input : g.input()) {
      if (ids_.count(input.name())) continue;  // IR < 4 lists initializers as inputs too: keep them constant
      VX_CHECK(!input.name().empty(), InvalidFile, "a graph input has no name");
      Value v;
      v.name = input.name();
      apply_value_info(v, input, true);
      ValueId id = graph_.add_value(std::move(v));
      ids_[input.name()] = id;
      graph_.inputs.push_back(id);
    }
    formal_inputs_ = graph_.inputs.size();
    for (const auto& info : g.value_info()) value_info_[info.name()] = &info;
    for (const auto& info : g.output()) value_info_[info.name()] = &info;

    // Nodes: outputs first (so that inputs can be resolved whatever the order), then inputs.
    std::vector<const onnx::NodeProto*> kept;
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& np = g.node(i);
      if (np.op_type() == "Constant" && normalize_domain(np.domain()).empty()) {
        Tensor value;
        VX_WITH_CONTEXT(cat("Constant node '", np.name(), "'"), value = constant_node_value(np, base_dir_));
        if (value.defined()) {
          VX_CHECK(np.output_size() == 1, InvalidFile, "Constant node '", np.name(), "' has ", np.output_size(),
                   " outputs instead of one");
          define(np.output(0), np);
          ids_[np.output(0)] = graph_.add_constant(np.output(0), std::move(value));
          continue;
        }
      }
      for (const auto& out : np.output())
        if (!out.empty()) {
          define(out, np);
          Value v;
          v.name = out;
          auto it = value_info_.find(out);
          if (it != value_info_.end()) apply_value_info(v, *it->second, false);
          ids_[out] = graph_.add_value(std::move(v));
        }
      kept.push_back(&np);
    }
    std::vector<Node> nodes;
    for (size_t k = 0; k < kept.size(); ++k) nodes.push_back(make_node(*kept[k], k));
    graph_.nodes = topological_order(std::move(nodes));

    for (const auto& out : g.output()) {
      const ValueId id = resolve(out.name());  // a body may return a value of an enclosing graph
      VX_CHECK(id != kNoValue, InvalidFile, "graph output '", out.name(), "' is never produced");
      Value& v = graph_.value(id);
      if (!v.is_constant()) apply_value_info(v, out, false);
      graph_.outputs.push_back(id);
    }
    graph_.validate();
    return std::move(graph_);
  }

  // The names this body reads from enclosing graphs, in the order of its inputs after the formal ones.
  const std::vector<std::string>& captured() const { return captured_; }
  size_t formal_inputs() const { return formal_inputs_; }

 private:
  void define(const std::string& name, const onnx::NodeProto& np) {
    VX_CHECK(!ids_.count(name), InvalidFile, "value '", name, "' is produced twice (again by node '", np.name(),
             "' (", np.op_type(), "))");
  }

  // The value `name` in this graph; in a body, a value of an enclosing graph becomes a copied
  // constant or a captured input here. kNoValue when no scope has it.
  ValueId resolve(const std::string& name) {
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    if (parent_ == nullptr) return kNoValue;
    const ValueId outer = parent_->resolve(name);
    if (outer == kNoValue) return kNoValue;
    const Value& ov = parent_->graph_.value(outer);
    ValueId id;
    if (ov.is_constant()) {
      id = graph_.add_constant(name, ov.constant);
    } else {
      Value v;
      v.name = name;
      v.dtype = ov.dtype;
      v.shape = ov.shape;
      v.dim_params = ov.dim_params;
      id = graph_.add_value(std::move(v));
      graph_.inputs.push_back(id);
      captured_.push_back(name);
    }
    ids_[name] = id;
    return id;
  }

  // A graph attribute: the body imported with this importer as its parent. Its captured values are
  // gathered by make_node (a node's bodies share one list).
  std::shared_ptr<Graph> import_body(const onnx::AttributeProto& a, std::vector<std::string>& captured,
                                     size_t& formal) {
    Importer body(a.g(), base_dir_, graph_.opsets, this);
    auto g = std::make_shared<Graph>(body.run());
    captured = body.captured();
    formal = body.formal_inputs();
    return g;
  }

  Node make_node(const onnx::NodeProto& np, size_t index) {
    Node n;
    n.op = np.op_type();
    n.domain = normalize_domain(np.domain());
    n.name = !np.name().empty() ? np.name() : np.output_size() && !np.output(0).empty() ? np.output(0)
                                                                                          : cat(n.op, "_", index);
    for (const auto& in : np.input()) {
      if (in.empty()) {
        n.inputs.push_back(kNoValue);
        continue;
      }
      const ValueId id = resolve(in);
      VX_CHECK(id != kNoValue, InvalidFile, "node '", n.name, "' (", n.op, ") reads '", in,
               "', which is no graph input, initializer or node output");
      n.inputs.push_back(id);
    }
    for (const auto& out : np.output()) n.outputs.push_back(out.empty() ? kNoValue : ids_.at(out));
    std::string unsupported;
    struct Body {
      std::string attribute;
      std::shared_ptr<Graph> graph;
      std::vector<std::string> captured;
      size_t formal = 0;
    };
    std::vector<Body> bodies;
    for (const auto& a : np.attribute()) {
      const bool graph = a.type() == onnx::AttributeProto::GRAPH ||
                         (a.type() == onnx::AttributeProto::UNDEFINED && a.has_g());
      bool ok = graph;
      try {
        if (graph) {
          Body b;
          b.attribute = a.name();
          b.graph = import_body(a, b.captured, b.formal);
          bodies.push_back(std::move(b));
        } else {
          ok = import_attribute(a, base_dir_, n.attrs);
        }
      } catch (const Error& e) {
        throw e.with_context(cat("node '", n.name, "' (", n.op, ") attribute '", a.name(), "'"));
      }
      if (!ok) unsupported = a.name();
    }
    if (!unsupported.empty()) n.attrs.set(kUnsupportedAttribute, unsupported);
    if (bodies.empty()) return n;
    // One list of captured values for all the node's bodies: each body gets an input for every one
    // (unused where it reads none), in the list's order after its formal inputs.
    std::vector<std::string> captured;
    for (const Body& b : bodies)
      for (const std::string& name : b.captured)
        if (std::find(captured.begin(), captured.end(), name) == captured.end()) captured.push_back(name);
    for (Body& b : bodies) {
      Graph& g = *b.graph;
      std::vector<ValueId> inputs(g.inputs.begin(), g.inputs.begin() + std::ptrdiff_t(b.formal));
      for (const std::string& name : captured) {
        ValueId id = g.find(name);
        if (id == kNoValue || std::find(g.inputs.begin(), g.inputs.end(), id) == g.inputs.end()) {
          const Value& outer = graph_.value(resolve(name));
          id = g.add_value(name, outer.dtype, outer.shape);  // no value of the body has this name
        }
        inputs.push_back(id);
      }
      g.inputs = std::move(inputs);
      n.attrs.set(b.attribute, GraphAttribute(b.graph));
    }
    for (const std::string& name : captured) n.inputs.push_back(resolve(name));
    n.attrs.set(kCapturedInputs, int64_t(captured.size()));
    return n;
  }

  // Stable topological order (ONNX requires sorted nodes, but some exporters do not sort).
  // Nodes that never become ready form a cycle (or read a value produced only inside one).
  std::vector<Node> topological_order(std::vector<Node> nodes) {
    std::vector<char> ready(graph_.values.size(), 0);
    for (size_t i = 0; i < graph_.values.size(); ++i) ready[i] = graph_.values[i].is_constant();
    for (ValueId id : graph_.inputs) ready[size_t(id)] = 1;
    std::vector<Node> sorted;
    std::vector<char> done(nodes.size(), 0);
    bool progress = true;
    while (sorted.size() < nodes.size() && progress) {
      progress = false;
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (done[i]) continue;
        bool can_run = true;
        for (ValueId id : nodes[i].inputs)
          if (id != kNoValue && !ready[size_t(id)]) can_run = false;
        if (!can_run) continue;
        for (ValueId id : nodes[i].outputs)
          if (id != kNoValue) ready[size_t(id)] = 1;
        done[i] = 1;
        sorted.push_back(std::move(nodes[i]));
        progress = true;
      }
    }
    if (sorted.size() < nodes.size()) {
      std::string stuck;
      for (size_t i = 0; i < nodes.size(); ++i)
        if (!done[i]) stuck += cat(stuck.empty() ? "" : ", ", nodes[i].name, " (", nodes[i].op, ")");
      fail(ErrorCode::InvalidFile, cat("the graph has a cycle: these nodes wait on each other: ", stuck));
    }
    return sorted;
  }

  const onnx::GraphProto& proto_;
  std::filesystem::path base_dir_;
  Importer* parent_;
  size_t formal_inputs_ = 0;
  std::vector<std::string> captured_;
  Graph graph_;
  std::unordered_map<std::string, ValueId> ids_;
  std::unordered_map<std::string, const onnx::ValueInfoProto*> value_info_;
};

// Protobuf parses at most 2 GiB; larger models keep their weights in external data files.
constexpr uint64_t kMaxProtobufBytes = uint64_t(INT_MAX);

}  // namespace

namespace {

void add_unsupported_nodes(const Graph& graph, std::vector<std::string>& result) {
  for (const Node& n : graph.nodes) {
    // Custom domains are supported when a kernel was registered for them (register_custom_op).
    bool ok = !n.attrs.has(kUnsupportedAttribute) && host_kernels().supports(n, graph);
    if (!ok) result.push_back(cat(n.name, " (", n.domain.empty() ? "" : n.domain + ".", n.op, ")"));
    for (const GraphAttribute& body : node_subgraphs(n)) add_unsupported_nodes(*body, result);
  }
}

}  // namespace

std::vector<std::string> unsupported_onnx_nodes(const Graph& graph) {
  std::vector<std::string> result;
  add_unsupported_nodes(graph, result);
  return result;
}

Graph import_onnx_buffer(const void* data, size_t size, const std::filesystem::path& base_dir,
                         const OnnxImportOptions& options) {
  VX_CHECK(size <= size_t(INT_MAX), Unsupported, "ONNX models over 2 GiB need external data");
  onnx::ModelProto model;
  VX_CHECK(size > 0 && model.ParseFromArray(data, int(size)), InvalidFile,
           "not a valid ONNX model (the protobuf is truncated or malformed)");
  VX_CHECK(model.has_graph(), InvalidFile, "the model has no graph");
  std::map<std::string, int64_t> opsets;
  for (const auto& op : model.opset_import()) opsets[normalize_domain(op.domain())] = op.version();
  const auto onnx_opset = opsets.find("");
  const int64_t opset = onnx_opset == opsets.end() ? 0 : onnx_opset->second;
  VX_CHECK(opset <= kNewestOpset, Unsupported, "the model uses ai.onnx opset ", opset, ", newer than any Volvox knows (",
           kNewestOpset, ")");
  Graph graph = Importer(model.graph(), base_dir, std::move(opsets)).run();
  if (options.check_support) {
    std::vector<std::string> missing = unsupported_onnx_nodes(graph);
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      fail(ErrorCode::Unsupported, cat("the model has ", missing.size(), " node(s) Volvox cannot run on the CPU ",
                                       "(ai.onnx opset ", graph.opset(""), "): ", list));
    }
  }
  return graph;
}

Graph import_onnx(const std::filesystem::path& path, const OnnxImportOptions& options) {
  std::string bytes = read_file_string(path, "ONNX model", kMaxProtobufBytes);
  try {
    return import_onnx_buffer(bytes.data(), bytes.size(), path.parent_path().empty() ? "." : path.parent_path(),
                              options);
  } catch (const Error& e) {
    throw e.with_context(path.filename().string());
  }
}

Tensor read_onnx_tensor_buffer(const void* data, size_t size, std::string* name) {
  VX_CHECK(size <= size_t(INT_MAX), Unsupported, "tensor files over 2 GiB are not supported");
  onnx::TensorProto proto;
  VX_CHECK(proto.ParseFromArray(data, int(size)), InvalidFile,
           "not a valid ONNX TensorProto (the protobuf is truncated or malformed)");
  if (name) *name = proto.name();
  return onnx_detail::tensor_from_proto(proto, {});
}

Tensor read_onnx_tensor_file(const std::filesystem::path& path, std::string* name) {
  std::string bytes = read_file_string(path, "tensor file", kMaxProtobufBytes);
  onnx::TensorProto proto;
  VX_CHECK(bytes.size() <= size_t(INT_MAX) && proto.ParseFromArray(bytes.data(), int(bytes.size())), InvalidFile,
           path.string(), " is not a valid ONNX TensorProto");
  if (name) *name = proto.name();
  Tensor t;
  VX_WITH_CONTEXT(path.string(), t = onnx_detail::tensor_from_proto(proto, path.parent_path()));
  return t;
}

}  // namespace vx
