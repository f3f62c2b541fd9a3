// The push constants of requant.comp, the int32 -> uint8/int8 requantisation step that
// QLinearConv (qconv.cpp) and QLinearMatMul (qmatmul.cpp) run after their int32 accumulation.
#pragma once
#include <cstdint>

namespace vx::vk {

struct RequantPush {
  uint32_t count = 0;
  int32_t lo = 0, hi = 255;          // output range: uint8 or int8
  uint32_t inner = 1, channels = 1;  // element e's channel: (e / inner) % channels
  int32_t flags = 0;                 // 1 weight scale per channel, 2 bias
};

}  // namespace vx::vk
