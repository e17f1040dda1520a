/* GPUVerify's annotation language, force-included by --gpuverify-annotations.

   A concrete run can check a precondition but not prove an invariant, so:
   - preconditions (__requires, __global_requires, __assume) are assumptions: a launch that
     violates one is invalid, not buggy;
   - predicates over the read/write sets have their value at kernel entry, where the sets
     are empty (__read(p) and __write(p) are false, offsets 0), which is where preconditions
     are stated; a pointer argument starts its buffer (__ptr_offset_bytes(p) == 0);
   - predicates relating two threads (__uniform_*, __distinct_*, __same_group, ...) cannot be
     decided by one thread and hold;
   - proof obligations (__assert, __invariant, __ensures, barrier invariants, ...) and
     __requires_fresh_array are no-ops: their arguments are not evaluated.
   As in GPUVerify, `namespace cooperative_groups`, cuRAND's device API and arithmetic on the
   vector types (simulee/vector_math.h) come with it. */
#ifndef SIMULEE_GPUVERIFY_ANNOTATIONS_H
#define SIMULEE_GPUVERIFY_ANNOTATIONS_H

/* GPUVerify's cuda.h also brings cooperative groups, cuRAND's device API and vector arithmetic. */
#include "cooperative_groups.h"
#include "curand_kernel.h"
#include "simulee/vector_math.h"

/* The free synchronize(group) of the first cooperative groups, which GPUVerify keeps. */
namespace cooperative_groups {
template <class Group> static __device__ __forceinline__ void synchronize(const Group &group) { group.sync(); }
}

#define __requires(condition) __simulee_assume(condition)
#define __global_requires(condition) __simulee_assume(condition)

#define __implies(a, b) (!(a) || (b))
#define __ite(c, a, b) ((c) ? (a) : (b))
#define __enabled() true
#define __read(p) false
#define __write(p) false
#define __no_read(p) true
#define __no_write(p) true
#define __read_implies(p, e) true
#define __write_implies(p, e) true
#define __read_offset_bytes(p) ((size_t)0)
#define __write_offset_bytes(p) ((size_t)0)
#define __read_offset(p) ((size_t)0)
#define __write_offset(p) ((size_t)0)
#define __ptr_offset_bytes(p) ((size_t)0)
#define __ptr_offset(p) ((size_t)0)
#define __ptr_base(p) 0
#define __accessed(p, e) false
#define __other_int(x) (x)
#define __other_bool(x) (x)
#define __other_ptr_base(x) (x)
#define __uniform_int(x) true
#define __uniform_bool(x) true
#define __uniform_ptr_base(x) true
#define __distinct_int(x) true
#define __distinct_bool(x) true
#define __distinct_ptr_base(x) true
#define __all(x) (x)
#define __exclusive(x) true
#define __same_group true
#define __is_pow2(x) ((((x) & ((x) - 1)) == 0))
#define __mod_pow2(x, y) (((y) - 1) & (x))
#define __add(x, y) ((x) + (y))
#define __add_noovfl(...) true
#define __atomic_has_taken_value(array, offset, value) true

#define __assert(...) ((void)0)
#define __global_assert(...) ((void)0)
#define __candidate_assert(...) ((void)0)
#define __candidate_global_assert(...) ((void)0)
#define __invariant(...) ((void)0)
#define __global_invariant(...) ((void)0)
#define __candidate_invariant(...) ((void)0)
#define __candidate_global_invariant(...) ((void)0)
#define __function_wide_invariant(...) ((void)0)
#define __function_wide_candidate_invariant(...) ((void)0)
#define __ensures(...) ((void)0)
#define __global_ensures(...) ((void)0)
#define __requires_fresh_array(...) ((void)0)
#define __reads_from(...) ((void)0)
#define __writes_to(...) ((void)0)
#define __array_snapshot(...) ((void)0)
#define __non_temporal_loads_begin() ((void)0)
#define __non_temporal_loads_end() ((void)0)
#define __barrier_invariant(...) ((void)0)
#define __barrier_invariant_binary(...) ((void)0)
#define __return_val_int() 0
#define __return_val_bool() false
#define __return_val_ptr() ((void *)0)
#define __return_val_funptr(type) ((type)0)
#define __old_int(x) (x)
#define __old_bool(x) (x)

/* An axiom at namespace scope holds for every thread GPUVerify considers: a thread of the
   launch for which one is false takes no part in it (it leaves at its kernel's entry, where
   the front end calls every axiom: device_library.with_axioms). */
#define __axiom(condition) __SIMULEE_AXIOM(__COUNTER__, condition)
#define __SIMULEE_AXIOM(number, condition) __SIMULEE_AXIOM_(number, condition)
#define __SIMULEE_AXIOM_(number, condition) \
  __attribute__((used)) static __device__ int __simulee_axiom_##number() { return (condition) ? 1 : 0; }

#endif
