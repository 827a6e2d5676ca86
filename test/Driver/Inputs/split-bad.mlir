func.func @first() { return }
// -----
func.func @second() { %x = arith.addi }
// -----
func.func @third() { return }
