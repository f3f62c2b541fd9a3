// Element types of the tensors a shader reads and writes: the one scheme of every shader. A variant's
// defines give each typed tensor role a type code:
//   0 = f32, 1 = f16 (16-bit storage, fp32 arithmetic), 2 = i32 (int32 storage, which also holds
//   bools and every narrower integer).
// TX is the shader's element type; shaders with several typed roles use TA and TB (the inputs of
// binary ops), TI (an input or indices) and TO (the output) as well. A code left undefined is 0.
// Variant names spell the codes f32 / f16 / i32 in the order of the VARIANT lines' defines
// (docs/ARCHITECTURE.md, "Names").
#ifndef TX
#define TX 0
#endif
#ifndef TA
#define TA 0
#endif
#ifndef TB
#define TB 0
#endif
#ifndef TI
#define TI 0
#endif
#ifndef TO
#define TO 0
#endif
#if TX == 1 || TA == 1 || TB == 1 || TI == 1 || TO == 1
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

// For a type code t:
//   STORAGE(t)   the element as stored: float, float16_t, int
//   STORAGE4(t)  four of them (16-byte or 8-byte vector loads and stores): vec4, f16vec4, ivec4
//   ARITH(t)     what loads convert to and stores convert from: float for both float codes, int
//   BITS(t)      what a shader that only moves elements copies: uint, float16_t, uint (f32 and i32
//                tensors share one variant of such a shader, named b32)
// Loads and stores are conversions: ARITH(t)(x[i]) reads, x[i] = STORAGE(t)(v) rounds once.
#define STORAGE_0 float
#define STORAGE_1 float16_t
#define STORAGE_2 int
#define STORAGE4_0 vec4
#define STORAGE4_1 f16vec4
#define STORAGE4_2 ivec4
#define ARITH_0 float
#define ARITH_1 float
#define ARITH_2 int
#define BITS_0 uint
#define BITS_1 float16_t
#define BITS_2 uint
#define TYPE_PASTE(kind, t) kind##_##t
#define TYPE_OF(kind, t) TYPE_PASTE(kind, t)
#define STORAGE(t) TYPE_OF(STORAGE, t)
#define STORAGE4(t) TYPE_OF(STORAGE4, t)
#define ARITH(t) TYPE_OF(ARITH, t)
#define BITS(t) TYPE_OF(BITS, t)

// The same for TX, the shader's element type.
#define elem_t STORAGE(TX)
#define elem4_t STORAGE4(TX)
#define acc_t ARITH(TX)
#define move_t BITS(TX)

// The lowest finite fp32 value: max reductions start below every input (f16 storage included).
#define F32_LOWEST (-3.402823466e38)
