#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// One time step of RNN / GRU / LSTM: one invocation per (direction, batch, hidden unit) computes
// its gates from X[t] and the previous hidden state (both directions advance together; direction
// 1 or direction "reverse" walks each sequence backwards from its length). Batches past their
// sequence length carry the state. GRU without linear_before_reset runs as two phases: phase 1
// stores z and r * h for every unit, phase 0 then forms the candidate from R * (r * h). fp32 math.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"
#include "recurrent_state.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) readonly buffer W { elem_t w[]; };
layout(std430, binding = 2) readonly buffer R { elem_t r[]; };
layout(std430, binding = 3) readonly buffer B { elem_t bias[]; };
layout(std430, binding = 4) readonly buffer L { int lens[]; };
layout(std430, binding = 5) readonly buffer P { elem_t peep[]; };
layout(std430, binding = 6) buffer S { float state[]; };
layout(std430, binding = 7) writeonly buffer Y { elem_t y[]; };

// Matches RnnStepPush in recurrent.cpp.
layout(push_constant) uniform Push {
  uint count;  // dirs * batch * hidden
  int step;
  int seq;
  int batch;
  int hidden;
  int input_size;
  int dirs;
  int cell;   // 0 RNN, 1 GRU, 2 LSTM
  int phase;  // GRU without linear_before_reset: 1 gates, 0 candidate
  int flags;  // 1 bias, 2 sequence_lens, 4 peepholes, 8 Y, 16 batch-major, 32 direction reverse, 64 clip,
              // 128 linear_before_reset
  float clip_at;
  int act_codes;  // 4 bits per activation: direction 0 f, g, h, then direction 1
  float alpha[6];
  float beta[6];
} p;

float activate(int slot, float v) {
  int code = (p.act_codes >> (4 * slot)) & 15;
  float a = p.alpha[slot], b = p.beta[slot];
  switch (code) {
    case 0: return v >= 0.0 ? 1.0 / (1.0 + exp(-v)) : exp(v) / (1.0 + exp(v));
    case 1: { float e = exp(-2.0 * abs(v)); return sign(v) * (1.0 - e) / (1.0 + e); }
    case 2: return max(v, 0.0);
    case 3: return a * v + b;
    case 4: return v >= 0.0 ? v : a * v;
    case 5: return v > a ? v : 0.0;
    case 6: { float e = exp(-2.0 * abs(b * v)); return a * sign(b * v) * (1.0 - e) / (1.0 + e); }
    case 7: return clamp(a * v + b, 0.0, 1.0);
    case 8: return v >= 0.0 ? v : a * (exp(v) - 1.0);
    case 9: return v / (1.0 + abs(v));
    case 10: return max(v, 0.0) + log(1.0 + exp(-abs(v)));
  }
  return v;
}

float clipped(float v) { return (p.flags & 64) != 0 ? clamp(v, -p.clip_at, p.clip_at) : v; }

int G;          // gates per cell
uint S_SIZE;    // state values per buffer
int d, b, j;
uint x_row, h_prev_at, state_at;

