#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// RNN / GRU / LSTM state in and out. Phase 0: zero Y (steps past a sequence's length stay 0) and
// load initial_h / initial_c (or zeros) into the state. Phase 1: write Y_h and Y_c from the final
// state. Initial states and Y_h / Y_c are [dirs, batch, hidden], or [batch, dirs, hidden] when
// batch-major (layout 1).
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"
#include "recurrent_state.glsl"

layout(std430, binding = 0) readonly buffer H0 { elem_t h0[]; };
layout(std430, binding = 1) readonly buffer C0 { elem_t c0[]; };
layout(std430, binding = 2) buffer S { float state[]; };
layout(std430, binding = 3) writeonly buffer Y { elem_t y[]; };
layout(std430, binding = 4) writeonly buffer YH { elem_t y_h[]; };
layout(std430, binding = 5) writeonly buffer YC { elem_t y_c[]; };

// Matches RnnIoPush in recurrent.cpp.
layout(push_constant) uniform Push {
  uint count;        // max(Y elements, state values)
  uint state_count;  // dirs * batch * hidden
  uint y_count;
  int phase;
  int flags;  // 1 initial_h, 2 initial_c, 4 Y, 8 Y_h, 16 Y_c, 32 batch-major
  int batch;
  int dirs;
  int hidden;
  uint final_buffer;  // H_PING or H_PONG
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  if (p.phase == 0 && (p.flags & 4) != 0 && e < p.y_count) y[e] = elem_t(0.0);
  if (e >= p.state_count) return;
  int j = int(e % uint(p.hidden)), b = int((e / uint(p.hidden)) % uint(p.batch)), d = int(e / uint(p.hidden * p.batch));
  uint io = (p.flags & 32) != 0 ? uint((b * p.dirs + d) * p.hidden + j) : e;
  if (p.phase == 0) {
    state[H_PING * p.state_count + e] = (p.flags & 1) != 0 ? float(h0[io]) : 0.0;
    state[CELL * p.state_count + e] = (p.flags & 2) != 0 ? float(c0[io]) : 0.0;
  } else {
    if ((p.flags & 8) != 0) y_h[io] = elem_t(state[p.final_buffer * p.state_count + e]);
    if ((p.flags & 16) != 0) y_c[io] = elem_t(state[CELL * p.state_count + e]);
  }
}
