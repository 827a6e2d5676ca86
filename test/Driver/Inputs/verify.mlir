func.func @f(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return %0 : i32
}
