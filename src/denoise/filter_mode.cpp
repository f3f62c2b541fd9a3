#include "denoise/filter_mode.h"

#include "core/error.h"

namespace vx::denoise {

namespace {

FilterMode lightmap_mode(const FilterParams& params, bool color, bool albedo, bool normal) {
  VX_CHECK(!albedo && !normal, InvalidArgument,
           "an RTLightmap filter takes only the 'color' and 'output' images; unset '", albedo ? "albedo" : "normal",
           "' (auxiliary images are for RT filters)");
  VX_CHECK(color, InvalidArgument, "no 'color' image set (an RTLightmap filter denoises the lightmap in 'color')");
  VX_CHECK(!params.srgb, InvalidArgument,
           "srgb cannot be set on an RTLightmap filter: lightmaps are linear (HDR, or directional in [-1, 1])");
  FilterMode m;
  // OIDN's RTLightmap has no hdr parameter: it is HDR unless directional.
  m.hdr = !params.directional;
  m.snorm = params.directional;
  m.transfer = m.hdr ? TransferKind::log : TransferKind::linear;
  return m;
}

FilterMode rt_mode(const FilterParams& params, bool color, bool albedo, bool normal) {
  VX_CHECK(!params.directional, InvalidArgument,
           "directional is a parameter of RTLightmap filters (directional lightmaps), not of RT filters");
  VX_CHECK(!(params.hdr && params.srgb), InvalidArgument, "hdr and srgb cannot both be set");
  VX_CHECK(color || albedo || normal, InvalidArgument,
           "no 'color' image set, nor an auxiliary image to filter alone ('albedo' or 'normal')");
  FilterMode m;
  m.hdr = params.hdr;
  if (color) {
    VX_CHECK(!normal || albedo, InvalidArgument,
             "a 'normal' image needs an 'albedo' image too (OIDN's networks take color, color+albedo or "
             "color+albedo+normal)");
    m.albedo = albedo;
    m.normal = normal;
    m.input_channels = 3 + (albedo ? 3 : 0) + (normal ? 3 : 0);
  } else {
    VX_CHECK(!(albedo && normal), InvalidArgument,
             "without a 'color' image the filter denoises one auxiliary image: set 'albedo' or 'normal', not both");
    m.main = albedo ? MainInput::albedo : MainInput::normal;
    VX_CHECK(!(albedo && params.hdr), InvalidArgument,
             "hdr is not supported for filtering 'albedo' alone (the rt_alb networks take albedo in [0, 1])");
    VX_CHECK(!(normal && (params.hdr || params.srgb)), InvalidArgument,
             "hdr and srgb are not supported for filtering 'normal' alone (the rt_nrm networks take normals in "
             "[-1, 1], linear)");
  }
  m.snorm = m.main == MainInput::normal;
  if (params.srgb || m.snorm) m.transfer = TransferKind::linear;
  else m.transfer = params.hdr ? TransferKind::pu : TransferKind::srgb;
  return m;
}

}  // namespace

const char* FilterMode::main_name() const {
  return main == MainInput::albedo ? "albedo" : main == MainInput::normal ? "normal" : "color";
}

std::string FilterMode::inputs_description() const {
  if (main != MainInput::color) return cat(main_name(), " alone");
  return normal ? "color, albedo, normal" : albedo ? "color, albedo" : "color";
}

FilterMode resolve_filter_mode(const FilterParams& params, bool color, bool albedo, bool normal) {
  return params.type == FilterType::rt_lightmap ? lightmap_mode(params, color, albedo, normal)
                                                : rt_mode(params, color, albedo, normal);
}

}  // namespace vx::denoise
