// A Plan is a graph bound to concrete input shapes: shapes inferred for every value, the nodes in
// execution order with the kernel variant a backend chose for each, and every activation given a
// byte offset in one arena by the liveness planner (arena_planner.h).
//
// Activations are the values that are not constants, graph inputs or graph outputs and whose
// shape is known at plan time; the rest (graph outputs, values of data-dependent shape) are
// allocated by the executor at run time.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/graph.h"

namespace vx {

struct PlanStep {
  int node = 0;         // index into Plan::graph.nodes
  std::string variant;  // the kernel variant the backend chose ("" when none was chosen yet)
  size_t scratch_bytes = 0;   // temporary bytes the kernel needs during this step only
  int64_t scratch_offset = -1;  // their place in the arena (-1: none reserved)
  // The input whose buffer output 0 may take over, written in place (a residual added by a sum
  // post-op); -1 for none. Honoured only where that input is an arena activation of the output's
  // size, read once by this step and by no later one; the kernel must work either way.
  int output_reuses_input = -1;
};

struct ArenaSlot {
  ValueId value = kNoValue;  // kNoValue for a step's scratch; in-place outputs share their input's slot
  size_t offset = 0;
  size_t bytes = 0;
  int first_step = 0;  // the step that writes it
  int last_step = 0;   // the last step that reads it (or a value written in place over it)
};

struct Plan {
  Graph graph;                                // shapes bound; nodes in execution order
  std::map<std::string, Shape> input_shapes;  // the key this plan was made for
  std::vector<PlanStep> steps;
  std::vector<bool> shape_known;              // per value: shape known at plan time
  std::vector<int64_t> arena_offset;          // per value: byte offset in the arena, -1 when not there
  std::vector<ArenaSlot> arena_slots;
  size_t arena_bytes = 0;           // the arena size after sharing
  size_t sum_activation_bytes = 0;  // what the activations (and scratch) would take without sharing
  std::string prepared_by;          // the backend whose PlanHook ran ("" when none)

  // One line per step: step, node, op, kernel variant, output shape, arena offset; then the totals.
  std::string str() const;
};

// The backend's kernel choice for a node of the bound graph ("" when it has none).
using VariantChooser = std::function<std::string(const Node&, const Graph&)>;

// The backend's look at the plan after variants are chosen and before the arena is laid out: it
// may annotate nodes of plan.graph with attributes of its own (e.g. internal layouts), set
// steps[s].scratch_bytes, and set prepared_by.
using PlanHook = std::function<void(Plan& plan)>;

// Binds `graph` to `input_shapes` (graph input name -> shape; inputs whose declared shape is fully
// known may be omitted). Throws InvalidArgument naming the input when a shape is missing, has the
// wrong rank or contradicts a declared extent, or names no graph input.
Plan make_plan(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
               const VariantChooser& choose_variant = {}, const PlanHook& backend_hook = {});

// "x=1x3x224x224, mask=1x224" ("x=scalar" for rank 0): the key of a set of input shapes (plan
// caches) and how messages name them.
std::string shape_key(const std::map<std::string, Shape>& input_shapes);

}  // namespace vx
