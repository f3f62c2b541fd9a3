// Shared by the shaders of the ops in more_ops_util.h's files (gen_*, sel_*, q_*, rnn_*, more_*,
// einsum): storage types by define (0 = f32, 1 = f16, 2 = int32), 256 invocations per
// workgroup, the linear invocation index of linear_groups().
#ifndef TX
#define TX 0
#endif
#ifndef TI
#define TI 0
#endif
#if TX == 1 || TI == 1
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#define MSTORAGE_0 float
#define MSTORAGE_1 float16_t
#define MSTORAGE_2 int
#define MSTORAGE_OF(t) MSTORAGE_##t
#define MSTORAGE(t) MSTORAGE_OF(t)
#define TXS MSTORAGE(TX)

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

uint linear_index() { return gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u) + gl_GlobalInvocationID.x; }

float nan_value() { return uintBitsToFloat(0x7FC00000u); }
