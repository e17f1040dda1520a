; ModuleID = 'tests/programs/managed.cu'
source_filename = "tests/programs/managed.cu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-musl"

%struct.dim3 = type { i32, i32, i32 }

$_ZN4dim3C2Ejjj = comdat any

@calls = internal global i32 undef, align 4
@.str = private unnamed_addr constant [37 x i8] c"data[3] = %d, sum = %ld, calls = %d\0A\00", align 1

; Function Attrs: mustprogress norecurse nounwind uwtable
define dso_local void @_Z21__device_stub__squarePii(ptr noundef %0, i32 noundef %1) #0 !dbg !14 {
  %3 = alloca ptr, align 8
  %4 = alloca i32, align 4
  %5 = alloca %struct.dim3, align 8
  %6 = alloca %struct.dim3, align 8
  %7 = alloca i64, align 8
  %8 = alloca ptr, align 8
  %9 = alloca { i64, i32 }, align 8
  %10 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %3, align 8, !tbaa !17
  store i32 %1, ptr %4, align 4, !tbaa !10
  %11 = alloca ptr, i64 2, align 16, !dbg !20
  %12 = getelementptr ptr, ptr %11, i32 0, !dbg !20
  store ptr %3, ptr %12, align 8, !dbg !20
  %13 = getelementptr ptr, ptr %11, i32 1, !dbg !20
  store ptr %4, ptr %13, align 8, !dbg !20
  %14 = call i32 @__cudaPopCallConfiguration(ptr %5, ptr %6, ptr %7, ptr %8), !dbg !20
  %15 = load i64, ptr %7, align 8, !dbg !20
  %16 = load ptr, ptr %8, align 8, !dbg !20
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %9, ptr align 8 %5, i64 12, i1 false), !dbg !20
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 0, !dbg !20
  %18 = load i64, ptr %17, align 8, !dbg !20
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 1, !dbg !20
  %20 = load i32, ptr %19, align 8, !dbg !20
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %10, ptr align 8 %6, i64 12, i1 false), !dbg !20
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0, !dbg !20
  %22 = load i64, ptr %21, align 8, !dbg !20
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1, !dbg !20
  %24 = load i32, ptr %23, align 8, !dbg !20
  %25 = call noundef i32 @cudaLaunchKernel(ptr noundef @_Z21__device_stub__squarePii, i64 %18, i32 %20, i64 %22, i32 %24, ptr noundef %11, i64 noundef %15, ptr noundef %16), !dbg !20
  br label %26, !dbg !20

26:                                               ; preds = %2
  ret void, !dbg !21
}

declare i32 @__cudaPopCallConfiguration(ptr, ptr, ptr, ptr)

declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #1

; Function Attrs: mustprogress norecurse nounwind uwtable
define dso_local noundef i32 @main() #2 !dbg !22 {
  %1 = alloca i32, align 4
  %2 = alloca i32, align 4
  %3 = alloca ptr, align 8
  %4 = alloca i32, align 4
  %5 = alloca %struct.dim3, align 4
  %6 = alloca %struct.dim3, align 4
  %7 = alloca { i64, i32 }, align 4
  %8 = alloca { i64, i32 }, align 4
  %9 = alloca %struct.dim3, align 4
  %10 = alloca %struct.dim3, align 4
  %11 = alloca { i64, i32 }, align 4
  %12 = alloca { i64, i32 }, align 4
  %13 = alloca i64, align 8
  %14 = alloca i32, align 4
  store i32 0, ptr %1, align 4
  call void @llvm.lifetime.start.p0(ptr %2) #7, !dbg !23
  store i32 100, ptr %2, align 4, !dbg !24, !tbaa !10
  call void @llvm.lifetime.start.p0(ptr %3) #7, !dbg !25
  %15 = call noundef i32 @_ZL17cudaMallocManagedIiE9cudaErrorPPT_mj(ptr noundef %3, i64 noundef 400, i32 noundef 1), !dbg !26
  call void @llvm.lifetime.start.p0(ptr %4) #7, !dbg !27
  store i32 0, ptr %4, align 4, !dbg !28, !tbaa !10
  br label %16, !dbg !27

16:                                               ; preds = %26, %0
  %17 = load i32, ptr %4, align 4, !dbg !29, !tbaa !10
  %18 = icmp slt i32 %17, 100, !dbg !30
  br i1 %18, label %20, label %19, !dbg !31

19:                                               ; preds = %16
  call void @llvm.lifetime.end.p0(ptr %4) #7, !dbg !31
  br label %29

