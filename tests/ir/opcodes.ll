; One function using every instruction form the decoder reads, for decoding tests.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.Pair = type { i8, i32, double }

@table = internal addrspace(1) global [4 x i32] [i32 10, i32 20, i32 30, i32 40], align 4
@pair = internal addrspace(1) global %struct.Pair { i8 1, i32 2, double 3.5 }, align 8
@message = private unnamed_addr constant [6 x i8] c"hi\0A\00\01\02", align 1
@tile = internal addrspace(3) global [32 x [33 x float]] undef, align 4
@where = internal addrspace(1) global ptr addrspacecast (ptr addrspace(3) getelementptr inbounds ([32 x [33 x float]], ptr addrspace(3) @tile, i64 0, i64 1, i64 2) to ptr), align 8

define ptx_kernel void @everything(ptr %out, i32 %n, float %x, <4 x float> %v) {
entry:
  %sum = add nsw i32 %n, 1
  %diff = sub i32 %n, -5
  %shift = ashr exact i32 %sum, 2
  %lt = icmp slt i32 %sum, %diff
  %ult = icmp ult i32 %sum, 100
  %fl = fcmp uno float %x, 0.000000e+00
  %neg = fneg float %x
  %half = fmul fast float %x, 5.000000e-01
  %third = fdiv float %x, 0x3FD5555560000000
  %ext = zext i32 %n to i64
  %tr = trunc i64 %ext to i16
  %fp = sitofp i32 %n to double
  %cast = addrspacecast ptr addrspace(3) @tile to ptr
  %sel = select i1 %lt, i32 %sum, i32 %diff
  %frozen = freeze i32 %sel
  %slot = alloca [8 x i32], align 4
  %elem = getelementptr inbounds [8 x i32], ptr %slot, i64 0, i64 %ext
  store i32 %frozen, ptr %elem, align 4
  %loaded = load volatile i32, ptr %elem, align 4
  %old = atomicrmw volatile umax ptr %out, i32 %loaded syncscope("block") monotonic, align 4
  %pairv = cmpxchg weak ptr %out, i32 %old, i32 7 seq_cst acquire, align 4
  %won = extractvalue { i32, i1 } %pairv, 1
  %agg = insertvalue { i32, i1 } %pairv, i32 3, 0
  %lane = extractelement <4 x float> %v, i64 2
  %ins = insertelement <4 x float> %v, float %x, i32 0
  %shuf = shufflevector <4 x float> %v, <4 x float> %ins, <4 x i32> <i32 3, i32 poison, i32 4, i32 0>
  %fromtable = load i32, ptr addrspace(1) getelementptr inbounds ([4 x i32], ptr addrspace(1) @table, i64 0, i64 2), align 4
  fence syncscope("block") acq_rel
  %pi = ptrtoint ptr %out to i64
  switch i32 %n, label %other [
    i32 0, label %zero
    i32 7, label %seven
  ]

zero:
  br label %join

seven:
  br i1 %won, label %join, label %loop

loop:
  %i = phi i32 [ 0, %seven ], [ %next, %loop ]
  %next = add i32 %i, 1
  %done = icmp sge i32 %next, %n
  br i1 %done, label %join, label %loop

other:
  unreachable

join:
  %result = phi i32 [ 1, %zero ], [ %fromtable, %seven ], [ %next, %loop ]
  store i32 %result, ptr %out, align 4
  ret void
}
