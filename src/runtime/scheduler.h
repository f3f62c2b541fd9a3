// Splits a bound graph between backends (ggml's backend scheduler and OIDN's device split are the
// models): every node goes to the first backend, in the caller's order of preference, that
// supports it; consecutive nodes on one backend form a segment; the values crossing segment
// borders become the segments' receives and sends.
//
// Policy: nodes that compute shapes (every output int64, reading no value made off the host and no
// non-constant float) and nodes whose shapes are not known when planning (they depend on data) run
// on the host backend by design, so that the preferred backend only sees work it can plan.
#pragma once
#include <string>
#include <vector>

#include "runtime/backend.h"

namespace vx::runtime {

// Where one node runs and why.
struct NodePlacement {
  std::string node, op;
  size_t backend = 0;          // index into the backends
  std::string backend_name;    // "vulkan", "cpu"
  bool on_host = false;        // on the host backend
  bool preferred = false;      // on the first backend of the list
  bool by_design = false;      // on the host by policy (a shape computation), not for lack of a kernel
  bool touches_float = false;  // reads or writes a float tensor
  std::string variant;         // the backend's kernel variant
  std::string reason;          // why it is not on the preferred backend ("" when it is)
};

struct Schedule {
  std::vector<NodePlacement> placements;  // per node, in execution order
  std::vector<Segment> segments;          // in execution order
};

// `backends` in order of preference; one of them must be on_host(). Throws Unsupported naming the
// node when no backend runs it.
Schedule make_schedule(const BoundGraph& bound, const std::vector<Backend*>& backends);

}  // namespace vx::runtime