20:                                               ; preds = %16
  %21 = load i32, ptr %4, align 4, !dbg !32, !tbaa !10
  %22 = load ptr, ptr %3, align 8, !dbg !33, !tbaa !17
  %23 = load i32, ptr %4, align 4, !dbg !34, !tbaa !10
  %24 = sext i32 %23 to i64, !dbg !33
  %25 = getelementptr inbounds i32, ptr %22, i64 %24, !dbg !33
  store i32 %21, ptr %25, align 4, !dbg !35, !tbaa !10
  br label %26, !dbg !33

26:                                               ; preds = %20
  %27 = load i32, ptr %4, align 4, !dbg !36, !tbaa !10
  %28 = add nsw i32 %27, 1, !dbg !36
  store i32 %28, ptr %4, align 4, !dbg !36, !tbaa !10
  br label %16, !dbg !31, !llvm.loop !37

29:                                               ; preds = %19
  call void @_ZN4dim3C2Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %5, i32 noundef 2, i32 noundef 1, i32 noundef 1), !dbg !40
  call void @_ZN4dim3C2Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %6, i32 noundef 64, i32 noundef 1, i32 noundef 1), !dbg !41
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 %5, i64 12, i1 false), !dbg !42
  %30 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0, !dbg !42
  %31 = load i64, ptr %30, align 4, !dbg !42
  %32 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1, !dbg !42
  %33 = load i32, ptr %32, align 4, !dbg !42
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 12, i1 false), !dbg !42
  %34 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0, !dbg !42
  %35 = load i64, ptr %34, align 4, !dbg !42
  %36 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1, !dbg !42
  %37 = load i32, ptr %36, align 4, !dbg !42
  %38 = call i32 @__cudaPushCallConfiguration(i64 %31, i32 %33, i64 %35, i32 %37, i64 noundef 0, ptr noundef null), !dbg !42
  %39 = icmp ne i32 %38, 0, !dbg !42
  br i1 %39, label %42, label %40, !dbg !43

40:                                               ; preds = %29
  %41 = load ptr, ptr %3, align 8, !dbg !44, !tbaa !17
  call void @_Z21__device_stub__squarePii(ptr noundef %41, i32 noundef 100) #8, !dbg !43
  br label %42, !dbg !43

42:                                               ; preds = %40, %29
  call void @_ZN4dim3C2Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %9, i32 noundef 2, i32 noundef 1, i32 noundef 1), !dbg !45
  call void @_ZN4dim3C2Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %10, i32 noundef 64, i32 noundef 1, i32 noundef 1), !dbg !46
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false), !dbg !47
  %43 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0, !dbg !47
  %44 = load i64, ptr %43, align 4, !dbg !47
  %45 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1, !dbg !47
  %46 = load i32, ptr %45, align 4, !dbg !47
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false), !dbg !47
  %47 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0, !dbg !47
  %48 = load i64, ptr %47, align 4, !dbg !47
  %49 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1, !dbg !47
  %50 = load i32, ptr %49, align 4, !dbg !47
  %51 = call i32 @__cudaPushCallConfiguration(i64 %44, i32 %46, i64 %48, i32 %50, i64 noundef 0, ptr noundef null), !dbg !47
  %52 = icmp ne i32 %51, 0, !dbg !47
  br i1 %52, label %55, label %53, !dbg !48

53:                                               ; preds = %42
  %54 = load ptr, ptr %3, align 8, !dbg !49, !tbaa !17
  call void @_Z21__device_stub__squarePii(ptr noundef %54, i32 noundef 100) #8, !dbg !48
  br label %55, !dbg !48

55:                                               ; preds = %53, %42
  %56 = call i32 @cudaDeviceSynchronize(), !dbg !50
  call void @llvm.lifetime.start.p0(ptr %13) #7, !dbg !51
  store i64 0, ptr %13, align 8, !dbg !52, !tbaa !53
  call void @llvm.lifetime.start.p0(ptr %14) #7, !dbg !55
  store i32 0, ptr %14, align 4, !dbg !56, !tbaa !10
  br label %57, !dbg !55

57:                                               ; preds = %70, %55
  %58 = load i32, ptr %14, align 4, !dbg !57, !tbaa !10
  %59 = icmp slt i32 %58, 100, !dbg !58
  br i1 %59, label %61, label %60, !dbg !59

60:                                               ; preds = %57
  call void @llvm.lifetime.end.p0(ptr %14) #7, !dbg !59
  br label %73

