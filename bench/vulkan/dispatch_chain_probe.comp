#version 450
// One step of dispatch_chain_probe's chain: destination = source + 1 over n floats, with `work`
// extra multiply-adds an element to set the step's length and kSharedFloats of shared memory held. With kCounterWait the step is ordered
// after the previous one by a counter instead of a pipeline barrier: invocation 0 of each workgroup
// spins (acquire, queue-family scope) until every workgroup of the previous step has incremented
// counters[step - 1], and after its stores each workgroup increments counters[step] (release).
// The spin is bounded: a wait that runs out counts itself in counters[fail_index] and goes on.
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint kCounterWait = 0;
// Shared memory a workgroup holds (floats), which sets how many workgroups an SM keeps resident.
layout(constant_id = 1) const uint kSharedFloats = 1;
shared float held[kSharedFloats];
#ifdef COHERENT
layout(set = 0, binding = 0) queuefamilycoherent readonly buffer Source { float source[]; };
layout(set = 0, binding = 1) queuefamilycoherent writeonly buffer Destination { float destination[]; };
#else
layout(set = 0, binding = 0) readonly buffer Source { float source[]; };
layout(set = 0, binding = 1) writeonly buffer Destination { float destination[]; };
#endif
layout(set = 0, binding = 2) buffer Counters { uint counters[]; };
layout(push_constant) uniform Push {
  uint n;
  uint step;
  uint producer_workgroups;
  uint work;
  uint spin_limit;
  uint fail_index;
} p;

void main() {
  if (kCounterWait != 0 && p.step > 0) {
    if (gl_LocalInvocationIndex == 0) {
      uint spins = 0;
      while (atomicLoad(counters[p.step - 1], gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                        gl_SemanticsAcquire) < p.producer_workgroups) {
        if (++spins == p.spin_limit) {
          atomicAdd(counters[p.fail_index], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
          break;
        }
      }
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                   gl_SemanticsAcquireRelease);
  }
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) {
    float v = source[i];
    float x = v;
    for (uint k = 0; k < p.work; ++k) x = x * 0.999f + 0.001f;
    held[gl_LocalInvocationIndex % kSharedFloats] = x;
    destination[i] = v + 1.0f + (x > 1e30f ? held[0] : 0.0f);
  }
  if (kCounterWait != 0) {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                   gl_SemanticsAcquireRelease);
    if (gl_LocalInvocationIndex == 0)
      atomicAdd(counters[p.step], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
  }
}
