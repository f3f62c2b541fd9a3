// The sum of v over a workgroup of THREADS invocations (define THREADS first): a subgroup reduction
// plus one exchange through shared memory, 2 barriers (needs GL_KHR_shader_subgroup_arithmetic).
// Every invocation of the workgroup must call it; it returns the total to each.
shared float s_workgroup_part[THREADS];

float workgroup_sum(float v) {
  v = subgroupAdd(v);
  if (subgroupElect()) s_workgroup_part[gl_SubgroupID] = v;
  barrier();
  float total = 0.0;
  for (uint i = 0u; i < gl_NumSubgroups; ++i) total += s_workgroup_part[i];
  barrier();  // the shared slots are reused by the next call
  return total;
}