61:                                               ; preds = %57
  %62 = load ptr, ptr %3, align 8, !dbg !60, !tbaa !17
  %63 = load i32, ptr %14, align 4, !dbg !61, !tbaa !10
  %64 = sext i32 %63 to i64, !dbg !60
  %65 = getelementptr inbounds i32, ptr %62, i64 %64, !dbg !60
  %66 = load i32, ptr %65, align 4, !dbg !60, !tbaa !10
  %67 = sext i32 %66 to i64, !dbg !60
  %68 = load i64, ptr %13, align 8, !dbg !62, !tbaa !53
  %69 = add nsw i64 %68, %67, !dbg !62
  store i64 %69, ptr %13, align 8, !dbg !62, !tbaa !53
  br label %70, !dbg !63

70:                                               ; preds = %61
  %71 = load i32, ptr %14, align 4, !dbg !64, !tbaa !10
  %72 = add nsw i32 %71, 1, !dbg !64
  store i32 %72, ptr %14, align 4, !dbg !64, !tbaa !10
  br label %57, !dbg !59, !llvm.loop !65

73:                                               ; preds = %60
  %74 = load ptr, ptr %3, align 8, !dbg !67, !tbaa !17
  %75 = getelementptr inbounds i32, ptr %74, i64 3, !dbg !67
  %76 = load i32, ptr %75, align 4, !dbg !67, !tbaa !10
  %77 = load i64, ptr %13, align 8, !dbg !68, !tbaa !53
  %78 = load i32, ptr @calls, align 4, !dbg !69, !tbaa !10
  %79 = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %76, i64 noundef %77, i32 noundef %78), !dbg !70
  %80 = load ptr, ptr %3, align 8, !dbg !71, !tbaa !17
  %81 = call i32 @cudaFree(ptr noundef %80), !dbg !72
  call void @llvm.lifetime.end.p0(ptr %13) #7, !dbg !73
  call void @llvm.lifetime.end.p0(ptr %3) #7, !dbg !73
  call void @llvm.lifetime.end.p0(ptr %2) #7, !dbg !73
  ret i32 0, !dbg !74
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #3

; Function Attrs: inlinehint mustprogress nounwind uwtable
define internal noundef i32 @_ZL17cudaMallocManagedIiE9cudaErrorPPT_mj(ptr noundef %0, i64 noundef %1, i32 noundef %2) #4 !dbg !75 {
  %4 = alloca ptr, align 8
  %5 = alloca i64, align 8
  %6 = alloca i32, align 4
  store ptr %0, ptr %4, align 8, !tbaa !77
  store i64 %1, ptr %5, align 8, !tbaa !53
  store i32 %2, ptr %6, align 4, !tbaa !10
  %7 = load ptr, ptr %4, align 8, !dbg !80, !tbaa !77
  %8 = load i64, ptr %5, align 8, !dbg !81, !tbaa !53
  %9 = load i32, ptr %6, align 4, !dbg !82, !tbaa !10
  %10 = call i32 @cudaMallocManaged(ptr noundef %7, i64 noundef %8, i32 noundef %9), !dbg !83
  ret i32 %10, !dbg !84
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #3

declare !dbg !85 i32 @__cudaPushCallConfiguration(i64, i32, i64, i32, i64 noundef, ptr noundef) #5

; Function Attrs: mustprogress nounwind uwtable
define linkonce_odr dso_local void @_ZN4dim3C2Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %0, i32 noundef %1, i32 noundef %2, i32 noundef %3) unnamed_addr #6 comdat align 2 !dbg !87 {
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  store ptr %0, ptr %5, align 8, !tbaa !89
  store i32 %1, ptr %6, align 4, !tbaa !10
  store i32 %2, ptr %7, align 4, !tbaa !10
  store i32 %3, ptr %8, align 4, !tbaa !10
  %9 = load ptr, ptr %5, align 8
  %10 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 0, !dbg !91
  %11 = load i32, ptr %6, align 4, !dbg !92, !tbaa !10
  store i32 %11, ptr %10, align 4, !dbg !91, !tbaa !93
  %12 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 1, !dbg !95
  %13 = load i32, ptr %7, align 4, !dbg !96, !tbaa !10
  store i32 %13, ptr %12, align 4, !dbg !95, !tbaa !97
  %14 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 2, !dbg !98
  %15 = load i32, ptr %8, align 4, !dbg !99, !tbaa !10
  store i32 %15, ptr %14, align 4, !dbg !98, !tbaa !100
  ret void, !dbg !101
}

