// Which of OIDN's RT weights a filter runs when the caller gives none, chosen as OIDN 2.4 chooses:
// by the images set (color; + albedo; + albedo + normal; albedo or normal alone: the prefiltering
// networks rt_alb / rt_nrm), hdr (rt_hdr_*) or not (rt_ldr_*), cleanAux with albedo and normal
// (*_calb_cnrm), and quality: high takes the large network where one exists, fast the small one,
// balanced (and any missing variant) the base network.
#pragma once
#include <string>
#include <vector>

#include "denoise/filter.h"

namespace vx::denoise {

struct WeightsQuery {
  bool color = true, albedo = false, normal = false;
  bool hdr = false, srgb = false;
  bool clean_aux = false;
  Quality quality = Quality::high;
};

// Weights names to try, best first, e.g. {"rt_hdr_calb_cnrm_large", "rt_hdr_calb_cnrm"}.
// InvalidArgument for what no network takes, as OIDN refuses it: normal without albedo beside
// color, no image, both auxiliary images without color, hdr for albedo alone, hdr or srgb for
// normal alone.
std::vector<std::string> weights_candidates(const WeightsQuery& query);

}  // namespace vx::denoise
