// The invocation's index in a linear dispatch: linear_groups() (op_kernel.h) spills workgroups past
// 65535 from x into y.

// Workgroups of 256 invocations.
uint linear_index() { return gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u) + gl_GlobalInvocationID.x; }

// Workgroups of local_size invocations.
uint linear_index(uint local_size) {
  return gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * local_size) + gl_GlobalInvocationID.x;
}

// As an int, for the workgroup size the shader declares.
int global_index() {
  return int(gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x);
}
