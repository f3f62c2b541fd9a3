// Which of OIDN's RT weights a filter runs when the caller gives none, chosen as OIDN 2.4 chooses:
// by the images set (color; + albedo; + albedo + normal; albedo or normal alone: the prefiltering
// networks rt_alb / rt_nrm), hdr (rt_hdr_*) or not (rt_ldr_*), cleanAux with albedo and normal
// (*_calb_cnrm), and quality: high takes the large network where one exists, fast the small one,
// balanced (and any missing variant) the base network.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
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

// The query for an RT filter with these images (which are set) and parameters.
WeightsQuery weights_query(const FilterParams& params, bool color, bool albedo, bool normal);

// A candidate where a filter finds it: an installed file ($VOLVOX_WEIGHTS, the cache,
// find_weights_file) or the copy built into the program (builtin_weights.h).
struct FoundWeights {
  std::optional<std::filesystem::path> file;  // empty: built in
  std::span<const std::byte> builtin;
  std::string origin;                         // the file's path, or "built-in <name>"
};
// Every candidate that is installed or built in, best first; for one name its file comes before
// its built-in copy (what the user installed wins). Empty when none is.
std::vector<FoundWeights> installed_weights(const WeightsQuery& query);

}  // namespace vx::denoise
