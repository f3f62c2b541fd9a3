// "3xFP16" operand split, shared by the cooperative-matrix conv shaders that run fp32 on tensor cores
// (conv_coopmat.comp and conv_coopmat_up.comp with X3): x = hi + lo, hi = x with its mantissa cut to
// fp16's 10 bits (exact in fp16; a bit mask, since a compiler may fold x - fp32(fp16(x)) to 0), lo =
// fp16((x - hi) * LO_SCALE). The includer defines LO_SCALE.

// 4 fp32 (raw bits) -> 4 fp16 hi and 4 fp16 lo (raw bits, 2 per uint)
void split4(uvec4 raw, out uvec2 hi, out uvec2 lo) {
  vec4 v = uintBitsToFloat(raw), h = uintBitsToFloat(raw & uvec4(0xFFFFE000u));
  hi = uvec2(packHalf2x16(h.xy), packHalf2x16(h.zw));
  vec4 r = (v - h) * LO_SCALE;
  lo = uvec2(packHalf2x16(r.xy), packHalf2x16(r.zw));
}
