; ModuleID = 'kernel'
source_filename = "kernel"
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"

%struct.RuntimeContext = type { ptr, ptr, i32, ptr, i32, ptr, ptr }

define ptx_kernel void @saxpy_c60_0_kernel_1_range_for(ptr byval(%struct.RuntimeContext) %context) {
entry:
  br label %body

final:                                            ; preds = %body
  ret void

body:                                             ; preds = %entry
  %0 = call ptr @RuntimeContext_get_runtime(ptr %context)
  %1 = call ptr @get_temporary_pointer(ptr %0, i64 0)
  %2 = load i32, ptr %1, align 4
  call void @gpu_parallel_range_for(ptr %context, i32 0, i32 %2, ptr null, ptr @function_body, ptr null, i64 1)
  br label %final
}

define internal void @function_body(ptr %0, ptr %1, i32 %2) {
allocs:
  %3 = alloca i32, align 4
  br label %entry

final:                                            ; preds = %function_body
  ret void

entry:                                            ; preds = %allocs
  br label %function_body

function_body:                                    ; preds = %entry
  store i32 %2, ptr %3, align 4
  %4 = load i32, ptr %3, align 4
  %5 = getelementptr %struct.RuntimeContext, ptr %0, i32 0, i32 0
  %6 = load ptr, ptr %5, align 8
  %7 = getelementptr { { { i32 }, ptr }, { { i32 }, ptr }, float }, ptr %6, i32 0, i32 2
  %8 = load float, ptr %7, align 4
  %9 = getelementptr %struct.RuntimeContext, ptr %0, i32 0, i32 0
  %10 = load ptr, ptr %9, align 8
  %11 = getelementptr { { { i32 }, ptr }, { { i32 }, ptr }, float }, ptr %10, i32 0, i32 0
  %12 = getelementptr { { i32 }, ptr }, ptr %11, i32 0, i32 1
  %13 = load ptr, ptr %12, align 8
  %14 = getelementptr { { i32 }, ptr }, ptr %11, i32 0, i32 0, i32 0
  %15 = load i32, ptr %14, align 4
  %16 = mul i32 0, %15
  %17 = add i32 %16, %4
  %18 = getelementptr float, ptr %13, i32 %17
  %19 = load float, ptr %18, align 4
  %20 = fmul reassoc ninf nsz afn float %8, %19
  %21 = getelementptr %struct.RuntimeContext, ptr %0, i32 0, i32 0
  %22 = load ptr, ptr %21, align 8
  %23 = getelementptr { { { i32 }, ptr }, { { i32 }, ptr }, float }, ptr %22, i32 0, i32 1
  %24 = getelementptr { { i32 }, ptr }, ptr %23, i32 0, i32 1
  %25 = load ptr, ptr %24, align 8
  %26 = getelementptr { { i32 }, ptr }, ptr %23, i32 0, i32 0, i32 0
  %27 = load i32, ptr %26, align 4
  %28 = mul i32 0, %27
  %29 = add i32 %28, %4
  %30 = getelementptr float, ptr %25, i32 %29
  %31 = load float, ptr %30, align 4
  %32 = fadd reassoc ninf nsz afn float %20, %31
  store float %32, ptr %30, align 4
  br label %final
}

; Function Attrs: alwaysinline mustprogress nounwind uwtable
declare ptr @RuntimeContext_get_runtime(ptr noundef) #0

; Function Attrs: alwaysinline mustprogress nounwind uwtable
declare ptr @get_temporary_pointer(ptr noundef, i64 noundef) #0

; Function Attrs: alwaysinline mustprogress nounwind uwtable
declare void @gpu_parallel_range_for(ptr noundef, i32 noundef, i32 noundef, ptr noundef, ptr noundef, ptr noundef, i64 noundef) #0

attributes #0 = { alwaysinline mustprogress nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

!nvvm.annotations = !{!0, !1, !2}

!0 = !{ptr @saxpy_c60_0_kernel_1_range_for, !"kernel", i32 1}
!1 = !{ptr @saxpy_c60_0_kernel_1_range_for, !"maxntidx", i32 128}
!2 = !{ptr @saxpy_c60_0_kernel_1_range_for, !"minctasm", i32 2}
