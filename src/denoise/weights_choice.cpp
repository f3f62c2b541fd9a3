#include "denoise/weights_choice.h"

#include "core/error.h"
#include "denoise/builtin_weights.h"
#include "denoise/weights_store.h"

namespace vx::denoise {

std::vector<std::string> weights_candidates(const WeightsQuery& q) {
  std::string base;
  if (q.color) {
    base = weights_name_for(q.hdr, q.albedo, q.normal, q.clean_aux);
  } else {
    VX_CHECK(q.albedo != q.normal, InvalidArgument,
             "without a 'color' image the filter denoises one auxiliary image: set 'albedo' or 'normal', not ",
             q.albedo ? "both" : "neither");
    VX_CHECK(!q.albedo || !q.hdr, InvalidArgument, "hdr is not supported for filtering albedo alone");
    VX_CHECK(!q.normal || (!q.hdr && !q.srgb), InvalidArgument, "hdr and srgb are not supported for filtering normal alone");
    base = q.albedo ? "rt_alb" : "rt_nrm";
  }
  if (q.quality == Quality::high) return {base + "_large", base};
  if (q.quality == Quality::fast) return {base + "_small", base};
  return {base};
}

WeightsQuery weights_query(const FilterParams& params, bool color, bool albedo, bool normal) {
  WeightsQuery q;
  q.color = color;
  q.albedo = albedo;
  q.normal = normal;
  q.hdr = params.hdr;
  q.srgb = params.srgb;
  q.clean_aux = params.clean_aux;
  q.quality = params.quality;
  return q;
}

std::vector<FoundWeights> installed_weights(const WeightsQuery& query) {
  std::vector<FoundWeights> found;
  for (const std::string& name : weights_candidates(query)) {
    if (std::optional<std::filesystem::path> file = find_weights_file(name))
      found.push_back({file, {}, file->string()});
    if (std::span<const std::byte> builtin = find_builtin_weights(name); !builtin.empty())
      found.push_back({std::nullopt, builtin, "built-in " + name});
  }
  return found;
}

}  // namespace vx::denoise
