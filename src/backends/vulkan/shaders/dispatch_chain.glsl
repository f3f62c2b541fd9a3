// Dependent dispatches ordered by counters in memory instead of pipeline barriers (the executor's
// VOLVOX_VK_DISPATCH_CHAIN=counters; a barrier costs NVIDIA ~5 us a dispatch however little it
// does). A shader that says `// CHAINABLE` on its first lines is also compiled as "NAME.chain"
// with DISPATCH_CHAIN defined; it includes this file after its declarations and names its entry
// point KERNEL_MAIN. In the .chain build, main() first waits (invocation 0 of each workgroup spins,
// acquiring at queue-family scope) until the previous dispatch of the chain has set its done flag,
// then runs the kernel, then counts its workgroup in its own region; the last workgroup to finish
// sets the done flag (release). Each region is one descriptor range: binding 8 the predecessor's,
// binding 9 this dispatch's (words: 0 finished workgroups, 1 done). The executor records the first
// dispatch of a chain after a barrier, bound to a region whose done flag it sets before the run.
#ifdef DISPATCH_CHAIN
#extension GL_KHR_memory_scope_semantics : require
layout(std430, binding = 8) buffer ChainPredecessor { uint predecessor_words[]; };
layout(std430, binding = 9) buffer ChainOwn { uint own_words[]; };

// Bounded, so that a device that ran a chain's workgroups out of order cannot hang in it (the
// result is then wrong, not late).
const uint kChainSpinLimit = 1u << 24;

void kernel_main();

void main() {
  if (gl_LocalInvocationIndex == 0) {
    for (uint spins = 0; spins < kChainSpinLimit; ++spins)
      if (atomicLoad(predecessor_words[1], gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquire) != 0u)
        break;
  }
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
  kernel_main();
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
  if (gl_LocalInvocationIndex == 0) {
    const uint workgroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
    if (atomicAdd(own_words[0], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease) ==
        workgroups - 1u)
      atomicStore(own_words[1], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
  }
}
#define KERNEL_MAIN kernel_main
#else
#define KERNEL_MAIN main
#endif
