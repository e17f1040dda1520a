; A counter every thread adds to with an atomic of a scope Simulee does not know
; ("singlethread"): the prover cannot say what it orders, so it says unknown, never proved.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @count_in_unknown_scope(ptr %count) {
entry:
  %old = atomicrmw add ptr %count, i32 1 syncscope("singlethread") monotonic, align 4
  ret void
}
