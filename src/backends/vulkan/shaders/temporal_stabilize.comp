#version 450
// NO_DEFAULT_VARIANT
// VARIANT stabilize -DSTORE_PASS=0
// VARIANT store -DSTORE_PASS=1
// The filter's temporal stage on the device, as src/denoise/temporal_stabilizer.cpp and
// reprojection.cpp do it on the host (the reference: same formulas, same order of operations).
// Colours are resampled, clamped and blended in a compressed range, c(x) = x / (1 + luma(x)), and
// the history is kept compressed. Two passes, because the output image is both read (every pixel's
// 3x3 neighbourhood) and written:
//   stabilize: the previous history, reprojected by the motion vectors (Catmull-Rom) where the
//              previous depth and normal agree, clamped to the current output's 3x3 range and blended
//              with it -> the next history (fp32, compressed; w = 1 where the blend changed the pixel),
//              and this frame's depth and normal -> the next guides;
//   store:     the changed pixels of the next history, expanded -> the user's output image (the
//              others keep their exact value, as on the host).
// Bindings (vulkan_temporal_stage.h): 0 output, 1 motion, 2 depth, 3 normal (user images, layouts in
// binding 4), 5/6 previous history/guides, 7/8 next history/guides (one vec4 per pixel, row-major).
#include "user_image.glsl"

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

#if STORE_PASS
layout(std430, binding = 0) buffer Output { uint output_words[]; };
#else
layout(std430, binding = 0) readonly buffer Output { uint output_words[]; };
layout(std430, binding = 1) readonly buffer Motion { uint motion_words[]; };
layout(std430, binding = 2) readonly buffer Depth { uint depth_words[]; };
layout(std430, binding = 3) readonly buffer Normal { uint normal_words[]; };
layout(std430, binding = 5) readonly buffer PreviousHistory { vec4 previous_history[]; };
layout(std430, binding = 6) readonly buffer PreviousGuides { vec4 previous_guides[]; };  // depth, normal
layout(std430, binding = 8) writeonly buffer NextGuides { vec4 next_guides[]; };
#endif
layout(std430, binding = 4) readonly buffer Layouts { ImageDesc images[4]; };  // output, motion, depth, normal
layout(std430, binding = 7) buffer NextHistory { vec4 next_history[]; };  // compressed rgb, changed

layout(push_constant) uniform Frame {
  int width, height;
  float blend;        // the history's weight
  int history_valid;  // 0: the first frame of a history (it passes through)
  int use_normals;    // 1: binding 3 holds normals (they then decide validity with depth)
} frame;

// temporal_stabilizer.cpp's luma, compressed() and expand().
float luma(vec3 v) { return 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z; }
vec3 expand(vec3 v) { return v * (1.0 / max(1e-6, 1.0 - luma(v))); }

#if !STORE_PASS
vec3 compressed(vec3 v) { return v * (1.0 / (1.0 + max(0.0, luma(v)))); }

// The current output at (x, y), compressed.
vec3 load_output(int x, int y) {
  vec3 rgb;
  LOAD_ELEM(output_words, images[0], x, y, 0, rgb.x);
  LOAD_ELEM(output_words, images[0], x, y, 1, rgb.y);
  LOAD_ELEM(output_words, images[0], x, y, 2, rgb.z);
  return compressed(rgb);
}

// reprojection.cpp's catmull_rom(): the four taps' weights at fraction t past the second.
vec4 catmull_rom(float t) {
  float t2 = t * t, t3 = t2 * t;
  return vec4(0.5 * (-t3 + 2.0 * t2 - t), 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0), 0.5 * (-3.0 * t3 + 4.0 * t2 + t),
              0.5 * (t3 - t2));
}

// reprojection.cpp's sample_sharp(): the previous history at continuous position (px, py), taps
// clamped to the edge.
vec3 sample_history(float px, float py) {
  float fx = px - 0.5, fy = py - 0.5;
  int x0 = int(floor(fx)), y0 = int(floor(fy));
  vec4 wx = catmull_rom(fx - float(x0)), wy = catmull_rom(fy - float(y0));
  vec3 sum = vec3(0.0);
  for (int j = 0; j < 4; ++j) {
    int yi = clamp(y0 - 1 + j, 0, frame.height - 1);
    vec3 row = vec3(0.0);
    for (int i = 0; i < 4; ++i) {
      int xi = clamp(x0 - 1 + i, 0, frame.width - 1);
      row += wx[i] * previous_history[yi * frame.width + xi].xyz;
    }
    sum += wy[j] * row;
  }
  return sum;
}

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  if (x >= frame.width || y >= frame.height) return;
  int index = y * frame.width + x;
  vec3 current = load_output(x, y);
  float depth;
  LOAD_ELEM(depth_words, images[2], x, y, 0, depth);
  vec3 normal = vec3(0.0);
  if (frame.use_normals != 0) LOAD_RGB(normal_words, images[3], x, y, normal);

  vec3 result = current;  // compressed
  if (frame.history_valid != 0) {
    vec2 motion;
    LOAD_ELEM(motion_words, images[1], x, y, 0, motion.x);
    LOAD_ELEM(motion_words, images[1], x, y, 1, motion.y);
    float px = float(x) + 0.5 + motion.x, py = float(y) + 0.5 + motion.y;
    // Valid: inside the previous frame, and its surface there (the nearest pixel's guides: a
    // bilinear depth across an edge would invent a surface) is this one.
    bool valid = px >= 0.0 && py >= 0.0 && px <= float(frame.width) && py <= float(frame.height);
    if (valid) {
      int nx = min(int(px), frame.width - 1), ny = min(int(py), frame.height - 1);
      vec4 previous = previous_guides[ny * frame.width + nx];
      float pd = previous.x;
      valid = (depth <= 0.0) == (pd <= 0.0) && (depth <= 0.0 || abs(depth - pd) <= 0.1 * depth);
      if (valid && depth > 0.0 && frame.use_normals != 0) {
        float d = 0.0;
        for (int c = 0; c < 3; ++c) d += normal[c] * previous[c + 1];
        valid = d >= 0.9;
      }
    }
    if (valid) {
      // The history may not leave the current output's local range: no ghost of changed content.
      vec3 lo = current, hi = current;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          vec3 v = load_output(clamp(x + dx, 0, frame.width - 1), clamp(y + dy, 0, frame.height - 1));
          lo = min(lo, v);
          hi = max(hi, v);
        }
      vec3 past = clamp(sample_history(px, py), lo, hi);
      result = current + frame.blend * (past - current);
    }
  }
  // Unchanged pixels keep their exact value in the output (the round trip through expand() rounds).
  next_history[index] = vec4(result, result == current ? 0.0 : 1.0);
  next_guides[index] = vec4(depth, normal);
}

#else

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  if (x >= frame.width || y >= frame.height) return;
  vec4 stabilised = next_history[y * frame.width + x];
  if (stabilised.w == 0.0) return;  // unchanged: the output holds it already
  vec3 rgb = expand(stabilised.xyz);
  for (int c = 0; c < 3; ++c) STORE_ELEM(output_words, images[0], x, y, c, rgb[c]);
}

#endif
