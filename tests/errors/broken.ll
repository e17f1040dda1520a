; Uses a value it never defines: llvmlite rejects it.
define void @f(ptr %p) {
  store i32 %undefined, ptr %p
  ret void
}
