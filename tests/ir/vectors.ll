; Hand-written IR kernel for instructions clang seldom emits from CUDA: vector arithmetic,
; shuffles, inserts and extracts, vector compares and selects, bitcasts between vectors and
; scalars, odd-width integers, freeze, frem and the rarer atomicrmw operations.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @vectors(ptr %in, ptr %out, ptr %counters) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %wide = zext i32 %tid to i64
  %slot = getelementptr inbounds <4 x i32>, ptr %in, i64 %wide
  %v = load <4 x i32>, ptr %slot, align 16
  %doubled = add <4 x i32> %v, %v
  %reversed = shufflevector <4 x i32> %doubled, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %lane0 = extractelement <4 x i32> %v, i32 0
  %big = icmp sgt <4 x i32> %v, <i32 5, i32 5, i32 5, i32 5>
  %chosen = select <4 x i1> %big, <4 x i32> %reversed, <4 x i32> zeroinitializer
  %patched = insertelement <4 x i32> %chosen, i32 %tid, i32 2
  %outslot = getelementptr inbounds <4 x i32>, ptr %out, i64 %wide
  store <4 x i32> %patched, ptr %outslot, align 16
  %pair = shufflevector <4 x i32> %v, <4 x i32> %v, <2 x i32> <i32 1, i32 6>
  %joined = bitcast <2 x i32> %pair to i64
  %narrow = trunc i32 %lane0 to i24
  %grown = mul i24 %narrow, 1048576
  %back = sext i24 %grown to i64
  %frozen = freeze i64 %back
  %mixed = add i64 %joined, %frozen
  %tail = getelementptr inbounds i64, ptr %out, i64 256
  %scalars = getelementptr inbounds i64, ptr %tail, i64 %wide
  store i64 %mixed, ptr %scalars, align 8
  %f = sitofp i32 %lane0 to float
  %r = frem float %f, 3.000000e+00
  %negative = fneg float %r
  %fslot = getelementptr inbounds float, ptr %tail, i64 128
  %fs = getelementptr inbounds float, ptr %fslot, i64 %wide
  store float %negative, ptr %fs, align 4
  %c0 = getelementptr inbounds i32, ptr %counters, i64 0
  %c1 = getelementptr inbounds i32, ptr %counters, i64 1
  %c2 = getelementptr inbounds float, ptr %counters, i64 2
  %c3 = getelementptr inbounds i64, ptr %counters, i64 2
  %a = atomicrmw nand ptr %c0, i32 %lane0 monotonic, align 4
  %b = atomicrmw umax ptr %c1, i32 %lane0 monotonic, align 4
  %c = atomicrmw fmax ptr %c2, float %f monotonic, align 4
  %d = cmpxchg ptr %c3, i64 0, i64 %wide seq_cst seq_cst, align 8
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
