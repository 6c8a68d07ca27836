// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// What MLIR's verifier refuses of a function's structure and xDSL's did not: argument and result
// attribute lists of another length than the signature's (the custom form pairs them with the
// arguments and dropped the rest: a function of two arguments printed with one; a longer list was
// an internal IndexError), and a branch to a region's entry block (whose label the printer leaves
// out, so the printed IR did not read back).

"func.func"() <{sym_name = "short_arg_attrs", function_type = (index, index) -> (), arg_attrs = [{qdot.divisibility = 16 : i64}]}> ({
^bb0(%a: index, %b: index):
  "func.return"() : () -> ()
}) : () -> ()
// CHECK: function-structure-invalid.mlir:[[# @LINE - 4]]:1: error: 'func.func' op arg_attrs has 1 entry for 2 arguments

// -----

"func.func"() <{sym_name = "long_arg_attrs", function_type = (index) -> (), arg_attrs = [{qdot.divisibility = 16 : i64}, {qdot.divisibility = 16 : i64}]}> ({
^bb0(%a: index):
  "func.return"() : () -> ()
}) : () -> ()
// CHECK: function-structure-invalid.mlir:[[# @LINE - 4]]:1: error: 'func.func' op arg_attrs has 2 entries for 1 argument

// -----

"func.func"() <{sym_name = "res_attrs_without_results", function_type = () -> (), res_attrs = [{qdot.x}]}> ({
  "func.return"() : () -> ()
}) : () -> ()
// CHECK: function-structure-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op res_attrs has 1 entry for 0 results

// -----

func.func @branch_to_entry() {
^bb0:
  cf.br ^bb0
}
// CHECK: function-structure-invalid.mlir:[[# @LINE - 2]]:3: error: 'cf.br' op the entry block of a region may not be the target of a branch