declare !dbg !102 i32 @cudaDeviceSynchronize() #5

declare !dbg !104 i32 @printf(ptr noundef, ...) #5

declare !dbg !106 i32 @cudaFree(ptr noundef) #5

declare !dbg !107 i32 @cudaMallocManaged(ptr noundef, i64 noundef, i32 noundef) #5

attributes #0 = { mustprogress norecurse nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress norecurse nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #4 = { inlinehint mustprogress nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { mustprogress nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #7 = { nounwind }
attributes #8 = { "uniform-work-group-size"="true" }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5, !6}
!llvm.dbg.cu = !{!7}
!llvm.ident = !{!9}
!llvm.errno.tbaa = !{!10}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 9]}
!1 = !{i32 7, !"Dwarf Version", i32 5}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 1, !"wchar_size", i32 4}
!4 = !{i32 8, !"PIC Level", i32 2}
!5 = !{i32 7, !"PIE Level", i32 2}
!6 = !{i32 7, !"uwtable", i32 2}
!7 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !8, producer: "clang version 22.1.8", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!8 = !DIFile(filename: "tests/programs/managed.cu", directory: "/work/main", checksumkind: CSK_MD5, checksum: "9609dfc0063ef2c18cea975ce2f2ed12")
!9 = !{!"clang version 22.1.8"}
!10 = !{!11, !11, i64 0}
!11 = !{!"int", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C++ TBAA"}
!14 = distinct !DISubprogram(name: "square", scope: !8, file: !8, line: 7, type: !15, scopeLine: 7, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7)
!15 = !DISubroutineType(types: !16)
!16 = !{}
!17 = !{!18, !18, i64 0}
!18 = !{!"p1 int", !19, i64 0}
!19 = !{!"any pointer", !12, i64 0}
!20 = !DILocation(line: 7, column: 42, scope: !14)
!21 = !DILocation(line: 11, column: 1, scope: !14)
!22 = distinct !DISubprogram(name: "main", scope: !8, file: !8, line: 13, type: !15, scopeLine: 13, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7)
!23 = !DILocation(line: 14, column: 3, scope: !22)
!24 = !DILocation(line: 14, column: 13, scope: !22)
!25 = !DILocation(line: 15, column: 3, scope: !22)
!26 = !DILocation(line: 16, column: 3, scope: !22)
!27 = !DILocation(line: 17, column: 8, scope: !22)
!28 = !DILocation(line: 17, column: 12, scope: !22)
!29 = !DILocation(line: 17, column: 19, scope: !22)
!30 = !DILocation(line: 17, column: 21, scope: !22)
!31 = !DILocation(line: 17, column: 3, scope: !22)
!32 = !DILocation(line: 17, column: 41, scope: !22)
!33 = !DILocation(line: 17, column: 31, scope: !22)
!34 = !DILocation(line: 17, column: 36, scope: !22)
!35 = !DILocation(line: 17, column: 39, scope: !22)
!36 = !DILocation(line: 17, column: 26, scope: !22)
!37 = distinct !{!37, !31, !32, !38, !39}
!38 = !{!"llvm.loop.mustprogress"}
!39 = !{!"llvm.loop.unroll.disable"}
!40 = !DILocation(line: 18, column: 12, scope: !22)
!41 = !DILocation(line: 18, column: 15, scope: !22)
!42 = !DILocation(line: 18, column: 9, scope: !22)
!43 = !DILocation(line: 18, column: 3, scope: !22)
!44 = !DILocation(line: 18, column: 21, scope: !22)
!45 = !DILocation(line: 19, column: 12, scope: !22)
!46 = !DILocation(line: 19, column: 15, scope: !22)
!47 = !DILocation(line: 19, column: 9, scope: !22)
!48 = !DILocation(line: 19, column: 3, scope: !22)
!49 = !DILocation(line: 19, column: 21, scope: !22)
!50 = !DILocation(line: 20, column: 3, scope: !22)
!51 = !DILocation(line: 21, column: 3, scope: !22)
!52 = !DILocation(line: 21, column: 8, scope: !22)
!53 = !{!54, !54, i64 0}
!54 = !{!"long", !12, i64 0}
!55 = !DILocation(line: 22, column: 8, scope: !22)
!56 = !DILocation(line: 22, column: 12, scope: !22)
!57 = !DILocation(line: 22, column: 19, scope: !22)
!58 = !DILocation(line: 22, column: 21, scope: !22)
!59 = !DILocation(line: 22, column: 3, scope: !22)
!60 = !DILocation(line: 22, column: 40, scope: !22)
!61 = !DILocation(line: 22, column: 45, scope: !22)
!62 = !DILocation(line: 22, column: 37, scope: !22)
!63 = !DILocation(line: 22, column: 31, scope: !22)
!64 = !DILocation(line: 22, column: 26, scope: !22)
!65 = distinct !{!65, !59, !66, !38, !39}
!66 = !DILocation(line: 22, column: 46, scope: !22)
!67 = !DILocation(line: 23, column: 51, scope: !22)
!68 = !DILocation(line: 23, column: 60, scope: !22)
!69 = !DILocation(line: 23, column: 67, scope: !22)
!70 = !DILocation(line: 23, column: 3, scope: !22)
!71 = !DILocation(line: 24, column: 12, scope: !22)
!72 = !DILocation(line: 24, column: 3, scope: !22)
!73 = !DILocation(line: 26, column: 1, scope: !22)
!74 = !DILocation(line: 25, column: 3, scope: !22)
!75 = distinct !DISubprogram(name: "cudaMallocManaged<int>", scope: !76, file: !76, line: 699, type: !15, scopeLine: 704, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !7)
!76 = !DIFile(filename: ".venv/lib/python3.11/site-packages/nvidia/cuda_runtime/include/cuda_runtime.h", directory: "/work/main", checksumkind: CSK_MD5, checksum: "2695a927ca25080b917ec43782c2d594")
!77 = !{!78, !78, i64 0}
!78 = !{!"p2 int", !79, i64 0}
!79 = !{!"any p2 pointer", !19, i64 0}
!80 = !DILocation(line: 705, column: 45, scope: !75)
!81 = !DILocation(line: 705, column: 53, scope: !75)
!82 = !DILocation(line: 705, column: 59, scope: !75)
!83 = !DILocation(line: 705, column: 10, scope: !75)
!84 = !DILocation(line: 705, column: 3, scope: !75)
!85 = !DISubprogram(name: "__cudaPushCallConfiguration", scope: !86, file: !86, line: 8, type: !15, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!86 = !DIFile(filename: "simulee/include/simulee/launch.h", directory: "/work/main", checksumkind: CSK_MD5, checksum: "412c4905210ecf4c01284748a60f5e90")
!87 = distinct !DISubprogram(name: "dim3", scope: !88, file: !88, line: 434, type: !15, scopeLine: 434, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7)
!88 = !DIFile(filename: ".venv/lib/python3.11/site-packages/nvidia/cuda_runtime/include/vector_types.h", directory: "/work/main", checksumkind: CSK_MD5, checksum: "70a06df3b865ee3bb0eee1802941d346")
!89 = !{!90, !90, i64 0}
!90 = !{!"p1 _ZTS4dim3", !19, i64 0}
!91 = !DILocation(line: 434, column: 105, scope: !87)
!92 = !DILocation(line: 434, column: 107, scope: !87)
!93 = !{!94, !11, i64 0}
!94 = !{!"_ZTS4dim3", !11, i64 0, !11, i64 4, !11, i64 8}
!95 = !DILocation(line: 434, column: 112, scope: !87)
!96 = !DILocation(line: 434, column: 114, scope: !87)
!97 = !{!94, !11, i64 4}
!98 = !DILocation(line: 434, column: 119, scope: !87)
!99 = !DILocation(line: 434, column: 121, scope: !87)
!100 = !{!94, !11, i64 8}
!101 = !DILocation(line: 434, column: 126, scope: !87)
!102 = !DISubprogram(name: "cudaDeviceSynchronize", scope: !103, file: !103, line: 356, type: !15, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!103 = !DIFile(filename: ".venv/lib/python3.11/site-packages/nvidia/cuda_runtime/include/cuda_runtime_api.h", directory: "/work/main", checksumkind: CSK_MD5, checksum: "78d4f4965a9ff4b953fd0efe7dc28885")
!104 = !DISubprogram(name: "printf", scope: !105, file: !105, line: 109, type: !15, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!105 = !DIFile(filename: ".venv/lib/python3.11/site-packages/ziglang/lib/libc/include/generic-musl/stdio.h", directory: "/work/main", checksumkind: CSK_MD5, checksum: "27c7818b08cdf131e272912be7682ce0")
!106 = !DISubprogram(name: "cudaFree", scope: !103, file: !103, line: 5646, type: !15, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!107 = !DISubprogram(name: "cudaMallocManaged", scope: !103, file: !103, line: 5442, type: !15, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
