; ModuleID = 'kernel'
source_filename = "kernel"
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"

%struct.RuntimeContext = type { ptr, ptr, i32, ptr, i32, ptr, ptr }

define ptx_kernel void @saxpy_c60_0_kernel_0_serial(ptr byval(%struct.RuntimeContext) %context) {
entry:
  br label %body

final:                                            ; preds = %body
  ret void

body:                                             ; preds = %entry
  %0 = getelementptr %struct.RuntimeContext, ptr %context, i32 0, i32 0
  %1 = load ptr, ptr %0, align 8
  %2 = getelementptr { { { i32 }, ptr }, { { i32 }, ptr }, float }, ptr %1, i32 0, i32 0, i32 0, i32 0
  %3 = load i32, ptr %2, align 4
  %4 = call ptr @RuntimeContext_get_runtime(ptr %context)
  %5 = call ptr @get_temporary_pointer(ptr %4, i64 0)
  store i32 %3, ptr %5, align 4
  br label %final
}

; Function Attrs: alwaysinline mustprogress nounwind uwtable
declare ptr @RuntimeContext_get_runtime(ptr noundef) #0

; Function Attrs: alwaysinline mustprogress nounwind uwtable
declare ptr @get_temporary_pointer(ptr noundef, i64 noundef) #0

attributes #0 = { alwaysinline mustprogress nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

!nvvm.annotations = !{!0, !1, !2}

!0 = !{ptr @saxpy_c60_0_kernel_0_serial, !"kernel", i32 1}
!1 = !{ptr @saxpy_c60_0_kernel_0_serial, !"maxntidx", i32 1}
!2 = !{ptr @saxpy_c60_0_kernel_0_serial, !"minctasm", i32 2}