// W[gate] . x_t + Wb and R[gate] . h_prev + Rb for this unit.
float input_part(int gate) {
  int row = (d * G + gate) * p.hidden + j;
  float acc = (p.flags & 1) != 0 ? float(bias[d * 2 * G * p.hidden + gate * p.hidden + j]) : 0.0;
  for (int i = 0; i < p.input_size; ++i) acc += float(w[row * p.input_size + i]) * float(x[x_row + uint(i)]);
  return acc;
}
float hidden_part(int gate, uint h_at) {
  int row = (d * G + gate) * p.hidden + j;
  float acc = (p.flags & 1) != 0 ? float(bias[d * 2 * G * p.hidden + G * p.hidden + gate * p.hidden + j]) : 0.0;
  for (int i = 0; i < p.hidden; ++i) acc += float(r[row * p.hidden + i]) * state[h_at + uint(i)];
  return acc;
}

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  G = p.cell == 0 ? 1 : (p.cell == 1 ? 3 : 4);
  S_SIZE = p.count;
  j = int(e % uint(p.hidden));
  b = int((e / uint(p.hidden)) % uint(p.batch));
  d = int(e / uint(p.hidden * p.batch));
  int len = (p.flags & 2) != 0 ? clamp(lens[b], 0, p.seq) : p.seq;
  uint prev = uint(p.step % 2) * S_SIZE, next = uint((p.step + 1) % 2) * S_SIZE;
  uint unit_base = uint((d * p.batch + b) * p.hidden);
  if (p.step >= len) {
    if (p.phase == 0) state[next + e] = state[prev + e];
    return;
  }
  bool reverse = (p.flags & 32) != 0 || d == 1;
  int t = reverse ? len - 1 - p.step : p.step;
  bool batch_major = (p.flags & 16) != 0;
  x_row = uint(batch_major ? (b * p.seq + t) * p.input_size : (t * p.batch + b) * p.input_size);
  h_prev_at = prev + unit_base;
  int f_slot = d * 3, g_slot = d * 3 + 1, h_slot = d * 3 + 2;
  float h_old = state[prev + e];
  float h_new;
  if (p.cell == 0) {
    h_new = activate(f_slot, clipped(input_part(0) + hidden_part(0, h_prev_at)));
  } else if (p.cell == 1) {
    bool lbr = (p.flags & 128) != 0;
    if (p.phase == 1) {  // gates z and r, and r * h for the candidate of every unit
      float z = activate(f_slot, clipped(input_part(0) + hidden_part(0, h_prev_at)));
      float rg = activate(f_slot, clipped(input_part(1) + hidden_part(1, h_prev_at)));
      state[GRU_Z * S_SIZE + e] = z;
      state[GRU_RESET_H * S_SIZE + e] = rg * h_old;
      return;
    }
    float z, cand;
    if (lbr) {
      z = activate(f_slot, clipped(input_part(0) + hidden_part(0, h_prev_at)));
      float rg = activate(f_slot, clipped(input_part(1) + hidden_part(1, h_prev_at)));
      cand = input_part(2) + rg * hidden_part(2, h_prev_at);
    } else {
      z = state[GRU_Z * S_SIZE + e];
      cand = input_part(2) + hidden_part(2, GRU_RESET_H * S_SIZE + unit_base);
    }
    h_new = (1.0 - z) * activate(g_slot, clipped(cand)) + z * h_old;
  } else {
    float c = state[CELL * S_SIZE + e];
    bool peepholes = (p.flags & 4) != 0;
    float pi = peepholes ? float(peep[d * 3 * p.hidden + j]) : 0.0;
    float po = peepholes ? float(peep[d * 3 * p.hidden + p.hidden + j]) : 0.0;
    float pf = peepholes ? float(peep[d * 3 * p.hidden + 2 * p.hidden + j]) : 0.0;
    float i_gate = activate(f_slot, clipped(input_part(0) + hidden_part(0, h_prev_at) + pi * c));
    float f_gate = activate(f_slot, clipped(input_part(2) + hidden_part(2, h_prev_at) + pf * c));
    float cand = activate(g_slot, clipped(input_part(3) + hidden_part(3, h_prev_at)));
    c = f_gate * c + i_gate * cand;
    float o_gate = activate(f_slot, clipped(input_part(1) + hidden_part(1, h_prev_at) + po * c));
    h_new = o_gate * activate(h_slot, c);
    state[CELL * S_SIZE + e] = c;
  }
  state[next + e] = h_new;
  if ((p.flags & 8) != 0) {
    int at = batch_major ? ((b * p.seq + t) * p.dirs + d) * p.hidden : ((t * p.dirs + d) * p.batch + b) * p.hidden;
    y[at + j] = elem_t(h_new);
  }
}
