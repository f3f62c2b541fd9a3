// Split K in the GEMM's own dispatch (REDUCE_BY_LAST_SPLIT, spec constant 40; gemm_io.glsl's
// split K otherwise): each workgroup writes its partials and counts itself in at its tile's arrival
// count (binding 7, zero before the first run); the last of the tile's splits to arrive adds every
// split's partials in split order (as gemm_reduce does: the sum does not depend on which split came
// last), runs the epilogue, and sets the count back to zero for the next run. No workgroup waits for
// another, so this holds whatever order the device runs the workgroups in. It saves the gemm_reduce
// dispatch and the dependency before it, at the cost of one workgroup a tile reading its splits.
// Include after gemm_io.glsl, which the kernel includes with PARTIALS_COHERENT defined (the other
// workgroups' partial sums must be visible to the last one).
layout(constant_id = 40) const int REDUCE_BY_LAST_SPLIT = 0;
layout(std430, binding = 7) coherent buffer BufArrivals { uint arrivals[]; };  // per output tile
shared uint s_last_split;  // this workgroup arrived last at its tile (1)

// After every invocation stored its partials: whether this workgroup is the last of its tile's
// splits to arrive. Uniform control flow.
bool last_split_to_arrive() {
  memoryBarrierBuffer();  // this invocation's partials before the count
  barrier();              // and every other invocation's
  if (gl_LocalInvocationIndex == 0) {
    const uint tile =
        (gl_WorkGroupID.z / uint(p.splits) * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const bool last = atomicAdd(arrivals[tile], 1u) == uint(p.splits - 1);
    if (last) arrivals[tile] = 0u;  // every split has counted: nobody reads it again in this run
    s_last_split = last ? 1u : 0u;
  }
  barrier();
  memoryBarrierBuffer();  // the other splits' partials after the count
  return s_last_split != 0u;
}
