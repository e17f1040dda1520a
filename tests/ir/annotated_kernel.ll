; A kernel marked the pre-LLVM-20 way, through !nvvm.annotations, with named values and
; no debug info: names and types come from the IR itself.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@cache = internal addrspace(3) global [128 x float] undef, align 4

define void @scale_rows(ptr %matrix, float %factor, i32 %width) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %row = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %offset = mul i32 %row, %width
  %index = add i32 %offset, %tid
  %wide = sext i32 %index to i64
  %element = getelementptr inbounds float, ptr %matrix, i64 %wide
  %value = load float, ptr %element, align 4
  %scaled = fmul float %value, %factor
  %slot = getelementptr inbounds [128 x float], ptr addrspace(3) @cache, i32 0, i32 %tid
  store float %scaled, ptr addrspace(3) %slot, align 4
  call void @llvm.nvvm.barrier0()
  store float %scaled, ptr %element, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0}
!0 = !{ptr @scale_rows, !"kernel", i32 1}
