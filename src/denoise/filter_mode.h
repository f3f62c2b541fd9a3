// What a filter's type, parameters and images mean for the network around it, as OIDN 2.4 derives
// it (core/rt_filter.cpp, rtlightmap_filter.cpp, unet_filter.cpp): which image is the main input,
// whether values are HDR or signed ([-1, 1]), the transfer curve and the input channel count. The
// combinations OIDN refuses are refused here, whatever weights the filter runs.
#pragma once
#include <string>

#include "denoise/filter.h"
#include "denoise/transfer.h"

namespace vx::denoise {

// The image the network denoises (OIDN's "input"): the colour, or, without one, the auxiliary
// image filtered alone (prefiltering with the rt_alb / rt_nrm networks).
enum class MainInput { color, albedo, normal };

struct FilterMode {
  MainInput main = MainInput::color;
  // Auxiliary images beside the colour (never set when the main input is albedo or normal).
  bool albedo = false, normal = false;
  bool hdr = false;    // RT: the hdr parameter; RTLightmap: true unless directional
  bool snorm = false;  // the main input is signed, [-1, 1]: directional lightmaps, normal alone
  TransferKind transfer = TransferKind::srgb;
  int input_channels = 3;  // 3 main, 6 + albedo, 9 + albedo + normal

  const char* main_name() const;  // "color", "albedo" or "normal"
  // What the network takes, for messages: "color, albedo", "albedo alone", ...
  std::string inputs_description() const;
};

// `color`, `albedo`, `normal`: which images are set. Throws InvalidArgument, saying why, for what
// OIDN refuses: no input; normal beside color without albedo; albedo and normal without color;
// hdr for albedo alone; hdr or srgb for normal alone; hdr with srgb; directional on an RT filter;
// RTLightmap with albedo, normal, srgb or without color.
FilterMode resolve_filter_mode(const FilterParams& params, bool color, bool albedo, bool normal);

}  // namespace vx::denoise
