#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// TfIdfVectorizer: one invocation per output element (row, column) counts, in that row, the
// occurrences of every pool n-gram of that column at every skip distance (unigrams once), then
// weighs the count (TF, IDF, TFIDF).
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { int x[]; };
// [entries] then per entry (n, column, offset into the pool), then the pool.
layout(std430, binding = 1) readonly buffer Table { int table[]; };
layout(std430, binding = 2) readonly buffer Weights { float weight[]; };
layout(std430, binding = 3) writeonly buffer Y { elem_t y[]; };

// Matches TfIdfPush in tfidf.cpp.
layout(push_constant) uniform Push {
  uint count;
  int cols;
  int width;
  int min_n;
  int max_n;
  int max_skip;
  int mode;  // 0 TF, 1 IDF, 2 TFIDF
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  int column = int(e % uint(p.width)), row = int(e / uint(p.width));
  int entries = table[0];
  int pool = 1 + 3 * entries;
  float tf = 0.0;
  for (int g = 0; g < entries; ++g) {
    int n = table[1 + 3 * g], at = pool + table[3 + 3 * g];
    if (table[2 + 3 * g] != column || n < p.min_n || n > p.max_n) continue;
    for (int distance = 1; distance <= (n == 1 ? 1 : p.max_skip + 1); ++distance)
      for (int s = 0; s + (n - 1) * distance < p.cols; ++s) {
        bool match = true;
        for (int k = 0; k < n && match; ++k) match = x[row * p.cols + s + k * distance] == table[at + k];
        if (match) tf += 1.0;
      }
  }
  float w = weight[column];
  y[e] = elem_t(p.mode == 0 ? tf : (p.mode == 1 ? (tf > 0.0 ? w : 0.0) : tf * w));
}
