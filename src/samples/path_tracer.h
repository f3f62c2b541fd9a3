// The sample-scene path tracer: renders a named procedural scene into a noisy HDR colour image plus
// the albedo and normal feature images a denoiser takes. Unidirectional path tracing with next event
// estimation on the area lights, multiple importance sampling (power heuristic) and Russian roulette.
// Output depends only on the settings (seed included), never on the thread count.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "formats/image.h"
#include "samples/scene.h"

namespace vx::samples {

struct RenderSettings {
  std::string scene;  // one of scene_names()
  int width = 512, height = 512;
  int spp = 4;        // samples per pixel
  uint64_t seed = 1;
  int max_depth = 8;  // scattering events whose lighting is counted: 1 = direct light only
};

struct RenderOutput {
  Image color;   // linear HDR radiance, 3 channels
  Image albedo;  // first-hit surface colour in [0, 1]; perfect specular surfaces give their tint
  Image normal;  // first-hit world-space unit normal averaged over the pixel's samples; 0 where nothing was hit
};

// Called from the rendering thread with the fraction done in [0, 1]; returning false cancels the
// render (render_scene then throws vx::Error Cancelled).
using ProgressFn = std::function<bool(double fraction)>;

std::vector<std::string> scene_names();
// Builds a named scene; an unknown name throws InvalidArgument listing the known ones.
Scene make_scene(const std::string& name);

RenderOutput render_scene(const RenderSettings& settings, ProgressFn progress = {});
// Renders an already built scene (settings.scene is ignored): for tests and custom scenes.
RenderOutput render(const Scene& scene, const RenderSettings& settings, ProgressFn progress = {});

}  // namespace vx::samples
