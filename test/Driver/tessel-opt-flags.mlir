// mlir-opt's printing and reporting flags in tessel-opt.
// RUN: tessel-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: tessel-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUGINFO
// RUN: tessel-opt %s --canonicalize --cse --mlir-print-ir-before-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: tessel-opt %s --canonicalize --cse --dump-pass-pipeline --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: tessel-opt %s --cse --emit-bytecode -o %t.mlirbc
// RUN: mlir-opt %t.mlirbc | FileCheck %s --check-prefix=BYTECODE
// RUN: not tessel-opt %s --emit-bytecode --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT
// Passes and pipelines run in command-line order, whatever mix of the two is given.
// RUN: tessel-opt %s --cse --pass-pipeline='builtin.module(canonicalize)' --symbol-dce --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not tessel-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// ORDER: Pass Manager with 3 passes:
// ORDER-NEXT: cse
// ORDER-NEXT: canonicalize
// ORDER-NEXT: symbol-dce
// TWO: error: more than one input file

// GENERIC: "func.func"() <{function_type = (i32) -> i32, sym_name = "twice"}>
// GENERIC: "arith.addi"(%arg0, %arg0)
// DEBUGINFO: arith.addi %arg0, %arg0 : i32 loc(#[[L:loc[0-9]*]])
// DEBUGINFO: #[[L]] = loc("{{.*}}tessel-opt-flags.mlir":[[@LINE+11]]:8)
// BEFORE: // -----// IR Dump Before canonicalize //----- //
// BEFORE: // -----// IR Dump Before cse //----- //
// REPORT: Pass Manager with 2 passes:
// REPORT: Execution time report
// REPORT: canonicalize
// REPORT: cse
// REPORT: (100.0%)  Total
// BYTECODE: func.func @twice
// SPLIT: error: --emit-bytecode writes one module; it cannot follow --split-input-file
func.func @twice(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
